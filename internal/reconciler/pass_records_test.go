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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestPassRecords covers what the loop trusts: only its own records in
// status. Annotations a user may write (the create-pending and replaces
// marks of earlier versions) hold nothing, block no one and delete
// nothing; marks an earlier version wrote, and that status vouches for,
// are moved into status on the first pass; a resource whose connection
// is not Ready holds only what its status recorded.
func TestPassRecords(t *testing.T) {
	handSet := func(l *forgev1.Label) {
		annotated(forgev1.CreatePendingAnnotation, "2026-01-01T00:00:00Z")(l)
		annotated(forgev1.ReplacesAnnotation, "9")(l)
	}
	dropped := `Warning AnnotationDropped removed forge.forgeops.dev/create-pending="2026-01-01T00:00:00Z", forge.forgeops.dev/replaces="9": ` +
		`the operator keeps these marks in status and no status record shows it wrote these, so they held, blocked and deleted nothing; ` +
		`if an earlier version was replacing an object when it stopped, delete the old object by hand`
	teamB := func(created metav1.Time, mutate ...func(*forgev1.Label)) *forgev1.Label {
		return label(append([]func(*forgev1.Label){func(l *forgev1.Label) {
			l.Namespace, l.Spec.ForgeRef.Name, l.CreationTimestamp = "team-b", "gitea-b", created
		}}, mutate...)...)
	}
	younger := metav1.NewTime(t1.Add(time.Hour))
	cases := map[string]struct {
		reason string
		ext    *fakeExternal
		obj    *forgev1.Label
		others []client.Object
		want   passResult
	}{
		"HandSetMarksDeleteNothing": {
			reason: "Hand-set create-pending and replaces annotations on a resource in sync make no forge write: the object they name is not deleted, no look-up is made; they are removed with a Warning.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), handSet),
			want: passResult{Ready: `True Created: created`, ID: 5, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{dropped}},
		},
		"HandSetMarksDeleteNothingOnDeletion": {
			reason: "Deleting a resource with hand-set marks deletes its own object only, not the one the replaces annotation names.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), handSet, deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Calls: []string{"Observe", "Delete 5"},
				Events: []string{dropped, `Normal Deleted deleted label "bug" on the forge`}},
		},
		"HandSetMarkIsNoCreate": {
			reason: "A hand-set create-pending mark is no create: the object found is adopted, not taken for one the operator made.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 9}},
			obj:    label(handSet),
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 9)`, ID: 9, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{dropped, `Normal Adopted adopted existing label "bug" (id 9)`}},
		},
		"HandSetMarkHoldsNothing": {
			reason: "An older resource of another tenant with a hand-set create-pending mark, under a Ready Forge of the server, holds nothing: the younger adopts the object.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(),
			others: []client.Object{forgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(t0, handSet)},
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 5)`, ID: 5, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{`Normal Adopted adopted existing label "bug" (id 5)`}},
		},
		"HandSetMarkKeepsNothing": {
			reason: "A younger resource of another tenant with a hand-set create-pending mark does not keep the object alive: deleting its holder deletes it.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyDelete)),
			others: []client.Object{notReadyForgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(younger, handSet)},
			want: passResult{Gone: true, Calls: []string{"Observe", "Delete 5"},
				Events: []string{`Normal Deleted deleted label "bug" on the forge`}},
		},
		"NotReadyPendingHoldsNothing": {
			reason: "A pending mark in the status of a resource whose connection is not Ready holds nothing: it cannot see the object.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(),
			others: []client.Object{notReadyForgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(t0, pending("then"))},
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 5)`, ID: 5, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{`Normal Adopted adopted existing label "bug" (id 5)`}},
		},
		"NotReadyPendingKeepsNothing": {
			reason: "Deleting the holder of an object deletes it though a younger resource under a connection that is not Ready has a pending mark for its name.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyDelete)),
			others: []client.Object{notReadyForgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(younger, pending("then"))},
			want: passResult{Gone: true, Calls: []string{"Observe", "Delete 5"},
				Events: []string{`Normal Deleted deleted label "bug" on the forge`}},
		},
		"ReadyPendingKeeps": {
			reason: "A pending mark in status under a Ready connection holds what its lost create may have made: deleting the other holder leaves it.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyDelete)),
			others: []client.Object{forgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(younger, pending("then"))},
			want:   passResult{Gone: true, Events: []string{`Normal Orphaned left label "bug" on the forge: a Label in another namespace manages it too`}},
		},
		"NotReadyHoldsRecordedID": {
			reason: "A resource whose connection is not Ready still holds the id its status recorded: the younger stalls in Conflict by id.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5, Diff: []string{"color"}}},
			obj:    label(),
			others: []client.Object{notReadyForgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(t0, readyAt(5))},
			want: passResult{Ready: `False Conflict: label "bug" (id 5) is already managed by a Label in another namespace; delete one of the two resources`,
				Stalled: true, ID: 5, Calls: []string{"Observe"},
				Events: []string{`Warning Conflict label "bug" (id 5) is already managed by a Label in another namespace; delete one of the two resources`}},
		},
		"NotReadyHoldsNoOtherObjectOfTheName": {
			reason: "A resource whose connection is not Ready holds no object of its name but the one its status recorded: another object of the name (id 6) is adopted.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 6}},
			obj:    label(),
			others: []client.Object{notReadyForgeIn("team-b", "gitea-b", "https://forge.invalid"), teamB(t0, readyAt(5))},
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 6)`, ID: 6, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{`Normal Adopted adopted existing label "bug" (id 6)`}},
		},
		"RefusedCreateSettles": {
			reason: "A create the forge refuses made nothing: its mark is settled at once, so it holds nothing while the resource stalls.",
			ext: &fakeExternal{createErr: &forge.Error{Op: `create label "bug"`, Kind: forge.KindForbidden, StatusCode: 403,
				Message: "user has no access"}},
			obj: label(),
			want: passResult{Ready: `False Unauthorized: create label "bug": 403 user has no access`, Stalled: true, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending)},
				Events: []string{`Warning Unauthorized create label "bug": 403 user has no access`}, Calls: []string{"Observe", "Create"}},
		},
		"RefusedCreateAfterLostKeepsMark": {
			reason: "A refused create under a mark an earlier lost create wrote keeps it pending: that create may have made the object.",
			ext: &fakeExternal{createErr: &forge.Error{Op: `create label "bug"`, Kind: forge.KindValidation, StatusCode: 422,
				Message: "invalid"}},
			obj: label(pending("then"), func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} }),
			want: passResult{Ready: `False Rejected: create label "bug": 422 invalid`, Stalled: true, Finalizer: true,
				Marks:  []string{markCreatePending},
				Events: []string{`Warning Rejected create label "bug": 422 invalid`}, Calls: []string{"Connect pending", "Observe", "Create"}},
		},
		"LegacyReplacementMoved": {
			reason: "A replacement an earlier version marked in annotations, whose status write was lost (status.id is still the replaced id), is moved into status and finished: the old object goes, no Warning.",
			ext: &fakeExternal{observe: Observation{Exists: true, ID: 5, Replace: true, ReplaceBecause: "secret"},
				created: Observation{Exists: true, ID: 6}},
			obj: label(readyAt(5), annotated(forgev1.CreatePendingAnnotation, "then"), annotated(forgev1.ReplacesAnnotation, "5")),
			want: passResult{Ready: `True Replaced: replaced label "bug": secret cannot be changed in place; id 5 -> 6`, ID: 6, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending), settledKey(markReplaces)},
				Events: []string{`Normal Replaced replaced label "bug": secret cannot be changed in place; id 5 -> 6`},
				Calls:  []string{"Connect pending", "Observe", "Create", "Delete 5"}},
		},
		"LegacySettledDropped": {
			reason: "A settled mark an earlier version left in annotations (status echoes it) means nothing: it is removed without a Warning.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj: label(readyAt(5), annotated(forgev1.CreatePendingAnnotation, "earlier"), annotated(forgev1.ReplacesAnnotation, "4"),
				func(l *forgev1.Label) { l.Status.LastHandledCreatePending = "earlier" }),
			want: passResult{Ready: `True Created: created`, ID: 5, Finalizer: true, Calls: []string{"Observe"}},
		},
		"LegacyPendingWithoutRecordDropped": {
			reason: "A pending mark with no status record to vouch for it cannot be told from a hand-set one: dropped with a Warning; the object is found and adopted.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 9}},
			obj:    label(annotated(forgev1.CreatePendingAnnotation, "then"), func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} }),
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 9)`, ID: 9, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{`Warning AnnotationDropped removed forge.forgeops.dev/create-pending="then": the operator keeps these marks in status and no status record shows it wrote these, so they held, blocked and deleted nothing`,
					`Normal Adopted adopted existing label "bug" (id 9)`}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := runPass(t, tc.ext, append([]client.Object{tc.obj}, tc.others...)...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
