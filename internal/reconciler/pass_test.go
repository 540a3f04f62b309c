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
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// fakeExternal is a forge object whose answers each case scripts; it
// records the calls the loop makes.
type fakeExternal struct {
	calls   []string
	observe Observation
	// observeErr, createErr, updateErr fail those calls when set (a
	// failed Create still returns created: what it made before failing).
	observeErr, createErr, updateErr error
	// created is what Create returns.
	created Observation
}

func (e *fakeExternal) Observe(context.Context) (Observation, error) {
	e.calls = append(e.calls, "Observe")
	return e.observe, e.observeErr
}

func (e *fakeExternal) Create(context.Context) (Observation, error) {
	e.calls = append(e.calls, "Create")
	return e.created, e.createErr
}

func (e *fakeExternal) Update(_ context.Context, obs Observation) error {
	if obs.ID == 0 && obs.Name != "" {
		e.calls = append(e.calls, "Update "+obs.Name)
		return e.updateErr
	}
	e.calls = append(e.calls, "Update "+strconv.FormatInt(obs.ID, 10))
	return e.updateErr
}

func (e *fakeExternal) Delete(_ context.Context, obs Observation) error {
	if obs.ID == 0 && obs.Name != "" {
		e.calls = append(e.calls, "Delete "+obs.Name)
		return nil
	}
	e.calls = append(e.calls, "Delete "+strconv.FormatInt(obs.ID, 10))
	return nil
}

// fakeKind is a kind of Labels keyed by spec.name whose forge object is ext.
type fakeKind struct{ ext *fakeExternal }

func (fakeKind) New() *forgev1.Label              { return &forgev1.Label{} }
func (fakeKind) NewList() client.ObjectList       { return &forgev1.LabelList{} }
func (fakeKind) Key(l *forgev1.Label) string      { return l.Spec.Name }
func (fakeKind) Describe(l *forgev1.Label) string { return fmt.Sprintf("label %q", l.Spec.Name) }
func (fakeKind) Secrets(*forgev1.Label) []string  { return nil }
func (k fakeKind) Connect(_ context.Context, _ *forgev1.Label, pass *Pass) (External, error) {
	if pass.Pending {
		k.ext.calls = append(k.ext.calls, "Connect pending")
	}
	return k.ext, nil
}

const ns = "default"

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 = metav1.NewTime(t0.Add(time.Minute))
)

// label is the resource of a case: Label "bug" (forge name "bug") of the Ready Forge "gitea".
func label(mutate ...func(*forgev1.Label)) *forgev1.Label {
	l := &forgev1.Label{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bug", Generation: 1, CreationTimestamp: t1},
		Spec: forgev1.LabelSpec{
			ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
			Name:        "bug",
			Color:       "aabbcc",
		},
	}
	for _, m := range mutate {
		m(l)
	}
	l.UID = types.UID("uid-" + l.Namespace + "/" + l.Name)
	return l
}

// readyAt marks l as Ready for its generation with forge object id, as a
// pass that created it would have left it.
func readyAt(id int64) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		l.Finalizers = []string{forgev1.Finalizer}
		l.Status.ID = id
		l.Status.ObservedGeneration = l.Generation
		l.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: forgev1.ReasonCreated, Message: "created", ObservedGeneration: l.Generation, LastTransitionTime: t0}}
	}
}

func annotated(key, value string) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		if l.Annotations == nil {
			l.Annotations = map[string]string{}
		}
		l.Annotations[key] = value
	}
}

// settledMark gives l a create-pending mark in status (with replaces,
// when not 0) that status.lastHandledCreatePending echoes: settled by an
// earlier pass.
func settledMark(replaces int64) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		l.Status.CreatePending, l.Status.LastHandledCreatePending = "earlier", "earlier"
		if replaces != 0 {
			l.Status.Replaces = strconv.FormatInt(replaces, 10)
		}
	}
}

// pending gives l a pending create-pending mark in status: written by the
// operator before a create whose outcome no pass recorded.
func pending(mark string) func(*forgev1.Label) {
	return func(l *forgev1.Label) { l.Status.CreatePending = mark }
}

// replacing records in l's status the object its pending create replaces.
func replacing(ref string) func(*forgev1.Label) {
	return func(l *forgev1.Label) { l.Status.Replaces = ref }
}

// The marks passResult shows, from status.
const (
	markCreatePending = "createPending"
	markReplaces      = "replaces"
)

// settledKey is how passResult shows a settled mark.
func settledKey(mark string) string { return mark + " settled" }

func deleting(policy forgev1.DeletionPolicy) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		l.Spec.DeletionPolicy = policy
		l.DeletionTimestamp = &t1
	}
}

// forgeIn is a Ready Forge ns/name for url, another tenant's.
func forgeIn(namespace, name, url string) *forgev1.Forge {
	f := notReadyForgeIn(namespace, name, url)
	f.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionTrue,
		Reason: forgev1.ReasonConnected, ObservedGeneration: 1, LastTransitionTime: t0}}
	return f
}

