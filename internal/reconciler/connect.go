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
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// clusterForge reads the ClusterForge obj names (nil when there is none)
// and what it permits obj.
func (r *Reconciler[T]) clusterForge(ctx context.Context, obj T) (*forgev1.ClusterForge, claims.Permission, error) {
	var cf forgev1.ClusterForge
	if err := r.client.Get(ctx, types.NamespacedName{Name: obj.GetManagedSpec().ForgeRef.Name}, &cf); err != nil {
		return nil, claims.Permission{}, client.IgnoreNotFound(err)
	}
	p, err := claims.PermissionOf(ctx, r.client, &cf, obj)
	return &cf, p, err
}

// target is the Forge or ClusterForge a resource's pass talks through.
type target struct {
	src connection.Source
	obj interface {
		forgev1.ConditionsAccessor
		GetGeneration() int64
	}
	status *forgev1.ForgeStatus
	// cluster is the ClusterForge; nil for a Forge.
	cluster *forgev1.ClusterForge
}

// waitsForUsers reports whether t is a connected ClusterForge being
// deleted, which waits (InUse) for its resources (claims.WaitsForUsers).
func (t *target) waitsForUsers() bool {
	return t.cluster != nil && claims.WaitsForUsers(t.cluster)
}

// target reads the Forge or ClusterForge obj names, and for a ClusterForge
// decides whether obj's namespace may act through it: a resource it does
// not permit stalls, NotPermitted, before anything is read or written.
func (r *Reconciler[T]) target(ctx context.Context, obj T) (*target, error) {
	ref := obj.GetManagedSpec().ForgeRef
	if !ref.Cluster() {
		if forgev1.NeedsSiteAdmin(obj) {
			return nil, Stall(forgev1.ReasonNotPermitted, "%s is managed only through a ClusterForge whose tenants entry has siteAdmin: true; spec.forgeRef names %s",
				r.kindName, ref)
		}
		var f forgev1.Forge
		if err := r.client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, &f); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, Wait(forgev1.ReasonForgeNotReady, "Forge %q not found in namespace %s", ref.Name, obj.GetNamespace())
			}
			return nil, err
		}
		return &target{src: connection.OfForge(&f), obj: &f, status: &f.Status}, nil
	}
	if !r.pool.ServesClusterForges() {
		return nil, Stall(forgev1.ReasonForgeNotReady, "this manager does not serve ClusterForges (it runs with --cluster-forges=false, as the namespaced install does): name a Forge of namespace %s in spec.forgeRef",
			obj.GetNamespace())
	}
	cf, p, err := r.clusterForge(ctx, obj)
	switch {
	case err != nil:
		return nil, err
	case cf == nil:
		return nil, Wait(forgev1.ReasonForgeNotReady, "ClusterForge %q not found", ref.Name)
	case !p.Allowed:
		return nil, notPermitted(p)
	}
	return &target{src: connection.OfClusterForge(cf, r.pool.ClusterSecrets), obj: cf, status: &cf.Status.ForgeStatus, cluster: cf}, nil
}

// connect resolves the Forge and its client, reading under reads.
func (r *Reconciler[T]) connect(ctx context.Context, obj T, reads *forge.ReadPolicy) (*Pass, error) {
	ref := obj.GetManagedSpec().ForgeRef
	t, err := r.target(ctx, obj)
	if err != nil {
		return nil, err
	}
	if !conditions.IsReady(t.obj, t.obj.GetGeneration()) && !t.waitsForUsers() {
		reason, msg := conditions.ReadyReason(t.obj)
		if reason == "" {
			return nil, Wait(forgev1.ReasonForgeNotReady, "%s is not ready yet", ref)
		}
		// A Forge that needs a user's fix (bad credentials, not a forge at all)
		// stalls its resources too: nothing will change until that fix, whose
		// Forge status update retries them through the Forge watch.
		if c := meta.FindStatusCondition(t.obj.GetConditions(), forgev1.ConditionStalled); c != nil &&
			c.Status == metav1.ConditionTrue && c.ObservedGeneration == t.obj.GetGeneration() {
			return nil, Stall(forgev1.ReasonForgeNotReady, "%s is not ready: %s: %s", ref, reason, msg)
		}
		return nil, Wait(forgev1.ReasonForgeNotReady, "%s is not ready: %s: %s", ref, reason, msg)
	}
	fc, err := r.pool.ClientOf(ctx, t.src)
	if err != nil {
		var se *connection.SecretError
		if errors.As(err, &se) {
			return nil, Wait(forgev1.ReasonForgeNotReady, "%s: %s", ref, se.Error())
		}
		return nil, err
	}
	pass := &Pass{
		Forge:          forge.Reading(fc, reads),
		reads:          reads,
		Server:         forge.NewServer(t.status.ServerVersion),
		Login:          t.status.Login,
		UserID:         t.status.UserID,
		Scopes:         t.status.TokenScopes,
		forgeRef:       ref.String(),
		WebURL:         strings.TrimSuffix(strings.TrimRight(t.src.Spec.URL, "/"), "/api/v1"),
		Reader:         r.reader,
		Writer:         r.client,
		Cache:          r.client,
		Metadata:       r.client,
		Pending:        pendingMark(obj) != "",
		Interval:       r.interval(obj),
		FullCheckEvery: t.src.Spec.FullChecksEvery(),
		Afresh:         reads.MaxAge == 0,
		Arrived: func() time.Time {
			return r.arrivals.last(types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
		},
		claimedBy: func(ctx context.Context, id int64) (string, error) {
			// Any other holder counts, older or younger: adopting a forge
			// object another resource already holds would make a conflict.
			return r.holder(ctx, obj, indexID, idValue(id), false)
		},
		admins: func(ctx context.Context) (claims.Permission, error) {
			if t.cluster == nil {
				// Through a Forge no site-admin kind passes (target).
				return claims.Permission{Why: fmt.Sprintf("%s is not a ClusterForge", ref)}, nil
			}
			return claims.AdminsPermission(ctx, r.client, t.cluster.Name, obj)
		},
	}
	if t.cluster != nil {
		pass.CommitAuthor = t.cluster.Spec.CommitAuthor
	}
	return pass, nil
}

// notPermitted is the stall of a resource its ClusterForge does not serve.
func notPermitted(p claims.Permission) error {
	return Stall(forgev1.ReasonNotPermitted, "%s; nothing is written", p.Why)
}
