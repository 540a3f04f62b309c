package reconciler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

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
}

func (o *Options) defaults() {
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
}

// Reconciler runs the shared loop for kind T.
type Reconciler[T forgev1.Managed] struct {
	client   client.Client
	reader   client.Reader
	kind     Kind[T]
	kindName string
	pool     *connection.Pool
	recorder events.EventRecorder
	opts     Options
	backoff  workqueue.TypedRateLimiter[types.NamespacedName]
}

// outcome is what one pass concluded, before it is written.
type outcome struct {
	summary conditions.Summary
	// event is emitted when set (success events always, failure events when the reason changes).
	eventType, eventReason, eventAction, eventNote string
	requeue                                        time.Duration
}

func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.kind.New()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	logger := log.FromContext(ctx)
	orig := obj.DeepCopyObject().(T)
	prevReason, _ := conditions.ReadyReason(obj)

	out, err := r.pass(ctx, obj)
	ctx, finish := FinishContext(ctx)
	defer finish()
	if err != nil {
		var le *Error
		if errors.As(err, &le) || forge.KindOf(err) != forge.KindUnknown || isSecretError(err) {
			out = r.failure(obj, req.NamespacedName, err)
		} else {
			// A Kubernetes API failure: let controller-runtime retry with its backoff.
			return ctrl.Result{}, err
		}
	} else if out.summary.State == conditions.Ready {
		r.backoff.Forget(req.NamespacedName)
	}

	if out.eventReason != "" && (out.eventType == corev1.EventTypeNormal || out.eventReason != prevReason) {
		r.recorder.Eventf(obj, nil, out.eventType, out.eventReason, out.eventAction, "%s", out.eventNote)
	}
	if out.summary.State != conditions.Ready && out.summary.Reason != prevReason {
		logger.Info("not ready", "reason", out.summary.Reason, "message", out.summary.Message)
	}

	if !obj.GetDeletionTimestamp().IsZero() && !controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) {
		return ctrl.Result{}, nil // gone, or about to be: no status to write
	}
	if err := r.writeStatus(ctx, orig, obj, out.summary); err != nil {
		return ctrl.Result{}, err
	}
	// Only a pass that succeeded settles a create: a failed one may have
	// lost the response of a create while status still holds an older id
	// (a replacement), and the next pass must look before creating again.
	if err == nil {
		if err := r.clearPending(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: out.requeue}, nil
}

