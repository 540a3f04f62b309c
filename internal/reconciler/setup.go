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
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// Field indexes the loop lists by (and claims.IndexForgeRef, by the
// connection a resource uses).
const (
	// IndexSecret indexes resources and Forges by the Secrets they reference.
	IndexSecret = ".forgeSecrets"
	indexKey    = ".forgeKey"
	indexID     = ".forgeID"
	indexRepo   = ".forgeRepo"
	// indexConfigMap indexes resources by the ConfigMaps they read.
	indexConfigMap = ".forgeConfigMaps"
)

// repoRefKey is the index value of a repository reference of a resource
// using Forge forgeRef: lower case, as the forge compares names.
func repoRefKey(forgeRef, ref string) string { return forgeRef + "\x00" + strings.ToLower(ref) }

// SetupForgeIndexes registers the Forge (and, when pool serves them,
// ClusterForge) indexes the kinds' Secret watches use. Call it once per
// manager, before Setup.
func SetupForgeIndexes(ctx context.Context, mgr ctrl.Manager, pool *connection.Pool) error {
	claims.SetServeClusterForges(pool.ServesClusterForges())
	err := mgr.GetFieldIndexer().IndexField(ctx, &forgev1.Forge{}, IndexSecret, func(o client.Object) []string {
		return connection.SecretNames(o.(*forgev1.Forge))
	})
	if err != nil || !pool.ServesClusterForges() {
		return err
	}
	return mgr.GetFieldIndexer().IndexField(ctx, &forgev1.ClusterForge{}, IndexSecret, func(o client.Object) []string {
		return connection.SpecSecretNames(&o.(*forgev1.ClusterForge).Spec.ForgeSpec)
	})
}

// Setup registers the loop for kind with the manager: field indexes, the
// controller, and its watches on Forges and Secrets.
func Setup[T forgev1.Managed](ctx context.Context, mgr ctrl.Manager, kind Kind[T], pool *connection.Pool, opts Options) error {
	opts = opts.WithDefaults()
	sample := kind.New()
	kinds, _, err := mgr.GetScheme().ObjectKinds(sample)
	if err != nil {
		return fmt.Errorf("kind of %T: %w", sample, err)
	}
	kindName := kinds[0].Kind
	r := &Reconciler[T]{
		client:   mgr.GetClient(),
		reader:   mgr.GetAPIReader(),
		kind:     kind,
		kindName: kindName,
		pool:     pool,
		status:   NewStatusWriter(mgr),
		opts:     opts,
		backoff:  NewBackoff(opts),
		schedule: newSchedule(),
	}

	for name, fn := range indexers(kind) {
		if err := mgr.GetFieldIndexer().IndexField(ctx, kind.New(), name, fn); err != nil {
			return fmt.Errorf("index %s by %s: %w", kindName, name, err)
		}
	}

	b, err := r.setupRefs(ctx, mgr, ctrl.NewControllerManagedBy(mgr))
	if err != nil {
		return err
	}
	if _, ok := kind.(ConfigMapReader[T]); ok {
		b = b.Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
			return r.requests(ctx, o.GetNamespace(), indexConfigMap, o.GetName())
		}), builder.OnlyMetadata)
	}
	if _, ok := kind.(RepoScoped[T]); ok {
		// A Repository becoming Ready lets the objects waiting for it go on.
		b = b.Watches(&forgev1.Repository{}, handler.EnqueueRequestsFromMapFunc(r.forRepository),
			builder.WithPredicates(becameReady{}))
	}
	b = b.Named(strings.ToLower(kindName)).
		For(kind.New(), builder.WithPredicates(r.schedule.seenPredicate(), predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, requestedPredicate{}))).
		Watches(&forgev1.Forge{}, handler.EnqueueRequestsFromMapFunc(r.forForge), builder.WithPredicates(forgeChanged{})).
		// When a resource goes, one it stalled with Conflict may now proceed;
		// when one records the id it holds, a younger holder of it (in any
		// namespace) learns at once that it must stop.
		Watches(kind.New(), handler.EnqueueRequestsFromMapFunc(r.forSameObject), builder.WithPredicates(predicate.Funcs{
			CreateFunc: func(event.CreateEvent) bool { return false },
			UpdateFunc: func(e event.UpdateEvent) bool {
				o, ok1 := e.ObjectOld.(T)
				n, ok2 := e.ObjectNew.(T)
				return ok1 && ok2 && o.GetManagedStatus().ID != n.GetManagedStatus().ID
			},
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.forSecret), builder.OnlyMetadata).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles, ReconciliationTimeout: opts.ReconcileTimeout})
	if opts.Wakes != nil {
		b = b.WatchesRawSource(r.wakeSource())
		opts.Wakes.subscribe(r.wake)
	}
	if pool.ServesClusterForges() {
		b = b.Watches(&forgev1.ClusterForge{}, handler.EnqueueRequestsFromMapFunc(r.forClusterForge), builder.WithPredicates(forgeChanged{})).
			// When the platform relabels a namespace, its resources on a
			// ClusterForge learn at once whether they may act.
			Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.forNamespace), builder.OnlyMetadata,
				builder.WithPredicates(predicate.LabelChangedPredicate{}))
	}
	if opts.Shards.Leases() {
		// A server handed over to this manager's shard: its resources go on.
		b = b.Watches(&coordinationv1.Lease{}, shards.LeaseHandler(r.client, r.forConnection), builder.WithPredicates(shards.HolderChanged{}))
		// A connection of a server made, deleted, relabelled or pointed
		// elsewhere may change which one decides the server's shard: the
		// resources of every connection of the server are decided again.
		b = b.Watches(&forgev1.Forge{}, shards.ServerHandler(r.client, r.forConnection), builder.WithPredicates(shards.DeciderChanged{}))
		if pool.ServesClusterForges() {
			b = b.Watches(&forgev1.ClusterForge{}, shards.ServerHandler(r.client, r.forConnection), builder.WithPredicates(shards.DeciderChanged{}))
		}
	}
	return fairness.CompleteFair(b, r, opts.Fairness, r.tenantOf, opts.ReconcileTimeout)
}

