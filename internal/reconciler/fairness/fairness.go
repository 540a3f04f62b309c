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

package fairness

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Fairness caps how many passes of one tenant's resources run at once in
// one controller. Each controller has its own pool of workers; a Forge
// that never answers would otherwise hold all of them for a reconcile
// timeout each, pass after pass, and every other tenant's resources would
// queue behind its backlog. A pass counts against its Forge, the Forge's
// namespace and the server the Forge points at, each capped below the
// pool's size: a tenant with many Forges in one namespace, or many
// namespaces' Forges at one dead server, still leaves a worker of every
// pool to the others, while one Forge's resources of different kinds go on
// side by side.
//
// A pass turned away is parked, and woken (put back in the queue at once)
// when a pass that holds what it lacked ends: one Forge with a backlog
// runs at its share without pause, rather than every turned-away request
// waiting out a delay while its share's workers idle (a manager with the
// default flags, two workers and a share of one, converged one Forge's
// labels at five a second). The slot a pass frees is held for the request
// it wakes (for wakeHold), so that a request that comes back another way
// (its fallback delay, an event) cannot take it out of turn: parked
// requests run in the order they were turned away, which keeps a backlog's
// order (one repository's labels together, served by one listing). The
// delay stays as the fallback when the controller does not watch Wakeups.
type Fairness struct {
	limit    int
	mu       sync.Mutex
	inFlight map[string]int
	parked   []parkedPass
	held     []heldSlot
	woken    chan event.GenericEvent
	watched  atomic.Bool // Wakeups is watched
	// kinds are the Fairness of each controller made from this one
	// (ForKind), for PassesWhere.
	kinds []*Fairness
}

type parkedPass struct {
	req  reconcile.Request
	keys []string // its tenant's (Tenant.keys), what it waits for
}

// heldSlot is a slot of every one of keys kept for a woken request until
// it comes to take it, or until expires.
type heldSlot struct {
	parkedPass
	expires time.Time
}

// NewFairness allows limit passes per Forge, per namespace and per server
// at once (at least 1).
func NewFairness(limit int) *Fairness {
	return &Fairness{limit: max(limit, 1), inFlight: map[string]int{}, woken: make(chan event.GenericEvent, wakeBuffer)}
}

// wakeBuffer is how many woken requests wait for the controller to take
// them; a wake that does not fit is left to the fallback delay.
const wakeBuffer = 1024

// parkedFallback is when a parked request comes back by itself, in case
// no wake reaches it (a wake that does not fit in the channel stays
// parked and is tried again at the next release, so this is a last
// resort). Each time it comes back while its tenant's backlog drains it is
// parked again, one more reconcile that does nothing: at one minute, a
// backlog of four minutes (W2 at qps 10) turned each resource away three
// or four times.
const parkedFallback = 5 * time.Minute

// wakeHold is how long the slot a woken request was woken for is kept for
// it: the time it takes to come through the queue, which other requests
// turned away meanwhile do not hold up.
const wakeHold = 5 * time.Second

// Wakeups is the source of the requests woken when their tenant's slot
// frees: the controller that runs Fair watches it. Nil stays nil.
func (f *Fairness) Wakeups() source.Source {
	if f == nil {
		return nil
	}
	f.watched.Store(true)
	return source.Channel(f.woken, &handler.EnqueueRequestForObject{}, source.WithBufferSize[client.Object, reconcile.Request](wakeBuffer))
}

// ForKind returns a Fairness of the same limit for one more controller's
// pool of workers; nil stays nil (no cap).
func (f *Fairness) ForKind() *Fairness {
	if f == nil {
		return nil
	}
	k := NewFairness(f.limit)
	f.mu.Lock()
	f.kinds = append(f.kinds, k)
	f.mu.Unlock()
	return k
}

