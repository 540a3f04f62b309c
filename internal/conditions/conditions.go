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

// Package conditions turns the outcome of one reconcile pass into the
// kstatus-compatible conditions Ready, Reconciling and Stalled.
//
// kstatus (and so kubectl wait, Argo CD and Flux) reads Reconciling and
// Stalled as "abnormal-true" conditions: present and True while the resource
// is in progress or failed, absent otherwise. Ready is the summary a person
// reads and is always present.
package conditions

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// State is the kind of outcome a pass ended in.
type State int

const (
	// Ready: the forge object matches (or, observing, was read); nothing to do until the next check.
	Ready State = iota
	// Waiting: the operator is waiting for something that will change by itself or after a retry
	// (a parent object, a Secret, the Forge, a transient forge error). kstatus: InProgress.
	Waiting
	// Stalled: the operator cannot go on without a change from the user. kstatus: Failed.
	Stalled
	// Idle: nothing is done on purpose (suspended, or observing a missing or drifted object);
	// Ready is not True, but neither Reconciling nor Stalled is set. kstatus reads the
	// Ready condition then, so: InProgress (kubectl wait and Flux health checks keep waiting).
	Idle
)

// Summary is what one pass concluded.
type Summary struct {
	State   State
	Reason  string
	Message string
}

// Apply writes the summary into the object's conditions, stamping
// generation as each condition's observedGeneration. lastTransitionTime only
// moves when a condition's status changes.
func Apply(obj forgev1.ConditionsAccessor, generation int64, s Summary) {
	conds := obj.GetConditions()
	ready := metav1.ConditionFalse
	switch s.State {
	case Ready:
		ready = metav1.ConditionTrue
	case Idle:
		if s.Reason == forgev1.ReasonSuspended {
			ready = metav1.ConditionUnknown
		}
	}
	meta.SetStatusCondition(&conds, metav1.Condition{
		Type: forgev1.ConditionReady, Status: ready, Reason: s.Reason, Message: s.Message, ObservedGeneration: generation,
	})
	setAbnormal(&conds, forgev1.ConditionReconciling, s.State == Waiting, generation, s)
	setAbnormal(&conds, forgev1.ConditionStalled, s.State == Stalled, generation, s)
	obj.SetConditions(conds)
}

func setAbnormal(conds *[]metav1.Condition, typ string, on bool, generation int64, s Summary) {
	if !on {
		meta.RemoveStatusCondition(conds, typ)
		return
	}
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: typ, Status: metav1.ConditionTrue, Reason: s.Reason, Message: s.Message, ObservedGeneration: generation,
	})
}

// IsReady reports whether the object's Ready condition is True for its current generation.
func IsReady(obj forgev1.ConditionsAccessor, generation int64) bool {
	c := meta.FindStatusCondition(obj.GetConditions(), forgev1.ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation
}

// ReadyReason returns the reason and message of the Ready condition, "" when absent.
func ReadyReason(obj forgev1.ConditionsAccessor) (reason, message string) {
	if c := meta.FindStatusCondition(obj.GetConditions(), forgev1.ConditionReady); c != nil {
		return c.Reason, c.Message
	}
	return "", ""
}
