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
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// Options tune the loop.
type Options struct {
	// SyncInterval is the drift check period of objects without spec.syncInterval.
	SyncInterval time.Duration
	// MaxConcurrentReconciles per kind.
	MaxConcurrentReconciles int
	// BaseBackoff and MaxBackoff bound the exponential retry delay of
	// waiting and transient failures (the delay never exceeds the object's
	// sync interval either).
	BaseBackoff, MaxBackoff time.Duration
	// ReconcileTimeout bounds one pass (default 2m); Fairness, when set,
	// caps the passes of one Forge's resources running at once.
	ReconcileTimeout time.Duration
	Fairness         *fairness.Fairness
	// Shards is the manager's part in the shards (--shard, docs/shards.md):
	// it passes only over the resources of the forge servers its shard
	// serves and holds; nil is a default manager alone.
	Shards *shards.Shards
	// Wakes, when set, hands the controller the forge events a Receiver
	// accepted: the resources they concern pass at once (wake.go).
	Wakes *Wakes
}

// WithDefaults returns o with every unset option at its default: a 10
// minute sync interval, one reconcile at a time, retries backing off
// from 1 second to 5 minutes, and passes of at most 2 minutes.
func (o Options) WithDefaults() Options {
	if o.SyncInterval <= 0 {
		o.SyncInterval = 10 * time.Minute
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = 1
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Minute
	}
	if o.ReconcileTimeout <= 0 {
		o.ReconcileTimeout = DefaultReconcileTimeout
	}
	return o
}

// Reconciler runs the shared loop for kind T.
type Reconciler[T forgev1.Managed] struct {
	client   client.Client
	reader   client.Reader
	kind     Kind[T]
	kindName string
	pool     *connection.Pool
	status   StatusWriter
	opts     Options
	backoff  *Backoff
	schedule *schedule
	arrivals arrivals
	woken    woken
	// declarers are the declaring kinds of the manager (refs.go).
	declarers *declarers
}

// arrivals records, per set resource, when the last repository it
// selects became Ready as a Repository resource (forSelecting), and whether
// a pass has taken it up since.
type arrivals struct {
	mu sync.Mutex
	at map[types.NamespacedName]arrival
}

type arrival struct {
	at  time.Time
	new bool // no pass has begun since
}

func (a *arrivals) note(key types.NamespacedName, t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at == nil {
		a.at = map[types.NamespacedName]arrival{}
	}
	if t.After(a.at[key].at) {
		a.at[key] = arrival{at: t, new: true}
	}
}

func (a *arrivals) last(key types.NamespacedName) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at[key].at
}

// take is last, and whether the arrival is new to the pass taking it.
func (a *arrivals) take(key types.NamespacedName) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.at[key]
	if ok && v.new {
		a.at[key] = arrival{at: v.at}
	}
	return v.at, v.new
}

func (a *arrivals) forget(key types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.at, key)
}

