package member

import "testing"

func TestOtherCluster(t *testing.T) {
	tests := []struct {
		name               string
		recorded, answered string
		want               bool
	}{
		{name: "the same cluster", recorded: "uid-a", answered: "uid-a", want: false},
		{name: "another cluster answers", recorded: "uid-a", answered: "uid-b", want: true},
		{name: "nothing recorded (credentials that could not read it, an older registration)", recorded: "", answered: "uid-b", want: false},
		{name: "the member does not say", recorded: "uid-a", answered: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OtherCluster(tt.recorded, tt.answered); got != tt.want {
				t.Errorf("OtherCluster(%q, %q) = %v, want %v", tt.recorded, tt.answered, got, tt.want)
			}
		})
	}
}
