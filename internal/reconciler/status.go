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
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
)

// Outcome is what one pass concluded, before it is written.
type Outcome struct {
	Summary conditions.Summary
	// Event is emitted when its Reason is set: a Normal one always, a
	// Warning one only when the Ready reason changes, so that a resource
	// failing the same way on every retry does not flood its Events.
	Event Event
	// More are further Events of the pass, under the same rule.
	More []Event
	// Requeue is the delay before the next pass.
	Requeue time.Duration
	// check: Requeue is the next drift check's, which waits behind other work.
	check bool
}

// Event is a Kubernetes Event about the resource of a pass.
type Event struct {
	Type, Reason, Action, Note string
	// Always emits a Warning even when the Ready reason stays the same: what
	// failed changed (a set resource whose failing members changed).
	Always bool
}

// Object is a resource of the group: every kind has conditions, and a
// status.observedGeneration and status.lastHandledReconcileAt.
type Object interface {
	client.Object
	forgev1.ConditionsAccessor
}

// StatusWriter writes what a pass concluded: its Event, a log line when the
// resource stops being Ready or changes why, and status. Every controller
// of the operator writes through it.
type StatusWriter struct {
	Client   client.Client
	Recorder events.EventRecorder
}

// NewStatusWriter returns the status writer of a controller of mgr.
func NewStatusWriter(mgr ctrl.Manager) StatusWriter {
	return StatusWriter{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("forge-operator")}
}

// Write records out for obj, whose pass started from orig. It applies the
// summary to obj's conditions, stamps the generation and the handled
// reconcile request, and patches status only when it changed. A resource
// that is gone is not an error.
func (w StatusWriter) Write(ctx context.Context, orig, obj Object, out Outcome) error {
	prevReason, _ := conditions.ReadyReason(orig)
	for _, e := range append([]Event{out.Event}, out.More...) {
		if e.Reason != "" && (e.Type == corev1.EventTypeNormal || e.Always || e.Reason != prevReason) {
			w.Recorder.Eventf(obj, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
		}
	}
	if !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) == 0 {
		return nil // gone, or about to be: no status to write
	}
	s := out.Summary
	if s.State != conditions.Ready && s.Reason != prevReason {
		log.FromContext(ctx).Info("not ready", "reason", s.Reason, "message", s.Message)
	}
	if s.Reason != "" {
		conditions.Apply(obj, obj.GetGeneration(), s)
	}
	patch, err := statusPatch(orig, obj)
	if err != nil || patch == nil {
		return err
	}
	if err := w.Client.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("write status of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// statusPatch returns the JSON merge patch that takes orig's status to
// obj's, with status.observedGeneration and status.lastHandledReconcileAt
// stamped from obj; nil when nothing changes. Like Flux's patch helper it
// compares the unstructured forms, so it needs no accessor per kind: every
// kind's status has these fields, by contract.
func statusPatch(orig, obj Object) ([]byte, error) {
	before, err := statusJSON(orig, nil)
	if err != nil {
		return nil, err
	}
	after, err := statusJSON(obj, func(status map[string]any) {
		if g := obj.GetGeneration(); g != 0 { // omitempty, as the typed status
			status["observedGeneration"] = g
		}
		if v, ok := obj.GetAnnotations()[forgev1.ReconcileRequestedAtAnnotation]; ok {
			status["lastHandledReconcileAt"] = v
		}
	})
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.CreateMergePatch(before, after)
	if err != nil {
		return nil, fmt.Errorf("compute status patch: %w", err)
	}
	if string(patch) == "{}" {
		return nil, nil
	}
	return patch, nil
}

// statusJSON renders {"status": ...} of obj, after stamp when given.
func statusJSON(obj Object, stamp func(map[string]any)) ([]byte, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s to unstructured: %w", obj.GetName(), err)
	}
	status, _, err := unstructured.NestedMap(u, "status")
	if err != nil {
		return nil, fmt.Errorf("read status of %s: %w", obj.GetName(), err)
	}
	if status == nil {
		status = map[string]any{}
	}
	if stamp != nil {
		stamp(status)
	}
	return json.Marshal(map[string]any{"status": status})
}

// record copies what was observed into status.
func record(status *forgev1.ManagedStatus, obs Observation) {
	status.ID, status.ExternalName = obs.ID, obs.Name
	if obs.URL != "" {
		status.URL = obs.URL
	}
}
