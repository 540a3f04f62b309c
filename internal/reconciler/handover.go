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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
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

const (
	// serverLeaseLabel marks the per-server Leases (its value is the
	// hash in their name), so that the cache holds them and no other
	// Lease of the namespace.
	serverLeaseLabel = "forge.forgeops.dev/server-lease"
	// serverKeyAnnotation is the forge.ServerKey a per-server Lease is for.
	serverKeyAnnotation = "forge.forgeops.dev/server"
	// leaderElectionID is the default manager's leader-election Lease;
	// a shard's is this, "-" and the shard.
	leaderElectionID = "forge-operator.forge.forgeops.dev"
)

// LeaderElectionID is the leader-election Lease of a shard's managers:
// each shard elects its own leader, so that replicas of one shard never
// both run and replicas of two shards never wait for each other. The
// handover reads it to know whether a shard runs.
func LeaderElectionID(shard string) string {
	if shard == "" {
		return leaderElectionID
	}
	return leaderElectionID + "-" + shard
}

// ServerLeaseName is the name of the Lease recording which shard serves
// forge server key: the hash of the key, which is no object name.
func ServerLeaseName(key string) string { return "forge-operator-server-" + serverHash(key) }

// serverHash names forge server key in a Lease's name and label value.
func serverHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// ShardState is what a manager does with a server's resources.
type ShardState int

const (
	// Serve: the server is the manager's, desired and held.
	Serve ShardState = iota
	// HandOver: the manager holds the server, which is to move to another
	// shard: its passes stop and its mover hands the server over.
	HandOver
	// Await: the server is to move to this manager's shard, and another
	// holds it: nothing is written until the Lease names this shard.
	Await
	// Stray: neither desired nor held: a resource of it in this
	// manager's cache is relabelled for the desired shard.
	Stray
)

// Decision is a manager's view of one server's shards.
type Decision struct {
	State ShardState
	// Desired is the shard the server's deciding connection (Decider)
	// names; Holder the one its Lease names ("" the default manager).
	Desired, Holder, Decider string
	// Unstarted: the desired shard has no running manager (no
	// leader-election Lease of it, never deployed or a mistyped label, or
	// one nobody holds and renews: a retired shard), so the holder keeps
	// serving the server until one runs. Stopped tells the second case.
	Unstarted, Stopped bool
	// StrayTo is the shard a Stray resource is labelled for: the desired
	// shard, or the holder's while the holder keeps the server (Unstarted
	// as the holder sees it).
	StrayTo string

	// conns are the server's connections as read (the cache's own
	// objects: read them, never change them), deciding the connection
	// named Decider.
	conns    claims.Connections
	deciding client.Object
}

// Note says, for the status of a served connection in namespace ns ("" a
// ClusterForge), that d's server waits for a shard that has no running
// manager; "" otherwise.
func (s *Shards) Note(d Decision, ns string) string {
	if !d.Unstarted {
		return ""
	}
	lease := LeaderElectionID(d.Desired)
	if s.Leases() {
		lease = s.namespace + "/" + lease
	}
	why := fmt.Sprintf("which has no manager (no leader-election Lease %s)", lease)
	if d.Stopped {
		why = fmt.Sprintf("whose manager does not run (its leader-election Lease %s is not held and renewed)", lease)
	}
	return fmt.Sprintf("its server's shard is %s (%s), %s: %s keeps serving it until one runs",
		ShardName(d.Desired), d.DeciderFor(ns), why, ShardName(d.Holder))
}

// DeciderFor names the deciding connection for a reader in namespace ns
// ("" the platform's, a ClusterForge's status): a ClusterForge, or a Forge
// of ns, by name; another namespace's Forge is only said to be one, as
// tenants learn no names of each other's objects.
func (d Decision) DeciderFor(ns string) string {
	if f, ok := d.deciding.(*forgev1.Forge); ok && ns != "" && f.Namespace != ns {
		return "a Forge in another namespace"
	}
	return d.Decider
}

// Shards is a manager's part in the shards: deciding, per server, whether
// it serves it, and moving servers from and to its shard. A nil *Shards
// is a default manager alone (no Lease is read: every server is held by
// the default manager).
type Shards struct {
	shard, namespace string
	// cached reads Forges, ClusterForges, the per-server Leases and the
	// resources of this manager's shard; api reads uncached (another
	// shard's resources, leader-election Leases); writer writes.
	cached client.Reader
	api    client.Reader
	writer client.Writer
	// lists make an empty list of each managed kind.
	lists    []func() client.ObjectList
	fairness *fairness.Fairness
	recorder events.EventRecorder
	// recheck is how long an awaiting manager waits before it looks again
	// whether the holder still runs; the poll of the drain is drainPoll.
	recheck, drainPoll time.Duration

	queue   workqueue.TypedRateLimitingInterface[string]
	mu      sync.Mutex
	pending map[string]bool
	moved   map[string]int
	warned  map[string]string
}

// ShardsOptions are a manager's shard settings.
type ShardsOptions struct {
	// Shard is the manager's --shard; Namespace the operator's, where the
	// per-server and leader-election Leases are.
	Shard, Namespace string
	// Lists make an empty list of each managed kind.
	Lists []func() client.ObjectList
	// Fairness counts the passes in flight, for the drain.
	Fairness *fairness.Fairness
	// Recheck: how often an awaiting manager looks whether the holder of
	// its server still runs (default 15 s, the leader-election lease).
	Recheck time.Duration
}

