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
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
	"github.com/forgeops/forge-operator/internal/storageversion"
)

// RBAC of the Forge controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=forges,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=forges/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=forges/finalizers,verbs=update

// ForgeReconciler checks that a Forge answers and accepts its credentials:
// GET /version and GET /user, on every sync interval and whenever the Forge
// or one of its Secrets changes. Every other kind waits for its Forge to be
// Ready. Its errors are classified, retried and written like every kind's,
// by internal/reconciler.
type ForgeReconciler struct {
	connectionChecks
	// versions is the storage migration, nil when the manager runs none.
	versions        *storageversion.Migrator
	versionsChanged chan event.GenericEvent
}

// connectionChecks is what the Forge and ClusterForge controllers share:
// the client pool, the options, and how a check's outcome is written.
type connectionChecks struct {
	Pool    *connection.Pool
	Options reconciler.Options

	client  client.Client
	status  reconciler.StatusWriter
	backoff *reconciler.Backoff
}

// serves reports whether this manager serves the connection obj, key,
// of server url (docs/shards.md): whether the server's shard is the
// manager's and its Lease names it (Shards.Decide, which queues a server
// to hand over or to await for the manager's mover). Another shard's
// connection is checked, and its status written, by that shard only; this
// manager drops its client. note, when obj's own shard label is not its
// server's shard, says which connection decides (the oldest ClusterForge
// of the server, else its oldest Forge), for the status of a served
// connection, as does a server kept by its holder while its shard has no
// running manager.
func (c *connectionChecks) serves(ctx context.Context, key types.NamespacedName, obj client.Object, url string) (note string, ok bool, err error) {
	d, err := c.Options.Shards.Decide(ctx, c.client, forge.ServerKey(url))
	if err != nil {
		return "", false, err
	}
	if d.State != shards.Serve {
		c.Pool.Forget(key)
		return "", false, nil
	}
	var notes []string
	if own := obj.GetLabels()[forgev1.ShardLabel]; own != d.Desired {
		notes = append(notes, fmt.Sprintf("its label %s=%q is not its server's shard: %s, which decides the server's shard, puts it in %s",
			forgev1.ShardLabel, own, d.DeciderFor(obj.GetNamespace()), shards.ShardName(d.Desired)))
	}
	if n := c.Options.Shards.Note(d, obj.GetNamespace()); n != "" {
		notes = append(notes, n)
	}
	return strings.Join(notes, "; "), true, nil
}

// withNote adds note to the message of a successful check.
func withNote(out reconciler.Outcome, err error, note string) reconciler.Outcome {
	if err == nil && note != "" {
		out.Summary.Message += "; " + note
	}
	return out
}

// watchLeases checks a server's Forges (cluster false) or ClusterForges
// again when its per-server Lease changes hands, and when a connection of
// the server is made, deleted, relabelled or pointed elsewhere (which may
// change the connection that decides its shard: a Forge left to another
// shard before a ClusterForge of its server reached the cache is served
// once it does).
func (c *connectionChecks) watchLeases(b *builder.TypedBuilder[reconcile.Request], cluster bool) *builder.TypedBuilder[reconcile.Request] {
	if !c.Options.Shards.Leases() {
		return b
	}
	conns := func(_ context.Context, conn types.NamespacedName) []ctrl.Request {
		if (conn.Namespace == "") != cluster {
			return nil
		}
		return []ctrl.Request{{NamespacedName: conn}}
	}
	b = b.Watches(&coordinationv1.Lease{}, shards.LeaseHandler(c.client, conns), builder.WithPredicates(shards.HolderChanged{})).
		Watches(&forgev1.Forge{}, shards.ServerHandler(c.client, conns), builder.WithPredicates(shards.DeciderChanged{}))
	if c.Pool.ServesClusterForges() {
		b = b.Watches(&forgev1.ClusterForge{}, shards.ServerHandler(c.client, conns), builder.WithPredicates(shards.DeciderChanged{}))
	}
	return b
}

func (c *connectionChecks) setup(mgr ctrl.Manager) {
	c.Options = c.Options.WithDefaults()
	c.client = mgr.GetClient()
	c.status = reconciler.NewStatusWriter(mgr)
	c.backoff = reconciler.NewBackoff(c.Options)
}

