package rollout

import (
	"errors"
	"reflect"
	"testing"
)

var regions = []string{"san-francisco", "new-york", "berlin"}

func TestPlan(t *testing.T) {
	tests := []struct {
		name          string
		clusters      []string
		stages        [][]string
		maxConcurrent int
		want          Order
	}{
		{
			name:     "without stages or a limit, one stage of everything",
			clusters: regions,
			want:     Order{Stages: [][]string{{"berlin", "new-york", "san-francisco"}}},
		},
		{
			name:     "a canary stage, then the rest",
			clusters: regions,
			stages:   [][]string{{"berlin"}, {"*"}},
			want:     Order{Stages: [][]string{{"berlin"}, {"new-york", "san-francisco"}}},
		},
		{
			name:     "the rest first, then a last stage",
			clusters: regions,
			stages:   [][]string{{"*"}, {"berlin"}},
			want:     Order{Stages: [][]string{{"new-york", "san-francisco"}, {"berlin"}}},
		},
		{
			name:     "the rest with a named cluster in one stage",
			clusters: []string{"san-francisco", "new-york", "berlin", "tokyo"},
			stages:   [][]string{{"berlin"}, {"tokyo", "*"}},
			want:     Order{Stages: [][]string{{"berlin"}, {"new-york", "san-francisco", "tokyo"}}},
		},
		{
			name:     "a stage's clusters are sorted whatever their order in the stage",
			clusters: regions,
			stages:   [][]string{{"san-francisco", "berlin", "new-york"}},
			want:     Order{Stages: [][]string{{"berlin", "new-york", "san-francisco"}}},
		},
		{
			name:          "max_concurrent 1 updates one cluster at a time, by name",
			clusters:      regions,
			maxConcurrent: 1,
			want:          Order{Stages: [][]string{{"berlin"}, {"new-york"}, {"san-francisco"}}},
		},
		{
			name:          "max_concurrent 2 splits three clusters into two and one",
			clusters:      regions,
			maxConcurrent: 2,
			want:          Order{Stages: [][]string{{"berlin", "new-york"}, {"san-francisco"}}},
		},
		{
			name:          "max_concurrent splits each stage on its own",
			clusters:      []string{"a", "b", "c", "d", "e"},
			stages:        [][]string{{"c"}, {"*"}},
			maxConcurrent: 3,
			want:          Order{Stages: [][]string{{"c"}, {"a", "b", "d"}, {"e"}}},
		},
		{
			name:          "max_concurrent above the number of clusters changes nothing",
			clusters:      regions,
			maxConcurrent: 10,
			want:          Order{Stages: [][]string{{"berlin", "new-york", "san-francisco"}}},
		},
		{
			name:     "a name that is not a placed cluster is left out and reported",
			clusters: regions,
			stages:   [][]string{{"berlin", "paris"}, {"*"}},
			want:     Order{Stages: [][]string{{"berlin"}, {"new-york", "san-francisco"}}, Unknown: []string{"paris"}},
		},
		{
			name:     "a stage with no placed cluster is dropped",
			clusters: []string{"new-york", "san-francisco"},
			stages:   [][]string{{"berlin"}, {"*"}},
			want:     Order{Stages: [][]string{{"new-york", "san-francisco"}}, Unknown: []string{"berlin"}},
		},
		{
			name:     "placed clusters no stage names go last when there is no \"*\"",
			clusters: []string{"san-francisco", "new-york", "berlin", "tokyo"},
			stages:   [][]string{{"berlin"}, {"new-york"}},
			want:     Order{Stages: [][]string{{"berlin"}, {"new-york"}, {"san-francisco", "tokyo"}}, Unstaged: []string{"san-francisco", "tokyo"}},
		},
		{
			name:     "a \"*\" with nothing left stands for nobody",
			clusters: regions,
			stages:   [][]string{{"berlin", "new-york", "san-francisco"}, {"*"}},
			want:     Order{Stages: [][]string{{"berlin", "new-york", "san-francisco"}}},
		},
		{
			name:   "no placed clusters",
			stages: [][]string{{"berlin"}, {"*"}},
			want:   Order{Unknown: []string{"berlin"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Plan(tt.clusters, tt.stages, tt.maxConcurrent)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Plan:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestValidateStages(t *testing.T) {
	tests := []struct {
		name   string
		stages [][]string
		want   []StageError
	}{
		{name: "a canary and the rest", stages: [][]string{{"berlin"}, {"*"}}},
		{name: "no stages", stages: nil},
		{
			name:   "a cluster named in two stages",
			stages: [][]string{{"berlin"}, {"new-york", "berlin"}},
			want: []StageError{{Stage: 1, Entry: 1,
				Message: `cluster "berlin" is in stages[0] already: a cluster is updated once, so name it in one stage`}},
		},
		{
			name:   "a cluster named twice in one stage",
			stages: [][]string{{"berlin", "berlin"}},
			want: []StageError{{Stage: 0, Entry: 1,
				Message: `cluster "berlin" is in stages[0] already: a cluster is updated once, so name it in one stage`}},
		},
		{
			name:   "two wildcards",
			stages: [][]string{{"*"}, {"berlin"}, {"*"}},
			want: []StageError{{Stage: 2, Entry: 0,
				Message: `"*" is in stages[0] already: it stands for every cluster no stage names, so it appears once`}},
		},
		{
			name:   "an empty stage and an empty name",
			stages: [][]string{{"berlin"}, {}, {"", "*"}},
			want: []StageError{
				{Stage: 1, Entry: -1, Message: `stages[1] is empty: name at least one cluster in it, or "*" for the clusters no stage names`},
				{Stage: 2, Entry: 0, Message: `stages[2] has an empty name: write a cluster's name, or "*" for the clusters no stage names`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidateStages(tt.stages); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ValidateStages:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestPlanRefusesInvalidStages(t *testing.T) {
	_, err := Plan(regions, [][]string{{"berlin"}, {"berlin", "*"}, {"*"}}, 0)
	var errs StageErrors
	if !errors.As(err, &errs) || len(errs) != 2 {
		t.Fatalf("Plan error = %v, want StageErrors with the duplicate cluster and the second \"*\"", err)
	}
	want := `cluster "berlin" is in stages[0] already: a cluster is updated once, so name it in one stage; ` +
		`"*" is in stages[1] already: it stands for every cluster no stage names, so it appears once`
	if err.Error() != want {
		t.Errorf("Plan error:\n got %s\nwant %s", err, want)
	}
}

func TestContinue(t *testing.T) {
	tests := []struct {
		name       string
		results    map[string]bool
		maxFailed  int
		wantOK     bool
		wantFailed []string
	}{
		{name: "every cluster passed", results: map[string]bool{"berlin": true, "new-york": true}, wantOK: true},
		{name: "nothing updated yet", wantOK: true},
		{name: "the canary failed with no failure allowed", results: map[string]bool{"berlin": false},
			wantFailed: []string{"berlin"}},
		{name: "one failure allowed and one failed", results: map[string]bool{"berlin": false, "new-york": true},
			maxFailed: 1, wantOK: true, wantFailed: []string{"berlin"}},
		{name: "failures of earlier stages count against the limit",
			results:   map[string]bool{"berlin": false, "new-york": true, "san-francisco": false},
			maxFailed: 1, wantFailed: []string{"berlin", "san-francisco"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, failed := Continue(tt.results, tt.maxFailed)
			if ok != tt.wantOK || !reflect.DeepEqual(failed, tt.wantFailed) {
				t.Errorf("Continue = %v, %v; want %v, %v", ok, failed, tt.wantOK, tt.wantFailed)
			}
		})
	}
}
