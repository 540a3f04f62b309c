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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A flood of deliveries within a second costs one pass at once and one
// more a second later, however many there are.
func TestWakesCoalesce(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	w := woken{queue: q}
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "set"}}
	now := time.Now()
	for i := range 1000 {
		w.add(req, now.Add(time.Duration(i)*time.Microsecond), WakeSpacing)
	}
	if q.Len() != 1 {
		t.Fatalf("queued %d after a flood, want the one pass asked first", q.Len())
	}
	s := w.slots[req.NamespacedName]
	if !s.pending.Equal(now.Add(WakeSpacing)) {
		t.Errorf("the flood's second pass is asked for at %v, want a second after the first (%v)", s.pending, now.Add(WakeSpacing))
	}
	// After both, a delivery passes at once again.
	later := now.Add(3 * WakeSpacing)
	item, _ := q.Get()
	q.Done(item)
	w.add(req, later, WakeSpacing)
	if q.Len() != 1 {
		t.Errorf("a delivery after the flood's passes is not passed at once (queued %d)", q.Len())
	}
	other := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "other"}}
	w.add(other, later, WakeSpacing)
	if q.Len() != 2 {
		t.Errorf("another resource's delivery was coalesced with the first's (queued %d)", q.Len())
	}
	w.forget(other.NamespacedName)
	if _, ok := w.slots[other.NamespacedName]; ok {
		t.Errorf("a resource gone is still remembered")
	}
}
