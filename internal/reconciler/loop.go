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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
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
	Fairness         *Fairness
	// Shards is the manager's part in the shards (--shard, docs/shards.md):
	// it passes only over the resources of the forge servers its shard
	// serves and holds; nil is a default manager alone.
	Shards *Shards
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
		passes.WithLabelValues(r.kindName, "turn").Inc()
		return ctrl.Result{RequeueAfter: delay, Priority: new(handler.LowPriority)}, nil
	}
	// The status of a pass cut short by the reconcile timeout is still written.
	ctx, finish := FinishContext(ctx)
	defer finish()
	if err != nil {
		if !ok {
			// A Kubernetes API failure: let controller-runtime retry with its backoff.
			passes.WithLabelValues(r.kindName, "error").Inc()
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
	passes.WithLabelValues(r.kindName, outcomeName(out.Summary.State)).Inc()
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
			return notPermitted(Permission{Why: why})
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
		return Outcome{}, err
	}
	if !obs.Exists && !observe && pass.reads.Paged() {
		if ext, obs, err = r.confirmAbsent(ctx, obj, pass); err != nil {
			return Outcome{}, err
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

// Action is what a managed pass does about one forge object.
type Action int

const (
	// InSync: the object matches the spec; nothing is written.
	InSync Action = iota
	// Create: no forge object matches.
	Create
	// Replace: a field the forge cannot change differs: create anew, then
	// delete the old one.
	Replace
	// Update: managed fields differ.
	Update
)

// Decide is the one decision of a managed pass, from what Observe found:
// the loop executes it, plan prints it.
func Decide(obs Observation) Action {
	switch {
	case !obs.Exists:
		return Create
	case obs.Replace:
		return Replace
	case len(obs.Diff) > 0:
		return Update
	}
	return InSync
}

// act makes the forge object match the spec after Observe found obs:
// create it, replace it, update it, or record that it matches.
func (r *Reconciler[T]) act(ctx context.Context, obj T, pass *Pass, ext External, obs Observation, what string) (Outcome, error) {
	out := Outcome{Requeue: r.nextCheck(pass, obj), check: true, Event: Event{Type: corev1.EventTypeNormal}, More: obs.Notices}
	if obs.Exists {
		if err := r.deleteReplaced(ctx, obj, ext, obs); err != nil {
			return Outcome{}, err
		}
	}
	if d := Decide(obs); d != InSync {
		if err := r.checkScopes(obj, pass, d == Create || d == Replace); err != nil {
			return Outcome{}, err
		}
		// Nothing is written while what it references is on its way.
		if err := r.awaitRefs(ctx, obj, false); err != nil {
			return Outcome{}, err
		}
	}
	if g, ok := r.kind.(WriteGuard[T]); ok && (!obs.Exists || obs.Replace || len(obs.Diff) > 0) {
		if err := g.BeforeWrite(ctx, obj, pass); err != nil {
			return Outcome{}, err
		}
	}
	var err error
	switch Decide(obs) {
	case Create:
		err = r.create(ctx, obj, ext, what, &out)
	case Replace:
		err = r.replace(ctx, obj, ext, obs, what, &out)
	case Update:
		err = r.update(ctx, obj, ext, obs, what, &out)
	default:
		r.inSync(obj, pass, obs, what, &out)
	}
	if err != nil {
		return Outcome{}, err
	}
	// Only a pass that got here settles a create: a failed one may have lost
	// the response of a create while status still holds an older id (a
	// replacement), and the next pass must look before creating again.
	settlePending(obj)
	if n, ok := ext.(Noticer); ok {
		out.More = append(out.More, n.WriteNotices()...)
	}
	return out, nil
}

// create makes the object on the forge, after a create-pending mark.
func (r *Reconciler[T]) create(ctx context.Context, obj T, ext External, what string, out *Outcome) error {
	status := obj.GetManagedStatus()
	gone := status.Known()
	fresh, err := r.markPending(ctx, obj, "")
	if err != nil {
		return err
	}
	created, err := ext.Create(ctx)
	if err != nil {
		// A create that made the object and failed after it (a member that
		// does not exist) says what it made: that is recorded at once.
		_ = keepIdentity(obj, created, err)
		if fresh && refused(err, created) {
			settlePending(obj)
		}
		return untrustedCreate(err, what)
	}
	record(status, created)
	out.Event.Reason, out.Event.Action = forgev1.ReasonCreated, "Create"
	out.Event.Note = fmt.Sprintf("created %s (%s)", what, created.ident())
	if gone {
		where := "on the forge"
		if k, ok := ext.(Keeper); ok {
			where = "in " + k.KeptIn()
		}
		out.Event.Note = fmt.Sprintf("%s was missing %s; created it again (%s)", what, where, created.ident())
		driftCorrections.WithLabelValues(r.kindName).Inc()
	}
	out.Summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonCreated, Message: out.Event.Note}
	return nil
}

// replace creates the object anew, then deletes the old one: a field the
// forge cannot change in place differs.
func (r *Reconciler[T]) replace(ctx context.Context, obj T, ext External, obs Observation, what string, out *Outcome) error {
	fresh, err := r.markPending(ctx, obj, replacedRef(obs))
	if err != nil {
		return err
	}
	created, err := ext.Create(ctx)
	if err != nil {
		if fresh && refused(err, created) {
			settlePending(obj)
		}
		return untrustedCreate(err, what)
	}
	record(obj.GetManagedStatus(), created)
	if err := ext.Delete(ctx, obs); err != nil {
		return err
	}
	out.Event.Reason, out.Event.Action = forgev1.ReasonReplaced, "Replace"
	out.Event.Note = fmt.Sprintf("replaced %s: %s cannot be changed in place; id %d -> %d", what, obs.ReplaceBecause, obs.ID, created.ID)
	if obs.ID == 0 {
		// An object the forge addresses by name: name "a" -> name "b".
		out.Event.Note = fmt.Sprintf("replaced %s: %s cannot be changed in place; %s -> %s", what, obs.ReplaceBecause, obs.ident(), created.ident())
	}
	out.Summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonReplaced, Message: out.Event.Note}
	return nil
}

// update writes the differing fields: drift corrected, an adoption, or a
// spec change applied.
func (r *Reconciler[T]) update(ctx context.Context, obj T, ext External, obs Observation, what string, out *Outcome) error {
	status := obj.GetManagedStatus()
	drift := sameObject(status, obs) && readyAtGeneration(obj)
	if err := ext.Update(ctx, obs); err != nil {
		return err
	}
	adopted := !status.Known()
	record(status, obs)
	switch {
	case drift:
		driftCorrections.WithLabelValues(r.kindName).Inc()
		out.Event.Reason, out.Event.Action = forgev1.ReasonDriftCorrected, "Update"
		out.Event.Note = fmt.Sprintf("%s had been changed on the forge; set %s back to the spec", what, diffText(obs))
	case adopted:
		out.Event.Reason, out.Event.Action = forgev1.ReasonAdopted, "Adopt"
		out.Event.Note = fmt.Sprintf("adopted existing %s (%s) and updated %s", what, obs.ident(), diffText(obs))
	default:
		out.Event.Reason, out.Event.Action = forgev1.ReasonUpdated, "Update"
		out.Event.Note = fmt.Sprintf("updated %s on the forge", diffText(obs))
	}
	out.Summary = conditions.Summary{State: conditions.Ready, Reason: out.Event.Reason, Message: out.Event.Note}
	return nil
}

// inSync records an object that matches the spec: found after a lost
// create response, adopted, or simply in sync.
func (r *Reconciler[T]) inSync(obj T, pass *Pass, obs Observation, what string, out *Outcome) {
	status := obj.GetManagedStatus()
	adopted := !status.Known()
	record(status, obs)
	switch {
	case adopted && pass.Pending:
		out.Event.Reason, out.Event.Action = forgev1.ReasonCreated, "Create"
		out.Event.Note = fmt.Sprintf("found %s (%s), created by an earlier pass whose response was lost", what, obs.ident())
		out.Summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonCreated, Message: out.Event.Note}
	case adopted:
		out.Event.Reason, out.Event.Action = forgev1.ReasonAdopted, "Adopt"
		out.Event.Note = fmt.Sprintf("adopted existing %s (%s)", what, obs.ident())
		out.Summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonAdopted, Message: out.Event.Note}
	default:
		out.Event.Reason = ""
		out.Summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonSynced,
			Message: fmt.Sprintf("%s matches the spec", what)}
		// Keep the reason of the pass that made the change until the spec changes.
		if reason, msg := conditions.ReadyReason(obj); readyAtGeneration(obj) && reason != forgev1.ReasonSynced {
			out.Summary.Reason, out.Summary.Message = reason, msg
		}
	}
}

