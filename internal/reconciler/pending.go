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
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The create-pending mark (status.createPending) is written to status
// before a create and holds a value unique to it. The pass that settles the
// create (its id recorded, or a refusal that made nothing) echoes that
// value in status.lastHandledCreatePending in the status write it makes
// anyway; a mark equal to that field is settled and means nothing.
// Settling a mark thus costs no write of its own.
//
// The mark, and what a create replaces (status.replaces), are records the
// operator relies on: a pending mark makes a pass look before it creates,
// holds the forge object its create may have made (claims.Servers.Holds), and a
// pending replacement deletes the object it replaces. They are kept in the
// status subresource, which only the operator writes (the aggregated edit
// role cannot), never in annotations, which anyone who may edit the
// resource writes: a mark set by hand must hold nothing and delete nothing.
//
// Only the status write of a pass that succeeded records the value: a
// failed pass may have lost the response of its create, so its mark stays
// pending and the next pass looks before creating again. Both the id and
// the echo go in one status patch, so a settled mark always comes with the
// id its create made.

// pendingMark returns obj's create-pending mark while it is pending: ""
// when there is none or it is settled.
func pendingMark(obj forgev1.Managed) string {
	st := obj.GetManagedStatus()
	if st.CreatePending == st.LastHandledCreatePending {
		return ""
	}
	return st.CreatePending
}

// markPending persists a create-pending mark in status before a create, so
// that a create whose response is lost is found by the next pass, not
// repeated. A mark still pending is kept; a settled or missing one is
// replaced by a new value. replaces, when not "", names the object the
// create replaces (replacedRef): it is kept with the mark until that object
// is deleted. The finalizer goes on first: before the first create, as
// every deletion needs it. It reports whether the mark is new: no earlier
// create, whose response may have been lost, shares it.
func (r *Reconciler[T]) markPending(ctx context.Context, obj T, replaces string) (bool, error) {
	if err := r.setFinalizer(ctx, obj, true); err != nil {
		return false, err
	}
	st := obj.GetManagedStatus()
	mark, rep := st.CreatePending, st.Replaces
	fresh := pendingMark(obj) == ""
	if fresh {
		// A settled replacement's old object is gone: its ref goes too.
		mark, rep = newMark(obj), replaces
	} else if replaces != "" {
		rep = replaces
	}
	if mark == st.CreatePending && rep == st.Replaces {
		return fresh, nil
	}
	fields := map[string]any{"createPending": mark, "replaces": nil}
	if rep != "" {
		fields["replaces"] = rep
	}
	if err := r.patchStatus(ctx, obj, fields); err != nil {
		return false, fmt.Errorf("mark %s create-pending: %w", r.describe(obj), err)
	}
	st.CreatePending, st.Replaces = mark, rep
	return fresh, nil
}

// patchStatus persists fields of obj's status at once (a JSON merge patch:
// nil removes a field), before the forge call they guard, leaving obj in
// memory as it is: the pass's own status write follows at its end.
func (r *Reconciler[T]) patchStatus(ctx context.Context, obj T, fields map[string]any) error {
	patch, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		return err
	}
	patched := obj.DeepCopyObject().(T)
	if err := r.client.Status().Patch(ctx, patched, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return err
	}
	obj.SetResourceVersion(patched.GetResourceVersion())
	return nil
}

// newMark returns the value of a new create-pending mark: the time, unlike
// the settled value in status (which a mark equal to it would be taken for).
func newMark(obj forgev1.Managed) string {
	mark := time.Now().UTC().Format(time.RFC3339Nano)
	if mark == obj.GetManagedStatus().LastHandledCreatePending {
		mark += "+1"
	}
	return mark
}

// settlePending records in status (persisted by the status write of the
// pass) that obj's create-pending mark is settled. Call it only at the end
// of a pass that succeeded and whose status records the forge object, or
// after a create the forge refused (refused).
func settlePending(obj forgev1.Managed) {
	if mark := pendingMark(obj); mark != "" {
		obj.GetManagedStatus().LastHandledCreatePending = mark
	}
}

// refused reports whether a failed create certainly made nothing: the
// forge answered it with a refusal (4xx) and the kind reports no object
// made. Its mark, when this create was its only one, is then settled at
// once: a pending mark holds the object its own create may have made, and
// a create refused because the object exists, or is not the connection's
// to see or make, made none. A lost or failed answer (a reset, a 5xx, a
// body that cannot be trusted) may hide a create: its mark stays.
func refused(err error, made Observation) bool {
	if made.Exists {
		return false
	}
	switch forge.KindOf(err) {
	case forge.KindNotFound, forge.KindRouteNotFound, forge.KindUnauthorized, forge.KindForbidden,
		forge.KindValidation, forge.KindConflict, forge.KindRateLimited:
		return true
	}
	return false
}

