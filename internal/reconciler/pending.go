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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// markPending persists the create-pending mark before a create, so that a
// create whose response is lost is found by the next pass, not repeated.
// replaces, when not 0, is the id of the object the create replaces: it is
// kept until that object is deleted. The finalizer goes on in the same
// patch: one write instead of two before the first create.
func (r *Reconciler[T]) markPending(ctx context.Context, obj T, replaces int64) error {
	finalizer := !controllerutil.ContainsFinalizer(obj, forgev1.Finalizer)
	set := map[string]string{}
	if obj.GetAnnotations()[forgev1.CreatePendingAnnotation] == "" {
		set[forgev1.CreatePendingAnnotation] = time.Now().UTC().Format(time.RFC3339)
	}
	if id := strconv.FormatInt(replaces, 10); replaces != 0 && obj.GetAnnotations()[forgev1.ReplacesAnnotation] != id {
		set[forgev1.ReplacesAnnotation] = id
	}
	if len(set) == 0 && !finalizer {
		return nil
	}
	err := r.patchMeta(ctx, obj, func(o T) {
		controllerutil.AddFinalizer(o, forgev1.Finalizer)
		ann := o.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		maps.Copy(ann, set)
		o.SetAnnotations(ann)
	})
	if err != nil {
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
	err := r.patchMeta(ctx, obj, func(o T) {
		ann := o.GetAnnotations()
		delete(ann, forgev1.CreatePendingAnnotation)
		delete(ann, forgev1.ReplacesAnnotation)
		o.SetAnnotations(ann)
	})
	if err != nil && !apierrors.IsNotFound(err) {
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