// write records the check of obj, which began as orig: a failure is
// classified and retried with backoff (one that is no forge's, such as a
// Kubernetes API error, is controller-runtime's to retry), a success
// resets the backoff; Connected is an Event only when the connection was
// not connected before. The status of a check cut short by the reconcile
// timeout is still written.
func (c *connectionChecks) write(ctx context.Context, req ctrl.Request, orig, obj reconciler.Object, out reconciler.Outcome, err error) (ctrl.Result, error) {
	ctx, finish := reconciler.FinishContext(ctx)
	defer finish()
	if err != nil {
		class, ok := reconciler.Classify(err)
		if !ok {
			return ctrl.Result{}, err
		}
		out = reconciler.Failure(class, c.backoff.Failed(req.NamespacedName, class, c.Options.SyncInterval))
		out.Event.Action = "Connect"
	} else {
		c.backoff.Succeeded(req.NamespacedName)
		if reason, _ := conditions.ReadyReason(orig); reason == forgev1.ReasonConnected {
			out.Event = reconciler.Event{}
		}
	}
	if err := c.status.Write(ctx, orig, obj, out); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: out.Requeue}, nil
}

// SetupWithManager registers the controller and its Secret watch.
func (r *ForgeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.setup(mgr)
	b := ctrl.NewControllerManagedBy(mgr).
		Named("forge").
		For(&forgev1.Forge{}, builder.WithPredicates(predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.forSecret), builder.OnlyMetadata).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.Options.MaxConcurrentReconciles, 1), ReconciliationTimeout: r.Options.ReconcileTimeout})
	b = r.watchLeases(b, false)
	if r.versions != nil {
		// Every Forge again when the storage migration's outcome changes.
		r.versionsChanged = make(chan event.GenericEvent, 1)
		r.versions.Changed = func() {
			select {
			case r.versionsChanged <- event.GenericEvent{Object: &forgev1.Forge{}}:
			default: // one pending is enough
			}
		}
		b = b.WatchesRawSource(source.Channel(r.versionsChanged, handler.EnqueueRequestsFromMapFunc(r.everyForge)))
	}
	return fairness.CompleteFair(b, r, r.Options.Fairness, r.tenantOf, r.Options.ReconcileTimeout)
}

// forgeOfForge: a Forge's own check counts against its share too.
// tenantOf: a Forge's check counts against the Forge, its namespace and
// its server, as its resources' passes do.
func (r *ForgeReconciler) tenantOf(ctx context.Context, req ctrl.Request) (fairness.Tenant, bool, error) {
	return fairness.Tenant{Forge: req.NamespacedName, Server: claims.ServerOf(ctx, r.client, req.NamespacedName)}, true, nil
}

// everyForge lists every Forge the manager caches.
func (r *ForgeReconciler) everyForge(ctx context.Context, _ client.Object) []ctrl.Request {
	var forges forgev1.ForgeList
	if err := r.client.List(ctx, &forges); err != nil {
		log.FromContext(ctx).Error(err, "list the Forges to check them again")
		return nil
	}
	reqs := make([]ctrl.Request, 0, len(forges.Items))
	for _, f := range forges.Items {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: f.Namespace, Name: f.Name}})
	}
	return reqs
}

// deprecatedVersions sets DeprecatedVersionsStored on f while the storage
// migration has CRDs left, and removes it once it has none; unknown (a
// namespaced manager, which runs none) leaves f as it is.
func (r *ForgeReconciler) deprecatedVersions(f *forgev1.Forge) {
	pending, known := r.versions.Pending()
	switch {
	case !known:
	case len(pending) == 0:
		meta.RemoveStatusCondition(&f.Status.Conditions, forgev1.ConditionDeprecatedVersionsStored)
	default:
		meta.SetStatusCondition(&f.Status.Conditions, metav1.Condition{
			Type: forgev1.ConditionDeprecatedVersionsStored, Status: metav1.ConditionTrue,
			Reason: forgev1.ReasonMigrationPending, ObservedGeneration: f.Generation,
			Message: "still stored at a deprecated version: " + strings.Join(pending, ", ") +
				"; the manager writes them back at " + storageversion.Stored + " (its log says why it has not yet), or run `forge-operator migrate` (docs/api.md)",
		})
	}
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
	note, ok, err := r.serves(ctx, req.NamespacedName, &f, f.Spec.URL)
	if !ok {
		return ctrl.Result{}, err
	}
	orig := f.DeepCopy()
	out, err := r.check(ctx, &f)
	out = withNote(out, err, note)
	r.deprecatedVersions(&f)
	return r.write(ctx, req, orig, &f, out, err)
}

