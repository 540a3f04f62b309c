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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Error steers the loop: it stalls (needs a user's change) or waits (will
// be retried with backoff) with a condition reason.
type Error struct {
	State   conditions.State
	Reason  string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Stall returns an error that stalls the resource with reason.
func Stall(reason, format string, args ...any) error {
	return &Error{State: conditions.Stalled, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Wait returns an error that keeps the resource waiting, retried with backoff.
func Wait(reason, format string, args ...any) error {
	return &Error{State: conditions.Waiting, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// ParentMissing turns a forge not-found answer on a call inside a scope
// (an organization or repository) into a wait for that parent; other errors
// pass through.
func ParentMissing(err error, parent string) error {
	if forge.IsNotFound(err) {
		return &Error{State: conditions.Waiting, Reason: forgev1.ReasonParentNotFound,
			Message: fmt.Sprintf("%s not found on the forge; waiting for it to exist", parent), Err: err}
	}
	return err
}

// Left is what an External's Delete returns when, on purpose, it did not
// delete the forge object: it left it (a repository adopted without the
// allow-delete annotation, an organization's Owners team) or changed it
// instead (a repository archived). The resource goes as if deleted; Event
// tells the user what happened to the forge object.
type Left struct {
	Event Event
}

func (l *Left) Error() string { return l.Event.Note }

// Leave builds a Left with an Event of type typ ("Normal", "Warning").
func Leave(typ, reason, format string, args ...any) error {
	return &Left{Event: Event{Type: typ, Reason: reason, Action: "Delete", Note: fmt.Sprintf(format, args...)}}
}

// asError unwraps a loop Error.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// isMoved reports a name answered through a redirect, or an object read
// by id that now belongs to another owner than the spec's.
func isMoved(err error) bool {
	if le, ok := asError(err); ok {
		return le.Reason == forgev1.ReasonMoved
	}
	return forge.IsMoved(err)
}

func isParentMissing(err error) bool {
	le, ok := asError(err)
	return ok && le.Reason == forgev1.ReasonParentNotFound
}

// Class is what a failed pass means for its resource.
type Class struct {
	// State is Stalled (only a change by the user helps) or Waiting (retried with backoff).
	State conditions.State
	// Reason and Message go to the Ready condition and the Warning Event.
	Reason, Message string
	// RetryAfter is the delay the forge asked for (429 Retry-After); 0
	// leaves the delay to the backoff.
	RetryAfter time.Duration
	// Yield: a routine check's turn in the forge's drift lane comes later
	// (forge.ErrYield, forge.TurnError). No failure: nothing is recorded,
	// no Warning emitted; the check comes back on its turn.
	Yield bool
}

// Classify tells what an error means for the resource it failed, in the
// spirit of Flux's ComputeReconcileResult: every controller of the operator
// maps errors through it, so that one error means the same everywhere (a 422
// is Rejected and stalls, whichever kind met it). ok is false for errors it
// does not know, those of the Kubernetes API among them: controller-runtime
// retries those with its own backoff.
func Classify(err error) (c Class, ok bool) {
	if errors.Is(err, forge.ErrYield) {
		return Class{Yield: true, Message: err.Error()}, true
	}
	if le, isLoop := asError(err); isLoop {
		return Class{State: le.State, Reason: le.Reason, Message: le.Error()}, true
	}
	if errors.Is(err, forge.ErrOutOfTime) {
		// The forge's budget had no turn for a call before the pass's
		// deadline: waiting, as for a rate limit, with backoff.
		return Class{State: conditions.Waiting, Reason: forgev1.ReasonRateLimited, Message: err.Error()}, true
	}
	var se *connection.SecretError
	if errors.As(err, &se) {
		return Class{State: conditions.Waiting, Reason: forgev1.ReasonSecretNotFound, Message: err.Error()}, true
	}
	stall := func(reason string) (Class, bool) {
		return Class{State: conditions.Stalled, Reason: reason, Message: err.Error()}, true
	}
	wait := func(reason string) (Class, bool) {
		return Class{State: conditions.Waiting, Reason: reason, Message: err.Error()}, true
	}
	switch forge.KindOf(err) {
	case forge.KindUnknown:
		return Class{}, false
	case forge.KindUnauthorized, forge.KindForbidden:
		return stall(forgev1.ReasonUnauthorized)
	case forge.KindValidation:
		return stall(forgev1.ReasonRejected)
	case forge.KindConflict:
		return stall(forgev1.ReasonConflict)
	case forge.KindRouteNotFound:
		return stall(forgev1.ReasonUnsupported)
	case forge.KindRateLimited:
		c, ok := wait(forgev1.ReasonRateLimited)
		c.RetryAfter, _ = forge.RetryAfter(err)
		return c, ok
	case forge.KindNotFound:
		return wait(forgev1.ReasonParentNotFound)
	case forge.KindMoved:
		// The name the spec gives answers with a redirect: what it named
		// was renamed or transferred, and nothing is written through it
		// until the spec names what it is now.
		return stall(forgev1.ReasonMoved)
	default:
		return wait(forgev1.ReasonForgeError)
	}
}

// Backoff spaces the passes of failing resources, per resource: waiting
// ones back off exponentially from BaseBackoff to MaxBackoff; stalled ones
// come back at their sync interval (a change of the spec, a Secret or the
// Forge brings them back sooner); a rate limit waits as long as the forge asked.
type Backoff struct {
	opts    Options
	limiter workqueue.TypedRateLimiter[types.NamespacedName]
}

// NewBackoff returns the backoff of one controller; unset options take their defaults.
func NewBackoff(opts Options) *Backoff {
	opts = opts.WithDefaults()
	return &Backoff{opts: opts,
		limiter: workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](opts.BaseBackoff, opts.MaxBackoff)}
}

// Failed returns the delay before the next pass of resource key, whose pass
// failed with c; interval is the resource's sync interval, which no delay exceeds
// except a stall's (which is the interval, or the backoff when that is longer).
func (b *Backoff) Failed(key types.NamespacedName, c Class, interval time.Duration) time.Duration {
	backoff := min(b.limiter.When(key), b.opts.MaxBackoff, interval)
	switch {
	case c.State == conditions.Stalled:
		return max(Jitter(interval), backoff)
	case c.Reason == forgev1.ReasonRateLimited:
		// The server's wish, but no longer than the loop would wait
		// anyway: Retry-After: 99999999999 must not park the object.
		return min(max(c.RetryAfter, b.opts.BaseBackoff), b.opts.MaxBackoff, interval)
	default:
		return backoff
	}
}

// Succeeded resets the backoff of resource key.
func (b *Backoff) Succeeded(key types.NamespacedName) { b.limiter.Forget(key) }

// Failure is the outcome of a pass that failed with c and is retried after requeue.
func Failure(c Class, requeue time.Duration) Outcome {
	return Outcome{
		Summary: conditions.Summary{State: c.State, Reason: c.Reason, Message: c.Message},
		Event:   Event{Type: corev1.EventTypeWarning, Reason: c.Reason, Action: "Reconcile", Note: c.Message},
		Requeue: requeue,
	}
}