// NewShards makes the manager's Shards; Start runs its mover. cached is
// the manager's cache, api reads from the API server.
func NewShards(opts ShardsOptions, cached, api client.Reader, writer client.Writer, recorder events.EventRecorder) *Shards {
	s := &Shards{shard: opts.Shard, namespace: opts.Namespace, cached: cached, api: api, writer: writer, lists: opts.Lists,
		fairness: opts.Fairness, recorder: recorder, recheck: opts.Recheck, drainPoll: 100 * time.Millisecond,
		pending: map[string]bool{}, moved: map[string]int{}, warned: map[string]string{}}
	if s.recheck <= 0 {
		s.recheck = 15 * time.Second
	}
	s.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "shard-handover"})
	return s
}

// Shard is the manager's shard ("" the default manager's).
func (s *Shards) Shard() string {
	if s == nil {
		return ""
	}
	return s.shard
}

// Decide reads, from the cache, which shard the server (a forge.ServerKey)
// is to have and which holds it, and what this manager does with its
// resources; a server to hand over or to await, or kept for a shard with
// no manager, is queued for the mover.
func (s *Shards) Decide(ctx context.Context, c client.Reader, server string) (Decision, error) {
	d, err := s.decide(ctx, c, server)
	if err == nil && (d.State == HandOver || d.State == Await || d.Unstarted) {
		s.enqueue(server)
	}
	return d, err
}

// decide is Decide without queueing: the mover's own look.
func (s *Shards) decide(ctx context.Context, c client.Reader, server string) (Decision, error) {
	conns, err := claims.ConnectionsOf(ctx, c, server)
	if err != nil {
		return Decision{}, err
	}
	desired, decider, deciding := decidingShard(conns)
	holder, _, err := s.holder(ctx, s.reader(c), server)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Desired: desired, Holder: holder, Decider: decider, conns: conns, deciding: deciding}
	mine := s.Shard()
	switch {
	case desired == mine && holder == mine:
		d.State = Serve
	case holder == mine:
		d.State = HandOver
		if running, known, err := s.running(ctx, s.reader(c), desired); err != nil {
			return Decision{}, err
		} else if !running {
			// Nobody to hand it to: kept served, and looked at again by
			// the mover (which says so once in an Event).
			d.State, d.Unstarted, d.Stopped = Serve, true, known
		}
	case desired == mine:
		d.State = Await
	default:
		d.State, d.StrayTo = Stray, desired
		// While the desired shard has no running manager its holder keeps
		// the server: a new resource goes to the holder's cache, not to
		// one nobody reads.
		r := s.reader(c)
		if running, _, err := s.running(ctx, r, desired); err != nil {
			return Decision{}, err
		} else if !running {
			if held, _, err := s.running(ctx, r, holder); err != nil {
				return Decision{}, err
			} else if held {
				d.StrayTo = holder
			}
		}
	}
	return d, nil
}

func (s *Shards) reader(c client.Reader) client.Reader {
	if s == nil || s.cached == nil {
		return c
	}
	return s.cached
}

// holder is the shard the server's Lease names, from c, and the Lease (nil
// when there is none: the default manager holds the server).
func (s *Shards) holder(ctx context.Context, c client.Reader, server string) (string, *coordinationv1.Lease, error) {
	if s == nil || s.namespace == "" {
		return "", nil, nil
	}
	var l coordinationv1.Lease
	err := c.Get(ctx, types.NamespacedName{Namespace: s.namespace, Name: ServerLeaseName(server)}, &l)
	if apierrors.IsNotFound(err) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read the Lease of forge server %s: %w", server, err)
	}
	if l.Spec.HolderIdentity == nil {
		return "", &l, nil
	}
	return *l.Spec.HolderIdentity, &l, nil
}

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

// running reports, from c, whether a manager of shard holds its
// leader-election Lease now, and whether that Lease exists at all (a
// manager of shard ever ran with leader election); a manager that reads
// no Leases knows of no other.
func (s *Shards) running(ctx context.Context, c client.Reader, shard string) (running, known bool, err error) {
	if !s.Leases() {
		return false, false, nil
	}
	var l coordinationv1.Lease
	err = c.Get(ctx, types.NamespacedName{Namespace: s.namespace, Name: LeaderElectionID(shard)}, &l)
	if apierrors.IsNotFound(err) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("read the leader-election Lease of %s: %w", ShardName(shard), err)
	}
	sp := l.Spec
	if sp.HolderIdentity == nil || *sp.HolderIdentity == "" || sp.RenewTime == nil || sp.LeaseDurationSeconds == nil {
		return false, true, nil
	}
	expires := sp.RenewTime.Add(2 * time.Duration(*sp.LeaseDurationSeconds) * time.Second)
	return time.Now().Before(expires), true, nil
}

// ShardSelector selects the managed resources of a shard: labelled with
// it, or for the default shard not labelled.
func ShardSelector(shard string) labels.Selector {
	if shard != "" {
		return labels.SelectorFromSet(labels.Set{forgev1.ShardLabel: shard})
	}
	req, err := labels.NewRequirement(forgev1.ShardLabel, selection.DoesNotExist, nil)
	if err != nil {
		panic(err) // a constant, valid key
	}
	return labels.NewSelector().Add(*req)
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

// ShardName names a shard in a message.
func ShardName(shard string) string {
	if shard == "" {
		return "the default shard (no label)"
	}
	return "shard " + shard
}

// Leases reports whether this manager reads per-server Leases (it knows
// the operator's namespace, whose Leases its cache holds).
func (s *Shards) Leases() bool { return s != nil && s.namespace != "" }

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
