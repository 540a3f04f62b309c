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

package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
)

// RBAC of the ClusterForge controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=clusterforges,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=clusterforges/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=clusterforges/finalizers,verbs=update

// ClusterForgeReconciler checks a ClusterForge's connection as the Forge
// controller checks a Forge's (its Secrets read from the manager's
// namespace), counts the resources that use it (status.inUse: those it
// permits, as the others write nothing through it), and keeps its
// finalizer while any does: deleting it waits, Reconciling with reason
// InUse, until the last of them is gone.
type ClusterForgeReconciler struct {
	connectionChecks

	// kinds are the managed kinds whose resources may use it.
	kinds []registered
}

// inUseNamed is how many namespaces of its users a ClusterForge being
// deleted names, with their counts.
const inUseNamed = 3

// SetupWithManager registers the controller, its Secret watch (the
// manager's namespace) and a watch of every managed kind, whose resources
// coming, going or changing forgeRef change status.inUse.
func (r *ClusterForgeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setup(mgr)
	b := ctrl.NewControllerManagedBy(mgr).
		Named("clusterforge").
		For(&forgev1.ClusterForge{}, builder.WithPredicates(predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{}, deletionStarted{}))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.forSecret), builder.OnlyMetadata).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.Options.MaxConcurrentReconciles, 1), ReconciliationTimeout: r.Options.ReconcileTimeout})
	for _, k := range r.kinds {
		b = b.Watches(k.object(), handler.EnqueueRequestsFromMapFunc(usedClusterForge), builder.WithPredicates(refChanged{}))
	}
	b = r.watchLeases(b, true)
	return fairness.CompleteFair(b, r, r.Options.Fairness, r.tenantOf, r.Options.ReconcileTimeout)
}

// tenantOf: a ClusterForge's check counts against the ClusterForge and its server.
func (r *ClusterForgeReconciler) tenantOf(ctx context.Context, req ctrl.Request) (fairness.Tenant, bool, error) {
	ref := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: req.Name}
	return fairness.Tenant{Forge: types.NamespacedName{Name: ref.Key()}, Server: claims.ServerOf(ctx, r.client, req.NamespacedName)}, true, nil
}

func (r *ClusterForgeReconciler) forSecret(ctx context.Context, o client.Object) []ctrl.Request {
	var reqs []ctrl.Request
	for _, cf := range reconciler.ClusterForgesUsingSecret(ctx, r.client, r.Pool, o) {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Name: cf.Name}})
	}
	return reqs
}

// usedClusterForge enqueues the ClusterForge a resource names, if any.
func usedClusterForge(_ context.Context, o client.Object) []ctrl.Request {
	m, ok := o.(forgev1.Managed)
	if !ok || !m.GetManagedSpec().ForgeRef.Cluster() {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Name: m.GetManagedSpec().ForgeRef.Name}}}
}

// refChanged passes a resource's creation and deletion, and updates that
// change its forgeRef (the old ClusterForge is recounted on its next
// check) or start its deletion.
type refChanged struct{ predicate.Funcs }

func (refChanged) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(forgev1.Managed)
	n, ok2 := e.ObjectNew.(forgev1.Managed)
	if !ok1 || !ok2 {
		return false
	}
	return o.GetManagedSpec().ForgeRef != n.GetManagedSpec().ForgeRef ||
		o.GetDeletionTimestamp().IsZero() != n.GetDeletionTimestamp().IsZero()
}

// Delete passes: the resource gone may be the last user.
func (refChanged) Delete(event.DeleteEvent) bool { return true }

// Create passes: a new user.
func (refChanged) Create(event.CreateEvent) bool { return true }

// deletionStarted passes the update that starts an object's deletion.
type deletionStarted struct{ predicate.Funcs }

func (deletionStarted) Update(e event.UpdateEvent) bool {
	return e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
}

