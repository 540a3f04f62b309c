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
	"time"

	corev1 "k8s.io/api/core/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
)

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
	if obs.Left != nil {
		// Written what it holds; what another enforces is its Conflict.
		c, _ := Classify(obs.Left)
		if out.Event.Reason != "" {
			out.More = append(out.More, out.Event)
		}
		left := Failure(c, out.Requeue)
		out.Summary, out.Event = left.Summary, left.Event
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