// pass does the work; status is written by the caller.
func (r *Reconciler[T]) pass(ctx context.Context, obj T) (outcome, error) {
	spec := obj.GetManagedSpec()
	status := obj.GetManagedStatus()
	interval := r.interval(obj)

	if !obj.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, obj)
	}
	if spec.Suspend {
		return outcome{summary: conditions.Summary{State: conditions.Idle, Reason: forgev1.ReasonSuspended,
			Message: "spec.suspend is true: no forge calls are made until it is set back to false"}}, nil
	}
	observe := spec.ManagementPolicy == forgev1.ManagementPolicyObserve

	pass, err := r.connect(ctx, obj)
	if err != nil {
		return outcome{}, err
	}
	if err := r.checkKeyConflict(ctx, obj); err != nil {
		return outcome{}, err
	}
	if observe {
		// Observing never deletes, so it needs no finalizer.
		if err := r.setFinalizer(ctx, obj, false); err != nil {
			return outcome{}, err
		}
	} else if err := r.setFinalizer(ctx, obj, true); err != nil {
		return outcome{}, err
	}

	ext, err := r.kind.Connect(ctx, obj, pass)
	if err != nil {
		return outcome{}, err
	}
	obs, err := ext.Observe(ctx)
	if err != nil {
		return outcome{}, err
	}
	if obs.Exists {
		if err := r.checkIDConflict(ctx, obj, obs.ID); err != nil {
			return outcome{}, err
		}
	}
	what := r.kind.Describe(obj)

	if observe {
		out := outcome{requeue: Jitter(interval)}
		switch {
		case !obs.Exists:
			out.summary = conditions.Summary{State: conditions.Idle, Reason: forgev1.ReasonNotFound,
				Message: fmt.Sprintf("%s does not exist on the forge; managementPolicy Observe never creates it", what)}
		case len(obs.Diff) > 0 || obs.Replace:
			record(status, obs)
			out.summary = conditions.Summary{State: conditions.Idle, Reason: forgev1.ReasonDriftDetected,
				Message: fmt.Sprintf("the forge differs from the spec in %s; managementPolicy Observe does not correct it", diffText(obs))}
		default:
			record(status, obs)
			out.summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonObserved,
				Message: fmt.Sprintf("%s matches the spec (observed, not managed)", what)}
		}
		return out, nil
	}

	out := outcome{requeue: Jitter(interval), eventType: corev1.EventTypeNormal}
	if obs.Exists {
		if err := r.deleteReplaced(ctx, obj, ext, obs.ID); err != nil {
			return outcome{}, err
		}
	}
	switch {
	case !obs.Exists:
		gone := status.ID != 0
		if err := r.markPending(ctx, obj, 0); err != nil {
			return outcome{}, err
		}
		created, err := ext.Create(ctx)
		if err != nil {
			return outcome{}, err
		}
		record(status, created)
		out.eventReason, out.eventAction = forgev1.ReasonCreated, "Create"
		out.eventNote = fmt.Sprintf("created %s (id %d)", what, created.ID)
		if gone {
			out.eventNote = fmt.Sprintf("%s was missing on the forge; created it again (id %d)", what, created.ID)
			driftCorrections.WithLabelValues(r.kindName).Inc()
		}
		out.summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonCreated, Message: out.eventNote}

	case obs.Replace:
		if err := r.markPending(ctx, obj, obs.ID); err != nil {
			return outcome{}, err
		}
		created, err := ext.Create(ctx)
		if err != nil {
			return outcome{}, err
		}
		record(status, created)
		if err := ext.Delete(ctx, obs); err != nil {
			return outcome{}, err
		}
		out.eventReason, out.eventAction = forgev1.ReasonReplaced, "Replace"
		out.eventNote = fmt.Sprintf("replaced %s: %s cannot be changed in place; id %d -> %d", what, obs.ReplaceBecause, obs.ID, created.ID)
		out.summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonReplaced, Message: out.eventNote}

	case len(obs.Diff) > 0:
		drift := status.ID == obs.ID && status.ObservedGeneration == obj.GetGeneration() &&
			conditions.IsReady(obj, obj.GetGeneration())
		if err := ext.Update(ctx, obs); err != nil {
			return outcome{}, err
		}
		adopted := status.ID == 0
		record(status, obs)
		switch {
		case drift:
			driftCorrections.WithLabelValues(r.kindName).Inc()
			out.eventReason, out.eventAction = forgev1.ReasonDriftCorrected, "Update"
			out.eventNote = fmt.Sprintf("%s had been changed on the forge; set %s back to the spec", what, diffText(obs))
		case adopted:
			out.eventReason, out.eventAction = forgev1.ReasonAdopted, "Adopt"
			out.eventNote = fmt.Sprintf("adopted existing %s (id %d) and updated %s", what, obs.ID, diffText(obs))
		default:
			out.eventReason, out.eventAction = forgev1.ReasonUpdated, "Update"
			out.eventNote = fmt.Sprintf("updated %s on the forge", diffText(obs))
		}
		out.summary = conditions.Summary{State: conditions.Ready, Reason: out.eventReason, Message: out.eventNote}

	default:
		adopted := status.ID == 0
		record(status, obs)
		if adopted && pass.Pending {
			out.eventReason, out.eventAction = forgev1.ReasonCreated, "Create"
			out.eventNote = fmt.Sprintf("found %s (id %d), created by an earlier pass whose response was lost", what, obs.ID)
			out.summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonCreated, Message: out.eventNote}
		} else if adopted {
			out.eventReason, out.eventAction = forgev1.ReasonAdopted, "Adopt"
			out.eventNote = fmt.Sprintf("adopted existing %s (id %d)", what, obs.ID)
			out.summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonAdopted, Message: out.eventNote}
		} else {
			out.eventReason = ""
			out.summary = conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonSynced,
				Message: fmt.Sprintf("%s matches the spec", what)}
			// Keep the reason of the pass that made the change until the spec changes.
			if reason, msg := conditions.ReadyReason(obj); status.ObservedGeneration == obj.GetGeneration() &&
				conditions.IsReady(obj, obj.GetGeneration()) && reason != forgev1.ReasonSynced {
				out.summary.Reason, out.summary.Message = reason, msg
			}
		}
	}
	return out, nil
}