// deleteReplaced deletes the object a replacement left behind (its delete
// failed, or its pass ended before it) while the replacement's mark is
// pending, unless it is the one observed now.
func (r *Reconciler[T]) deleteReplaced(ctx context.Context, obj T, ext External, current Observation) error {
	if pendingMark(obj) == "" {
		return nil // settled: the pass that made it deleted the old object
	}
	old := obj.GetManagedStatus().Replaces
	if old == "" || old == replacedRef(current) {
		return nil
	}
	if err := ext.Delete(ctx, replacedObject(old)); err != nil && !forge.IsNotFound(err) {
		return err
	}
	return nil
}

// Earlier versions kept the create-pending and replaces marks in
// annotations (forgev1.CreatePendingAnnotation, ReplacesAnnotation), which
// anyone who may edit the resource can write. On its first pass over a
// resource that carries them, the operator moves into status, once, only
// what it can tell it wrote, and removes the annotations; nothing else of
// them is ever read.

// annotatedMarks decides what becomes of the marks an earlier version kept
// in annotations (mark, replaces; "" for one absent): moved into status
// (move), or dropped, quietly when they mean nothing (a settled mark and
// the replaces that came with it, or one already moved), else with a
// Warning (warn). A pending mark is the operator's only when status
// vouches for it: it replaces the very object status.id (or
// status.externalName) records, as a replacement does whose status write
// was lost. Deleting that object allows nothing its resource did not hold
// already. Any other pending mark, even one an earlier version wrote
// (a first create whose response was lost), cannot be told from one set by
// hand: dropped, the next pass looks for its object by its natural key, as
// for any adoption.
func annotatedMarks(st *forgev1.ManagedStatus, mark, replaces string) (move, warn bool) {
	switch {
	case mark != "" && (mark == st.LastHandledCreatePending || mark == st.CreatePending):
		return false, false
	case mark != "" && replaces != "" && st.CreatePending == st.LastHandledCreatePending &&
		replaces == replacedRef(Observation{ID: st.ID, Name: st.ExternalName}):
		return true, false
	}
	return false, true
}

// takeAnnotatedMarks handles the marks obj carries in annotations
// (annotatedMarks): what is moved goes to status first, then the
// annotations are removed, and a Warning Event names what was dropped.
func (r *Reconciler[T]) takeAnnotatedMarks(ctx context.Context, obj T) error {
	ann := obj.GetAnnotations()
	mark, hasMark := ann[forgev1.CreatePendingAnnotation]
	replaces, hasReplaces := ann[forgev1.ReplacesAnnotation]
	if !hasMark && !hasReplaces {
		return nil
	}
	st := obj.GetManagedStatus()
	move, warn := annotatedMarks(st, mark, replaces)
	if move {
		if err := r.patchStatus(ctx, obj, map[string]any{"createPending": mark, "replaces": replaces}); err != nil {
			return fmt.Errorf("move the create-pending mark of %s into status: %w", r.describe(obj), err)
		}
		st.CreatePending, st.Replaces = mark, replaces
	}
	err := r.patchMeta(ctx, obj, func(o T) {
		ann := o.GetAnnotations()
		delete(ann, forgev1.CreatePendingAnnotation)
		delete(ann, forgev1.ReplacesAnnotation)
		o.SetAnnotations(ann)
	})
	if err != nil {
		return fmt.Errorf("remove the create-pending annotations of %s: %w", r.describe(obj), err)
	}
	if warn && r.status.Recorder != nil {
		var dropped []string
		if hasMark {
			dropped = append(dropped, fmt.Sprintf("%s=%q", forgev1.CreatePendingAnnotation, bounded(mark)))
		}
		if hasReplaces {
			dropped = append(dropped, fmt.Sprintf("%s=%q", forgev1.ReplacesAnnotation, bounded(replaces)))
		}
		note := fmt.Sprintf("removed %s: the operator keeps these marks in status and no status record shows it wrote these, so they held, blocked and deleted nothing",
			strings.Join(dropped, ", "))
		if hasReplaces {
			note += "; if an earlier version was replacing an object when it stopped, delete the old object by hand"
		}
		r.status.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, forgev1.ReasonAnnotationDropped, "Drop", "%s", note)
	}
	return nil
}

// bounded cuts a value a user wrote to what an Event may quote.
func bounded(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// namePrefix marks a replaced object named by the forge's name (a kind
// the forge addresses by name, such as a push mirror), not by its id.
const namePrefix = "name:"

// replacedRef is how status.replaces names the object of obs: its id,
// or, for an object the forge addresses by name, "name:" and the name;
// "" for none.
func replacedRef(obs Observation) string {
	switch {
	case obs.ID != 0:
		return strconv.FormatInt(obs.ID, 10)
	case obs.Name != "":
		return namePrefix + obs.Name
	}
	return ""
}

// replacedObject is the object a status.replaces value names.
func replacedObject(ref string) Observation {
	if name, ok := strings.CutPrefix(ref, namePrefix); ok {
		return Observation{Exists: true, Name: name}
	}
	id, _ := strconv.ParseInt(ref, 10, 64)
	return Observation{Exists: id != 0, ID: id}
}
