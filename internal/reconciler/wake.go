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
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// Wake is a forge event a Receiver's endpoint accepted (its signature
// checked, its organization one the Receiver names): it asks for passes
// of the resources it concerns, which read the forge afresh. It carries
// no data any pass writes: the event only says where to look again.
type Wake struct {
	// Receiver is the Receiver the delivery came to; Namespace and ForgeRef
	// are its: the event happened on the server of that connection.
	Receiver types.NamespacedName
	ForgeRef forgev1.ForgeReference
	// Event is the forge's event name (repository, create, push).
	Event forgev1.ReceiverEvent
	// Owner and Repo name the repository the event happened in; Branch the
	// branch of a create or push, DefaultBranch the repository's default
	// branch as a push tells it (empty when it did not).
	Owner, Repo, Branch string
	DefaultBranch       string
}

// BranchWoken is a kind whose objects depend on a repository's branches
// (a branch rule): a branch created in one of its repositories passes
// over it at once.
type BranchWoken interface {
	WokenByBranches()
}

// PushWoken is a kind that keeps files in a branch (RepositoryFile,
// FileSet): a push to a repository it keeps files in passes over it at
// once, so that a file edited by hand is written back without waiting for
// the interval.
type PushWoken interface {
	WokenByPushes()
}

// PushRecomparer is a kind that keeps files on one branch of a repository
// (RepositoryFile, FileSet): a push concerns obj only when it is to that
// branch, which Pushed says. A set's round compared the repository
// already, so that a woken pass would skip it: a set's Pushed, when the
// push concerns it, also has the round forget that repository alone, so
// that the woken pass compares it again and no other.
type PushRecomparer[T forgev1.Managed] interface {
	Pushed(obj T, wk Wake) bool
}

// DeliveryKeeper is the Receiver kind: each delivery it accepted asks for
// a pass of the Receiver itself, at most once a minute, which records the
// last event in its status.
type DeliveryKeeper interface {
	KeepsDeliveries()
}

// Spacing of the passes deliveries ask for: deliveries within a second
// coalesce into one pass per resource; a Receiver records its last event
// at most once a minute.
const (
	WakeSpacing     = time.Second
	ReceiverSpacing = time.Minute
)

// Wakes hands a forge event to every kind's controller, each of which
// finds the resources the event concerns and enqueues them, coalesced.
// One Wakes serves a manager; nil wakes nothing.
type Wakes struct {
	mu   sync.Mutex
	subs []func(context.Context, Wake) int
}

// NewWakes makes the Wakes of a manager.
func NewWakes() *Wakes { return &Wakes{} }

// Wake asks for the passes wk concerns and says how many resources it
// enqueued (some of them coalesced with a pass asked for already).
func (w *Wakes) Wake(ctx context.Context, wk Wake) int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	subs := append([]func(context.Context, Wake) int(nil), w.subs...)
	w.mu.Unlock()
	n := 0
	for _, s := range subs {
		n += s(ctx, wk)
	}
	return n
}

func (w *Wakes) subscribe(f func(context.Context, Wake) int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.subs = append(w.subs, f)
}

// wakeSource is the controller's source of woken resources: it keeps the
// controller's queue, which the wakes then fill.
func (r *Reconciler[T]) wakeSource() source.TypedSource[reconcile.Request] {
	return source.TypedFunc[reconcile.Request](func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		r.woken.mu.Lock()
		defer r.woken.mu.Unlock()
		r.woken.queue = q
		return nil
	})
}

// wake enqueues the resources of the kind that wk concerns; each of them
// reads the forge afresh in its pass (an arrival, as readPolicy takes it).
func (r *Reconciler[T]) wake(ctx context.Context, wk Wake) int {
	var reqs []ctrl.Request
	spacing := WakeSpacing
	switch {
	case isA[DeliveryKeeper](r.kind):
		reqs, spacing = []ctrl.Request{{NamespacedName: wk.Receiver}}, ReceiverSpacing
	case wk.Event == forgev1.ReceiverEventRepository:
		reqs = r.forRepositoryEvent(ctx, wk, r.wakeScope(ctx, wk))
	case wk.Event == forgev1.ReceiverEventCreate && isA[BranchWoken](r.kind),
		wk.Event == forgev1.ReceiverEventPush && isA[PushWoken](r.kind):
		// Every resource of the repository (or set selecting it; of a
		// PushRecomparer, those of the pushed branch): the pass compares its
		// own branch afresh.
		reqs = r.forBranchEvent(ctx, wk, r.wakeScope(ctx, wk))
	}
	now := time.Now()
	for _, req := range reqs {
		if spacing == WakeSpacing {
			r.arrivals.note(req.NamespacedName, now)
		}
		r.woken.add(req, now, spacing)
	}
	return len(reqs)
}