// finalize handles a resource being deleted.
func (r *Reconciler[T]) finalize(ctx context.Context, obj T) (outcome, error) {
	if !controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) {
		return outcome{}, nil
	}
	spec := obj.GetManagedSpec()
	status := obj.GetManagedStatus()
	what := r.kind.Describe(obj)
	pending := obj.GetAnnotations()[forgev1.CreatePendingAnnotation] != ""
	keep := ""
	switch {
	case obj.GetDeletionPolicy() == forgev1.DeletionPolicyOrphan:
		keep = "deletionPolicy is Orphan"
	case spec.ManagementPolicy == forgev1.ManagementPolicyObserve:
		keep = "managementPolicy is Observe"
	case spec.Suspend:
		keep = "spec.suspend is true"
	case status.ID == 0 && !pending:
		keep = "the operator never created or adopted it"
	}
	if keep == "" {
		// Another resource holding the same forge object keeps it alive.
		if err := r.checkKeyConflict(ctx, obj); err != nil {
			keep = "another resource manages it"
		}
	}
	eventType := corev1.EventTypeNormal
	if keep == "" {
		// Without its Forge nothing can be deleted; holding the finalizer
		// would block the namespace's deletion for ever.
		gone, err := r.forgeGone(ctx, obj)
		if err != nil {
			return outcome{}, err
		}
		if gone {
			keep = fmt.Sprintf("its Forge %q is gone", spec.ForgeRef.Name)
			eventType = corev1.EventTypeWarning
		}
	}
	if keep != "" {
		if err := r.setFinalizer(ctx, obj, false); err != nil {
			return outcome{}, err
		}
		out := outcome{eventType: eventType, eventReason: forgev1.ReasonOrphaned, eventAction: "Delete",
			eventNote: fmt.Sprintf("left %s on the forge: %s", what, keep)}
		if status.ID == 0 && !pending {
			out.eventReason = ""
		}
		return out, nil
	}

	pass, err := r.connect(ctx, obj)
	if err != nil {
		return outcome{}, err
	}
	ext, err := r.kind.Connect(ctx, obj, pass)
	if err != nil {
		return outcome{}, err
	}
	obs, err := ext.Observe(ctx)
	if err != nil && !forge.IsNotFound(err) && !isParentMissing(err) {
		return outcome{}, err
	}
	if err == nil && obs.Exists {
		if err := ext.Delete(ctx, obs); err != nil && !forge.IsNotFound(err) {
			return outcome{}, err
		}
	}
	if err := r.deleteReplaced(ctx, obj, ext, 0); err != nil {
		return outcome{}, err
	}
	if err := r.setFinalizer(ctx, obj, false); err != nil {
		return outcome{}, err
	}
	return outcome{eventType: corev1.EventTypeNormal, eventReason: forgev1.ReasonDeleted, eventAction: "Delete",
		eventNote: fmt.Sprintf("deleted %s on the forge", what)}, nil
}

// forgeGone reports whether obj's Forge no longer exists or is being deleted.
func (r *Reconciler[T]) forgeGone(ctx context.Context, obj T) (bool, error) {
	var f forgev1.Forge
	err := r.client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetManagedSpec().ForgeRef.Name}, &f)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return err == nil && !f.DeletionTimestamp.IsZero(), err
}

// connect resolves the Forge and its client.
func (r *Reconciler[T]) connect(ctx context.Context, obj T) (*Pass, error) {
	ref := obj.GetManagedSpec().ForgeRef.Name
	var f forgev1.Forge
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref}, &f); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, Wait(forgev1.ReasonForgeNotReady, "Forge %q not found in namespace %s", ref, obj.GetNamespace())
		}
		return nil, err
	}
	if !conditions.IsReady(&f, f.Generation) {
		reason, msg := conditions.ReadyReason(&f)
		if reason == "" {
			return nil, Wait(forgev1.ReasonForgeNotReady, "Forge %q is not ready yet", ref)
		}
		// A Forge that needs a user's fix (bad credentials, not a forge at all)
		// stalls its resources too: nothing will change until that fix, whose
		// Forge status update retries them through the Forge watch.
		if c := meta.FindStatusCondition(f.Status.Conditions, forgev1.ConditionStalled); c != nil &&
			c.Status == metav1.ConditionTrue && c.ObservedGeneration == f.Generation {
			return nil, Stall(forgev1.ReasonForgeNotReady, "Forge %q is not ready: %s: %s", ref, reason, msg)
		}
		return nil, Wait(forgev1.ReasonForgeNotReady, "Forge %q is not ready: %s: %s", ref, reason, msg)
	}
	fc, err := r.pool.Client(ctx, &f)
	if err != nil {
		var se *connection.SecretError
		if errors.As(err, &se) {
			return nil, Wait(forgev1.ReasonForgeNotReady, "Forge %q: %s", ref, se.Error())
		}
		return nil, err
	}
	return &Pass{
		Forge:       fc,
		ForgeObject: &f,
		Reader:      r.reader,
		Pending:     obj.GetAnnotations()[forgev1.CreatePendingAnnotation] != "",
		claimedBy: func(ctx context.Context, id int64) (string, error) {
			// Any other holder counts, older or younger: adopting a forge
			// object another resource already holds would make a conflict.
			return r.holder(ctx, obj, indexID, idKey(ref, id), false)
		},
	}, nil
}

