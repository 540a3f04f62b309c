/*
Copyright 2026 The forge-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package conditions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// TestApply covers which conditions each state leaves, with what status,
// reason and observedGeneration, and the kstatus tools compute from them.
func TestApply(t *testing.T) {
	cond := func(typ string, st metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: "msg", ObservedGeneration: 3}
	}
	tests := []struct {
		name    string
		summary Summary
		want    []metav1.Condition
		kstatus status.Status
	}{
		{"ready", Summary{State: Ready, Reason: forgev1.ReasonSynced, Message: "msg"},
			[]metav1.Condition{cond(forgev1.ConditionReady, metav1.ConditionTrue, forgev1.ReasonSynced)},
			status.CurrentStatus},
		{"waiting", Summary{State: Waiting, Reason: forgev1.ReasonParentNotFound, Message: "msg"},
			[]metav1.Condition{
				cond(forgev1.ConditionReady, metav1.ConditionFalse, forgev1.ReasonParentNotFound),
				cond(forgev1.ConditionReconciling, metav1.ConditionTrue, forgev1.ReasonParentNotFound)},
			status.InProgressStatus},
		{"stalled", Summary{State: Stalled, Reason: forgev1.ReasonRejected, Message: "msg"},
			[]metav1.Condition{
				cond(forgev1.ConditionReady, metav1.ConditionFalse, forgev1.ReasonRejected),
				cond(forgev1.ConditionStalled, metav1.ConditionTrue, forgev1.ReasonRejected)},
			status.FailedStatus},
		// Idle states are neither Reconciling nor Stalled, but Ready is not
		// True, so kstatus reads them (by the Ready condition) as InProgress.
		{"suspended", Summary{State: Idle, Reason: forgev1.ReasonSuspended, Message: "msg"},
			[]metav1.Condition{cond(forgev1.ConditionReady, metav1.ConditionUnknown, forgev1.ReasonSuspended)},
			status.InProgressStatus},
		{"observing drift", Summary{State: Idle, Reason: forgev1.ReasonDriftDetected, Message: "msg"},
			[]metav1.Condition{cond(forgev1.ConditionReady, metav1.ConditionFalse, forgev1.ReasonDriftDetected)},
			status.InProgressStatus},
	}
	ignoreTime := cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// From every earlier state, the result is the same.
			for _, from := range []State{Ready, Waiting, Stalled, Idle} {
				l := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
				Apply(l, 2, Summary{State: from, Reason: "Before", Message: "before"})
				Apply(l, 3, tt.summary)
				if diff := cmp.Diff(tt.want, l.Status.Conditions, ignoreTime, cmpopts.SortSlices(func(a, b metav1.Condition) bool { return a.Type < b.Type })); diff != "" {
					t.Errorf("from state %d: conditions (-want +got):\n%s", from, diff)
				}
				l.Status.ObservedGeneration = 3
				if got := kstatusOf(t, l); got != tt.kstatus {
					t.Errorf("from state %d: kstatus %s, want %s", from, got, tt.kstatus)
				}
			}
		})
	}
}

// TestApplyTransitionTime: lastTransitionTime moves only when a condition's
// status does, so a status written every pass does not churn.
func TestApplyTransitionTime(t *testing.T) {
	l := &forgev1.Label{}
	Apply(l, 1, Summary{State: Waiting, Reason: forgev1.ReasonForgeError, Message: "500"})
	old := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	for i := range l.Status.Conditions {
		l.Status.Conditions[i].LastTransitionTime = old
	}

	// Same statuses, other reason and generation: the times stay.
	Apply(l, 2, Summary{State: Waiting, Reason: forgev1.ReasonParentNotFound, Message: "404"})
	for _, c := range l.Status.Conditions {
		if !c.LastTransitionTime.Equal(&old) {
			t.Errorf("%s moved its lastTransitionTime without a status change", c.Type)
		}
		if c.Reason != forgev1.ReasonParentNotFound || c.ObservedGeneration != 2 {
			t.Errorf("%s not updated: %+v", c.Type, c)
		}
	}

	// Ready turns True: it moves, and Reconciling is gone.
	Apply(l, 2, Summary{State: Ready, Reason: forgev1.ReasonCreated, Message: "created"})
	if len(l.Status.Conditions) != 1 {
		t.Fatalf("conditions %+v, want Ready only", l.Status.Conditions)
	}
	if c := l.Status.Conditions[0]; c.LastTransitionTime.Equal(&old) {
		t.Errorf("Ready became True but kept its lastTransitionTime")
	}
}

func TestIsReadyAndReadyReason(t *testing.T) {
	l := &forgev1.Label{}
	if IsReady(l, 1) {
		t.Error("IsReady without conditions")
	}
	if r, m := ReadyReason(l); r != "" || m != "" {
		t.Errorf("ReadyReason without conditions = %q, %q", r, m)
	}
	Apply(l, 1, Summary{State: Ready, Reason: forgev1.ReasonSynced, Message: "ok"})
	if !IsReady(l, 1) {
		t.Error("not Ready for the generation it was applied for")
	}
	if IsReady(l, 2) {
		t.Error("Ready for a newer generation than observed")
	}
	if r, m := ReadyReason(l); r != forgev1.ReasonSynced || m != "ok" {
		t.Errorf("ReadyReason = %q, %q", r, m)
	}
	Apply(l, 1, Summary{State: Stalled, Reason: forgev1.ReasonConflict, Message: "two"})
	if IsReady(l, 1) {
		t.Error("Ready while stalled")
	}
}

func kstatusOf(t *testing.T, obj runtime.Object) status.Status {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: u})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}
