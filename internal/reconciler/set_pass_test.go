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

package reconciler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// fakeSet is a set kind of Labels whose Sync answers what the case scripts.
type fakeSet struct {
	fakeKind
	ext *fakeSetExternal
}

func (k fakeSet) Key(*forgev1.Label) string { return "" }
func (k fakeSet) ConnectSet(context.Context, *forgev1.Label, *Pass) (SetExternal, error) {
	return k.ext, nil
}

type fakeSetExternal struct {
	calls   []string
	result  SetResult
	syncErr error
}

func (e *fakeSetExternal) Sync(_ context.Context, write bool) (SetResult, error) {
	e.calls = append(e.calls, fmt.Sprintf("Sync write=%t", write))
	return e.result, e.syncErr
}

func (e *fakeSetExternal) Remove(context.Context) (string, error) {
	e.calls = append(e.calls, "Remove")
	return "deleted 4 labels in 2 repositories", nil
}

// failedWith marks l as not Ready with reason, as an earlier pass left it.
func failedWith(reason string) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		l.Finalizers = []string{forgev1.Finalizer}
		l.Status.ObservedGeneration = l.Generation
		l.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: reason, Message: "earlier", ObservedGeneration: l.Generation, LastTransitionTime: t0}}
	}
}

// TestSetPass covers the loop's decisions for a kind that manages many
// forge objects (SetKind): one Sync per pass, the Ready condition from its
// members, one Normal Event per pass that changed something, and Warning
// Events only when the failing members change.
func TestSetPass(t *testing.T) {
	repos := func(r SetResult) SetResult {
		r.Noun, r.Nouns = "repository", "repositories"
		return r
	}
	conflict := MemberFailure{Member: "acme/api", Reason: forgev1.ReasonConflict, Message: `label "bug" is managed by Label default/bug`, Stall: true}
	forgeErr := MemberFailure{Member: "acme/web", Reason: forgev1.ReasonForgeError, Message: "list labels: 502"}
	observe := func(l *forgev1.Label) { l.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve }
	cases := map[string]struct {
		reason string
		ext    *fakeSetExternal
		obj    *forgev1.Label
		want   passResult
	}{
		"InSync": {
			reason: "A set whose members all match is Ready, with no Event and no status.id.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 3, InSync: 3})},
			obj:    label(),
			want:   passResult{Ready: "True Synced: 3 of 3 repositories in sync", Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"Changed": {
			reason: "A pass that wrote emits one Normal Event with the summary, and says it in Ready.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 3, InSync: 3, Changes: "2 repositories: created 4 labels"})},
			obj:    label(),
			want: passResult{Ready: "True Updated: 3 of 3 repositories in sync; 2 repositories: created 4 labels", Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Updated 2 repositories: created 4 labels"}},
		},
		"DriftCorrected": {
			reason: "Changes to a set that was Ready at this generation are drift corrected.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 1, InSync: 1, Changes: "1 repository: updated 1 label"})},
			obj:    label(readyAt(0)),
			want: passResult{Ready: "True DriftCorrected: 1 of 1 repository in sync; 1 repository: updated 1 label", Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal DriftCorrected 1 repository: updated 1 label"}},
		},
		"Stalled": {
			reason: "When every failure needs a user's change, the set stalls with the first failure's reason and a Warning.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, Failures: []MemberFailure{conflict}, FailuresChanged: true})},
			obj:    label(),
			want: passResult{Ready: `False Conflict: 1 of 2 repositories in sync; 1 failing: acme/api (Conflict)`,
				Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{`Warning Conflict 1 of 2 repositories in sync; 1 failing: acme/api: Conflict: label "bug" is managed by Label default/bug`}},
		},
		"FailuresUnchanged": {
			reason: "The same failures as before emit no Event again.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, Failures: []MemberFailure{conflict}})},
			obj:    label(failedWith(forgev1.ReasonConflict)),
			want: passResult{Ready: `False Conflict: 1 of 2 repositories in sync; 1 failing: acme/api (Conflict)`,
				Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"FailuresChanged": {
			reason: "Other failing members with the same reason emit a Warning again.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, Failures: []MemberFailure{conflict}, FailuresChanged: true})},
			obj:    label(failedWith(forgev1.ReasonConflict)),
			want: passResult{Ready: `False Conflict: 1 of 2 repositories in sync; 1 failing: acme/api (Conflict)`,
				Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{`Warning Conflict 1 of 2 repositories in sync; 1 failing: acme/api: Conflict: label "bug" is managed by Label default/bug`}},
		},
		"ChangedAndWaiting": {
			reason: "A pass that wrote in some members and failed in another emits both Events; a transient failure waits, not stalls.",
			ext: &fakeSetExternal{result: repos(SetResult{Members: 3, InSync: 1, Failures: []MemberFailure{conflict, forgeErr},
				FailuresChanged: true, Changes: "1 repository: created 2 labels"})},
			obj: label(),
			want: passResult{Ready: `False Conflict: 1 of 3 repositories in sync; 2 failing: acme/api (Conflict), acme/web (ForgeError)`,
				Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Updated 1 repository: created 2 labels",
					`Warning Conflict 1 of 3 repositories in sync; 2 failing: acme/api: Conflict: label "bug" is managed by Label default/bug; acme/web: ForgeError: list labels: 502`}},
		},
		"FailureWithoutReason": {
			reason: "A Ready set's member failing without a reason still takes Ready away, waiting with a reason: a condition without one is not written, and the last pass's Ready would stand.",
			ext: &fakeSetExternal{result: repos(SetResult{Members: 1, FailuresChanged: true,
				Failures: []MemberFailure{{Member: "acme", Message: "hook read gave no answer"}}})},
			obj: label(readyAt(0)),
			want: passResult{Ready: "False Progressing: 0 of 1 repository in sync; 1 failing: acme (Progressing)",
				Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Warning Progressing 0 of 1 repository in sync; 1 failing: acme: Progressing: hook read gave no answer"}},
		},
		"GaveWay": {
			reason: "A Sync that gave way to the forge's drift lane (its turn comes later) writes nothing: the Ready of the last check stands until the check comes back on its turn.",
			ext:    &fakeSetExternal{syncErr: &forge.TurnError{At: t0.Add(time.Hour)}},
			obj:    label(readyAt(0)),
			want:   passResult{Ready: "True Created: created", Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"Rejected": {
			reason: "An error of the whole set (a spec the forge cannot take) stalls it like any kind's.",
			ext:    &fakeSetExternal{syncErr: Stall(forgev1.ReasonRejected, "preserve: invalid")},
			obj:    label(),
			want: passResult{Ready: "False Rejected: preserve: invalid", Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Warning Rejected preserve: invalid"}},
		},
		"ObserveDrift": {
			reason: "Observe syncs without writing, holds no finalizer, and reports the members that differ.",
			ext: &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, FailuresChanged: true,
				Failures: []MemberFailure{{Member: "acme/web", Reason: forgev1.ReasonDriftDetected, Message: "create bug"}}})},
			obj: label(observe),
			want: passResult{Ready: "False DriftDetected: 1 of 2 repositories in sync; 1 failing: acme/web (DriftDetected)",
				Calls:  []string{"Sync write=false"},
				Events: []string{"Warning DriftDetected 1 of 2 repositories in sync; 1 failing: acme/web: DriftDetected: create bug"}},
		},
		"ObserveInSync": {
			reason: "Observe is Ready when every member matches.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 1, InSync: 1})},
			obj:    label(observe),
			want:   passResult{Ready: "True Observed: 1 of 1 repository in sync (observed, not managed)", Calls: []string{"Sync write=false"}},
		},
		"Suspended": {
			reason: "A suspended set makes no forge call.",
			ext:    &fakeSetExternal{},
			obj:    label(readyAt(0), func(l *forgev1.Label) { l.Spec.Suspend = true }),
			want: passResult{Ready: `Unknown Suspended: spec.suspend is true: no forge calls are made until it is set back to false`,
				Finalizer: true},
		},
		"Deleted": {
			reason: "deletionPolicy Delete removes the set's forge objects though it has no status.id, then lets go.",
			ext:    &fakeSetExternal{},
			obj:    label(readyAt(0), deleting(forgev1.DeletionPolicyDelete)),
			want:   passResult{Gone: true, Calls: []string{"Remove"}, Events: []string{"Normal Deleted deleted 4 labels in 2 repositories"}},
		},
		"Orphaned": {
			reason: "deletionPolicy Orphan leaves the set's forge objects, with no forge call, and says so.",
			ext:    &fakeSetExternal{},
			obj:    label(readyAt(0), deleting(forgev1.DeletionPolicyOrphan)),
			want:   passResult{Gone: true, Events: []string{`Normal Orphaned left label "bug" on the forge: deletionPolicy is Orphan`}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kind := fakeSet{ext: tc.ext}
			got, _ := runKindPass(t, kind, func() []string { return tc.ext.calls }, tc.obj)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