// checkKeyConflict stalls obj when an older resource has the same natural key.
func (r *Reconciler[T]) checkKeyConflict(ctx context.Context, obj T) error {
	key := r.kind.Key(obj)
	if key == "" {
		return nil
	}
	other, err := r.holder(ctx, obj, indexKey, naturalKey(obj.GetManagedSpec().ForgeRef.Name, key), true)
	if err != nil || other == "" {
		return err
	}
	return Stall(forgev1.ReasonConflict, "%s is already managed by %s %s; delete one of the two resources", r.kind.Describe(obj), r.kindName, other)
}

// checkIDConflict stalls obj when an older resource already holds forge object id.
func (r *Reconciler[T]) checkIDConflict(ctx context.Context, obj T, id int64) error {
	other, err := r.holder(ctx, obj, indexID, idKey(obj.GetManagedSpec().ForgeRef.Name, id), true)
	if err != nil || other == "" {
		return err
	}
	return Stall(forgev1.ReasonConflict, "%s (id %d) is already managed by %s %s; delete one of the two resources", r.kind.Describe(obj), id, r.kindName, other)
}

// holder returns the oldest other resource (namespace/name) whose index
// field equals value; with olderOnly, only if it is older than obj.
func (r *Reconciler[T]) holder(ctx context.Context, obj T, index, value string, olderOnly bool) (string, error) {
	list := r.kind.NewList()
	if err := r.client.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{index: value}); err != nil {
		return "", fmt.Errorf("list %s by %s: %w", r.kindName, index, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	var oldest client.Object
	for _, it := range items {
		o := it.(client.Object)
		if o.GetUID() == obj.GetUID() || !o.GetDeletionTimestamp().IsZero() {
			continue
		}
		if (!olderOnly || older(o, obj)) && (oldest == nil || older(o, oldest)) {
			oldest = o
		}
	}
	if oldest == nil {
		return "", nil
	}
	return oldest.GetNamespace() + "/" + oldest.GetName(), nil
}

// older orders resources by creation time, then name, so that exactly one of two is older.
func older(a, b client.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}

// failure maps an error to conditions and a retry.
func (r *Reconciler[T]) failure(obj T, key types.NamespacedName, err error) outcome {
	interval := r.interval(obj)
	backoff := min(r.backoff.When(key), r.opts.MaxBackoff, interval)
	out := outcome{eventType: corev1.EventTypeWarning, eventAction: "Reconcile"}
	stall := func(reason string) {
		out.summary = conditions.Summary{State: conditions.Stalled, Reason: reason, Message: err.Error()}
		// Retried slowly; a change of the spec, a Secret or the Forge retries at once.
		out.requeue = max(Jitter(interval), backoff)
	}
	wait := func(reason string, after time.Duration) {
		out.summary = conditions.Summary{State: conditions.Waiting, Reason: reason, Message: err.Error()}
		out.requeue = after
	}
	if le, ok := asError(err); ok {
		out.summary = conditions.Summary{State: le.State, Reason: le.Reason, Message: le.Error()}
		if le.State == conditions.Stalled {
			stall(le.Reason)
		} else {
			wait(le.Reason, backoff)
		}
	} else if se := (*connection.SecretError)(nil); errors.As(err, &se) {
		wait(forgev1.ReasonSecretNotFound, backoff)
	} else {
		switch forge.KindOf(err) {
		case forge.KindUnauthorized, forge.KindForbidden:
			stall(forgev1.ReasonUnauthorized)
		case forge.KindValidation:
			stall(forgev1.ReasonRejected)
		case forge.KindConflict:
			stall(forgev1.ReasonConflict)
		case forge.KindRouteNotFound:
			stall(forgev1.ReasonUnsupported)
		case forge.KindRateLimited:
			after, _ := forge.RetryAfter(err)
			wait(forgev1.ReasonRateLimited, max(after, r.opts.BaseBackoff))
		case forge.KindNotFound:
			wait(forgev1.ReasonParentNotFound, backoff)
		default:
			wait(forgev1.ReasonForgeError, backoff)
		}
	}
	out.eventReason, out.eventNote = out.summary.Reason, out.summary.Message
	return out
}

func isSecretError(err error) bool {
	var se *connection.SecretError
	return errors.As(err, &se)
}

func isParentMissing(err error) bool {
	le, ok := asError(err)
	return ok && le.Reason == forgev1.ReasonParentNotFound
}

// setFinalizer adds or removes the finalizer, persisting it at once.
func (r *Reconciler[T]) setFinalizer(ctx context.Context, obj T, want bool) error {
	if controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) == want {
		return nil
	}
	base := obj.DeepCopyObject().(T)
	if want {
		controllerutil.AddFinalizer(obj, forgev1.Finalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, forgev1.Finalizer)
	}
	if err := r.client.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		if !want && apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update finalizer of %s: %w", r.describe(obj), err)
	}
	return nil
}