// forConnection enqueues every resource that uses connection conn (a
// ClusterForge when conn has no namespace).
func (r *Reconciler[T]) forConnection(ctx context.Context, conn types.NamespacedName) []ctrl.Request {
	if conn.Namespace == "" {
		return r.requests(ctx, "", claims.IndexForgeRef, forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: conn.Name}.Key())
	}
	return r.requests(ctx, conn.Namespace, claims.IndexForgeRef, conn.Name)
}

// tenantOf names the Forge a resource uses and its server, for Fairness.
// Through a ClusterForge the tenant is the namespace's use of it: each
// namespace has its own share, as with a Forge of its own, and all of
// them count against the ClusterForge's server.
func (r *Reconciler[T]) tenantOf(ctx context.Context, req ctrl.Request) (fairness.Tenant, bool, error) {
	obj := r.kind.New()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		return fairness.Tenant{}, false, client.IgnoreNotFound(err)
	}
	return fairness.Tenant{Forge: fairness.Use(obj.GetNamespace(), obj.GetManagedSpec().ForgeRef), Server: claims.ServerOf(ctx, r.client, claims.ForgeKey(obj))}, true, nil
}

// indexers are the field indexes of kind the loop lists by: the Forge,
// the Secrets, the natural key and the forge id of each resource.
func indexers[T forgev1.Managed](kind Kind[T]) map[string]client.IndexerFunc {
	return map[string]client.IndexerFunc{
		claims.IndexForgeRef: func(o client.Object) []string { return []string{o.(T).GetManagedSpec().ForgeRef.Key()} },
		IndexSecret:          func(o client.Object) []string { return kind.Secrets(o.(T)) },
		// The natural key and the id alone, cluster-wide: which of the
		// resources found point at the same server is decided when asking
		// (conflicts.go, claims.Servers).
		indexKey: func(o client.Object) []string {
			if k := kind.Key(o.(T)); k != "" {
				return []string{k}
			}
			return nil
		},
		indexConfigMap: func(o client.Object) []string {
			if cr, ok := any(kind).(ConfigMapReader[T]); ok {
				return cr.ConfigMaps(o.(T))
			}
			return nil
		},
		indexRepo: func(o client.Object) []string {
			rs, ok := any(kind).(RepoScoped[T])
			if !ok {
				return nil
			}
			t := o.(T)
			var out []string
			for _, ref := range rs.RepoRefs(t) {
				out = append(out, repoRefKey(t.GetManagedSpec().ForgeRef.Key(), ref))
			}
			return out
		},
		indexID: func(o client.Object) []string {
			if id := o.(T).GetManagedStatus().ID; id != 0 {
				return []string{idValue(id)}
			}
			return nil
		},
	}
}

// requestedPredicate passes updates that ask for a pass by annotation or start a deletion.
type requestedPredicate struct{ predicate.Funcs }

func (requestedPredicate) Update(e event.UpdateEvent) bool {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return false
	}
	changed := func(a string) bool { return e.ObjectOld.GetAnnotations()[a] != e.ObjectNew.GetAnnotations()[a] }
	return changed(forgev1.ReconcileRequestedAtAnnotation) || changed(forgev1.RotateRequestedAtAnnotation) ||
		e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
}

// forForge enqueues every resource that uses a Forge.
func (r *Reconciler[T]) forForge(ctx context.Context, o client.Object) []ctrl.Request {
	return r.requests(ctx, o.GetNamespace(), claims.IndexForgeRef, o.GetName())
}

