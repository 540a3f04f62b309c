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

// Package planning is plan's machinery: each kind's own Connect and
// Observe (or, for a set kind, its Sync without writing) run over a forge
// client that refuses every write and a reader of the cluster that reads
// only what plan may, and what they find mapped as the loop would decide
// (plan.Item). The list of kinds is not here: package controllers passes
// its registry's planners to Run (controllers.Plan). It serves package
// controllers; of the kinds' shared pieces it imports only secrets.
package planning

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// Env is what a plan works with.
type Env struct {
	// Forge is the forge's client; plan reaches it only through forge.ReadOnly.
	Forge *forge.Client
	// Server is what the forge is, from its reported version.
	Server forge.Server
	// WebURL is the forge's web root, for the URLs of its objects.
	WebURL string
	// Reader, when set, reads the Secrets the objects reference and the
	// resources as they are in the cluster (their status: forge ids and the
	// digests of secrets sent), in Namespace only. Without it Secret-backed
	// fields are unknown and every object is planned as new to the cluster.
	Reader    client.Reader
	Namespace string
	// DigestKey is the operator's secret digest key Secret, readable through
	// Reader to compare secrets with those last sent.
	DigestKey types.NamespacedName
}

// Kinds gives each kind's Planner by kind name ("LabelSet"), given the
// digests plan compares sent secrets with and every object being planned
// (a set's planner reads those that may claim what it would manage).
type Kinds func(digests *secretdigest.Digester, objs []*unstructured.Unstructured) map[string]Planner

// Run tells, per object of the kinds in objs, what the operator would do:
// it runs each kind's own Connect and Observe (the code the loop runs)
// over a forge client that refuses every write, and maps the observation
// as the loop would. Objects of other kinds are left out.
func Run(ctx context.Context, env Env, objs []*unstructured.Unstructured, kinds Kinds) []plan.Item {
	reader := planReader{r: env.Reader, ns: env.Namespace, key: env.DigestKey}
	st := &state{
		env:     env,
		fc:      forge.ReadOnly(env.Forge),
		reader:  reader,
		digests: secretdigest.New(reader, refusingWriter{}, env.DigestKey),
		keys:    map[string]string{},
		ids:     map[string]string{},
	}
	planners := kinds(st.digests, objs)
	// In a fixed order, so that of two resources claiming one forge object
	// the same one is reported as the conflict every time, as the loop
	// leaves the older (here: first by name) in charge.
	objs = slices.Clone(objs)
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return strings.Compare(a.GetKind()+"/"+a.GetNamespace()+"/"+a.GetName(), b.GetKind()+"/"+b.GetNamespace()+"/"+b.GetName())
	})
	var items []plan.Item
	for _, u := range objs {
		if u.GroupVersionKind().Group != forgev1.GroupVersion.Group {
			continue
		}
		p, ok := planners[u.GetKind()]
		if !ok {
			continue // the Forge itself, or a kind this version does not manage
		}
		it := p.plan(ctx, u.DeepCopy(), st)
		it.Kind, it.Namespace, it.Name = u.GetKind(), u.GetNamespace(), u.GetName()
		items = append(items, it)
	}
	return items
}

// state is one plan's: its clients and what it planned so far.
type state struct {
	env     Env
	fc      forge.Interface
	reader  planReader
	digests *secretdigest.Digester
	// keys and ids hold the object (namespace/name) planned first with a
	// natural key or forge id, per kind, namespace and Forge or ClusterForge.
	keys, ids map[string]string
}

// Planner plans the objects of one kind (ForKind, ForSet).
type Planner interface {
	plan(ctx context.Context, u *unstructured.Unstructured, st *state) plan.Item
}

// ForKind plans the objects of kind with its own Connect and Observe;
// creates is false for a kind whose objects the forge makes (runners).
func ForKind[T forgev1.Managed](kind reconciler.Kind[T], creates bool) Planner {
	return kindPlanner[T]{kind: kind, creates: creates}
}

// kindPlanner plans one object of kind T with T's own code.
type kindPlanner[T forgev1.Managed] struct {
	kind reconciler.Kind[T]
	// creates is false for kinds whose objects the forge makes (runners).
	creates bool
}

