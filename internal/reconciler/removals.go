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
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Removals that report (removals: Report): a kind that removes what its
// spec does not list removes nothing and keeps what it would have removed
// in status.pendingRemovals, made by PendingRemovals each pass. The loop
// tells of them: a Warning Event RemovalsPending when a pass leaves them
// different from what the resource's status held (removalsEvent), so that
// a resource reporting the same removals on every pass says so once.

// MaxPendingItems bounds status.pendingRemovals.items (the CRD says so too).
const MaxPendingItems = 20

// PendingRemovals is the status.pendingRemovals of the removals a pass
// planned and did not make: nil when there are none (the field is
// cleared); else their count and the first MaxPendingItems, sorted by
// repository, kind and name, repeats dropped. Every kind with removals
// Report sets its status field to it on each pass that compared the forge.
func PendingRemovals(planned []forgev1.PendingRemoval) *forgev1.PendingRemovals {
	if len(planned) == 0 {
		return nil
	}
	items := slices.SortedFunc(slices.Values(planned), func(a, b forgev1.PendingRemoval) int {
		return cmp.Or(strings.Compare(a.Repository, b.Repository), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Name, b.Name))
	})
	items = slices.Compact(items)
	return &forgev1.PendingRemovals{Count: int32(len(items)), Items: items[:min(len(items), MaxPendingItems):min(len(items), MaxPendingItems)]}
}

// PendingRemovalsIn reads status.pendingRemovals of obj, of any kind that
// has the field (nil when it has none or holds none): the loop and plan
// read it alike, without an accessor per kind.
func PendingRemovalsIn(obj client.Object) (*forgev1.PendingRemovals, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s to unstructured: %w", obj.GetName(), err)
	}
	m, found, err := unstructured.NestedMap(u, "status", "pendingRemovals")
	if err != nil || !found {
		return nil, err
	}
	var p forgev1.PendingRemovals
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &p); err != nil {
		return nil, fmt.Errorf("read status.pendingRemovals of %s: %w", obj.GetName(), err)
	}
	return &p, nil
}

// removalsEvent is the Warning Event RemovalsPending of a pass that left
// obj's pending removals other than orig's status held, and none pending:
// none when they are the same (the pass before told of them), and none
// when they are gone. The status holds at most MaxPendingItems of them:
// a change beyond those under an unchanged count goes untold, as it
// goes unseen in status.
func removalsEvent(orig, obj client.Object) []Event {
	before, err := PendingRemovalsIn(orig)
	if err != nil {
		return nil
	}
	after, err := PendingRemovalsIn(obj)
	if err != nil || after == nil || after.Count == 0 {
		return nil
	}
	if before != nil && before.Count == after.Count && slices.Equal(before.Items, after.Items) {
		return nil
	}
	return []Event{{Type: corev1.EventTypeWarning, Reason: forgev1.ReasonRemovalsPending, Action: "Reconcile",
		Note: RemovalsNote(after), Always: true}}
}

// RemovalsNote says what p holds in a line: its count and the first few.
func RemovalsNote(p *forgev1.PendingRemovals) string {
	const shown = 5
	parts := make([]string, 0, shown+1)
	for i, it := range p.Items {
		if i == shown {
			break
		}
		parts = append(parts, it.String())
	}
	if n := int(p.Count) - len(parts); n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", n))
	}
	noun := "removals"
	if p.Count == 1 {
		noun = "removal"
	}
	return fmt.Sprintf("%d %s not made (removals Report; see status.pendingRemovals): %s", p.Count, noun, strings.Join(parts, ", "))
}
