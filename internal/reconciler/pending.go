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
	"maps"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The create-pending mark (forgev1.CreatePendingAnnotation) is written
// before a create and holds a value unique to it. The pass that settles the
// create (its id recorded in status) echoes that value in
// status.lastHandledCreatePending in the status write it makes anyway; a
// mark equal to that field is settled and means nothing. Settling a mark
// thus costs no write of its own: a create costs the metadata patch that
// sets the mark (with the finalizer) and the status patch. A settled mark
// stays on the resource until a metadata write the loop makes anyway (the
// next create's mark, the finalizer) takes it away (patchMeta).
//
// Only the status write of a pass that succeeded records the value: a
// failed pass may have lost the response of its create, so its mark stays
// pending and the next pass looks before creating again. Both the id and
// the echo go in one status patch, so a settled mark always comes with the
// id its create made.

// pendingMark returns obj's create-pending mark while it is pending: ""
// when there is none or it is settled.
func pendingMark(obj forgev1.Managed) string {
	mark := obj.GetAnnotations()[forgev1.CreatePendingAnnotation]
	if mark == obj.GetManagedStatus().LastHandledCreatePending {
		return ""
	}
	return mark
}

// markPending persists a create-pending mark before a create, so that a
// create whose response is lost is found by the next pass, not repeated.
// A mark still pending is kept; a settled or missing one is replaced by a
// new value. replaces, when not "", names the object the create replaces
// (replacedRef): it is kept with the mark until that object is deleted. The
// finalizer goes on in the same patch: one write instead of two before the
// first create.
func (r *Reconciler[T]) markPending(ctx context.Context, obj T, replaces string) error {
	finalizer := !controllerutil.ContainsFinalizer(obj, forgev1.Finalizer)
	ann := obj.GetAnnotations()
	set := map[string]string{}
	var drop []string
	if pendingMark(obj) == "" {
		set[forgev1.CreatePendingAnnotation] = newMark(obj)
		if _, ok := ann[forgev1.ReplacesAnnotation]; ok && replaces == "" {
			// Left by a settled replacement: its old object is gone.
			drop = append(drop, forgev1.ReplacesAnnotation)
		}
	}
	if replaces != "" && ann[forgev1.ReplacesAnnotation] != replaces {
		set[forgev1.ReplacesAnnotation] = replaces
	}
	if len(set) == 0 && len(drop) == 0 && !finalizer {
		return nil
	}
	err := r.patchMeta(ctx, obj, func(o T) {
		controllerutil.AddFinalizer(o, forgev1.Finalizer)
		ann := o.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		maps.Copy(ann, set)
		for _, k := range drop {
			delete(ann, k)
		}
		o.SetAnnotations(ann)
	})
	if err != nil {
		return fmt.Errorf("mark %s create-pending: %w", r.describe(obj), err)
	}
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
// of a pass that succeeded and whose status records the forge object.
func settlePending(obj forgev1.Managed) {
	if mark := pendingMark(obj); mark != "" {
		obj.GetManagedStatus().LastHandledCreatePending = mark
	}
}

// dropSettled removes from o a settled create-pending mark and the
// replaces mark that came with it: called by every metadata patch, so that
// they go with a write the loop makes anyway.
func dropSettled(o forgev1.Managed) {
	ann := o.GetAnnotations()
	mark, ok := ann[forgev1.CreatePendingAnnotation]
	if !ok || mark != o.GetManagedStatus().LastHandledCreatePending {
		return
	}
	delete(ann, forgev1.CreatePendingAnnotation)
	delete(ann, forgev1.ReplacesAnnotation)
	o.SetAnnotations(ann)
}

// deleteReplaced deletes the object a replacement left behind (its delete
// failed, or its pass ended before it) while the replacement's mark is
// pending, unless it is the one observed now.
func (r *Reconciler[T]) deleteReplaced(ctx context.Context, obj T, ext External, current Observation) error {
	if pendingMark(obj) == "" {
		return nil // settled: the pass that made it deleted the old object
	}
	old := obj.GetAnnotations()[forgev1.ReplacesAnnotation]
	if old == "" || old == replacedRef(current) {
		return nil
	}
	if err := ext.Delete(ctx, replacedObject(old)); err != nil && !forge.IsNotFound(err) {
		return err
	}
	return nil
}

// namePrefix marks a replaced object named by the forge's name (a kind
// the forge addresses by name, such as a push mirror), not by its id.
const namePrefix = "name:"

// replacedRef is how ReplacesAnnotation names the object of obs: its id,
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

// replacedObject is the object a ReplacesAnnotation value names.
func replacedObject(ref string) Observation {
	if name, ok := strings.CutPrefix(ref, namePrefix); ok {
		return Observation{Exists: true, Name: name}
	}
	id, _ := strconv.ParseInt(ref, 10, 64)
	return Observation{Exists: id != 0, ID: id}
}