// PassesWhere counts, over every controller made from f and f itself,
// the slots in flight whose key (Tenant.keys: "forge/<namespace>/<forge
// reference key>", "namespace/<namespace>", "server/<server key>") match
// accepts: a pass matching two keys counts twice, so it tells 0 (what a
// shard handing a server over waits for, docs/shards.md) from not 0.
func (f *Fairness) PassesWhere(match func(key string) bool) int {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	n := 0
	for k, v := range f.inFlight {
		if match(k) {
			n += v
		}
	}
	kinds := slices.Clone(f.kinds)
	f.mu.Unlock()
	for _, k := range kinds {
		n += k.PassesWhere(match)
	}
	return n
}

// DefaultForgeLimit leaves one worker of each pool of workers to the other
// tenants (a pool of one worker cannot be shared).
func DefaultForgeLimit(maxConcurrentReconciles int) int {
	return max(maxConcurrentReconciles-1, 1)
}

// Tenant is what a pass's share of the workers counts against.
type Tenant struct {
	// Forge is the Forge the pass talks through; its namespace is the tenant's.
	Forge types.NamespacedName
	// Server is forge.ServerKey of the Forge's URL; "" when unknown.
	Server string
}

// Use is a namespace's use of connection ref, as a Tenant's Forge: through
// a ClusterForge each namespace has a share of its own, as with a Forge of
// its own, and all of them count against the ClusterForge's server.
func Use(ns string, ref forgev1.ForgeReference) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: ref.Key()}
}

func (t Tenant) keys() []string {
	keys := []string{"forge/" + t.Forge.String(), "namespace/" + t.Forge.Namespace}
	if t.Server != "" {
		keys = append(keys, "server/"+t.Server)
	}
	return keys
}

// acquire takes a slot of the tenant; ok is false when its Forge, its
// namespace or its server has no free slot, and req is parked until one
// frees.
func (f *Fairness) acquire(t Tenant, req reconcile.Request) (release func(), ok bool) {
	keys := t.keys()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.free(keys, req) {
		f.park(req, keys)
		return nil, false
	}
	// Running now (woken, or its fallback delay or an event brought it
	// back first): no longer waiting, its held slot taken.
	f.parked = slices.DeleteFunc(f.parked, func(p parkedPass) bool { return p.req == req })
	f.unhold(req)
	for _, k := range keys {
		f.inFlight[k]++
	}
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, k := range keys {
			if f.inFlight[k]--; f.inFlight[k] <= 0 {
				delete(f.inFlight, k)
			}
		}
		f.wake()
	}, true
}

// free reports whether every one of keys has a slot for req, counting the
// slots held for other woken requests as taken; f.mu is held.
func (f *Fairness) free(keys []string, req reconcile.Request) bool {
	now := time.Now()
	f.held = slices.DeleteFunc(f.held, func(h heldSlot) bool { return now.After(h.expires) })
	for _, k := range keys {
		n := f.inFlight[k]
		for _, h := range f.held {
			if h.req != req && slices.Contains(h.keys, k) {
				n++
			}
		}
		if n >= f.limit {
			return false
		}
	}
	return true
}

// unhold drops the slot held for req; f.mu is held.
func (f *Fairness) unhold(req reconcile.Request) {
	f.held = slices.DeleteFunc(f.held, func(h heldSlot) bool { return h.req == req })
}

// park records req as waiting for a slot of every one of keys, once; f.mu
// is held.
func (f *Fairness) park(req reconcile.Request, keys []string) {
	for _, p := range f.parked {
		if p.req == req {
			return
		}
	}
	f.parked = append(f.parked, parkedPass{req: req, keys: keys})
}

// passOn wakes a parked request whose tenant has a slot: a woken request
// that turns out to need none (its resource is gone) hands its turn, and
// the slot held for it, on.
func (f *Fairness) passOn(req reconcile.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unhold(req)
	f.wake()
}

// wake puts back in the queue the longest parked request whose tenant now
// has a free slot, and holds the slot for it; f.mu is held.
func (f *Fairness) wake() {
	for i, p := range f.parked {
		if !f.free(p.keys, p.req) {
			continue
		}
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: p.req.Namespace, Name: p.req.Name}}
		select {
		case f.woken <- event.GenericEvent{Object: obj}:
			f.parked = slices.Delete(f.parked, i, i+1)
			f.held = append(f.held, heldSlot{parkedPass: p, expires: time.Now().Add(wakeHold)})
		default: // full: the fallback delay brings it back
		}
		return
	}
}