// untrustedCreate stalls a pass whose create got an answer that cannot be
// trusted (an id <= 0, a body that does not parse): the forge may have made
// the object all the same, so repeating the create on backoff could make
// duplicates. Stalled, it comes back at its sync interval or on a change,
// and the create-pending mark it keeps makes that pass look first.
func untrustedCreate(err error, what string) error {
	if forge.KindOf(err) != forge.KindInvalidResponse {
		return err
	}
	return Stall(forgev1.ReasonInvalidForgeAnswer,
		"the forge's answer to the create of %s cannot be trusted (%v); it may have made it all the same: the next pass, at the sync interval or on a change, looks for it before it creates again",
		what, err)
}

// observed is the outcome of a pass under managementPolicy Observe: what
// was found is reported, nothing is written to the forge.
func observed(status *forgev1.ManagedStatus, obs Observation, what string, next time.Duration) Outcome {
	out := Outcome{Requeue: next, check: true}
	switch {
	case !obs.Exists:
		out.Summary = conditions.Summary{State: conditions.Idle, Reason: forgev1.ReasonNotFound,
			Message: fmt.Sprintf("%s does not exist on the forge; managementPolicy Observe never creates it", what)}
	case len(obs.Diff) > 0 || obs.Replace:
		record(status, obs)
		out.Summary = conditions.Summary{State: conditions.Idle, Reason: forgev1.ReasonDriftDetected,
			Message: fmt.Sprintf("the forge differs from the spec in %s; managementPolicy Observe does not correct it", diffText(obs))}
	default:
		record(status, obs)
		out.Summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonObserved,
			Message: fmt.Sprintf("%s matches the spec (observed, not managed)", what)}
	}
	return out
}

