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
	"errors"
	"fmt"
	"maps"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
)

// The handover (docs/shards.md, "How a move happens"): which shard serves
// a forge server now is recorded in a coordination Lease per sharded
// server in the operator's namespace, its holder the shard (no Lease: the
// default manager). A manager serves a server's resources only when the
// server's desired shard (ShardOf, from the labels of its connections) is
// its own and the Lease names it. The holder of a server that is to move
// to a shard whose manager runs stops its passes, drains those in flight,
// relabels the server's resources in its cache for the desired shard and
// then writes the Lease: no pass of two managers on one object overlaps.
// To a shard with no running manager nothing is handed: the holder keeps
// serving, so that a label naming a retired or mistyped shard stops no
// one.

// enqueue queues server for the mover, once while it waits in the queue
// (taken from it, it may be queued again: a pass may see a change the
// mover's step did not).
func (s *Shards) enqueue(server string) {
	if s == nil || s.queue == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pending[server] {
		s.pending[server] = true
		s.queue.Add(server)
	}
}

func (s *Shards) setPending(server string, pending bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pending {
		s.pending[server] = true
	} else {
		delete(s.pending, server)
	}
}

// NeedLeaderElection: only the shard's leader moves servers.
func (s *Shards) NeedLeaderElection() bool { return true }

// Start runs the mover until ctx ends (a manager Runnable).
func (s *Shards) Start(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		s.queue.ShutDown()
	}()
	log := logf.FromContext(ctx).WithName("shards")
	for {
		server, quit := s.queue.Get()
		if quit {
			return nil
		}
		s.setPending(server, false)
		after, err := s.move(logf.IntoContext(ctx, log.WithValues("server", server)), server)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				log.Error(err, "move a forge server between shards", "server", server)
			}
			s.setPending(server, true)
			s.queue.AddRateLimited(server)
		case after > 0:
			s.setPending(server, true)
			s.queue.Forget(server)
			s.queue.AddAfter(server, after)
		default:
			s.queue.Forget(server)
		}
		s.queue.Done(server)
	}
}

// move takes one step of a move of server: it returns how long to wait
// before the next step, 0 when there is none (the server is no longer
// this manager's to move).
func (s *Shards) move(ctx context.Context, server string) (time.Duration, error) {
	d, err := s.decide(ctx, s.cached, server)
	if err != nil {
		return 0, err
	}
	switch d.State {
	case HandOver:
		return s.handOver(ctx, server, d)
	case Await:
		return s.takeOver(ctx, server, d)
	}
	if d.Unstarted {
		if err := s.keep(ctx, server, d); err != nil {
			return 0, err
		}
		s.warnOnce(ctx, server, d, "NoShardManager", fmt.Sprintf("forge server %s: %s", server, s.Note(d, namespaceOf(d.deciding))))
		return s.recheck, nil
	}
	return 0, nil
}

// keep: this manager holds server, whose desired shard has no running
// manager, so it keeps serving it. Resources of the server labelled for the
// desired shard (by a handover begun while that shard's manager ran, or by
// the default manager as strays) are in no running manager's cache:
// relabelled for this shard, read from the API server once when the
// server is first kept and again after each step of a handover this
// manager began.
func (s *Shards) keep(ctx context.Context, server string, d Decision) error {
	s.mu.Lock()
	first := s.warned[server] != "NoShardManager" || s.moved[server] > 0
	s.mu.Unlock()
	if !first {
		return nil
	}
	objs, err := s.resources(ctx, server, d.conns, ShardSelector(d.Desired))
	if err != nil {
		return err
	}
	n, err := s.relabel(ctx, objs, s.shard)
	if n > 0 {
		logf.FromContext(ctx).Info("kept a forge server whose shard has no running manager: took its resources back", "to", ShardName(s.shard), "resources", n)
	}
	s.mu.Lock()
	delete(s.moved, server)
	s.mu.Unlock()
	return err
}

func namespaceOf(o client.Object) string {
	if o == nil {
		return ""
	}
	return o.GetNamespace()
}