// TenantOf names the tenant a request's pass works for; ok is false when
// the resource is gone (the pass then needs no slot).
type TenantOf func(ctx context.Context, req reconcile.Request) (t Tenant, ok bool, err error)

// defaultTimeout is the bound of a pass whose caller names none: the loop's
// default (reconciler.DefaultReconcileTimeout), which this package, below
// the loop, does not import.
const defaultTimeout = 2 * time.Minute

// Fair runs inner only when the request's tenant has a free slot;
// otherwise the request is parked until a pass of its tenant ends (with
// Wakeups watched; after a short delay without), and comes back at low
// priority by itself only as a fallback, so that other tenants' requests
// waiting in the queue go first. Without a Fairness it returns inner.
func Fair(inner reconcile.Reconciler, fair *Fairness, tenantOf TenantOf, timeout time.Duration) reconcile.Reconciler {
	if fair == nil {
		return inner
	}
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	// Without wakeups: soon enough to take a slot freed by a pass that ran
	// into the timeout, rare enough that a large backlog of one tenant
	// costs little.
	busy := min(max(timeout/10, 200*time.Millisecond), 5*time.Second)
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		t, ok, err := tenantOf(ctx, req)
		if err != nil || !ok {
			// A woken request that takes no slot passes its wake on.
			fair.passOn(req)
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		if !ok {
			return inner.Reconcile(ctx, req)
		}
		release, ok := fair.acquire(t, req)
		if !ok {
			log.FromContext(ctx).V(1).Info("deferred: its tenant has its share of the workers", "forge", t.Forge.Name)
			// Woken in turn when watched: the delay is then only a safety
			// net, long enough that requests coming back by it seldom take
			// a slot out of turn (at 5 s, they took a random share of a
			// backlog's slots: one Forge's labels of a repository were
			// created over a minute, its listing taken again meanwhile).
			delay := busy
			if fair.watched.Load() {
				delay = max(busy, parkedFallback)
			}
			return reconcile.Result{RequeueAfter: delay, Priority: new(handler.LowPriority)}, nil
		}
		defer release()
		return inner.Reconcile(ctx, req)
	})
}

// CompleteFair completes the controller b builds with inner behind a
// Fairness of its own (f.ForKind), watching the wakes of the requests it
// parks; with no f, inner alone. Every controller with a share of the
// workers is built through it, so none leaves its parked requests to the
// fallback delay.
func CompleteFair(b *builder.Builder, inner reconcile.Reconciler, f *Fairness, tenantOf TenantOf, timeout time.Duration) error {
	fair := f.ForKind()
	if fair != nil {
		b = b.WatchesRawSource(fair.Wakeups())
	}
	return b.Complete(Fair(inner, fair, tenantOf, timeout))
}

// InFlightAt matches the keys (Tenant.keys) of the passes at a forge
// server: by its server key, and by each of its connections, its Forges
// and its ClusterForges by name (a pass that began before its connection
// reached the cache counts against its connection only; a ClusterForge's
// passes count against each namespace's use of it). PassesWhere of it is
// what a shard handing the server over waits for.
func InFlightAt(server string, forges []types.NamespacedName, clusters []string) func(key string) bool {
	keys := map[string]bool{"server/" + server: true}
	for _, f := range forges {
		keys["forge/"+f.Namespace+"/"+f.Name] = true
	}
	var uses []string
	for _, name := range clusters {
		uses = append(uses, "/"+forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: name}.Key())
	}
	return func(key string) bool {
		if keys[key] {
			return true
		}
		rest, ok := strings.CutPrefix(key, "forge/")
		if !ok {
			return false
		}
		for _, u := range uses {
			if strings.HasSuffix(rest, u) {
				return true
			}
		}
		return false
	}
}