// finalize handles a resource being deleted.
func (r *Reconciler[T]) finalize(ctx context.Context, obj T, reads *forge.ReadPolicy) (Outcome, error) {
	if !controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) {
		return Outcome{}, nil
	}
	spec := obj.GetManagedSpec()
	status := obj.GetManagedStatus()
	what := r.kind.Describe(obj)
	sk, isSet := r.kind.(SetKind[T])
	// A set names what it manages by its spec, not by a forge id.
	holds := status.Known() || pendingMark(obj) != "" || isSet
	keep := ""
	switch {
	case obj.GetDeletionPolicy() == forgev1.DeletionPolicyOrphan:
		keep = "deletionPolicy is Orphan"
	case spec.ManagementPolicy == forgev1.ManagementPolicyObserve:
		keep = "managementPolicy is Observe"
	case spec.Suspend:
		keep = "spec.suspend is true"
	case !holds:
		keep = "the operator never created or adopted it"
	}
	eventType := corev1.EventTypeNormal
	if keep == "" && spec.ForgeRef.Cluster() {
		// A resource its ClusterForge no longer serves (its namespace
		// relabelled) removes nothing: it leaves the object, and its
		// deletion is not held up.
		why, err := r.notServed(ctx, obj)
		if err != nil {
			return Outcome{}, err
		}
		if keep = why; why != "" {
			eventType = corev1.EventTypeWarning
		}
	}
	if keep == "" {
		// Another resource holding the same forge object (older or younger,
		// in any namespace, under any Forge of the server) keeps it alive.
		other, err := r.heldElsewhere(ctx, obj)
		if err != nil {
			return Outcome{}, err
		}
		if other != "" {
			keep = other + " manages it too"
		}
	}
	if keep == "" {
		// Without its Forge nothing can be deleted; holding the finalizer
		// would block the namespace's deletion for ever.
		gone, err := r.forgeGone(ctx, obj)
		if err != nil {
			return Outcome{}, err
		}
		if gone {
			keep = fmt.Sprintf("its %s is gone", spec.ForgeRef)
			eventType = corev1.EventTypeWarning
		}
	}
	if keep != "" {
		if err := r.setFinalizer(ctx, obj, false); err != nil {
			return Outcome{}, err
		}
		out := Outcome{Event: Event{Type: eventType, Reason: forgev1.ReasonOrphaned, Action: "Delete",
			Note: fmt.Sprintf("left %s on the forge: %s", what, keep)}}
		if !holds {
			out.Event.Reason = ""
		}
		return out, nil
	}

	if isSet {
		return r.removeSet(ctx, sk, obj, reads)
	}
	return r.deleteOnForge(ctx, obj, what, reads)
}