// forSameObject enqueues the other resources, in every namespace, with the
// same natural key or forge id as o (those of another server find in their
// pass that o does not hold their object).
func (r *Reconciler[T]) forSameObject(ctx context.Context, o client.Object) []ctrl.Request {
	t, ok := o.(T)
	if !ok {
		return nil
	}
	var reqs []ctrl.Request
	if k := r.kind.Key(t); k != "" {
		reqs = append(reqs, r.requests(ctx, "", indexKey, k)...)
	}
	if id := t.GetManagedStatus().ID; id != 0 {
		reqs = append(reqs, r.requests(ctx, "", indexID, idValue(id))...)
	}
	self := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
	return slices.DeleteFunc(reqs, func(req ctrl.Request) bool { return req.NamespacedName == self })
}

// forgeChanged passes the updates of a Forge or ClusterForge its
// resources' passes depend on: its spec, its readiness (the Ready and Stalled conditions), the
// server version and the token scopes it found (a resource stalled for a
// scope its token lacked resumes when a new token has it), and its shard label (docs/shards.md). Its drift figures (status.driftScopes and
// driftCheckIntervals) change as its resources come and go, and must not
// re-run every one of them.
type forgeChanged struct{ predicate.Funcs }

func (forgeChanged) Update(e event.UpdateEvent) bool {
	o, n := connectionStatus(e.ObjectOld), connectionStatus(e.ObjectNew)
	if o == nil || n == nil {
		return true
	}
	cond := func(s *forgev1.ForgeStatus, typ string) string {
		if c := meta.FindStatusCondition(s.Conditions, typ); c != nil {
			return fmt.Sprintf("%s/%s/%d", c.Status, c.Reason, c.ObservedGeneration)
		}
		return ""
	}
	// Another account behind the credentials changes what a User may
	// touch (the connection's own account is protected).
	return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() || o.ServerVersion != n.ServerVersion ||
		o.Login != n.Login || o.UserID != n.UserID ||
		!slices.Equal(o.TokenScopes, n.TokenScopes) ||
		cond(o, forgev1.ConditionReady) != cond(n, forgev1.ConditionReady) ||
		cond(o, forgev1.ConditionStalled) != cond(n, forgev1.ConditionStalled) ||
		!e.ObjectOld.GetDeletionTimestamp().Equal(e.ObjectNew.GetDeletionTimestamp()) ||
		e.ObjectOld.GetLabels()[forgev1.ShardLabel] != e.ObjectNew.GetLabels()[forgev1.ShardLabel]
}

// connectionStatus is the status of a Forge or ClusterForge (whose inUse
// count, changing as resources come and go, is no change its resources
// depend on either); nil for any other object.
func connectionStatus(o client.Object) *forgev1.ForgeStatus {
	switch c := o.(type) {
	case *forgev1.Forge:
		return &c.Status
	case *forgev1.ClusterForge:
		return &c.Status.ForgeStatus
	}
	return nil
}

// becameReady passes a Repository's update that makes it Ready.
type becameReady struct{ predicate.Funcs }

func (becameReady) Create(event.CreateEvent) bool   { return false }
func (becameReady) Delete(event.DeleteEvent) bool   { return false }
func (becameReady) Generic(event.GenericEvent) bool { return false }
func (becameReady) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(*forgev1.Repository)
	n, ok2 := e.ObjectNew.(*forgev1.Repository)
	return ok1 && ok2 && conditions.IsReady(n, n.Generation) && !conditions.IsReady(o, o.Generation)
}

// forRepository enqueues the resources living in Repository o (by name, or
// in every repository of its owner).
func (r *Reconciler[T]) forRepository(ctx context.Context, o client.Object) []ctrl.Request {
	repo, ok := o.(*forgev1.Repository)
	if !ok {
		return nil
	}
	if sel, ok := any(r.kind).(RepoSelector[T]); ok {
		return r.forSelecting(ctx, repo, sel, nil, "")
	}
	ref := repo.Spec.ForgeRef.Key()
	// Those Ready already have their repository: only the ones waiting
	// for it go on.
	waiting := func(o client.Object) bool {
		t, ok := o.(T)
		return !ok || !readyAtGeneration(t)
	}
	reqs := r.requestsOf(ctx, o.GetNamespace(), indexRepo, repoRefKey(ref, repo.FullName()), waiting)
	return append(reqs, r.requestsOf(ctx, o.GetNamespace(), indexRepo, repoRefKey(ref, string(repo.Spec.Owner)+"/*"), waiting)...)
}

