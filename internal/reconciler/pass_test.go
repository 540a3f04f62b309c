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
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestPass covers the loop's decisions, one pass each, as crossplane-runtime
// tests its managed reconciler: what the forge calls, the Ready condition,
// the Events and the marks say afterwards.
func TestPass(t *testing.T) {
	lostCreate := &forge.Error{Op: `create label "bug"`, Kind: forge.KindNetwork, Err: fmt.Errorf("connection reset by peer")}
	cases := map[string]struct {
		reason string
		ext    *fakeExternal
		obj    *forgev1.Label
		others []client.Object
		want   passResult
	}{
		"Created": {
			reason: "A forge object that does not exist is created, its id recorded, and a Normal Event says so.",
			ext:    &fakeExternal{created: Observation{Exists: true, ID: 7}},
			obj:    label(),
			want: passResult{Ready: `True Created: created label "bug" (id 7)`, ID: 7, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending)},
				Events: []string{`Normal Created created label "bug" (id 7)`}, Calls: []string{"Observe", "Create"}},
		},
		"CreatedAfterSettledMark": {
			reason: "A create over a settled mark writes a new one (the old replaces mark goes with it), and settles that.",
			ext:    &fakeExternal{created: Observation{Exists: true, ID: 8}},
			obj:    label(readyAt(7), settledMark(4)),
			want: passResult{Ready: `True Created: label "bug" was missing on the forge; created it again (id 8)`, ID: 8, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending)},
				Events: []string{`Normal Created label "bug" was missing on the forge; created it again (id 8)`}, Calls: []string{"Observe", "Create"}},
		},
		"CreatedAgain": {
			reason: "A forge object deleted outside the operator is created again, and the Event tells it was missing.",
			ext:    &fakeExternal{created: Observation{Exists: true, ID: 8}},
			obj:    label(readyAt(7)),
			want: passResult{Ready: `True Created: label "bug" was missing on the forge; created it again (id 8)`, ID: 8, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending)},
				Events: []string{`Normal Created label "bug" was missing on the forge; created it again (id 8)`}, Calls: []string{"Observe", "Create"}},
		},
		"Adopted": {
			reason: "An existing forge object is adopted and brought to the spec, not created again.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5, Diff: []string{"color"}}},
			obj:    label(),
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 5) and updated color`, ID: 5, Finalizer: true,
				Events: []string{`Normal Adopted adopted existing label "bug" (id 5) and updated color`}, Calls: []string{"Observe", "Update 5"}},
		},
		"DriftCorrected": {
			reason: "A Ready object changed on the forge is set back to the spec with a DriftCorrected Event.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5, Diff: []string{"color", "description"}}},
			obj:    label(readyAt(5)),
			want: passResult{Ready: `True DriftCorrected: label "bug" had been changed on the forge; set color, description back to the spec`,
				ID: 5, Finalizer: true, Calls: []string{"Observe", "Update 5"},
				Events: []string{`Normal DriftCorrected label "bug" had been changed on the forge; set color, description back to the spec`}},
		},
		"UpToDate": {
			reason: "An object that matches makes no write and no Event, and keeps the reason of the pass that made the change.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5)),
			want:   passResult{Ready: `True Created: created`, ID: 5, Finalizer: true, Calls: []string{"Observe"}},
		},
		"SettledMark": {
			reason: "A settled mark means nothing: no look-up as after a lost create, the replaced id is not deleted again, no write removes it.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), settledMark(4)),
			want: passResult{Ready: `True Created: created`, ID: 5, Finalizer: true, Calls: []string{"Observe"},
				Marks: []string{settledKey(markCreatePending), settledKey(markReplaces)}},
		},
		"Replaced": {
			reason: "A field the forge cannot change is applied by creating anew, then deleting the old object; the marks are settled once done.",
			ext: &fakeExternal{observe: Observation{Exists: true, ID: 5, Replace: true, ReplaceBecause: "secret"},
				created: Observation{Exists: true, ID: 6}},
			obj: label(readyAt(5)),
			want: passResult{Ready: `True Replaced: replaced label "bug": secret cannot be changed in place; id 5 -> 6`, ID: 6, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending), settledKey(markReplaces)},
				Events: []string{`Normal Replaced replaced label "bug": secret cannot be changed in place; id 5 -> 6`},
				Calls:  []string{"Observe", "Create", "Delete 5"}},
		},
		"ReplacedLeftover": {
			reason: "An object a replacement left behind (its delete failed) is deleted by the next pass.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 6}},
			obj:    label(readyAt(6), replacing("5"), pending("then")),
			want: passResult{Ready: `True Created: created`, ID: 6, Finalizer: true,
				Marks: []string{settledKey(markCreatePending), settledKey(markReplaces)},
				Calls: []string{"Connect pending", "Observe", "Delete 5"}},
		},
		"LostReplacement": {
			reason: "A replacing create whose response is lost keeps both marks pending: status still holds the old id.",
			ext: &fakeExternal{observe: Observation{Exists: true, ID: 5, Replace: true, ReplaceBecause: "secret"},
				createErr: lostCreate},
			obj: label(readyAt(5), settledMark(0)),
			want: passResult{Ready: `False ForgeError: create label "bug": connection reset by peer`, ID: 5, Finalizer: true,
				Marks:  []string{markCreatePending, markReplaces},
				Events: []string{`Warning ForgeError create label "bug": connection reset by peer`}, Calls: []string{"Observe", "Create"}},
		},
		"PendingKeptOnFailure": {
			reason: "A pass that fails settles nothing, even when it made no create: the mark stays pending.",
			ext:    &fakeExternal{observeErr: lostCreate},
			obj:    label(pending("then"), func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} }),
			want: passResult{Ready: `False ForgeError: create label "bug": connection reset by peer`, Finalizer: true,
				Marks:  []string{markCreatePending},
				Events: []string{`Warning ForgeError create label "bug": connection reset by peer`}, Calls: []string{"Connect pending", "Observe"}},
		},
		"LostCreate": {
			reason: "A create whose response is lost keeps the create-pending mark, so the next pass looks before creating.",
			ext:    &fakeExternal{createErr: lostCreate},
			obj:    label(),
			want: passResult{Ready: `False ForgeError: create label "bug": connection reset by peer`, Finalizer: true,
				Marks:  []string{markCreatePending},
				Events: []string{`Warning ForgeError create label "bug": connection reset by peer`}, Calls: []string{"Observe", "Create"}},
		},
		"LostCreateFound": {
			reason: "With the create-pending mark, the object found is the one the lost create made: Created, not Adopted, and the mark is settled.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 9}},
			obj:    label(pending("then"), func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} }),
			want: passResult{Ready: `True Created: found label "bug" (id 9), created by an earlier pass whose response was lost`, ID: 9, Finalizer: true,
				Marks:  []string{settledKey(markCreatePending)},
				Events: []string{`Normal Created found label "bug" (id 9), created by an earlier pass whose response was lost`},
				Calls:  []string{"Connect pending", "Observe"}},
		},
		"Deleted": {
			reason: "A deleted resource with deletionPolicy Delete deletes its forge object, then lets go.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Events: []string{`Normal Deleted deleted label "bug" on the forge`},
				Calls: []string{"Observe", "Delete 5"}},
		},
		"DeletedSettledReplacement": {
			reason: "Deleting after a settled replacement deletes the current object only: the replaced one is gone.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 6}},
			obj:    label(readyAt(6), settledMark(5), deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Events: []string{`Normal Deleted deleted label "bug" on the forge`},
				Calls: []string{"Observe", "Delete 6"}},
		},
		"DeletedPendingReplacement": {
			reason: "Deleting while a replacement is pending deletes the object found and the one being replaced.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 6}},
			obj: label(readyAt(6), pending("then"), replacing("5"),
				deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Events: []string{`Normal Deleted deleted label "bug" on the forge`},
				Calls: []string{"Connect pending", "Observe", "Delete 6", "Delete 5"}},
		},
		"DeletedPendingCreate": {
			reason: "A pending mark without an id means a create may have happened: deleting looks for its object and deletes it.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 9}},
			obj: label(pending("then"), func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} },
				deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Events: []string{`Normal Deleted deleted label "bug" on the forge`},
				Calls: []string{"Connect pending", "Observe", "Delete 9"}},
		},
		"DeletedSettledWithoutID": {
			reason: "A settled mark is no sign of a create: without a status.id the resource lets go without a forge call.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 9}},
			obj: label(settledMark(0), func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} },
				deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true},
		},
		"Orphaned": {
			reason: "A deleted resource with deletionPolicy Orphan leaves its forge object, makes no forge call, and says so.",
			ext:    &fakeExternal{},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyOrphan)),
			want:   passResult{Gone: true, Events: []string{`Normal Orphaned left label "bug" on the forge: deletionPolicy is Orphan`}},
		},
		"ObserveDrift": {
			reason: "managementPolicy Observe reports drift without correcting it, and holds no finalizer.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5, Diff: []string{"color"}}},
			obj:    label(func(l *forgev1.Label) { l.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve }),
			want: passResult{Ready: `False DriftDetected: the forge differs from the spec in color; managementPolicy Observe does not correct it`,
				ID: 5, Calls: []string{"Observe"}},
		},
		"ObserveMissing": {
			reason: "managementPolicy Observe never creates a missing object.",
			ext:    &fakeExternal{},
			obj:    label(func(l *forgev1.Label) { l.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve }),
			want: passResult{Ready: `False NotFound: label "bug" does not exist on the forge; managementPolicy Observe never creates it`,
				Calls: []string{"Observe"}},
		},
		"Suspended": {
			reason: "A suspended resource makes no forge call at all and says why.",
			ext:    &fakeExternal{},
			obj:    label(readyAt(5), func(l *forgev1.Label) { l.Spec.Suspend = true }),
			want: passResult{Ready: `Unknown Suspended: spec.suspend is true: no forge calls are made until it is set back to false`,
				ID: 5, Finalizer: true},
		},
		"ConflictByKey": {
			reason: "The younger of two resources for one forge name stalls with Conflict, naming the older; it reads the object (so that it holds it too) and writes nothing.",
			ext:    &fakeExternal{},
			obj:    label(),
			others: []client.Object{label(func(l *forgev1.Label) { l.Name, l.CreationTimestamp = "older", t0 })},
			want: passResult{Ready: `False Conflict: label "bug" is already managed by Label default/older; delete one of the two resources`,
				Stalled: true, Calls: []string{"Observe"},
				Events: []string{`Warning Conflict label "bug" is already managed by Label default/older; delete one of the two resources`}},
		},
		"ConflictAcrossNamespaces": {
			reason: "Holds are server-wide: an older resource of another namespace, under its own Forge for the same server, that has read the object holds it; the younger stalls saying so without naming it (tenants learn no names of each other's objects), keeps the id it saw and writes nothing.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5, Diff: []string{"color"}}},
			obj:    label(),
			others: []client.Object{forgeIn("team-b", "gitea-b", "https://forge.invalid/"),
				label(readyAt(5), func(l *forgev1.Label) {
					l.Namespace, l.Spec.ForgeRef.Name, l.CreationTimestamp = "team-b", "gitea-b", t0
				})},
			want: passResult{Ready: `False Conflict: label "bug" is already managed by a Label in another namespace; delete one of the two resources`,
				Stalled: true, ID: 5, Calls: []string{"Observe"},
				Events: []string{`Warning Conflict label "bug" is already managed by a Label in another namespace; delete one of the two resources`}},
		},
		"NoHoldOnAnotherServer": {
			reason: "A resource of another namespace whose Forge points at another server holds nothing here.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(),
			others: []client.Object{forgeIn("team-b", "gitea-b", "https://other.invalid"),
				label(readyAt(5), func(l *forgev1.Label) {
					l.Namespace, l.Spec.ForgeRef.Name, l.CreationTimestamp = "team-b", "gitea-b", t0
				})},
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 5)`, ID: 5, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{`Normal Adopted adopted existing label "bug" (id 5)`}},
		},
		"NoHoldUnseen": {
			reason: "An older resource under another Forge of the server that has never read the object (its credentials may not see it) holds nothing.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(),
			others: []client.Object{forgeIn("team-b", "gitea-b", "https://forge.invalid"),
				label(func(l *forgev1.Label) {
					l.Namespace, l.Spec.ForgeRef.Name, l.CreationTimestamp = "team-b", "gitea-b", t0
				})},
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (id 5)`, ID: 5, Finalizer: true, Calls: []string{"Observe"},
				Events: []string{`Normal Adopted adopted existing label "bug" (id 5)`}},
		},
		"DeleteLeavesWhatAnotherHolds": {
			reason: "Deleting the older of two holders (policy Delete) leaves the object to the younger, of another namespace, which the Event does not name: nothing is deleted.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyDelete)),
			others: []client.Object{forgeIn("team-b", "gitea-b", "https://forge.invalid"),
				label(readyAt(5), func(l *forgev1.Label) {
					l.Namespace, l.Spec.ForgeRef.Name, l.CreationTimestamp = "team-b", "gitea-b", metav1.NewTime(t1.Add(time.Hour))
				})},
			want: passResult{Gone: true, Events: []string{`Normal Orphaned left label "bug" on the forge: a Label in another namespace manages it too`}},
		},
		"DeleteSparesAnotherObjectOfTheName": {
			reason: "A resource whose object (status.id 5) is gone deletes nothing: the object now found under its name (id 6) is another one, which it never held.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 6}},
			obj:    label(readyAt(5), deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Calls: []string{"Observe"},
				Events: []string{`Normal Deleted deleted label "bug" on the forge`}},
		},
		"IdentityKeptWhenUpdateFails": {
			reason: "A pass that adopts an object and then fails still records its id, so that a later rename addresses that object.",
			ext: &fakeExternal{observe: Observation{Exists: true, ID: 5, Diff: []string{"members"}},
				updateErr: Stall(forgev1.ReasonUserNotFound, "user nobody does not exist")},
			obj: label(),
			want: passResult{Ready: `False UserNotFound: user nobody does not exist`, Stalled: true, ID: 5, Finalizer: true,
				Calls:  []string{"Observe", "Update 5"},
				Events: []string{`Warning UserNotFound user nobody does not exist`}},
		},
		"IdentityKeptWhenObserveRefuses": {
			reason: "An Observe that finds its object and stalls before any write (a token that may read it but not administer it) still records its id, and takes no finalizer: it never wrote to the forge.",
			ext: &fakeExternal{observe: Observation{Exists: true, ID: 5},
				observeErr: Stall(forgev1.ReasonUnauthorized, "the token may not administer it")},
			obj: label(),
			want: passResult{Ready: `False Unauthorized: the token may not administer it`, Stalled: true, ID: 5,
				Calls:  []string{"Observe"},
				Events: []string{`Warning Unauthorized the token may not administer it`}},
		},
		"IdentityKeptWhenCreateFailsAfterMaking": {
			reason: "A create that made the object and failed after it records the id it made; its create-pending mark stays, so the next pass looks first.",
			ext: &fakeExternal{created: Observation{Exists: true, ID: 7},
				createErr: Stall(forgev1.ReasonUserNotFound, "user nobody does not exist")},
			obj: label(),
			want: passResult{Ready: `False UserNotFound: user nobody does not exist`, Stalled: true, ID: 7, Finalizer: true,
				Marks:  []string{markCreatePending},
				Calls:  []string{"Observe", "Create"},
				Events: []string{`Warning UserNotFound user nobody does not exist`}},
		},
		"ConflictByID": {
			reason: "A resource that finds a forge object an older resource holds stalls with Conflict instead of adopting it, and takes no finalizer: it never wrote to the forge.",
			ext:    &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:    label(func(l *forgev1.Label) { l.Spec.Name = "other" }),
			others: []client.Object{label(readyAt(5), func(l *forgev1.Label) { l.Name, l.CreationTimestamp = "older", t0 })},
			want: passResult{Ready: `False Conflict: label "other" (id 5) is already managed by Label default/older; delete one of the two resources`,
				Stalled: true, ID: 5, Finalizer: false, Calls: []string{"Observe"},
				Events: []string{`Warning Conflict label "other" (id 5) is already managed by Label default/older; delete one of the two resources`}},
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

// TestPassWrites counts the pass's writes to the Kubernetes API: a first
// create costs the finalizer, the create-pending mark in status (before
// the create: status is the operator's own record), then the status that
// settles the mark; a create with the finalizer on, the mark and the
// status; an adoption the finalizer and the status; a pass at rest
// nothing, also with a settled mark. Marks an earlier version left in
// annotations cost one write to remove, and one more to move into status.
func TestPassWrites(t *testing.T) {
	withFinalizer := func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} }
	cases := map[string]struct {
		ext  *fakeExternal
		obj  client.Object
		want []string
	}{
		"create": {ext: &fakeExternal{created: Observation{Exists: true, ID: 7}}, obj: label(),
			want: []string{"metadata", "status", "status"}},
		"create again over a settled mark": {ext: &fakeExternal{created: Observation{Exists: true, ID: 8}}, obj: label(readyAt(7), settledMark(0)),
			want: []string{"status", "status"}},
		"replace": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 5, Replace: true, ReplaceBecause: "secret"},
			created: Observation{Exists: true, ID: 6}}, obj: label(readyAt(5)),
			want: []string{"status", "status"}},
		"lost create found": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 9}},
			obj: label(pending("then"), withFinalizer), want: []string{"status"}},
		"adopt": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 5}}, obj: label(),
			want: []string{"metadata", "status"}},
		"at rest": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 5}}, obj: label(readyAt(5)),
			want: nil},
		"at rest with a settled mark": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 5}}, obj: label(readyAt(5), settledMark(4)),
			want: nil},
		"at rest with a settled mark in annotations": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj: label(readyAt(5), annotated(forgev1.CreatePendingAnnotation, "earlier"),
				func(l *forgev1.Label) { l.Status.LastHandledCreatePending = "earlier" }),
			want: []string{"metadata"}},
		"a replacement's marks moved from annotations": {ext: &fakeExternal{observe: Observation{Exists: true, ID: 5}},
			obj:  label(readyAt(5), annotated(forgev1.CreatePendingAnnotation, "then"), annotated(forgev1.ReplacesAnnotation, "5")),
			want: []string{"status", "metadata", "status"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, writes := runPassCounting(t, tc.ext, tc.obj)
			if diff := cmp.Diff(tc.want, writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
		})
	}
}