// deleteOnForge deletes obj's forge object (a missing one, or a missing
// parent, counts as deleted), then drops the finalizer. A kind's Delete
// that leaves the object on purpose (Left) drops it too, with its Event.
func (r *Reconciler[T]) deleteOnForge(ctx context.Context, obj T, what string, reads *forge.ReadPolicy) (Outcome, error) {
	pass, err := r.connect(ctx, obj, reads)
	if err != nil {
		return Outcome{}, err
	}
	ctx = r.withScopeCheck(ctx, obj, pass)
	ext, err := r.kind.Connect(ctx, obj, pass)
	if err != nil {
		return Outcome{}, err
	}
	obs, err := ext.Observe(ctx)
	if isMoved(err) {
		// The name answers with a redirect: the object it named was renamed
		// or transferred, and whatever answers now is not deleted through
		// it. The resource goes; the object stays where it went.
		return r.leaveMoved(ctx, obj, what, err)
	}
	if err != nil && !forge.IsNotFound(err) && !isParentMissing(err) {
		return Outcome{}, err
	}
	// The object this resource held (status.id) is gone: one found under
	// its natural key instead is another object, which it never held.
	id := obj.GetManagedStatus().ID
	held := id == 0 || obs.ID == 0 || obs.ID == id
	if err == nil && obs.Exists && held {
		if err := ext.Delete(ctx, obs); err != nil && !forge.IsNotFound(err) {
			if isMoved(err) {
				return r.leaveMoved(ctx, obj, what, err)
			}
			var left *Left
			if !errors.As(err, &left) {
				return Outcome{}, err
			}
			if err := r.setFinalizer(ctx, obj, false); err != nil {
				return Outcome{}, err
			}
			return Outcome{Event: left.Event}, nil
		}
	}
	if err := r.deleteReplaced(ctx, obj, ext, Observation{}); err != nil {
		return Outcome{}, err
	}
	if err := r.setFinalizer(ctx, obj, false); err != nil {
		return Outcome{}, err
	}
	return Outcome{Event: Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonDeleted, Action: "Delete",
		Note: fmt.Sprintf("deleted %s on the forge", what)}}, nil
}

