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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
)

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

// decidingShard is ShardOf of these connections, and the deciding
// connection itself (nil when there is none): the oldest ClusterForge
// (claims.Older: creation time, then name) when any points at the server,
// else the oldest Forge (creation time, then namespace and name). A server a
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

// Options are a manager's shard settings.
type Options struct {
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

// New makes the manager's Shards; Start runs its mover. cached is
// the manager's cache, api reads from the API server.
func New(opts Options, cached, api client.Reader, writer client.Writer, recorder events.EventRecorder) *Shards {
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
