package registry

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

func TestProbedStatus(t *testing.T) {
	before := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := before.Add(time.Hour)
	at := func(tm time.Time) *metav1.Time { v := metav1.NewTime(tm); return &v }
	readySince := &kubeFedClusterStatus{
		Conditions: []clusterCondition{
			{Type: "Ready", Status: "True", LastProbeTime: metav1.NewTime(before), LastTransitionTime: at(before), Reason: member.ReasonReady},
			{Type: "Offline", Status: "False", LastProbeTime: metav1.NewTime(before), LastTransitionTime: at(before)},
		},
		KubernetesVersion: "v1.37.2",
	}
	ready := member.ProbeResult{Time: now, Ready: true, Reason: member.ReasonReady, Message: "ok", KubernetesVersion: "v1.37.2"}
	offline := member.ProbeResult{Time: now, Offline: true, Reason: member.ReasonNotReachable, Message: "refused"}

	tests := []struct {
		name              string
		recorded          *kubeFedClusterStatus
		probe             member.ProbeResult
		readyTransition   time.Time
		offlineTransition time.Time
		version           string
	}{
		{"first probe: both conditions change now", nil, ready, now, now, "v1.37.2"},
		{"the same health: the transitions stay", readySince, ready, before, before, "v1.37.2"},
		{"gone offline: both change, the version known before is kept", readySince, offline, now, now, "v1.37.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, health := probedStatus(tt.recorded, tt.probe)
			if len(status.Conditions) != 2 || status.Conditions[0].Type != "Ready" || status.Conditions[1].Type != "Offline" {
				t.Fatalf("conditions %+v, want Ready and Offline", status.Conditions)
			}
			for i, want := range []time.Time{tt.readyTransition, tt.offlineTransition} {
				c := status.Conditions[i]
				if !c.LastTransitionTime.Time.Equal(want) || !c.LastProbeTime.Time.Equal(now) {
					t.Errorf("%s: transition %v probe %v, want transition %v probe %v", c.Type, c.LastTransitionTime, c.LastProbeTime, want, now)
				}
			}
			if status.KubernetesVersion != tt.version || health.KubernetesVersion != tt.version {
				t.Errorf("version %q/%q, want %q", status.KubernetesVersion, health.KubernetesVersion, tt.version)
			}
			if health.Ready != tt.probe.Ready || health.Offline != tt.probe.Offline || health.Reason != tt.probe.Reason {
				t.Errorf("health %+v does not record the probe %+v", health, tt.probe)
			}
		})
	}
}

func TestRecordedRecently(t *testing.T) {
	probed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ready := member.ProbeResult{Ready: true, Reason: member.ReasonReady, Message: "ok", KubernetesVersion: "v1.37.2"}
	recorded := func(probe member.ProbeResult, at time.Time) *kubeFedClusterStatus {
		probe.Time = at
		status, _ := probedStatus(nil, probe)
		return &status
	}
	next := func(previous *kubeFedClusterStatus, probe member.ProbeResult, at time.Time) kubeFedClusterStatus {
		probe.Time = at
		status, _ := probedStatus(previous, probe)
		return status
	}
	offline := member.ProbeResult{Offline: true, Reason: member.ReasonNotReachable, Message: "refused"}
	otherMessage := ready
	otherMessage.Message = "ok, again"
	newer := ready
	newer.KubernetesVersion = "v1.38.0"
	tests := []struct {
		name     string
		recorded *kubeFedClusterStatus
		probe    member.ProbeResult
		after    time.Duration
		want     bool
	}{
		{"nothing recorded", nil, ready, time.Second, false},
		{"the same health, probed a second ago", recorded(ready, probed), ready, time.Second, true},
		{"the same health, probed a minute ago", recorded(ready, probed), ready, time.Minute, true},
		{"the same health, probed longer ago", recorded(ready, probed), ready, time.Minute + time.Second, false},
		{"gone offline", recorded(ready, probed), offline, time.Second, false},
		{"another message", recorded(ready, probed), otherMessage, time.Second, false},
		{"another version", recorded(ready, probed), newer, time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := recordedRecently(tt.recorded, next(tt.recorded, tt.probe, probed.Add(tt.after)), time.Minute)
			if got != tt.want {
				t.Errorf("recordedRecently = %v, want %v", got, tt.want)
			}
		})
	}
}