func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.kind.New()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Another shard's resource (its server moved, or it is not relabelled
	// yet) is that shard's to write: nothing is written here, and nothing
	// kept for it. Its server coming back, or its relabelling, brings it
	// back (the Forge watch, the cache).
	if ok, err := r.serves(ctx, obj); !ok {
		if err == nil {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, err
	}
	// Marks an earlier version kept in annotations are taken (moved into
	// status or dropped) before anything can rest on them.
	if obj.GetDeletionTimestamp().IsZero() || controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) {
		if err := r.takeAnnotatedMarks(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	orig := obj.DeepCopyObject().(T)

	reads := r.readPolicy(req.NamespacedName, obj)
	out, err := r.pass(ctx, obj, reads)
	c, ok := Classify(err)
	if err != nil && c.Yield {
		// A routine check's turn in the forge's drift lane comes later:
		// nothing was read, nothing is written; it comes back once, when
		// its turn (kept for it) comes.
		delay := yieldDelay(r.interval(obj))
		var te *forge.TurnError
		if errors.As(err, &te) {
			r.schedule.holdTurn(req.NamespacedName, te.At)
			delay = max(time.Until(te.At), 0)
		}
		passEnded(r.kindName, "turn")
		return ctrl.Result{RequeueAfter: delay, Priority: new(handler.LowPriority)}, nil
	}
	// The status of a pass cut short by the reconcile timeout is still written.
	ctx, finish := FinishContext(ctx)
	defer finish()
	if err != nil {
		if !ok {
			// A Kubernetes API failure: let controller-runtime retry with its backoff.
			passEnded(r.kindName, "error")
			return ctrl.Result{}, err
		}
		if w := r.awaiting(ctx, obj, err, c); w != nil {
			// What it references is declared by a resource on its way: that
			// resource becoming Ready brings this one back (refs.go), so
			// retrying meanwhile would only read the forge again.
			out = Failure(*w, r.interval(obj))
		} else {
			out = Failure(c, r.backoff.Failed(req.NamespacedName, c, r.interval(obj)))
		}
	} else if out.Summary.State == conditions.Ready {
		r.backoff.Succeeded(req.NamespacedName)
	}
	passEnded(r.kindName, outcomeName(out.Summary.State))
	// Told from status itself, also of a pass that failed after finding
	// them: the next pass compares with what this one recorded.
	out.More = append(out.More, removalsEvent(orig, obj)...)
	if err := r.status.Write(ctx, orig, obj, out); err != nil {
		return ctrl.Result{}, err
	}
	res := ctrl.Result{RequeueAfter: out.Requeue}
	if out.check {
		// Drift checks wait behind the creates and updates in the queue.
		res.Priority = new(handler.LowPriority)
	}
	return res, nil
}

// forget drops what the loop keeps for a resource it no longer passes over.
func (r *Reconciler[T]) forget(key types.NamespacedName) {
	r.schedule.forget(key)
	r.arrivals.forget(key)
	r.woken.forget(key)
	if f, ok := any(r.kind).(Forgetter); ok {
		f.Forget(key)
	}
}

// readPolicy is how a pass over obj reads the forge (connect binds the
// pass's client to it): from listings no older than its sync interval,
// unless a create may have happened unseen or a reconcile was requested
// (then the pass lists afresh); a routine drift check is marked background,
// to give way to other work (schedule.go). The pass's next check is
// scheduled from the listings the policy records.
func (r *Reconciler[T]) readPolicy(key types.NamespacedName, obj T) *forge.ReadPolicy {
	interval := r.interval(obj)
	status := obj.GetManagedStatus()
	reads := &forge.ReadPolicy{}
	// A requested reconcile (the annotation) reads the forge afresh too.
	nothingAsked := pendingMark(obj) == "" &&
		obj.GetAnnotations()[forgev1.ReconcileRequestedAtAnnotation] == status.LastHandledReconcileAt
	if nothingAsked {
		reads.MaxAge = interval
	}
	if !status.Known() || status.ObservedGeneration != obj.GetGeneration() {
		// Looking for an object to adopt, or applying a changed spec (a
		// set's new label may rename one someone just made): what was made
		// on the forge before the resource or its change was applied must
		// be in the listing.
		reads.ListedAfter = r.schedule.changedBefore(key, obj)
	}
	arrived, news := r.arrivals.take(key)
	if arrived.After(reads.ListedAfter) {
		// A repository the set selects became Ready: the set's listing of
		// repositories must hold it.
		reads.ListedAfter = arrived
	}
	settled := nothingAsked && obj.GetDeletionTimestamp().IsZero() && !obj.GetManagedSpec().Suspend && readyAtGeneration(obj)
	// A pass for a repository that just arrived is new work, no routine
	// check: it does not wait for the drift lane.
	reads.Background = settled && !news && r.schedule.routine(key, interval, time.Now())
	if reads.Background {
		reads.Turn = r.schedule.takeTurn(key)
	}
	return reads
}

// readyAtGeneration reports whether obj's status describes its generation
// and says Ready.
func readyAtGeneration(obj forgev1.Managed) bool {
	return obj.GetManagedStatus().ObservedGeneration == obj.GetGeneration() && conditions.IsReady(obj, obj.GetGeneration())
}

// nextCheck is the delay until obj's next drift check (schedule.go), from
// the oldest listing the pass read.
func (r *Reconciler[T]) nextCheck(pass *Pass, obj T) time.Duration {
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	return r.schedule.next(key, obj.GetUID(), r.checkEvery(pass, obj), pass.reads.OldestListing(), time.Now())
}

// checkEvery is how far apart obj's drift checks are: its sync interval,
// times the intervals a check of every scope of its Forge takes when the
// scopes' listings are more than half the Forge's rate allows, and once
// more while creates and updates wait for that rate (forge.CheckSpacing).
func (r *Reconciler[T]) checkEvery(pass *Pass, obj T) time.Duration {
	return r.interval(obj) * time.Duration(forge.CheckSpacing(pass.Forge))
}

// pass does the work; status is written by the caller.
func (r *Reconciler[T]) pass(ctx context.Context, obj T, reads *forge.ReadPolicy) (Outcome, error) {
	spec := obj.GetManagedSpec()
	status := obj.GetManagedStatus()
	if spec.ForgeRef.Cluster() {
		// Checked when the pass connects, and again before each write.
		ctx = forge.WithWriteCheck(ctx, func(ctx context.Context) error {
			why, err := r.notServed(ctx, obj)
			if err != nil || why == "" {
				return err
			}
			return notPermitted(claims.Permission{Why: why})
		})
	}

	if !obj.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, obj, reads)
	}
	if spec.Suspend {
		return Outcome{Summary: conditions.Summary{State: conditions.Idle, Reason: forgev1.ReasonSuspended,
			Message: "spec.suspend is true: no forge calls are made until it is set back to false"}}, nil
	}
	observe := spec.ManagementPolicy == forgev1.ManagementPolicyObserve

	pass, err := r.connect(ctx, obj, reads)
	if err != nil {
		return Outcome{}, err
	}
	// The release gates, before the kind reads or writes anything.
	if err := Unsupported(obj, pass.Server); err != nil {
		return Outcome{}, err
	}
	ctx = r.withScopeCheck(ctx, obj, pass)
	if observe {
		// Observing never deletes, so it needs no finalizer.
		if err := r.setFinalizer(ctx, obj, false); err != nil {
			return Outcome{}, err
		}
	}

	if err := forge.Yield(pass.Forge); err != nil {
		return Outcome{}, err // before reading a Secret or the forge
	}
	if sk, ok := r.kind.(SetKind[T]); ok {
		return r.syncSet(ctx, sk, obj, pass, observe)
	}
	ext, err := r.kind.Connect(ctx, obj, pass)
	if err != nil {
		return Outcome{}, err
	}
	obs, err := ext.Observe(ctx)
	if err != nil {
		// An Observe that found its object and refuses to go on (a
		// Repository whose token may not administer it) still records it.
		return Outcome{}, keepIdentity(obj, obs, err)
	}
	if !obs.Exists && !observe && pass.reads.Paged() {
		if ext, obs, err = r.confirmAbsent(ctx, obj, pass); err != nil {
			return Outcome{}, keepIdentity(obj, obs, err)
		}
	}
	// Conflicts are decided after Observe, so that a resource that yields
	// to an older one has read the object all the same and holds it (its
	// identity is kept below): the older one's deletion then leaves the
	// object to it rather than removing it.
	if err := r.checkKeyConflict(ctx, obj); err != nil {
		return Outcome{}, keepIdentity(obj, obs, err)
	}
	if obs.Exists && obs.ID != 0 {
		// A kind without ids has its identity in its natural key, whose
		// conflicts checkKeyConflict found already.
		if err := r.checkIDConflict(ctx, obj, obs.ID); err != nil {
			return Outcome{}, keepIdentity(obj, obs, err)
		}
	}
	// The finalizer goes on before the first write to the forge: before
	// the create-pending mark when creating (markPending), and before
	// adopting or updating what exists.
	if !observe && obs.Exists && !obs.Replace {
		if err := r.setFinalizer(ctx, obj, true); err != nil {
			return Outcome{}, err
		}
	}
	what := r.kind.Describe(obj)

	if observe {
		out := observed(status, obs, what, r.nextCheck(pass, obj))
		out.More = append(out.More, obs.Notices...)
		return out, nil
	}
	out, err := r.act(ctx, obj, pass, ext, obs, what)
	return out, keepIdentity(obj, obs, err)
}

