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

package planning

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// setPlanner plans a set kind's object (LabelSet, BranchProtectionSet)
// with its own Sync, run without writing (as managementPolicy Observe runs
// it): every repository that differs is reported with what the pass would
// do there, deletions included.
type setPlanner[T forgev1.Managed] struct {
	kind reconciler.SetKind[T]
	// claims reads the objects being planned that a set yields to (Labels,
	// BranchProtections, other sets), as the operator would once they are
	// applied.
	claims client.Reader
}

// claimer is a set kind whose pass reads from the cache the resources
// that may claim what it would manage (Labels and other LabelSets for a
// LabelSet), so that it yields to them.
type claimer interface {
	// ClaimKinds are the kinds of those resources.
	ClaimKinds() []client.Object
}

// ForSet plans the objects of set kind kind with its own Sync, without
// writing. It indexes the planned objects of the kind's ClaimKinds by the
// Key of their forgeRef (a Forge's name, or ClusterForge/NAME), as the
// manager's cache does.
func ForSet[T forgev1.Managed](kind reconciler.SetKind[T], objs []*unstructured.Unstructured) (Planner, error) {
	var claimKinds []client.Object
	if c, ok := any(kind).(claimer); ok {
		claimKinds = c.ClaimKinds()
	}
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	forgeRef := func(o client.Object) []string {
		return []string{o.(forgev1.Managed).GetManagedSpec().ForgeRef.Key()}
	}
	b := fake.NewClientBuilder().WithScheme(scheme)
	byKind := map[string]client.Object{}
	conns := map[types.NamespacedName]forgev1.ForgeReference{}
	for _, o := range claimKinds {
		b = b.WithIndex(o, claims.IndexForgeRef, forgeRef)
		gvk, err := apiutil.GVKForObject(o, scheme)
		if err != nil {
			return nil, err
		}
		byKind[gvk.Kind] = o
	}
	for _, u := range objs {
		proto, ok := byKind[u.GetKind()]
		if !ok {
			continue
		}
		obj := proto.DeepCopyObject().(client.Object)
		if u.GroupVersionKind().Group != forgev1.GroupVersion.Group ||
			runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj) != nil {
			continue // reported when that object itself is planned
		}
		obj.SetResourceVersion("")
		b = b.WithObjects(obj)
		conns[connectionKey(obj)] = obj.(forgev1.Managed).GetManagedSpec().ForgeRef
	}
	// The plan reads the forge through one connection that works: every
	// planned object's Forge or ClusterForge is in the claims' cache, Ready
	// and pointing at that one server, so that the claims count what each
	// planned object would hold once applied (a connection that is not
	// Ready holds only what its status recorded).
	for k, ref := range conns {
		b = b.WithObjects(planConnection(k, ref))
	}
	return setPlanner[T]{kind: kind, claims: b.Build()}, nil
}

// connectionKey names the Forge or ClusterForge obj's forgeRef points at.
func connectionKey(obj client.Object) types.NamespacedName {
	ref := obj.(forgev1.Managed).GetManagedSpec().ForgeRef
	if ref.Cluster() {
		return types.NamespacedName{Name: ref.Name}
	}
	return types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}
}

// planConnection is a Ready connection named k, of the kind ref names, to
// the plan's one server.
func planConnection(k types.NamespacedName, ref forgev1.ForgeReference) client.Object {
	ready := []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Plan"}}
	const url = "https://plan.invalid"
	if ref.Cluster() {
		cf := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: k.Name}}
		cf.Spec.URL, cf.Status.Conditions = url, ready
		return cf
	}
	f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}}
	f.Spec.URL, f.Status.Conditions = url, ready
	return f
}

func (p setPlanner[T]) plan(ctx context.Context, u *unstructured.Unstructured, st *state) plan.Item {
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
	pass := &reconciler.Pass{Forge: st.fc, Server: st.env.Server, WebURL: st.env.WebURL, Reader: st.reader, Cache: p.claims}
	if err := reconciler.Unsupported(obj, st.env.Server); err != nil {
		return planFailed(err, false)
	}
	ext, err := p.kind.ConnectSet(ctx, obj, pass)
	if err != nil {
		return planFailed(err, false)
	}
	res, err := ext.Sync(ctx, false)
	if err != nil {
		return planFailed(err, false)
	}
	noun := res.Nouns
	if res.Members == 1 {
		noun = res.Noun
	}
	it := plan.Item{Action: plan.InSync, Reason: fmt.Sprintf("%d of %d %s match", res.InSync, res.Members, noun),
		PendingRemovals: pendingRemovals(obj)}
	if spec.ManagementPolicy == forgev1.ManagementPolicyObserve {
		it.Reason = "managementPolicy Observe: the operator never changes the forge; " + it.Reason
	}
	var blocked []string
	for _, f := range res.Failures {
		if f.Reason != forgev1.ReasonDriftDetected {
			blocked = append(blocked, f.Member+": "+f.Reason+": "+f.Message)
			if f.Reason == forgev1.ReasonConflict && it.Action != plan.Error {
				it.Action = plan.Conflict
			} else if f.Reason != forgev1.ReasonConflict {
				it.Action = plan.Error
			}
			continue
		}
		// The would-be changes of one repository: create, update, rename,
		// merge and delete of labels (or rules), by name.
		it.Changes = append(it.Changes, plan.Change{Field: f.Member, Spec: f.Message})
		if spec.ManagementPolicy == forgev1.ManagementPolicyObserve || it.Action == plan.Error || it.Action == plan.Conflict {
			continue
		}
		if f.Removes > 0 {
			it.Action = plan.Delete
		} else if it.Action != plan.Delete {
			it.Action = plan.Update
		}
	}
	if len(blocked) > 0 {
		it.Reason = strings.Join(blocked, "; ")
	}
	if u, ok := ext.(unknownSet); ok && len(u.Unknown()) > 0 {
		// What the set would do with those is open: each is unknown, and
		// so is the set's action unless it is an error or a conflict.
		for _, f := range u.Unknown() {
			it.Changes = append(it.Changes, plan.Change{Field: f, Spec: plan.UnknownValue})
		}
		if it.Action != plan.Error && it.Action != plan.Conflict && spec.ManagementPolicy != forgev1.ManagementPolicyObserve {
			it.Action = plan.Unknown
			it.Reason = "contents from ConfigMaps plan could not read (--kubeconfig lets it); " + it.Reason
		}
	}
	return it
}

// unknownSet is a set's pass that could not read some of what it would
// write (a FileSet's contents from ConfigMaps, without --kubeconfig).
type unknownSet interface {
	Unknown() []string
}