// markPending persists the create-pending mark before a create, so that a
// create whose response is lost is found by the next pass, not repeated.
// replaces, when not 0, is the id of the object the create replaces: it is
// kept until that object is deleted.
func (r *Reconciler[T]) markPending(ctx context.Context, obj T, replaces int64) error {
	set := map[string]string{}
	if obj.GetAnnotations()[forgev1.CreatePendingAnnotation] == "" {
		set[forgev1.CreatePendingAnnotation] = time.Now().UTC().Format(time.RFC3339)
	}
	if id := strconv.FormatInt(replaces, 10); replaces != 0 && obj.GetAnnotations()[forgev1.ReplacesAnnotation] != id {
		set[forgev1.ReplacesAnnotation] = id
	}
	if len(set) == 0 {
		return nil
	}
	base := obj.DeepCopyObject().(T)
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	maps.Copy(ann, set)
	obj.SetAnnotations(ann)
	if err := r.client.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("mark %s create-pending: %w", r.describe(obj), err)
	}
	return nil
}

// clearPending removes the create-pending and replaces marks once the id is
// in status and the pass succeeded.
func (r *Reconciler[T]) clearPending(ctx context.Context, obj T) error {
	ann := obj.GetAnnotations()
	_, pending := ann[forgev1.CreatePendingAnnotation]
	_, replaces := ann[forgev1.ReplacesAnnotation]
	if (!pending && !replaces) || obj.GetManagedStatus().ID == 0 {
		return nil
	}
	base := obj.DeepCopyObject().(T)
	delete(ann, forgev1.CreatePendingAnnotation)
	delete(ann, forgev1.ReplacesAnnotation)
	obj.SetAnnotations(ann)
	if err := r.client.Patch(ctx, obj, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("clear create-pending mark of %s: %w", r.describe(obj), err)
	}
	return nil
}

// deleteReplaced deletes the object a replacement left behind (its delete
// failed, or its pass ended before it), unless it is the one observed now.
func (r *Reconciler[T]) deleteReplaced(ctx context.Context, obj T, ext External, current int64) error {
	old, _ := strconv.ParseInt(obj.GetAnnotations()[forgev1.ReplacesAnnotation], 10, 64)
	if old == 0 || old == current {
		return nil
	}
	if err := ext.Delete(ctx, Observation{Exists: true, ID: old}); err != nil && !forge.IsNotFound(err) {
		return err
	}
	return nil
}

// writeStatus writes the pass's summary and status, only when they changed.
func (r *Reconciler[T]) writeStatus(ctx context.Context, orig, obj T, s conditions.Summary) error {
	status := obj.GetManagedStatus()
	if s.Reason != "" {
		conditions.Apply(obj, obj.GetGeneration(), s)
	}
	status.ObservedGeneration = obj.GetGeneration()
	if v, ok := obj.GetAnnotations()[forgev1.ReconcileRequestedAtAnnotation]; ok {
		status.LastHandledReconcileAt = v
	}
	before, after := statusOf(orig), statusOf(obj)
	if equality.Semantic.DeepEqual(before, after) {
		return nil
	}
	base := obj.DeepCopyObject().(T)
	reflect.ValueOf(base).Elem().FieldByName("Status").Set(reflect.ValueOf(before))
	if err := r.client.Status().Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("write status of %s: %w", r.describe(obj), err)
	}
	return nil
}

func statusOf(obj any) any { return reflect.ValueOf(obj).Elem().FieldByName("Status").Interface() }

// record copies what was observed into status.
func record(status *forgev1.ManagedStatus, obs Observation) {
	status.ID = obs.ID
	if obs.URL != "" {
		status.URL = obs.URL
	}
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

// Jitter spreads d by +-10%, so that objects created together do not check together.
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
