package objectset

import (
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// judgeRecord decides whether a create completes, takes over or refuses
// the host record it finds.
func TestJudgeRecord(t *testing.T) {
	const ours, theirs = "sha256:ours", "sha256:theirs"
	unfinished := func(digest string) *registry.FederatedObject {
		return &registry.FederatedObject{Incomplete: true, CreatedFrom: digest}
	}
	tests := []struct {
		name   string
		record *registry.FederatedObject
		held   bool
		want   recordVerdict
	}{
		{name: "nothing in the host: create", record: nil, want: recordAbsent},
		{name: "a create of this content cut off after its host write: complete it", record: unfinished(ours), want: recordResumed},
		{name: "the same content, the run's state holding it (tainted): replace it", record: unfinished(ours), held: true, want: recordReplaced},
		{name: "a finished record: refuse, whoever wrote it", record: &registry.FederatedObject{CreatedFrom: ours}, want: recordForeign},
		{name: "a finished record the run's state holds: still refused, a create does not overwrite it",
			record: &registry.FederatedObject{}, held: true, want: recordForeign},
		{name: "an unfinished create of other content: refuse", record: unfinished(theirs), want: recordForeign},
		{name: "an unfinished create of other content that the run's state holds (a tainted create replaced): take it over",
			record: unfinished(theirs), held: true, want: recordReplaced},
		{name: "an unfinished mark of an older version, without a digest: refuse", record: unfinished("true"), want: recordForeign},
		{name: "an older version's mark on an object the run's state holds: take it over", record: unfinished("true"), held: true,
			want: recordReplaced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judgeRecord(tt.record, ours, tt.held); got != tt.want {
				t.Errorf("judgeRecord = %v, want %v", got, tt.want)
			}
		})
	}
}
