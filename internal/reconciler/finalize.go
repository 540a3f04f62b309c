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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// finalize handles a resource being deleted.
func (r *Reconciler[T]) finalize(ctx context.Context, obj T, reads *forge.ReadPolicy) (Outcome, error) {
	if !controllerutil.ContainsFinalizer(obj, forgev1.Finalizer) {
		return Outcome{}, nil
	}
	spec := obj.GetManagedSpec()
	status := obj.GetManagedStatus()
	what := r.kind.Describe(obj)
	sk, isSet := r.kind.(SetKind[T])
	// A set names what it manages by its spec, not by a forge id.
	holds := status.Known() || pendingMark(obj) != "" || isSet
	keep := ""
	switch {
	case obj.GetDeletionPolicy() == forgev1.DeletionPolicyOrphan:
		keep = "deletionPolicy is Orphan"
	case spec.ManagementPolicy == forgev1.ManagementPolicyObserve:
		keep = "managementPolicy is Observe"
	case spec.Suspend:
		keep = "spec.suspend is true"
	case !holds:
		keep = "the operator never created or adopted it"
	}
	eventType := corev1.EventTypeNormal
	if keep == "" && spec.ForgeRef.Cluster() {
		// A resource its ClusterForge no longer serves (its namespace
		// relabelled) removes nothing: it leaves the object, and its
		// deletion is not held up.
		why, err := r.notServed(ctx, obj)
		if err != nil {
			return Outcome{}, err
		}
		if keep = why; why != "" {
			eventType = corev1.EventTypeWarning
		}
	}
	if keep == "" {
		// Another resource holding the same forge object (older or younger,
		// in any namespace, under any Forge of the server) keeps it alive.
		other, err := r.heldElsewhere(ctx, obj)
		if err != nil {
			return Outcome{}, err
		}
		if other != "" {
			keep = other + " manages it too"
		}
	}
	if keep == "" {
		// Without its Forge nothing can be deleted; holding the finalizer
		// would block the namespace's deletion for ever.
		gone, err := r.forgeGone(ctx, obj)
		if err != nil {
			return Outcome{}, err
		}
		if gone {
			keep = fmt.Sprintf("its %s is gone", spec.ForgeRef)
			eventType = corev1.EventTypeWarning
		}
	}
	if keep != "" {
		if err := r.setFinalizer(ctx, obj, false); err != nil {
			return Outcome{}, err
		}
		out := Outcome{Event: Event{Type: eventType, Reason: forgev1.ReasonOrphaned, Action: "Delete",
			Note: fmt.Sprintf("left %s on the forge: %s", what, keep)}}
		if !holds {
			out.Event.Reason = ""
		}
		return out, nil
	}

	if isSet {
		return r.removeSet(ctx, sk, obj, reads)
	}
	return r.deleteOnForge(ctx, obj, what, reads)
}

// deleteOnForge deletes obj's forge object (a missing one, or a missing
// parent, counts as deleted), then drops the finalizer. A kind's Delete
// that leaves the object on purpose (Left) drops it too, with its Event.
func (r *Reconciler[T]) deleteOnForge(ctx context.Context, obj T, what string, reads *forge.ReadPolicy) (Outcome, error) {
	pass, err := r.connect(ctx, obj, reads)
	if err != nil {
		return Outcome{}, err
	}
	ctx = r.withScopeCheck(ctx, obj, pass)
	ext, err := r.kind.Connect(ctx, obj, pass)
	if err != nil {
		return Outcome{}, err
	}
	obs, err := ext.Observe(ctx)
	if isMoved(err) {
		// The name answers with a redirect: the object it named was renamed
		// or transferred, and whatever answers now is not deleted through
		// it. The resource goes; the object stays where it went.
		return r.leaveMoved(ctx, obj, what, err)
	}
	if err != nil && !forge.IsNotFound(err) && !isParentMissing(err) {
		return Outcome{}, err
	}
	// The object this resource held (status.id) is gone: one found under
	// its natural key instead is another object, which it never held.
	id := obj.GetManagedStatus().ID
	held := id == 0 || obs.ID == 0 || obs.ID == id
	if err == nil && obs.Exists && held {
		if err := ext.Delete(ctx, obs); err != nil && !forge.IsNotFound(err) {
			if isMoved(err) {
				return r.leaveMoved(ctx, obj, what, err)
			}
			var left *Left
			if !errors.As(err, &left) {
				return Outcome{}, err
			}
			if err := r.setFinalizer(ctx, obj, false); err != nil {
				return Outcome{}, err
			}
			return Outcome{Event: left.Event}, nil
		}
	}
	if err := r.deleteReplaced(ctx, obj, ext, Observation{}); err != nil {
		return Outcome{}, err
	}
	if err := r.setFinalizer(ctx, obj, false); err != nil {
		return Outcome{}, err
	}
	return Outcome{Event: Event{Type: corev1.EventTypeNormal, Reason: forgev1.ReasonDeleted, Action: "Delete",
		Note: fmt.Sprintf("deleted %s on the forge", what)}}, nil
}

// leaveMoved drops the finalizer of a resource whose object the forge
// answers for with a redirect, leaving the object: it was renamed or
// transferred, and nothing is deleted through its old name.
func (r *Reconciler[T]) leaveMoved(ctx context.Context, obj T, what string, err error) (Outcome, error) {
	if err := r.setFinalizer(ctx, obj, false); err != nil {
		return Outcome{}, err
	}
	return Outcome{Event: Event{Type: corev1.EventTypeWarning, Reason: forgev1.ReasonMoved, Action: "Delete",
		Note: fmt.Sprintf("left %s on the forge: %v", what, err)}}, nil
}

// forgeGone reports whether obj's Forge no longer exists or is being
// deleted. A ClusterForge being deleted still serves its resources (it
// waits for them, InUse): only one that is gone counts, or one this
// manager does not serve.
func (r *Reconciler[T]) forgeGone(ctx context.Context, obj T) (bool, error) {
	ref := obj.GetManagedSpec().ForgeRef
	if ref.Cluster() {
		if !r.pool.ServesClusterForges() {
			return true, nil
		}
		var cf forgev1.ClusterForge
		err := r.client.Get(ctx, types.NamespacedName{Name: ref.Name}, &cf)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}
	var f forgev1.Forge
	err := r.client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, &f)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return err == nil && !f.DeletionTimestamp.IsZero(), err
}

// notServed says why obj's ClusterForge does not let it write (its
// namespace or owner is not granted), "" when it does or is gone.
func (r *Reconciler[T]) notServed(ctx context.Context, obj T) (string, error) {
	if !r.pool.ServesClusterForges() {
		return "", nil
	}
	cf, p, err := r.clusterForge(ctx, obj)
	if err != nil || cf == nil || p.Allowed {
		return "", err
	}
	return p.Why, nil
}