// confirmAbsent observes obj again through a view of the pass's client that
// lists afresh, before a create decided on the absence of its object from
// a listing that was walked page by page (forge.ReadPolicy.Paged): the
// object may have moved across a page boundary during the walk, and
// creating it again would make a duplicate. The fresh listings are taken
// under forge.ConfirmingAbsence, which walks one of many pages until two
// walks agree, so that a shift during them cannot hide it either. It
// returns the fresh view's External and what it found.
func (r *Reconciler[T]) confirmAbsent(ctx context.Context, obj T, pass *Pass) (External, Observation, error) {
	ctx = forge.ConfirmingAbsence(ctx)
	fresh := *pass
	fresh.Forge = forge.Fresh(pass.Forge)
	ext, err := r.kind.Connect(ctx, obj, &fresh)
	if err != nil {
		return nil, Observation{}, err
	}
	if c, ok := ext.(AbsenceConfirmer); ok {
		obs, err := c.ConfirmAbsent(ctx)
		return ext, obs, err
	}
	obs, err := ext.Observe(ctx)
	return ext, obs, err
}

// keepIdentity records in status the object a failing pass found (DESIGN
// "Identity is recorded when seen"): a later rename or deletion then
// addresses that object, not another one found by name. The status of a
// failed pass is written all the same (Reconcile). It returns err.
func keepIdentity[T forgev1.Managed](obj T, obs Observation, err error) error {
	if err != nil && obs.Exists && !obs.Replace && (obs.ID != 0 || obs.Name != "") {
		record(obj.GetManagedStatus(), obs)
	}
	return err
}

