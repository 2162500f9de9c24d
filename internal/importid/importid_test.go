package importid

import (
	"maps"
	"strings"
	"testing"
)

func TestSplitAndJoin(t *testing.T) {
	object := Format{Attributes: []string{"type", "namespace", "name"}, Optional: "namespace", Example: "configmaps/web/settings"}
	cases := []struct {
		id      string
		want    map[string]string
		wantErr string
	}{
		{id: "configmaps/web/settings", want: map[string]string{"type": "configmaps", "namespace": "web", "name": "settings"}},
		{id: "namespaces/web", want: map[string]string{"type": "namespaces", "name": "web"}},
		{id: "a/b/c/d", wantErr: "<type>/<namespace>/<name> or <type>/<name>, such as configmaps/web/settings"},
		{id: "configmaps//settings", wantErr: "has an empty namespace"},
		{id: "", wantErr: "is not an id"},
	}
	for _, tc := range cases {
		got, err := object.Split(tc.id)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Split(%q) = %v, %v; want an error saying %q", tc.id, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %v, %v; want %v", tc.id, got, err, tc.want)
			continue
		}
		if back, err := object.Join(got); err != nil || back != tc.id {
			t.Errorf("Join(Split(%q)) = %q, %v", tc.id, back, err)
		}
	}
	if _, err := object.Join(map[string]string{"type": "configmaps", "name": "a/b"}); err == nil || !strings.Contains(err.Error(), `holds a "/"`) {
		t.Errorf("Join of a name with a slash: %v, want an error", err)
	}
}
