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

	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// Shards (docs/shards.md): the unit a shard serves is the forge server,
// never one Forge, since claims (ServersOf) and fairness (Tenant) span
// every Forge and ClusterForge of a server: a manager seeing half of a
// server's resources would see half of the holders of its objects.

// ShardOf is the shard serving forge server key: the forgev1.ShardLabel of
// the connection that decides the server's shard (deciding), "" (the
// default manager's) when that connection has no such label or the server
// has no connection in c. decider names that connection ("Forge
// team-a/gitea", "ClusterForge platform"), "" when there is none.
func ShardOf(ctx context.Context, c client.Reader, key string) (shard, decider string, err error) {
	conns, err := claims.ConnectionsOf(ctx, c, key)
	if err != nil {
		return "", "", err
	}
	shard, decider, _ = decidingShard(conns)
	return shard, decider, nil
}

// shard is ShardOf of these connections, and the deciding connection
// itself (nil when there is none): the oldest ClusterForge (Older:
// creation time, then name) when any points at the server, else the
// oldest Forge (creation time, then namespace and name). A server a
// ClusterForge points at is the platform's: a tenant's Forge, however old,
// must not move it (to a shard that is gone, or one the tenant picks) for
// every other tenant.
func decidingShard(conns claims.Connections) (shard, decider string, oldest client.Object) {
	for _, cf := range conns.Clusters {
		if oldest == nil || claims.Older(cf, oldest) {
			oldest, decider = cf, forgev1.ClusterForgeKind+" "+cf.Name
		}
	}
	if oldest == nil {
		for _, f := range conns.Forges {
			if oldest == nil || claims.Older(f, oldest) {
				oldest, decider = f, forgev1.ForgeKind+" "+f.Namespace+"/"+f.Name
			}
		}
	}
	if oldest == nil {
		return "", "", nil
	}
	return oldest.GetLabels()[forgev1.ShardLabel], decider, oldest
}

// serves reports whether this manager serves obj (Shards.Decide): whether
// its server is its shard's, desired and held. A resource whose connection
// is not in the cache (not made yet, or gone) is served by the manager
// whose cache holds it, which then says it waits for its connection, as
// without shards. A resource not served is left alone: no status,
// finalizer or forge write. One of a server this manager neither holds nor
// is to hold (a new resource of a sharded server in the default manager's
// cache, or one left behind by a move) is relabelled for its server's
// desired shard (one metadata patch): it leaves this manager's cache for
// that shard's, which serves it once it holds the server; or, while the
// desired shard has no running manager and the holder keeps the server,
// for the holder's shard.
func (r *Reconciler[T]) serves(ctx context.Context, obj T) (bool, error) {
	server := claims.ServerOf(ctx, r.client, claims.ForgeKey(obj))
	if server == "" {
		return true, nil
	}
	d, err := r.opts.Shards.Decide(ctx, r.client, server)
	if err != nil || d.State == Serve {
		return err == nil, err
	}
	log := logf.FromContext(ctx).WithValues("shard", r.opts.Shards.Shard(), "serverShard", d.Desired, "holder", d.Holder, "decidedBy", d.Decider)
	if d.State == Stray {
		log.V(1).Info("a resource of another shard's server: labelled for the shard that serves it", "to", d.StrayTo)
		return false, RelabelShard(ctx, r.client, obj, d.StrayTo)
	}
	log.V(1).Info("its server moves between shards: left to the handover")
	return false, nil
}