// leaveMoved drops the finalizer of a resource whose object the forge
// answers for with a redirect, leaving the object: it was renamed or
// transferred, and nothing is deleted through its old name.
func (r *Reconciler[T]) leaveMoved(ctx context.Context, obj T, what string, err error) (Outcome, error) {
	if err := r.setFinalizer(ctx, obj, false); err != nil {
		return Outcome{}, err
	}
	return Outcome{Event: Event{Type: corev1.EventTypeWarning, Reason: forgev1.ReasonMoved, Action: "Delete",
		Note: fmt.Sprintf("left %s on the forge: %v", what, err)}}, nil
}

// forgeGone reports whether obj's Forge no longer exists or is being
// deleted. A ClusterForge being deleted still serves its resources (it
// waits for them, InUse): only one that is gone counts, or one this
// manager does not serve.
func (r *Reconciler[T]) forgeGone(ctx context.Context, obj T) (bool, error) {
	ref := obj.GetManagedSpec().ForgeRef
	if ref.Cluster() {
		if !r.pool.ServesClusterForges() {
			return true, nil
		}
		var cf forgev1.ClusterForge
		err := r.client.Get(ctx, types.NamespacedName{Name: ref.Name}, &cf)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}
	var f forgev1.Forge
	err := r.client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, &f)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return err == nil && !f.DeletionTimestamp.IsZero(), err
}

// notServed says why obj's ClusterForge does not let it write (its
// namespace or owner is not granted), "" when it does or is gone.
func (r *Reconciler[T]) notServed(ctx context.Context, obj T) (string, error) {
	if !r.pool.ServesClusterForges() {
		return "", nil
	}
	cf, p, err := r.clusterForge(ctx, obj)
	if err != nil || cf == nil || p.Allowed {
		return "", err
	}
	return p.Why, nil
}

// clusterForge reads the ClusterForge obj names (nil when there is none)
// and what it permits obj.
func (r *Reconciler[T]) clusterForge(ctx context.Context, obj T) (*forgev1.ClusterForge, Permission, error) {
	var cf forgev1.ClusterForge
	if err := r.client.Get(ctx, types.NamespacedName{Name: obj.GetManagedSpec().ForgeRef.Name}, &cf); err != nil {
		return nil, Permission{}, client.IgnoreNotFound(err)
	}
	p, err := permission(ctx, r.client, &cf, obj)
	return &cf, p, err
}

// target is the Forge or ClusterForge a resource's pass talks through.
type target struct {
	src connection.Source
	obj interface {
		forgev1.ConditionsAccessor
		GetGeneration() int64
	}
	status *forgev1.ForgeStatus
	// cluster is the ClusterForge; nil for a Forge.
	cluster *forgev1.ClusterForge
}

// waitsForUsers reports whether t is a connected ClusterForge being
// deleted, which waits (InUse) for its resources: they go on working
// through it, their own deletions included.
func (t *target) waitsForUsers() bool {
	reason, _ := conditions.ReadyReason(t.obj)
	return t.cluster != nil && !t.cluster.DeletionTimestamp.IsZero() && reason == forgev1.ReasonInUse && t.status.ServerVersion != ""
}