// handOver: this manager holds server, whose desired shard is another's.
// Its passes of the server are refused already (Decide); once those in
// flight end and its cache holds none of the server's resources (each
// relabelled for the desired shard), the Lease names the desired shard.
func (s *Shards) handOver(ctx context.Context, server string, d Decision) (time.Duration, error) {
	if n := s.fairness.PassesWhere(inFlightAt(server, d.conns)); n > 0 {
		logf.FromContext(ctx).V(1).Info("handover: waiting for the passes in flight", "slots", n)
		return s.drainPoll, nil
	}
	objs, err := s.resources(ctx, server, d.conns, nil)
	if err != nil {
		return 0, err
	}
	if len(objs) > 0 {
		n, err := s.relabel(ctx, objs, d.Desired)
		s.count(server, n)
		// Back once the cache shows them gone.
		return s.drainPoll, err
	}
	return 0, s.writeHolder(ctx, server, d, d.Holder, "ShardHandedOver", "")
}

// inFlightAt matches the fairness keys of the passes at server and its
// connections conns (fairness.InFlightAt).
func inFlightAt(server string, conns claims.Connections) func(key string) bool {
	forges := make([]types.NamespacedName, 0, len(conns.Forges))
	for _, f := range conns.Forges {
		forges = append(forges, types.NamespacedName{Namespace: f.Namespace, Name: f.Name})
	}
	clusters := make([]string, 0, len(conns.Clusters))
	for _, cf := range conns.Clusters {
		clusters = append(clusters, cf.Name)
	}
	return fairness.InFlightAt(server, forges, clusters)
}

// takeOver: server is to move to this manager's shard, and another shard
// holds it. The holder hands it over while it runs; a holder that no
// longer runs (its leader-election Lease released, or not renewed for two
// lease durations) cannot, and this manager moves its resources (read from
// the API server: they are in no cache) and takes the Lease. A holder
// whose leader-election Lease does not exist is never taken over from: it
// may be running without leader election.
func (s *Shards) takeOver(ctx context.Context, server string, d Decision) (time.Duration, error) {
	running, known, err := s.running(ctx, s.api, d.Holder)
	if err != nil || running || !known {
		return s.recheck, err
	}
	objs, err := s.resources(ctx, server, d.conns, ShardSelector(d.Holder))
	if err != nil {
		return 0, err
	}
	n, err := s.relabel(ctx, objs, s.shard)
	s.count(server, n)
	if err != nil {
		return 0, err
	}
	return 0, s.writeHolder(ctx, server, d, d.Holder, "ShardTakenOver",
		fmt.Sprintf(" (%s does not run: its leader-election Lease %s is not renewed)", ShardName(d.Holder), LeaderElectionID(d.Holder)))
}

// resources lists the managed resources of every kind that use a
// connection of server, conns: from the cache by the forgeRef index when sel is
// nil (not copied: read them, never change them), otherwise from the API
// server by the label selector sel (the resources of a shard whose
// manager is gone are in no cache), kept when their connection is one of
// the server's.
func (s *Shards) resources(ctx context.Context, server string, conns claims.Connections, sel labels.Selector) ([]client.Object, error) {
	uses := map[types.NamespacedName]bool{}
	var lists [][]client.ListOption
	for _, f := range conns.Forges {
		uses[types.NamespacedName{Namespace: f.Namespace, Name: f.Name}] = true
		lists = append(lists, []client.ListOption{client.InNamespace(f.Namespace), client.MatchingFields{claims.IndexForgeRef: f.Name}})
	}
	for _, cf := range conns.Clusters {
		uses[types.NamespacedName{Name: cf.Name}] = true
		ref := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}
		lists = append(lists, []client.ListOption{client.MatchingFields{claims.IndexForgeRef: ref.Key()}})
	}
	c := s.cached
	if sel != nil {
		c, lists = s.api, [][]client.ListOption{{client.MatchingLabelsSelector{Selector: sel}}}
	}
	var out []client.Object
	for _, newList := range s.lists {
		for _, opts := range lists {
			list := newList()
			if sel == nil {
				opts = append(opts, client.UnsafeDisableDeepCopy)
			}
			if err := c.List(ctx, list, opts...); err != nil {
				return nil, fmt.Errorf("list resources of forge server %s: %w", server, err)
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				if m, ok := it.(forgev1.Managed); ok && uses[claims.ForgeKey(m)] {
					out = append(out, m)
				}
			}
		}
	}
	return out, nil
}

