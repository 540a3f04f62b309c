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

package shards

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// HolderChanged passes the per-server Leases' creations, deletions and
// changes of holder: the moments a server changes hands.
type HolderChanged struct{ predicate.Funcs }

func (HolderChanged) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(*coordinationv1.Lease)
	n, ok2 := e.ObjectNew.(*coordinationv1.Lease)
	return ok1 && ok2 && ptr.Deref(o.Spec.HolderIdentity, "") != ptr.Deref(n.Spec.HolderIdentity, "")
}

// LeaseHandler enqueues, on a per-server Lease's change of holder, what
// each of the server's connections reach through requests (a kind's
// resources of one connection, or the connection itself).
func LeaseHandler(c client.Reader, requests func(ctx context.Context, conn types.NamespacedName) []ctrl.Request) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []ctrl.Request {
		server := o.GetAnnotations()[serverKeyAnnotation]
		if server == "" {
			return nil
		}
		return serverRequests(ctx, c, server, requests)
	})
}

// serverRequests is what each connection of server reaches through
// requests.
func serverRequests(ctx context.Context, c client.Reader, server string, requests func(ctx context.Context, conn types.NamespacedName) []ctrl.Request) []ctrl.Request {
	conns, err := claims.ConnectionsOf(ctx, c, server)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list the connections of a forge server", "server", server)
		return nil
	}
	var reqs []ctrl.Request
	for _, f := range conns.Forges {
		reqs = append(reqs, requests(ctx, types.NamespacedName{Namespace: f.Namespace, Name: f.Name})...)
	}
	for _, cf := range conns.Clusters {
		reqs = append(reqs, requests(ctx, types.NamespacedName{Name: cf.Name})...)
	}
	return reqs
}

// DeciderChanged passes what can change which connection decides a
// server's shard, or the shard it names: a Forge or ClusterForge made or
// deleted, its shard label or its server changed. A manager may have
// decided before such a change reached its cache (a ClusterForge made
// after a tenant's Forge of its server, seen in between): the resources
// it then left alone, or labelled for the older decider's shard, are
// decided again only by a look made once the change is seen.
type DeciderChanged struct{ predicate.Funcs }

func (DeciderChanged) Update(e event.UpdateEvent) bool {
	return urlOf(e.ObjectOld) != urlOf(e.ObjectNew) ||
		e.ObjectOld.GetLabels()[forgev1.ShardLabel] != e.ObjectNew.GetLabels()[forgev1.ShardLabel]
}

func (DeciderChanged) Generic(event.GenericEvent) bool { return false }

// urlOf is a Forge's or ClusterForge's server key, "" for any other object.
func urlOf(o client.Object) string {
	switch c := o.(type) {
	case *forgev1.Forge:
		return forge.ServerKey(c.Spec.URL)
	case *forgev1.ClusterForge:
		return forge.ServerKey(c.Spec.URL)
	}
	return ""
}

// ServerHandler enqueues, on a change DeciderChanged passes, what each
// connection of the changed connection's server (of the servers before
// and after, when its URL changed) reaches through requests: every
// connection of the server, and every resource of each, is decided again
// (Shards.Decide) once the change is in the cache, which is the only
// moment the decision can change for those of other connections.
func ServerHandler(c client.Reader, requests func(ctx context.Context, conn types.NamespacedName) []ctrl.Request) handler.EventHandler {
	enqueue := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[ctrl.Request], objs ...client.Object) {
		seen := map[string]bool{}
		for _, o := range objs {
			server := urlOf(o)
			if server == "" || seen[server] {
				continue
			}
			seen[server] = true
			for _, req := range serverRequests(ctx, c, server, requests) {
				q.Add(req)
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			enqueue(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			enqueue(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[ctrl.Request]) {
			enqueue(ctx, q, e.Object)
		},
	}
}