// setFinalizer adds or removes the finalizer, persisting it at once.
func (r *Reconciler[T]) setFinalizer(ctx context.Context, obj T, want bool) error {
	if controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) == want {
		return nil
	}
	err := r.patchMeta(ctx, obj, func(o T) {
		if want {
			controllerutil.AddFinalizer(o, forgev1.Finalizer)
		} else {
			controllerutil.RemoveFinalizer(o, forgev1.Finalizer)
		}
	})
	if err != nil {
		if !want && apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update finalizer of %s: %w", r.describe(obj), err)
	}
	return nil
}

// patchMeta applies change to obj's metadata and persists it, leaving the
// rest of obj in memory as it is: a pass may have filled status fields
// (Observe does) that the status write after the pass persists, and the
// patch's answer would put the stored status back over them.
func (r *Reconciler[T]) patchMeta(ctx context.Context, obj T, change func(T)) error {
	base := obj.DeepCopyObject().(T)
	patched := obj.DeepCopyObject().(T)
	change(patched)
	if err := r.client.Patch(ctx, patched, client.MergeFrom(base)); err != nil {
		return err
	}
	obj.SetFinalizers(patched.GetFinalizers())
	obj.SetAnnotations(patched.GetAnnotations())
	obj.SetResourceVersion(patched.GetResourceVersion())
	return nil
}

func (r *Reconciler[T]) interval(obj T) time.Duration {
	if si := obj.GetManagedSpec().SyncInterval; si != nil && si.Duration > 0 {
		return si.Duration
	}
	return r.opts.SyncInterval
}

// describe names the resource for messages: Label default/kind-bug.
func (r *Reconciler[T]) describe(obj T) string {
	return fmt.Sprintf("%s %s/%s", r.kindName, obj.GetNamespace(), obj.GetName())
}

// Jitter spreads d by +-10%, so that retries (and the Forges' own checks)
// that start together do not come back together.
func Jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.9 + 0.2*rand.Float64()))
}

func diffText(obs Observation) string {
	fields := slices.Clone(obs.Diff)
	if obs.Replace {
		fields = append(fields, obs.ReplaceBecause)
	}
	slices.Sort(fields)
	return strings.Join(slices.Compact(fields), ", ")
}
