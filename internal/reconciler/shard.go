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

	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// serves reports whether this manager serves obj (shards.Shards.Decide):
// whether its server is its shard's, desired and held. A resource whose connection
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
	if err != nil || d.State == shards.Serve {
		return err == nil, err
	}
	log := logf.FromContext(ctx).WithValues("shard", r.opts.Shards.Shard(), "serverShard", d.Desired, "holder", d.Holder, "decidedBy", d.Decider)
	if d.State == shards.Stray {
		log.V(1).Info("a resource of another shard's server: labelled for the shard that serves it", "to", d.StrayTo)
		return false, shards.RelabelShard(ctx, r.client, obj, d.StrayTo)
	}
	log.V(1).Info("its server moves between shards: left to the handover")
	return false, nil
}