// wakeScope is the namespace whose resources wk may wake: the
// Receiver's own, or every one ("") when the Receiver goes through a
// ClusterForge that grants its namespace the event's organization. A
// Receiver on a Forge of its namespace's own speaks for that namespace
// alone: its secret is its tenant's, who can sign anything with it, and
// its passes must not spend other tenants' forge budget.
func (r *Reconciler[T]) wakeScope(ctx context.Context, wk Wake) string {
	everywhere, err := claims.GrantsEverywhere(ctx, r.client, wk.Receiver.Namespace, wk.ForgeRef, wk.Owner)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "decide which namespaces a delivery wakes", "receiver", wk.Receiver.String())
	}
	if everywhere {
		return ""
	}
	return wk.Receiver.Namespace
}

func isA[I any](kind any) bool {
	_, ok := kind.(I)
	return ok
}

// eventRepository is the repository an event names, as a Repository of
// the Receiver's connection: the mappings of Repository resources becoming
// Ready then find what it concerns.
func eventRepository(wk Wake) *forgev1.Repository {
	name := forgev1.RepoName(wk.Repo)
	repo := &forgev1.Repository{}
	repo.Namespace = wk.Receiver.Namespace
	repo.Spec.ForgeRef = wk.ForgeRef
	repo.Spec.Owner = forgev1.OwnerName(wk.Owner)
	repo.Spec.Name = &name
	return repo
}

// forRepositoryEvent: a repository created or deleted concerns the sets
// selecting its organization (by organization: topics are read in the
// pass), the Repository resources naming it and the resources waiting
// for it, of namespace ns ("": every namespace).
func (r *Reconciler[T]) forRepositoryEvent(ctx context.Context, wk Wake, ns string) []ctrl.Request {
	repo := eventRepository(wk)
	if sel, ok := any(r.kind).(RepoSelector[T]); ok {
		return r.forSelecting(ctx, repo, sel, nil, ns)
	}
	if t, ok := any(repo).(T); ok {
		return r.sameServer(ctx, repo, r.requests(ctx, ns, indexKey, r.kind.Key(t)))
	}
	if _, ok := any(r.kind).(RepoScoped[T]); ok {
		return r.forRepository(ctx, repo)
	}
	return nil
}

// forBranchEvent: a branch created concerns the branch rules of its
// repository, of sets selecting it too; a push the kept files of its
// repository, of sets selecting it too (those keeping files on its
// branch); sets of namespace ns ("": every namespace), the others of the
// Receiver's.
func (r *Reconciler[T]) forBranchEvent(ctx context.Context, wk Wake, ns string) []ctrl.Request {
	repo := eventRepository(wk)
	var keep func(T) bool
	if p, ok := any(r.kind).(PushRecomparer[T]); ok && wk.Event == forgev1.ReceiverEventPush {
		keep = func(obj T) bool { return p.Pushed(obj, wk) }
	}
	if sel, ok := any(r.kind).(RepoSelector[T]); ok {
		return r.forSelecting(ctx, repo, sel, keep, ns)
	}
	var keepObj func(client.Object) bool
	if keep != nil {
		keepObj = func(o client.Object) bool {
			obj, ok := o.(T)
			return ok && keep(obj)
		}
	}
	return r.requestsOf(ctx, wk.Receiver.Namespace, indexRepo, repoRefKey(wk.ForgeRef.Key(), repo.FullName()), keepObj)
}

// sameServer keeps the requests for resources whose connection reaches
// repo's server.
func (r *Reconciler[T]) sameServer(ctx context.Context, repo *forgev1.Repository, reqs []ctrl.Request) []ctrl.Request {
	servers, err := claims.ServersOf(ctx, r.client, repo)
	if err != nil {
		return nil
	}
	out := reqs[:0]
	for _, req := range reqs {
		obj := r.kind.New()
		if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
			continue
		}
		if servers.Reach(obj.GetNamespace(), obj.GetManagedSpec().ForgeRef) {
			out = append(out, req)
		}
	}
	return out
}

// woken enqueues the passes wakes ask for, coalesced: at most one pass per
// resource per spacing, however many deliveries ask. Its memory holds the
// resources woken in the last minute or so.
type woken struct {
	mu    sync.Mutex
	queue workqueue.TypedRateLimitingInterface[reconcile.Request]
	slots map[types.NamespacedName]wakeSlot
}

type wakeSlot struct {
	free    time.Time // when a pass may begin without waiting
	pending time.Time // a pass asked for then, not yet begun
}

func (w *woken) add(req ctrl.Request, now time.Time, spacing time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.queue == nil {
		return // the controller has not started
	}
	if w.slots == nil {
		w.slots = map[types.NamespacedName]wakeSlot{}
	}
	if len(w.slots) > 10000 {
		for k, s := range w.slots {
			if s.free.Before(now) && s.pending.Before(now) {
				delete(w.slots, k)
			}
		}
	}
	s := w.slots[req.NamespacedName]
	switch {
	case s.pending.After(now):
		return // coalesced into the pass asked for already
	case !s.free.After(now):
		w.slots[req.NamespacedName] = wakeSlot{free: now.Add(spacing)}
		w.queue.Add(req)
	default:
		w.slots[req.NamespacedName] = wakeSlot{free: s.free.Add(spacing), pending: s.free}
		w.queue.AddAfter(req, s.free.Sub(now))
	}
}

func (w *woken) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.slots, key)
}