// notReadyForgeIn is a Forge ns/name for url whose connection fails (a
// token that does not work): it sees nothing on the server.
func notReadyForgeIn(namespace, name, url string) *forgev1.Forge {
	return &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Generation: 1},
		Spec:       forgev1.ForgeSpec{URL: url},
		Status: forgev1.ForgeStatus{Conditions: []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: forgev1.ReasonUnauthorized, ObservedGeneration: 1, LastTransitionTime: t0}}},
	}
}

// passResult is what a user sees after one pass: the resource's Ready
// condition, forge id, marks and finalizers, its Events, and the forge calls.
type passResult struct {
	Gone      bool
	Ready     string // "Status Reason: message"
	Stalled   bool
	ID        int64
	Name      string // status.externalName
	Finalizer bool
	// Shard is the resource's forge.forgeops.dev/shard label.
	Shard string
	// Annotations are the keys, sorted.
	Annotations []string
	// Marks are the create-pending and replaces marks status holds
	// (markCreatePending, markReplaces), ending in " settled" when
	// status.lastHandledCreatePending echoes the create-pending mark.
	Marks  []string
	Events []string
	Calls  []string
}

// runPass runs one Reconcile of Label "bug" among objs with ext as its forge object.
func runPass(t *testing.T, ext *fakeExternal, objs ...client.Object) passResult {
	t.Helper()
	got, _ := runPassCounting(t, ext, objs...)
	return got
}

// runPassCounting is runPass that also returns the pass's writes to the
// Kubernetes API ("metadata" or "status").
func runPassCounting(t *testing.T, ext *fakeExternal, objs ...client.Object) (passResult, []string) {
	t.Helper()
	return runKindPass(t, fakeKind{ext: ext}, func() []string { return ext.calls }, objs...)
}

// runKindPass runs one Reconcile of Label "bug" among objs for kind; calls
// returns the forge calls the kind saw. It returns what the pass left and
// its writes to the Kubernetes API ("metadata" or "status").
// forgeSpec is the spec of Forge "gitea" the passes of runPassIn use.
var forgeSpec = forgev1.ForgeSpec{URL: "https://forge.invalid",
	Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "token"}}}

func runKindPass(t *testing.T, kind Kind[*forgev1.Label], calls func() []string, objs ...client.Object) (passResult, []string) {
	t.Helper()
	return runPassIn(t, passEnv{}, kind, calls, objs...)
}

// passEnv is the manager a pass of runPassIn runs in: its shard, the
// shard label and creation time of Forge "gitea", and the shard its
// server's Lease names (none: no Lease).
type passEnv struct {
	shard, forgeShard, holder string
	forgeCreated              metav1.Time
	// managers are the shards whose leader-election Lease is held and
	// renewed; stopped those whose Lease is not renewed.
	managers, stopped []string
}

// leasesNS is the operator's namespace of the passes' shards.
const leasesNS = "forge-operator-system"

