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
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
)

// SetKind is implemented by a kind whose resource manages many forge
// objects in many places (a LabelSet: labels in many repositories). The
// loop then asks its SetExternal to sync instead of observing, creating,
// updating and deleting one object, and keeps the rest: Forge resolution,
// finalizer, deletion and management policies, suspend, conditions, Events
// and backoff. Such a kind's Key is "" and its status.id stays 0; its
// Connect is not called.
type SetKind[T forgev1.Managed] interface {
	Kind[T]
	ConnectSet(ctx context.Context, obj T, pass *Pass) (SetExternal, error)
}

// SetExternal is one pass's view of the forge objects of a set resource.
type SetExternal interface {
	// Sync compares every member (a repository) with the spec and, when
	// write is true, brings it to the spec. A member's failure never stops
	// the others: it is reported in SetResult. An error stops the whole
	// pass (the members could not even be found). Sync fills the kind's own
	// status fields.
	Sync(ctx context.Context, write bool) (SetResult, error)
	// Remove deletes, in every member, the forge objects the spec lists
	// (deletionPolicy Delete) and says what it did.
	Remove(ctx context.Context) (string, error)
}

// SetResult is what one Sync found and did.
type SetResult struct {
	// Members matched, and how many of them are in sync: they match the
	// spec with no failure.
	Members, InSync int
	// Yielded counts the members in sync but for what the set leaves to
	// other resources holding it there (not in InSync).
	Yielded int
	// Failures of members, sorted by member: the first one names the Ready reason.
	Failures []MemberFailure
	// FailuresChanged is true when the failures differ from those the
	// resource's status held before: only then is a Warning Event emitted.
	FailuresChanged bool
	// Changes summarises the writes made to members the set governed
	// already, "" when none: drift corrected, or a spec change applied.
	// When not writing, members that differ from the spec are failures
	// (reason DriftDetected).
	Changes string
	// Applied summarises the writes made to members the set newly covers
	// (made on the forge, or come to match its selector), "" when none:
	// "1 repository governed: 4 settings, 1 team access", reason Applied,
	// never DriftCorrected.
	Applied string
	// Noun names the members in messages: "repository"/"repositories".
	Noun, Nouns string
	// Pending counts the members no pass compared yet; Unfinished is true
	// when the set's round has members left (the pass stopped to stay
	// within its time): the next pass goes on at once. Since is when the
	// round began: the next one is due an interval later.
	Pending    int
	Unfinished bool
	Since      time.Time
	// Released says which members the set released in this pass (they
	// stopped matching) and what it did there, "" when none: a Normal
	// Event Released.
	Released string
}

// MemberFailure is one member that could not be brought to the spec.
type MemberFailure struct {
	Member, Reason, Message string
	// Stall is true when only a user's change helps (a conflict, a guard,
	// a rejected spec); otherwise the member is retried with backoff.
	Stall bool
	// Removes counts the objects a pass that does not write would delete
	// (or merge away) in the member: plan reports a delete for them.
	Removes int
}

func (s SetResult) nouns(n int) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, s.Noun)
	}
	return fmt.Sprintf("%d %s", n, s.Nouns)
}

// compliance summarises the members: how many of them are in sync, and
// how many are governed in part by other resources holding some of what
// the set sets there (status.yielded): "24 of 25 repositories in sync".
// Every Ready message of a set begins with it.
func (s SetResult) compliance() string {
	msg := fmt.Sprintf("%d of %s in sync", s.InSync, s.nouns(s.Members))
	if s.Yielded > 0 {
		msg += fmt.Sprintf("; %d governed in part by other resources holding what the set would set there (status.yielded)", s.Yielded)
	}
	return msg
}

// failing is the Ready message of a set with failing members: its
// compliance and the failing members, at most three named with their
// reason ("24 of 25 repositories in sync; 1 failing: acme/web (Rejected)");
// status.failures and the Warning Event (failingInDetail) say more.
func (s SetResult) failing() string {
	const named = 3
	parts := make([]string, 0, named)
	for _, f := range s.Failures[:min(len(s.Failures), named)] {
		parts = append(parts, fmt.Sprintf("%s (%s)", f.Member, reasonOf(f)))
	}
	msg := fmt.Sprintf("%s; %d failing: %s", s.compliance(), len(s.Failures), strings.Join(parts, ", "))
	if more := len(s.Failures) - named; more > 0 {
		msg += fmt.Sprintf(" and %d more", more)
	}
	return msg
}