func (p kindPlanner[T]) plan(ctx context.Context, u *unstructured.Unstructured, st *state) plan.Item {
	if err := st.live(ctx, u); err != nil {
		return plan.Item{Action: plan.Error, Reason: err.Error()}
	}
	obj := p.kind.New()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true); err != nil {
		return plan.Item{Action: plan.Error, Reason: fmt.Sprintf("not a valid %s: %v", u.GetKind(), err)}
	}
	spec := obj.GetManagedSpec()
	if spec.Suspend {
		return plan.Item{Action: plan.InSync, Reason: "spec.suspend is true: the operator makes no forge calls"}
	}
	// Keyed by the reference's Key: a Forge and a ClusterForge of one name
	// are two connections, perhaps to two servers.
	scope := u.GetKind() + "|" + obj.GetNamespace() + "|" + spec.ForgeRef.Key() + "|"
	self := obj.GetNamespace() + "/" + obj.GetName()
	what := p.kind.Describe(obj)
	if key := p.kind.Key(obj); key != "" {
		if other, ok := st.keys[scope+key]; ok {
			return plan.Item{Action: plan.Conflict, Reason: fmt.Sprintf("%s is also managed by %s %s", what, u.GetKind(), other)}
		}
		st.keys[scope+key] = self
	}
	pass := (&reconciler.Pass{Forge: st.fc, Server: st.env.Server, WebURL: st.env.WebURL, Reader: st.reader}).
		WithClaimedBy(func(_ context.Context, id int64) (string, error) {
			if other := st.ids[fmt.Sprintf("%s%d", scope, id)]; other != self {
				return other, nil
			}
			return "", nil
		})
	// The release gates, as the loop asks them before the kind reads.
	if err := reconciler.Unsupported(obj, st.env.Server); err != nil {
		return p.failed(err)
	}
	ext, err := p.kind.Connect(ctx, obj, pass)
	if err != nil {
		return p.failed(err)
	}
	obs, err := ext.Observe(ctx)
	if err != nil {
		return p.failed(err)
	}
	it := plan.Item{Changes: changesOf(obs), PendingRemovals: pendingRemovals(obj)}
	if obs.Exists && obs.ID != 0 {
		idKey := fmt.Sprintf("%s%d", scope, obs.ID)
		if other, ok := st.ids[idKey]; ok && other != self {
			return plan.Item{Action: plan.Conflict, Reason: fmt.Sprintf("%s (id %d) is also managed by %s %s", what, obs.ID, u.GetKind(), other)}
		}
		st.ids[idKey] = self
	}
	if spec.ManagementPolicy == forgev1.ManagementPolicyObserve {
		it.Action, it.Reason = plan.InSync, "managementPolicy Observe: the operator never changes the forge object"
		return it
	}
	// What the loop would decide (reconciler.Decide), unless a field plan
	// could not read leaves it open.
	decision := reconciler.Decide(obs)
	var unknown string
	if n, ok := any(p.kind).(unknownNoter); ok && len(obs.Unknown) > 0 {
		unknown = n.UnknownNote(decision, obs.Unknown)
	}
	switch {
	case unknown != "":
		it.Action, it.Reason = plan.Unknown, unknown
		if decision == reconciler.Create {
			it.Changes = nil // whether the object is there at all is what is unknown
		}
	case decision == reconciler.Create:
		it.Action = plan.Create
		if n, ok := any(p.kind).(createNoter[T]); ok {
			it.Reason = n.CreateNote(obj)
		}
	case decision == reconciler.Replace:
		it.Action, it.Reason = plan.Replace, obs.ReplaceBecause+" cannot be changed in place"
	case decision == reconciler.Update:
		it.Action = plan.Update
	default:
		it.Action = plan.InSync
	}
	return it
}

// createNoter is a kind that says how it would create an object (a
// repository from a template), for plan's reason.
type createNoter[T forgev1.Managed] interface {
	CreateNote(obj T) string
}

// unknownNoter is a kind some of whose objects plan cannot judge while a
// field it could not read is unknown: the field the object is found by
// (a hook's URL) or the one that is the object (an Actions value, a
// registration token). Other unknown fields are only listed as changes.
type unknownNoter interface {
	// UnknownNote says why plan cannot tell what the operator would do
	// when the loop decides d with the fields unknown unread; "" when it can.
	UnknownNote(d reconciler.Action, unknown []string) string
}

// failed maps an error of Connect or Observe as the loop classifies it.
func (p kindPlanner[T]) failed(err error) plan.Item { return planFailed(err, p.creates) }

