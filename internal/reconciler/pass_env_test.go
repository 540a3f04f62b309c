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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
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