// failingInDetail is the Warning Event of a set with failing members: its
// compliance and each failure's reason and message, bounded.
func (s SetResult) failingInDetail() string {
	return fmt.Sprintf("%s; %d failing: %s", s.compliance(), len(s.Failures), failureText(s.Failures))
}

// done is the Ready message of a pass that wrote: the compliance, then
// what was done.
func (s SetResult) done() string {
	msg := s.compliance()
	for _, d := range []string{s.Changes, s.Applied} {
		if d != "" {
			msg += "; " + d
		}
	}
	return msg
}

// syncSet is pass for a set kind, from the point where the Forge is
// connected. A managed set takes its finalizer before Sync may write.
func (r *Reconciler[T]) syncSet(ctx context.Context, sk SetKind[T], obj T, pass *Pass, observe bool) (Outcome, error) {
	ext, err := sk.ConnectSet(ctx, obj, pass)
	if err != nil {
		return Outcome{}, err
	}
	if !observe {
		if err := r.setFinalizer(ctx, obj, true); err != nil {
			return Outcome{}, err
		}
		if err := r.awaitSetRefs(ctx, obj); err != nil {
			return Outcome{}, err
		}
	}
	res, err := ext.Sync(ctx, !observe)
	if err != nil {
		return Outcome{}, err
	}
	interval := r.interval(obj)
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	out := Outcome{Requeue: r.nextCheck(pass, obj), check: true}
	if !res.Since.IsZero() {
		// The next round begins an interval after this one began.
		out.Requeue = r.schedule.next(key, obj.GetUID(), r.checkEvery(pass, obj), res.Since, time.Now())
	}
	wasReady := readyAtGeneration(obj)
	out.Event, out.More = r.setEvents(res, wasReady)
	if res.Unfinished {
		// The round goes on in the next pass, at once: it does what this
		// one had no time for, and only that.
		out.Requeue, out.check = unfinishedDelay, false
		// A round of drift checks stays one: its passes give way as its
		// first did (schedule.routine).
		r.schedule.setDue(key, res.Since)
		if res.Pending > 0 || !wasReady {
			out.Summary = progressing(res, observe)
			return out, nil
		}
		// A Ready set's round of drift checks: it stays Ready with what the
		// last round found until this one is complete.
	}
	if len(res.Failures) > 0 {
		first := res.Failures[0]
		first.Reason = reasonOf(first)
		state := failedState(res.Failures, observe)
		out.Summary = conditions.Summary{State: state, Reason: first.Reason, Message: res.failing()}
		warn := Event{Type: corev1.EventTypeWarning, Reason: first.Reason, Action: "Reconcile", Note: res.failingInDetail(), Always: res.FailuresChanged}
		if out.Event.Reason == "" {
			out.Event = warn
		} else {
			out.More = append(out.More, warn)
		}
		if state == conditions.Waiting && !res.Unfinished {
			out.Requeue = r.backoff.Failed(key, Class{State: state, Reason: first.Reason}, interval)
		}
		return out, nil
	}
	out.Summary = settled(res, obj, out.Event.Reason, observe, wasReady)
	return out, nil
}

// setEvents are the Normal Events of what a set's pass did, the first
// its main one (and the Ready reason): changes to members governed
// already (drift corrected when the set was Ready for its spec, else the
// spec applied), members newly governed (Applied, never counted as drift
// corrected), members released.
func (r *Reconciler[T]) setEvents(res SetResult, wasReady bool) (Event, []Event) {
	var evs []Event
	if res.Changes != "" {
		ev := Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonUpdated, Action: "Update", Note: res.Changes}
		if wasReady {
			ev.Reason = forgev1.ReasonDriftCorrected
			driftCorrections.WithLabelValues(r.kindName).Inc()
		}
		evs = append(evs, ev)
	}
	if res.Applied != "" {
		evs = append(evs, Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonApplied, Action: "Update", Note: res.Applied})
	}
	if res.Released != "" {
		evs = append(evs, Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonReleased, Action: "Release", Note: res.Released})
	}
	if len(evs) == 0 {
		return Event{}, nil
	}
	return evs[0], evs[1:]
}