// relabel sets the shard label of objs to shard ("": removes it), each
// with one metadata patch that fails if the resource changed since it was
// read (it is then read again on the next step). It returns how many it
// relabelled.
func (s *Shards) relabel(ctx context.Context, objs []client.Object, shard string) (int, error) {
	n := 0
	var errs []error
	for _, o := range objs {
		if o.GetLabels()[forgev1.ShardLabel] == shard && (shard != "" || !hasShardLabel(o)) {
			continue
		}
		if err := RelabelShard(ctx, s.writer, o, shard); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

func hasShardLabel(o client.Object) bool {
	_, ok := o.GetLabels()[forgev1.ShardLabel]
	return ok
}

// RelabelShard sets obj's shard label to shard ("" removes it) with one
// metadata patch, refused if obj changed since it was read; a resource
// gone is no error.
func RelabelShard(ctx context.Context, c client.Writer, obj client.Object, shard string) error {
	o := obj.DeepCopyObject().(client.Object)
	base := o.DeepCopyObject().(client.Object)
	l := maps.Clone(o.GetLabels())
	if l == nil {
		l = map[string]string{}
	}
	if shard == "" {
		delete(l, forgev1.ShardLabel)
	} else {
		l[forgev1.ShardLabel] = shard
	}
	o.SetLabels(l)
	if err := c.Patch(ctx, o, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("label %s %s/%s for %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), ShardName(shard), err)
	}
	return nil
}

// writeHolder records, once the Lease of server (read again from the API
// server) still names from, that d.Desired holds the server now: the Lease
// is created for a shard, updated, or deleted for the default manager
// (no Lease), each refused if the Lease changed since it was read.
func (s *Shards) writeHolder(ctx context.Context, server string, d Decision, from, reason, why string) error {
	holder, lease, err := s.holder(ctx, s.api, server)
	if err != nil || holder != from {
		return err
	}
	to := d.Desired
	if to != "" && to == from {
		return nil
	}
	switch {
	case to == "" && lease != nil:
		err = s.writer.Delete(ctx, lease, client.Preconditions{UID: &lease.UID, ResourceVersion: &lease.ResourceVersion})
	case lease == nil:
		now := metav1.NowMicro()
		err = s.writer.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: ServerLeaseName(server),
				Labels:      map[string]string{serverLeaseLabel: serverHash(server)},
				Annotations: map[string]string{serverKeyAnnotation: server}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &to, AcquireTime: &now, RenewTime: &now},
		})
	default:
		now := metav1.NowMicro()
		lease.Spec.HolderIdentity, lease.Spec.AcquireTime, lease.Spec.RenewTime = &to, &now, &now
		transitions := int32(1)
		if lease.Spec.LeaseTransitions != nil {
			transitions = *lease.Spec.LeaseTransitions + 1
		}
		lease.Spec.LeaseTransitions = &transitions
		err = s.writer.Update(ctx, lease)
	}
	if err != nil {
		return fmt.Errorf("hand forge server %s over to %s: %w", server, ShardName(to), err)
	}
	s.mu.Lock()
	n := s.moved[server]
	delete(s.moved, server)
	delete(s.warned, server)
	s.mu.Unlock()
	msg := fmt.Sprintf("forge server %s moved from %s to %s%s: %d resources relabelled", server, ShardName(from), ShardName(to), why, n)
	logf.FromContext(ctx).Info(msg)
	s.event(d, corev1.EventTypeNormal, reason, msg)
	return nil
}

func (s *Shards) count(server string, n int) {
	s.mu.Lock()
	s.moved[server] += n
	s.mu.Unlock()
}

// warnOnce records a Warning Event on the deciding connection, once per
// server and reason until the server moves.
func (s *Shards) warnOnce(ctx context.Context, server string, d Decision, reason, msg string) {
	s.mu.Lock()
	seen := s.warned[server] == reason
	s.warned[server] = reason
	s.mu.Unlock()
	if !seen {
		logf.FromContext(ctx).Info(msg)
		s.event(d, corev1.EventTypeWarning, reason, msg)
	}
}

// event records an Event on the connection that decides d's server.
func (s *Shards) event(d Decision, typ, reason, msg string) {
	if s.recorder != nil && d.deciding != nil {
		s.recorder.Eventf(d.deciding, nil, typ, reason, "Shard", "%s", msg)
	}
}
