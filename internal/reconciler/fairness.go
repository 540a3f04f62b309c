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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Fairness caps how many passes of one Forge's resources run at once in
// one controller. Each controller has its own pool of workers; a Forge
// that never answers would otherwise hold all of them for a reconcile
// timeout each, pass after pass, and every other Forge's resources would
// queue behind its backlog. With the cap below a pool's size, a worker of
// every pool stays free for the other Forges, while one Forge's resources
// of different kinds still go on side by side.
type Fairness struct {
	limit    int
	mu       sync.Mutex
	inFlight map[types.NamespacedName]int
}

// NewFairness allows limit passes per Forge at once (at least 1).
func NewFairness(limit int) *Fairness {
	return &Fairness{limit: max(limit, 1), inFlight: map[types.NamespacedName]int{}}
}

// ForKind returns a Fairness of the same limit for one more controller's
// pool of workers; nil stays nil (no cap).
func (f *Fairness) ForKind() *Fairness {
	if f == nil {
		return nil
	}
	return NewFairness(f.limit)
}

// DefaultForgeLimit leaves one worker of each pool of workers to the other
// Forges (a pool of one worker cannot be shared).
func DefaultForgeLimit(maxConcurrentReconciles int) int {
	return max(maxConcurrentReconciles-1, 1)
}

// acquire takes a slot of forge; ok is false when the Forge has no free slot.
func (f *Fairness) acquire(forge types.NamespacedName) (release func(), ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inFlight[forge] >= f.limit {
		return nil, false
	}
	f.inFlight[forge]++
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.inFlight[forge]--; f.inFlight[forge] <= 0 {
			delete(f.inFlight, forge)
		}
	}, true
}

// ForgeOf names the Forge a request's pass talks to; ok is false when the
// resource is gone (the pass then needs no slot).
type ForgeOf func(ctx context.Context, req reconcile.Request) (forge types.NamespacedName, ok bool, err error)

// Fair runs inner only when the request's Forge has a free slot; otherwise
// the request comes back after a short delay, at low priority, so that
// other Forges' requests waiting in the queue go first. Without a Fairness
// it returns inner.
func Fair(inner reconcile.Reconciler, fair *Fairness, forgeOf ForgeOf, timeout time.Duration) reconcile.Reconciler {
	if fair == nil {
		return inner
	}
	if timeout <= 0 {
		timeout = DefaultReconcileTimeout
	}
	// Soon enough to take a slot freed by a pass that ran into the timeout,
	// rare enough that a large backlog of one Forge costs little.
	busy := min(max(timeout/10, 200*time.Millisecond), 5*time.Second)
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		forge, ok, err := forgeOf(ctx, req)
		if err != nil {
			return reconcile.Result{}, err
		}
		if !ok {
			return inner.Reconcile(ctx, req)
		}
		release, ok := fair.acquire(forge)
		if !ok {
			log.FromContext(ctx).V(1).Info("deferred: its Forge has its share of the workers", "forge", forge.Name)
			return reconcile.Result{RequeueAfter: Jitter(busy), Priority: new(handler.LowPriority)}, nil
		}
		defer release()
		return inner.Reconcile(ctx, req)
	})
}