// forSelecting enqueues the sets, in namespace ns (every namespace when
// "") and under every Forge of repo's server, whose selector picks repo
// (and keep, when set, keeps), and records its arrival for them: their
// next listing of repositories is taken afresh.
func (r *Reconciler[T]) forSelecting(ctx context.Context, repo *forgev1.Repository, sel RepoSelector[T], keep func(T) bool, ns string) []ctrl.Request {
	servers, err := claims.ServersOf(ctx, r.client, repo)
	if err != nil {
		return nil
	}
	list := r.kind.NewList()
	if err := r.client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil
	}
	owner, name := string(repo.Spec.Owner), repo.RepoName()
	var reqs []ctrl.Request
	now := time.Now()
	for _, it := range items {
		set, ok := it.(T)
		if !ok || !sel.SelectsRepository(set, owner, name) {
			continue
		}
		if !servers.Reach(set.GetNamespace(), set.GetManagedSpec().ForgeRef) || keep != nil && !keep(set) {
			continue
		}
		key := types.NamespacedName{Namespace: set.GetNamespace(), Name: set.GetName()}
		r.arrivals.note(key, now)
		reqs = append(reqs, ctrl.Request{NamespacedName: key})
	}
	return reqs
}

// forSecret enqueues the resources that reference a Secret, directly or
// through their Forge or ClusterForge (whose Secrets are in the manager's
// namespace).
func (r *Reconciler[T]) forSecret(ctx context.Context, o client.Object) []ctrl.Request {
	reqs := r.requests(ctx, o.GetNamespace(), IndexSecret, o.GetName())
	for _, f := range ForgesUsingSecret(ctx, r.client, o) {
		reqs = append(reqs, r.requests(ctx, o.GetNamespace(), claims.IndexForgeRef, f.Name)...)
	}
	for _, cf := range ClusterForgesUsingSecret(ctx, r.client, r.pool, o) {
		reqs = append(reqs, r.forClusterForge(ctx, &cf)...)
	}
	return reqs
}

// forClusterForge enqueues every resource, in every namespace, that uses
// ClusterForge o.
func (r *Reconciler[T]) forClusterForge(ctx context.Context, o client.Object) []ctrl.Request {
	ref := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: o.GetName()}
	return r.requests(ctx, "", claims.IndexForgeRef, ref.Key())
}

// forNamespace enqueues the resources of namespace o that use a
// ClusterForge: its labels may have granted or taken their owners.
func (r *Reconciler[T]) forNamespace(ctx context.Context, o client.Object) []ctrl.Request {
	return r.requestsOf(ctx, o.GetName(), "", "", func(o client.Object) bool {
		t, ok := o.(T)
		return ok && t.GetManagedSpec().ForgeRef.Cluster()
	})
}

// ClusterForgesUsingSecret lists the ClusterForges that reference Secret s:
// none unless s is in the namespace their Secrets are read from.
func ClusterForgesUsingSecret(ctx context.Context, c client.Reader, pool *connection.Pool, s client.Object) []forgev1.ClusterForge {
	if !pool.ServesClusterForges() || s.GetNamespace() != pool.ClusterSecrets {
		return nil
	}
	var cfs forgev1.ClusterForgeList
	if err := c.List(ctx, &cfs, client.MatchingFields{IndexSecret: s.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list ClusterForges using a Secret", "secret", s.GetName())
		return nil
	}
	return cfs.Items
}

// ForgesUsingSecret lists the Forges that reference Secret s (needs
// SetupForgeIndexes); none when the list fails, as a watch cannot retry.
func ForgesUsingSecret(ctx context.Context, c client.Reader, s client.Object) []forgev1.Forge {
	var forges forgev1.ForgeList
	if err := c.List(ctx, &forges, client.InNamespace(s.GetNamespace()), client.MatchingFields{IndexSecret: s.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list Forges using a Secret", "secret", s.GetName())
		return nil
	}
	return forges.Items
}

func (r *Reconciler[T]) requests(ctx context.Context, ns, index, value string) []ctrl.Request {
	return r.requestsOf(ctx, ns, index, value, nil)
}

// requestsOf is requests for the resources keep passes (all when nil);
// without an index, of every resource of namespace ns.
func (r *Reconciler[T]) requestsOf(ctx context.Context, ns, index, value string, keep func(client.Object) bool) []ctrl.Request {
	list := r.kind.NewList()
	opts := []client.ListOption{client.InNamespace(ns)}
	if index != "" {
		opts = append(opts, client.MatchingFields{index: value})
	}
	if err := r.client.List(ctx, list, opts...); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list resources to enqueue", "index", index)
		return nil
	}
	items, _ := meta.ExtractList(list)
	reqs := make([]ctrl.Request, 0, len(items))
	for _, it := range items {
		o := it.(client.Object)
		if keep != nil && !keep(o) {
			continue
		}
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}})
	}
	return reqs
}