// check calls the forge and fills f's status on success.
func (r *ForgeReconciler) check(ctx context.Context, f *forgev1.Forge) (reconciler.Outcome, error) {
	return checkConnection(ctx, r.Pool, connection.OfForge(f), &f.Status, r.Options.SyncInterval)
}

// checkConnection calls the forge of src (GET /version, GET /user) and
// fills st on success; its errors say what to fix where the forge's own
// message does not. A Forge and a ClusterForge are checked alike.
func checkConnection(ctx context.Context, pool *connection.Pool, src connection.Source, st *forgev1.ForgeStatus, every time.Duration) (reconciler.Outcome, error) {
	fc, err := pool.ClientOf(ctx, src)
	if err != nil {
		var se *connection.SecretError
		if errors.As(err, &se) {
			return reconciler.Outcome{}, err
		}
		return reconciler.Outcome{}, &reconciler.Error{State: conditions.Stalled, Reason: forgev1.ReasonRejected, Err: err}
	}
	// The check of the Forge itself is no create or update the drift
	// checks of its resources should give way to.
	fc = forge.Reading(fc, &forge.ReadPolicy{Background: true})
	version, err := fc.Version(ctx)
	var scopes []string
	login, userID := "", int64(0)
	if err == nil && src.Spec.Auth.TokenSecretRef != nil && forge.NewServer(version).Offers(forge.GateTokenScopes) {
		scopes, login, userID, err = tokenScopes(ctx, fc)
	}
	if err == nil && (login == "" || userID <= 0) {
		var user *forge.User
		if user, err = fc.CurrentUser(ctx); err == nil {
			login, userID = user.Login, user.ID
		}
	}
	switch forge.KindOf(err) {
	case forge.KindUnauthorized, forge.KindForbidden:
		return reconciler.Outcome{}, fmt.Errorf("%w; fix the credentials in Secret %s", err, authSecret(src))
	case forge.KindRouteNotFound:
		return reconciler.Outcome{}, fmt.Errorf("%w; is spec.url a Gitea or Forgejo server?", err)
	}
	if err != nil {
		return reconciler.Outcome{}, err
	}
	server := forge.NewServer(version)
	st.ServerVersion, st.Login, st.UserID, st.Flavor, st.TokenScopes = version, login, userID, server.Flavor, scopes
	msg := fmt.Sprintf("connected to %s as %s", server.Name(), login)
	if scopes != nil {
		msg += "; token scopes: " + strings.Join(scopes, ", ")
	}
	load := forge.DriftLoad(src.Name())
	st.DriftScopes, st.DriftCheckIntervals = int32(load.Scopes), int32(load.Intervals)
	if load.Intervals > 1 {
		msg += fmt.Sprintf("; drift checks of its %d scopes ask more listings a second than half its rate limit allows: a check of every scope takes %d sync intervals (raise spec.rateLimit.qps or the resources' syncInterval)",
			load.Scopes, load.Intervals)
	}
	return reconciler.Outcome{
		Summary: conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonConnected, Message: msg},
		Event:   reconciler.Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonConnected, Action: "Connect", Note: msg},
		Requeue: reconciler.Jitter(every),
	}, nil
}

// tokenScopes asks the server what the connection's token may do (GET
// /token, Gitea 1.27 and later), with the login it belongs to: that
// answer needs no scope, where GET /user needs read:user, so a token
// without it connects all the same. A server without the route (earlier
// releases, Forgejo) gives no scopes and no login: GET /user then says
// who the token is, and a write the token may not make is the forge's
// 403, as before.
func tokenScopes(ctx context.Context, fc forge.Interface) (scopes []string, login string, userID int64, err error) {
	t, err := fc.CurrentToken(ctx)
	switch {
	case forge.IsRouteNotFound(err):
		return nil, "", 0, nil
	case err != nil:
		return nil, "", 0, err
	}
	if t.User != nil {
		login, userID = t.User.Login, t.User.ID
	}
	// In the server's order (Gitea's normalized scope: all, or by category).
	return slices.Clone(t.Scopes), login, userID, nil
}

// authSecret names the Secret holding a connection's credentials, for messages.
func authSecret(src connection.Source) string {
	if ref := src.Spec.Auth.TokenSecretRef; ref != nil {
		return src.SecretNamespace + "/" + ref.Name
	}
	if ref := src.Spec.Auth.BasicAuthSecretRef; ref != nil {
		return src.SecretNamespace + "/" + ref.Name
	}
	return "(none)"
}