// target reads the Forge or ClusterForge obj names, and for a ClusterForge
// decides whether obj's namespace may act through it: a resource it does
// not permit stalls, NotPermitted, before anything is read or written.
func (r *Reconciler[T]) target(ctx context.Context, obj T) (*target, error) {
	ref := obj.GetManagedSpec().ForgeRef
	if !ref.Cluster() {
		if forgev1.NeedsSiteAdmin(obj) {
			return nil, Stall(forgev1.ReasonNotPermitted, "%s is managed only through a ClusterForge whose tenants entry has siteAdmin: true; spec.forgeRef names %s",
				r.kindName, ref)
		}
		var f forgev1.Forge
		if err := r.client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, &f); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, Wait(forgev1.ReasonForgeNotReady, "Forge %q not found in namespace %s", ref.Name, obj.GetNamespace())
			}
			return nil, err
		}
		return &target{src: connection.OfForge(&f), obj: &f, status: &f.Status}, nil
	}
	if !r.pool.ServesClusterForges() {
		return nil, Stall(forgev1.ReasonForgeNotReady, "this manager does not serve ClusterForges (it runs with --cluster-forges=false, as the namespaced install does): name a Forge of namespace %s in spec.forgeRef",
			obj.GetNamespace())
	}
	cf, p, err := r.clusterForge(ctx, obj)
	switch {
	case err != nil:
		return nil, err
	case cf == nil:
		return nil, Wait(forgev1.ReasonForgeNotReady, "ClusterForge %q not found", ref.Name)
	case !p.Allowed:
		return nil, notPermitted(p)
	}
	return &target{src: connection.OfClusterForge(cf, r.pool.ClusterSecrets), obj: cf, status: &cf.Status.ForgeStatus, cluster: cf}, nil
}

// connect resolves the Forge and its client, reading under reads.
func (r *Reconciler[T]) connect(ctx context.Context, obj T, reads *forge.ReadPolicy) (*Pass, error) {
	ref := obj.GetManagedSpec().ForgeRef
	t, err := r.target(ctx, obj)
	if err != nil {
		return nil, err
	}
	if !conditions.IsReady(t.obj, t.obj.GetGeneration()) && !t.waitsForUsers() {
		reason, msg := conditions.ReadyReason(t.obj)
		if reason == "" {
			return nil, Wait(forgev1.ReasonForgeNotReady, "%s is not ready yet", ref)
		}
		// A Forge that needs a user's fix (bad credentials, not a forge at all)
		// stalls its resources too: nothing will change until that fix, whose
		// Forge status update retries them through the Forge watch.
		if c := meta.FindStatusCondition(t.obj.GetConditions(), forgev1.ConditionStalled); c != nil &&
			c.Status == metav1.ConditionTrue && c.ObservedGeneration == t.obj.GetGeneration() {
			return nil, Stall(forgev1.ReasonForgeNotReady, "%s is not ready: %s: %s", ref, reason, msg)
		}
		return nil, Wait(forgev1.ReasonForgeNotReady, "%s is not ready: %s: %s", ref, reason, msg)
	}
	fc, err := r.pool.ClientOf(ctx, t.src)
	if err != nil {
		var se *connection.SecretError
		if errors.As(err, &se) {
			return nil, Wait(forgev1.ReasonForgeNotReady, "%s: %s", ref, se.Error())
		}
		return nil, err
	}
	return &Pass{
		Forge:    forge.Reading(fc, reads),
		reads:    reads,
		Server:   forge.NewServer(t.status.ServerVersion),
		Login:    t.status.Login,
		UserID:   t.status.UserID,
		Scopes:   t.status.TokenScopes,
		forgeRef: ref.String(),
		WebURL:   strings.TrimSuffix(strings.TrimRight(t.src.Spec.URL, "/"), "/api/v1"),
		Reader:   r.reader,
		Writer:   r.client,
		Cache:    r.client,
		Metadata: r.client,
		Pending:  pendingMark(obj) != "",
		Interval: r.interval(obj),
		Afresh:   reads.MaxAge == 0,
		Arrived: func() time.Time {
			return r.arrivals.last(types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
		},
		claimedBy: func(ctx context.Context, id int64) (string, error) {
			// Any other holder counts, older or younger: adopting a forge
			// object another resource already holds would make a conflict.
			return r.holder(ctx, obj, indexID, idValue(id), false)
		},
		admins: func(ctx context.Context) (Permission, error) {
			if t.cluster == nil {
				// Through a Forge no site-admin kind passes (target).
				return Permission{Why: fmt.Sprintf("%s is not a ClusterForge", ref)}, nil
			}
			return adminsPermission(ctx, r.client, t.cluster.Name, obj)
		},
	}, nil
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