// Reconcile checks one ClusterForge.
func (r *ClusterForgeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cf forgev1.ClusterForge
	if err := r.client.Get(ctx, req.NamespacedName, &cf); err != nil {
		if client.IgnoreNotFound(err) == nil {
			r.Pool.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	note, ok, err := r.serves(ctx, req.NamespacedName, &cf, cf.Spec.URL)
	if !ok {
		return ctrl.Result{}, err
	}
	users, err := r.users(ctx, &cf)
	if err != nil {
		return ctrl.Result{}, err
	}
	orig := cf.DeepCopy()
	cf.Status.InUse = int32(len(users))
	if !cf.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, orig, &cf, users)
	}
	if !controllerutil.ContainsFinalizer(&cf, forgev1.Finalizer) {
		patched := cf.DeepCopy()
		controllerutil.AddFinalizer(patched, forgev1.Finalizer)
		if err := r.client.Patch(ctx, patched, client.MergeFrom(&cf)); err != nil {
			return ctrl.Result{}, fmt.Errorf("add the finalizer of ClusterForge %s: %w", cf.Name, err)
		}
		cf.Finalizers, cf.ResourceVersion = patched.Finalizers, patched.ResourceVersion
	}
	out, err := checkConnection(ctx, r.Pool, connection.OfClusterForge(&cf, r.Pool.ClusterSecrets), &cf.Status.ForgeStatus, r.Options.SyncInterval)
	if bad := claims.TenantErrors(&cf); err == nil && len(bad) > 0 {
		// The connection works; the entries that cannot be used select
		// nothing, and their namespaces' resources say so.
		out.Summary.Message += "; " + strings.Join(bad, "; ") + " (such an entry selects no namespace)"
	}
	return r.write(ctx, req, orig, &cf, withNote(out, err, note), err)
}

// finalize lets a ClusterForge go once no resource uses it; until then it
// says who does, and the resources' deletions bring it back.
func (r *ClusterForgeReconciler) finalize(ctx context.Context, orig, cf *forgev1.ClusterForge, users []client.Object) (ctrl.Result, error) {
	if len(users) > 0 {
		// Counted per namespace, never named: any tenant allowed to read
		// ClusterForges reads this message (docs/tenancy.md).
		n := fmt.Sprintf("%d resources still use it", len(users))
		if len(users) == 1 {
			n = "1 resource still uses it"
		}
		msg := fmt.Sprintf("ClusterForge %q is being deleted and waits: %s (%s); delete them or point them at another Forge",
			cf.Name, n, claims.CountByNamespace(users, inUseNamed))
		out := reconciler.Outcome{
			Summary: conditions.Summary{State: conditions.Waiting, Reason: forgev1.ReasonInUse, Message: msg},
			// The users' deletions bring it back; this is the fallback.
			Requeue: time.Minute,
		}
		return ctrl.Result{RequeueAfter: out.Requeue}, r.status.Write(ctx, orig, cf, out)
	}
	if controllerutil.ContainsFinalizer(cf, forgev1.Finalizer) {
		patched := cf.DeepCopy()
		controllerutil.RemoveFinalizer(patched, forgev1.Finalizer)
		if err := r.client.Patch(ctx, patched, client.MergeFrom(cf)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("remove the finalizer of ClusterForge %s: %w", cf.Name, err)
		}
	}
	r.Pool.Forget(types.NamespacedName{Name: cf.Name})
	return ctrl.Result{}, nil
}

// users are the resources, of every kind and namespace, that use
// ClusterForge cf and that it permits: one it does not permit writes
// nothing through it, so it must not hold the platform's deletion up (nor
// may a namespace no entry selects keep it by naming it).
func (r *ClusterForgeReconciler) users(ctx context.Context, cf *forgev1.ClusterForge) ([]client.Object, error) {
	key := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}.Key()
	var out []client.Object
	for _, k := range r.kinds {
		objs, err := k.users(ctx, r.client, key)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			ok, err := claims.PermittedBy(ctx, r.client, cf, o)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, o)
			}
		}
	}
	return out, nil
}
