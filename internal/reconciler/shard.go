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
	"maps"

	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
)

// Shards (docs/shards.md): the unit a shard serves is the forge server,
// never one Forge, since claims (ServersOf) and fairness (Tenant) span
// every Forge and ClusterForge of a server: a manager seeing half of a
// server's resources would see half of the holders of its objects.

// ShardOf is the shard serving forge server key: the forgev1.ShardLabel of
// the server's oldest Forge or ClusterForge in c (Older: creation time,
// then namespace, a ClusterForge's being "", and name), "" (the default
// manager's) when that connection has no such label or the server has no
// connection in c. decider names that connection ("Forge team-a/gitea",
// "ClusterForge platform"), "" when there is none.
func ShardOf(ctx context.Context, c client.Reader, key string) (shard, decider string, err error) {
	conns, err := connectionsOf(ctx, c, key)
	if err != nil {
		return "", "", err
	}
	var oldest client.Object
	for _, f := range conns.forges {
		if oldest == nil || Older(f, oldest) {
			oldest, decider = f, forgev1.ForgeKind+" "+f.Namespace+"/"+f.Name
		}
	}
	for _, cf := range conns.clusters {
		if oldest == nil || Older(cf, oldest) {
			oldest, decider = cf, forgev1.ClusterForgeKind+" "+cf.Name
		}
	}
	if oldest == nil {
		return "", "", nil
	}
	return oldest.GetLabels()[forgev1.ShardLabel], decider, nil
}

// serves reports whether this manager (Options.Shard) serves obj: whether
// the shard of obj's server is its own. A resource whose connection is not
// in the cache (not made yet, or gone) is served by the manager whose cache
// holds it, which then says it waits for its connection, as without
// shards. A resource not served is left alone: no status, finalizer or
// forge write; the shard serving its server does them.
//
// The default manager, whose cache holds every unlabelled resource, hands
// a new one of a sharded server to its shard: it labels it (one metadata
// patch), and the resource leaves its cache for the shard's. Only one that
// never wrote to the forge (holdsNothing) moves this way, so that the
// shard's claims lose nothing while it moves; it may have a status, such
// as the wait for a Forge not yet in the cache when it was made (a GitOps
// tool applies a Forge and its resources at once). One that wrote to the
// forge for the default shard before its server moved waits for the
// handover of its server (docs/shards.md, not built yet).
func (r *Reconciler[T]) serves(ctx context.Context, obj T) (bool, error) {
	server := ServerOf(ctx, r.client, ForgeKey(obj))
	if server == "" {
		return true, nil
	}
	shard, decider, err := ShardOf(ctx, r.client, server)
	if err != nil || shard == r.opts.Shard {
		return err == nil, err
	}
	log := logf.FromContext(ctx).WithValues("shard", r.opts.Shard, "serverShard", shard, "decidedBy", decider)
	if r.opts.Shard == "" && obj.GetLabels()[forgev1.ShardLabel] == "" && holdsNothing(obj) {
		log.V(1).Info("a new resource of a sharded server: labelled for its shard")
		return false, r.patchLabels(ctx, obj, map[string]string{forgev1.ShardLabel: shard})
	}
	log.V(1).Info("not this manager's shard: left to the shard serving its server")
	return false, nil
}

// holdsNothing reports whether obj never wrote to the forge: the finalizer
// goes on before a pass's first forge write (and with the create mark
// before a create), and no forge object is recorded in its status.
func holdsNothing(obj forgev1.Managed) bool {
	return len(obj.GetFinalizers()) == 0 && !obj.GetManagedStatus().Known() &&
		obj.GetAnnotations()[forgev1.CreatePendingAnnotation] == ""
}

// patchLabels sets labels on obj with one metadata patch.
func (r *Reconciler[T]) patchLabels(ctx context.Context, obj T, set map[string]string) error {
	base := obj.DeepCopyObject().(T)
	labels := maps.Clone(obj.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, set)
	obj.SetLabels(labels)
	if err := r.client.Patch(ctx, obj, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("label %s for its shard: %w", r.describe(obj), err)
	}
	return nil
}