// runPassIn is runKindPass in the manager env describes.
func runPassIn(t *testing.T, env passEnv, kind Kind[*forgev1.Label], calls func() []string, objs ...client.Object) (passResult, []string) {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	forgeObj := &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gitea", Generation: 1, CreationTimestamp: env.forgeCreated},
		Spec:       *forgeSpec.DeepCopy(),
		Status: forgev1.ForgeStatus{ServerVersion: "1.26.0", Conditions: []metav1.Condition{{Type: forgev1.ConditionReady,
			Status: metav1.ConditionTrue, Reason: forgev1.ReasonConnected, ObservedGeneration: 1, LastTransitionTime: t0}}},
	}
	if env.forgeShard != "" {
		forgeObj.Labels = map[string]string{forgev1.ShardLabel: env.forgeShard}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "token"}, Data: map[string][]byte{"token": []byte("t")}}
	for _, m := range env.managers {
		objs = append(objs, electionLease(m, true))
	}
	for _, m := range env.stopped {
		objs = append(objs, electionLease(m, false))
	}
	if env.holder != "" {
		objs = append(objs, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leasesNS, Name: shards.ServerLeaseName(forge.ServerKey(forgeSpec.URL))},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &env.holder}})
	}
	b := fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(append([]client.Object{forgeObj, secret}, objs...)...).
		WithStatusSubresource(&forgev1.Label{}, &forgev1.Forge{})
	for name, fn := range indexers[*forgev1.Label](kind) {
		b = b.WithIndex(&forgev1.Label{}, name, fn)
	}
	var writes []string
	c := interceptor.NewClient(b.Build(), interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			writes = append(writes, "metadata")
			return c.Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes = append(writes, "metadata")
			return c.Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			writes = append(writes, sub)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	rec := events.NewFakeRecorder(10)
	opts := Options{Shards: shards.New(shards.Options{Shard: env.shard, Namespace: leasesNS}, c, c, c, nil)}.WithDefaults()
	r := &Reconciler[*forgev1.Label]{client: c, reader: c, kind: kind, kindName: "Label",
		pool: &connection.Pool{Reader: c}, status: StatusWriter{Client: c, Recorder: rec},
		opts: opts, backoff: NewBackoff(opts), schedule: newSchedule()}

	key := types.NamespacedName{Namespace: ns, Name: "bug"}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	got := passResult{Calls: calls()}
	close(rec.Events)
	for e := range rec.Events {
		got.Events = append(got.Events, e)
	}
	var l forgev1.Label
	if err := c.Get(context.Background(), key, &l); apierrors.IsNotFound(err) {
		got.Gone = true
		return got, writes
	} else if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(l.Status.Conditions, forgev1.ConditionReady); c != nil {
		got.Ready = fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	}
	got.Stalled = meta.IsStatusConditionTrue(l.Status.Conditions, forgev1.ConditionStalled)
	got.ID, got.Name = l.Status.ID, l.Status.ExternalName
	got.Finalizer = len(l.Finalizers) > 0
	got.Shard = l.Labels[forgev1.ShardLabel]
	for k := range l.Annotations {
		got.Annotations = append(got.Annotations, k)
	}
	slices.Sort(got.Annotations)
	settled := ""
	if l.Status.CreatePending == l.Status.LastHandledCreatePending {
		settled = " settled"
	}
	if l.Status.CreatePending != "" {
		got.Marks = append(got.Marks, markCreatePending+settled)
	}
	if l.Status.Replaces != "" {
		got.Marks = append(got.Marks, markReplaces+settled)
	}
	// A pass writes the status of its generation; one of another shard's
	// resource (shard_test.go) writes none.
	if (l.Status.ObservedGeneration != 0 || slices.Contains(writes, "status")) && l.Status.ObservedGeneration != l.Generation {
		t.Errorf("status.observedGeneration %d, want %d", l.Status.ObservedGeneration, l.Generation)
	}
	return got, writes
}

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
			want:   passResult{Ready: "True Synced: 3 repositories match the spec", Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"Changed": {
			reason: "A pass that wrote emits one Normal Event with the summary, and says it in Ready.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 3, InSync: 3, Changes: "2 repositories: created 4 labels"})},
			obj:    label(),
			want: passResult{Ready: "True Updated: 2 repositories: created 4 labels", Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Updated 2 repositories: created 4 labels"}},
		},
		"DriftCorrected": {
			reason: "Changes to a set that was Ready at this generation are drift corrected.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 1, InSync: 1, Changes: "1 repository: updated 1 label"})},
			obj:    label(readyAt(0)),
			want: passResult{Ready: "True DriftCorrected: 1 repository: updated 1 label", Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal DriftCorrected 1 repository: updated 1 label"}},
		},
		"Stalled": {
			reason: "When every failure needs a user's change, the set stalls with the first failure's reason and a Warning.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, Failures: []MemberFailure{conflict}, FailuresChanged: true})},
			obj:    label(),
			want: passResult{Ready: `False Conflict: 1 of 2 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug`,
				Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{`Warning Conflict 1 of 2 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug`}},
		},
		"FailuresUnchanged": {
			reason: "The same failures as before emit no Event again.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, Failures: []MemberFailure{conflict}})},
			obj:    label(failedWith(forgev1.ReasonConflict)),
			want: passResult{Ready: `False Conflict: 1 of 2 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug`,
				Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"FailuresChanged": {
			reason: "Other failing members with the same reason emit a Warning again.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 2, InSync: 1, Failures: []MemberFailure{conflict}, FailuresChanged: true})},
			obj:    label(failedWith(forgev1.ReasonConflict)),
			want: passResult{Ready: `False Conflict: 1 of 2 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug`,
				Stalled: true, Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{`Warning Conflict 1 of 2 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug`}},
		},
		"ChangedAndWaiting": {
			reason: "A pass that wrote in some members and failed in another emits both Events; a transient failure waits, not stalls.",
			ext: &fakeSetExternal{result: repos(SetResult{Members: 3, InSync: 1, Failures: []MemberFailure{conflict, forgeErr},
				FailuresChanged: true, Changes: "1 repository: created 2 labels"})},
			obj: label(),
			want: passResult{Ready: `False Conflict: 1 of 3 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug; acme/web: ForgeError: list labels: 502`,
				Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Updated 1 repository: created 2 labels",
					`Warning Conflict 1 of 3 repositories match the spec; failing: acme/api: Conflict: label "bug" is managed by Label default/bug; acme/web: ForgeError: list labels: 502`}},
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
			want: passResult{Ready: "False DriftDetected: 1 of 2 repositories match the spec; failing: acme/web: DriftDetected: create bug",
				Calls:  []string{"Sync write=false"},
				Events: []string{"Warning DriftDetected 1 of 2 repositories match the spec; failing: acme/web: DriftDetected: create bug"}},
		},
		"ObserveInSync": {
			reason: "Observe is Ready when every member matches.",
			ext:    &fakeSetExternal{result: repos(SetResult{Members: 1, InSync: 1})},
			obj:    label(observe),
			want:   passResult{Ready: "True Observed: 1 repository matches the spec (observed, not managed)", Calls: []string{"Sync write=false"}},
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