// settled is the Ready of a set whose members all are in sync: observed,
// or what the pass did (reason, its main Event's), or at rest.
func settled(res SetResult, obj forgev1.Managed, reason string, observe, wasReady bool) conditions.Summary {
	switch {
	case observe:
		return conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonObserved,
			Message: res.compliance() + " (observed, not managed)"}
	case res.Changes != "" || res.Applied != "":
		return conditions.Summary{State: conditions.Ready, Reason: reason, Message: res.done()}
	}
	now := res.compliance()
	sum := conditions.Summary{State: conditions.Ready, Reason: forgev1.ReasonSynced, Message: now}
	// Keep the reason of the pass that made the change until the spec
	// changes, as one object does: a set at rest writes nothing. Its
	// message says what that pass did while the compliance it began
	// with holds; once that changes, the compliance is said anew.
	if reason, msg := conditions.ReadyReason(obj); wasReady && reason != forgev1.ReasonSynced {
		sum.Reason = reason
		if msg == now || strings.HasPrefix(msg, now+"; ") {
			sum.Message = msg
		}
	}
	return sum
}

// reasonOf is the Ready reason a failing member gives its set: its own,
// Progressing when it has none, since a condition without a reason is
// not written and the last pass's Ready would stand.
func reasonOf(f MemberFailure) string {
	if f.Reason == "" {
		return forgev1.ReasonProgressing
	}
	return f.Reason
}

// failedState is the state of a set with failing members: Stalled when
// each needs a user's change, else Waiting; Idle when only observing.
func failedState(fs []MemberFailure, observe bool) conditions.State {
	if observe {
		return conditions.Idle
	}
	for _, f := range fs {
		if !f.Stall {
			return conditions.Waiting
		}
	}
	return conditions.Stalled
}

// progressing is the summary of a pass that stopped short of its round's
// end, with members no pass compared yet.
func progressing(res SetResult, observe bool) conditions.Summary {
	done := res.Members - res.Pending
	sum := conditions.Summary{State: conditions.Waiting, Reason: forgev1.ReasonProgressing,
		Message: fmt.Sprintf("%d of %s compared so far, %d in sync; the next pass goes on with the rest", done, res.nouns(res.Members), res.InSync)}
	if observe {
		sum.State = conditions.Idle
	}
	return sum
}

// unfinishedDelay is when the pass after one that stopped short of its
// round's end begins: at once, behind what is queued already.
const unfinishedDelay = 100 * time.Millisecond

// failureText lists failures for a condition message, bounded.
func failureText(fs []MemberFailure) string {
	const shown = 3
	parts := make([]string, 0, shown+1)
	for i, f := range fs {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-shown))
			break
		}
		parts = append(parts, fmt.Sprintf("%s: %s: %s", f.Member, reasonOf(f), f.Message))
	}
	return strings.Join(parts, "; ")
}

// removeSet removes a set resource's forge objects (deletionPolicy Delete).
func (r *Reconciler[T]) removeSet(ctx context.Context, sk SetKind[T], obj T, reads *forge.ReadPolicy) (Outcome, error) {
	pass, err := r.connect(ctx, obj, reads)
	if err != nil {
		return Outcome{}, err
	}
	ctx = r.withScopeCheck(ctx, obj, pass)
	ext, err := sk.ConnectSet(ctx, obj, pass)
	if err != nil {
		return Outcome{}, err
	}
	note, err := ext.Remove(ctx)
	if err != nil {
		return Outcome{}, err
	}
	if err := r.setFinalizer(ctx, obj, false); err != nil {
		return Outcome{}, err
	}
	return Outcome{Event: Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonDeleted, Action: "Delete", Note: note}}, nil
}