// planFailed maps an error of a kind's pass as the loop classifies it;
// creates says the operator would create the object once its parent exists.
func planFailed(err error, creates bool) plan.Item {
	c, ok := reconciler.Classify(err)
	switch {
	case !ok:
		return plan.Item{Action: plan.Error, Reason: err.Error()}
	case c.Reason == forgev1.ReasonConflict:
		return plan.Item{Action: plan.Conflict, Reason: c.Message}
	case c.Reason == forgev1.ReasonParentNotFound && creates:
		// The operator waits for the organization or repository, then creates.
		return plan.Item{Action: plan.Create, Reason: c.Message}
	}
	return plan.Item{Action: plan.Error, Reason: c.Message}
}

// pendingRemovals are the removals obj's pass left in its status
// (removals Report), as the loop would record them; none of a kind
// without the field.
func pendingRemovals(obj client.Object) *forgev1.PendingRemovals {
	p, err := reconciler.PendingRemovalsIn(obj)
	if err != nil {
		return nil // a kind's own status always converts
	}
	return p
}

func changesOf(obs reconciler.Observation) []plan.Change {
	var out []plan.Change
	for _, c := range obs.Changes {
		out = append(out, plan.Change{Field: c.Field, Forge: c.Have, Spec: c.Want})
	}
	for _, f := range obs.Unknown {
		out = append(out, plan.Change{Field: f, Forge: secrets.Shown, Spec: plan.UnknownValue})
	}
	slices.SortStableFunc(out, func(a, b plan.Change) int { return strings.Compare(a.Field, b.Field) })
	return out
}

// live puts the status (forge id, secrets sent) and UID of the resource as
// it is in the cluster into u, so that it is planned as the operator would
// see it; nothing when plan has no cluster or the resource is not there.
func (st *state) live(ctx context.Context, u *unstructured.Unstructured) error {
	if st.env.Reader == nil || u.GetNamespace() != st.env.Namespace {
		return nil
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(u.GroupVersionKind())
	err := st.env.Reader.Get(ctx, types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}, cur)
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("read %s %s/%s from the cluster: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	if err != nil {
		return nil
	}
	delete(u.Object, "status")
	if status, ok := cur.Object["status"]; ok {
		u.Object["status"] = status
	}
	u.SetUID(cur.GetUID())
	return nil
}

// planReader reads through r only in namespace ns and the digest key
// Secret; everything else is reconciler.ErrUnreadable, which the kinds
// report as unknown fields.
type planReader struct {
	r   client.Reader
	ns  string
	key types.NamespacedName
}

func (p planReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	digestKey := p.key.Name != "" && key == p.key
	if p.r == nil || (key.Namespace != p.ns && !digestKey) {
		return fmt.Errorf("%s: %w", key, reconciler.ErrUnreadable)
	}
	err := p.r.Get(ctx, key, obj, opts...)
	if digestKey && err != nil && !apierrors.IsNotFound(err) {
		// Often outside the namespace the user may read: compare without it.
		return fmt.Errorf("%v: %w", err, reconciler.ErrUnreadable)
	}
	return err
}

func (p planReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return fmt.Errorf("list: %w", reconciler.ErrUnreadable)
}

// refusingWriter is the digest key's writer in a plan: plan never creates
// the key, and without it the secrets cannot be compared.
type refusingWriter struct{}

func (refusingWriter) refuse() error {
	return fmt.Errorf("plan writes nothing to the cluster: %w", reconciler.ErrUnreadable)
}
func (w refusingWriter) Apply(context.Context, runtime.ApplyConfiguration, ...client.ApplyOption) error {
	return w.refuse()
}
func (w refusingWriter) Create(context.Context, client.Object, ...client.CreateOption) error {
	return w.refuse()
}
func (w refusingWriter) Delete(context.Context, client.Object, ...client.DeleteOption) error {
	return w.refuse()
}
func (w refusingWriter) Update(context.Context, client.Object, ...client.UpdateOption) error {
	return w.refuse()
}
func (w refusingWriter) Patch(context.Context, client.Object, client.Patch, ...client.PatchOption) error {
	return w.refuse()
}
func (w refusingWriter) DeleteAllOf(context.Context, client.Object, ...client.DeleteAllOfOption) error {
	return w.refuse()
}
