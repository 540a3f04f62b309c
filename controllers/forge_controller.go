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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// ForgeReconciler checks that a Forge answers and accepts its credentials:
// GET /version and GET /user, on every sync interval and whenever the Forge
// or one of its Secrets changes. Every other kind waits for its Forge to be Ready.
type ForgeReconciler struct {
	Pool    *connection.Pool
	Options reconciler.Options

	client   client.Client
	recorder events.EventRecorder
	backoff  workqueue.TypedRateLimiter[types.NamespacedName]
}

// SetupWithManager registers the controller and its Secret watch.
func (r *ForgeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.recorder = mgr.GetEventRecorder("forge-operator")
	if r.Options.SyncInterval <= 0 {
		r.Options.SyncInterval = 10 * time.Minute
	}
	r.backoff = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](
		max(r.Options.BaseBackoff, 100*time.Millisecond), max(r.Options.MaxBackoff, time.Second))
	return ctrl.NewControllerManagedBy(mgr).
		Named("forge").
		For(&forgev1.Forge{}, builder.WithPredicates(predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.forSecret), builder.OnlyMetadata).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.Options.MaxConcurrentReconciles, 1), ReconciliationTimeout: r.Options.ReconcileTimeout}).
		Complete(reconciler.Fair(r, r.Options.Fairness, forgeOfForge, r.Options.ReconcileTimeout))
}

// forgeOfForge: a Forge's own check counts against its share too.
func forgeOfForge(_ context.Context, req ctrl.Request) (types.NamespacedName, bool, error) {
	return req.NamespacedName, true, nil
}

func (r *ForgeReconciler) forSecret(ctx context.Context, o client.Object) []ctrl.Request {
	forges := reconciler.ForgesUsingSecret(ctx, r.client, o)
	reqs := make([]ctrl.Request, 0, len(forges))
	for _, f := range forges {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: f.Namespace, Name: f.Name}})
	}
	return reqs
}

// Reconcile checks one Forge.
func (r *ForgeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var f forgev1.Forge
	if err := r.client.Get(ctx, req.NamespacedName, &f); err != nil {
		if client.IgnoreNotFound(err) == nil {
			r.Pool.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	orig := f.DeepCopy()
	prevReason, _ := conditions.ReadyReason(&f)
	summary, requeue := r.check(ctx, &f, req.NamespacedName)
	ctx, finish := reconciler.FinishContext(ctx)
	defer finish()

	if summary.State != conditions.Ready && summary.Reason != prevReason {
		r.recorder.Eventf(&f, nil, corev1.EventTypeWarning, summary.Reason, "Connect", "%s", summary.Message)
	} else if summary.State == conditions.Ready && prevReason != forgev1.ReasonConnected {
		r.recorder.Eventf(&f, nil, corev1.EventTypeNormal, summary.Reason, "Connect", "%s", summary.Message)
	}
	conditions.Apply(&f, f.Generation, summary)
	f.Status.ObservedGeneration = f.Generation
	if v, ok := f.Annotations[forgev1.ReconcileRequestedAtAnnotation]; ok {
		f.Status.LastHandledReconcileAt = v
	}
	if !equality.Semantic.DeepEqual(orig.Status, f.Status) {
		if err := r.client.Status().Patch(ctx, &f, client.MergeFrom(orig)); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

func (r *ForgeReconciler) check(ctx context.Context, f *forgev1.Forge, key types.NamespacedName) (conditions.Summary, time.Duration) {
	interval := reconciler.Jitter(r.Options.SyncInterval)
	backoff := min(r.backoff.When(key), r.Options.SyncInterval)
	fc, err := r.Pool.Client(ctx, f)
	if err != nil {
		var se *connection.SecretError
		if errors.As(err, &se) {
			return conditions.Summary{State: conditions.Waiting, Reason: forgev1.ReasonSecretNotFound, Message: se.Error()}, backoff
		}
		return conditions.Summary{State: conditions.Stalled, Reason: forgev1.ReasonRejected, Message: err.Error()}, interval
	}
	version, err := fc.Version(ctx)
	var user *forge.User
	if err == nil {
		user, err = fc.CurrentUser(ctx)
	}
	switch kind := forge.KindOf(err); {
	case err == nil:
	case kind == forge.KindUnauthorized || kind == forge.KindForbidden:
		return conditions.Summary{State: conditions.Stalled, Reason: forgev1.ReasonUnauthorized,
			Message: fmt.Sprintf("%s; fix the credentials in Secret %s", err, authSecret(f))}, max(interval, backoff)
	case kind == forge.KindRouteNotFound:
		return conditions.Summary{State: conditions.Stalled, Reason: forgev1.ReasonUnsupported,
			Message: err.Error() + "; is spec.url a Gitea or Forgejo server?"}, max(interval, backoff)
	case kind == forge.KindRateLimited:
		after, _ := forge.RetryAfter(err)
		return conditions.Summary{State: conditions.Waiting, Reason: forgev1.ReasonRateLimited, Message: err.Error()}, max(after, time.Second)
	default:
		return conditions.Summary{State: conditions.Waiting, Reason: forgev1.ReasonForgeError, Message: err.Error()}, backoff
	}
	r.backoff.Forget(key)
	flavor, semver, ok := forge.ParseVersion(version)
	f.Status.ServerVersion, f.Status.Login, f.Status.Flavor = version, user.Login, ""
	if ok {
		f.Status.Flavor = flavor
	}
	what := "server"
	if flavor != "" {
		what = flavor
	}
	if semver != "" {
		what += " " + semver
	}
	return conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonConnected,
		Message: fmt.Sprintf("connected to %s as %s", what, user.Login)}, interval
}

// authSecret names the Secret holding a Forge's credentials, for messages.
func authSecret(f *forgev1.Forge) string {
	if ref := f.Spec.Auth.TokenSecretRef; ref != nil {
		return f.Namespace + "/" + ref.Name
	}
	if ref := f.Spec.Auth.BasicAuthSecretRef; ref != nil {
		return f.Namespace + "/" + ref.Name
	}
	return "(none)"
}
