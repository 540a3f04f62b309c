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
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// checkKeyConflict stalls obj when an older resource holds the object of
// its natural key.
func (r *Reconciler[T]) checkKeyConflict(ctx context.Context, obj T) error {
	other, err := r.keyHolder(ctx, obj, true)
	if err != nil || other == "" {
		return err
	}
	return Stall(forgev1.ReasonConflict, "%s is already managed by %s; delete one of the two resources", r.kind.Describe(obj), other)
}

// checkIDConflict stalls obj when an older resource already holds forge object id.
func (r *Reconciler[T]) checkIDConflict(ctx context.Context, obj T, id int64) error {
	other, err := r.holder(ctx, obj, indexID, idValue(id), true)
	if err != nil || other == "" {
		return err
	}
	return Stall(forgev1.ReasonConflict, "%s (id %d) is already managed by %s; delete one of the two resources", r.kind.Describe(obj), id, other)
}

// heldElsewhere names another resource, older or younger, that holds obj's
// forge object by its natural key or by obj's status.id: a deletion then
// leaves the object to it.
func (r *Reconciler[T]) heldElsewhere(ctx context.Context, obj T) (string, error) {
	other, err := r.keyHolder(ctx, obj, false)
	if err != nil || other != "" {
		return other, err
	}
	if id := obj.GetManagedStatus().ID; id != 0 {
		return r.holder(ctx, obj, indexID, idValue(id), false)
	}
	return "", nil
}

func (r *Reconciler[T]) keyHolder(ctx context.Context, obj T, olderOnly bool) (string, error) {
	key := r.kind.Key(obj)
	if key == "" {
		return "", nil
	}
	return r.holder(ctx, obj, indexKey, key, olderOnly)
}

// holder returns the oldest other resource of the kind holding the forge
// object whose index field equals value, on obj's server, in any watched
// namespace, named as obj's namespace may learn of it (claims.HolderFor); with
// olderOnly, only if it is older than obj. Resources being deleted hold
// nothing. It only reads the cached objects (no copies).
func (r *Reconciler[T]) holder(ctx context.Context, obj T, index, value string, olderOnly bool) (string, error) {
	list := r.kind.NewList()
	if err := r.client.List(ctx, list, client.MatchingFields{index: value}, client.UnsafeDisableDeepCopy); err != nil {
		return "", fmt.Errorf("list %s by %s: %w", r.kindName, index, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	var servers *claims.Servers
	var oldest client.Object
	for _, it := range items {
		o := it.(T)
		if o.GetUID() == obj.GetUID() || !o.GetDeletionTimestamp().IsZero() {
			continue
		}
		if olderOnly && !claims.Older(o, obj) || oldest != nil && !claims.Older(o, oldest) {
			continue
		}
		if servers == nil {
			if servers, err = claims.ServersOf(ctx, r.client, obj); err != nil {
				return "", err
			}
		}
		holds := servers.Holds
		if index == indexID {
			holds = servers.HoldsRecorded
		}
		if holds(ctx, o) {
			oldest = o
		}
	}
	if oldest == nil {
		return "", nil
	}
	return claims.HolderFor(obj.GetNamespace(), r.kindName, oldest), nil
}

func idValue(id int64) string { return strconv.FormatInt(id, 10) }

// One returns the one item that match selects from a forge listing, nil when
// none does. The forge allows several labels of one name, projects of one
// title, runners of one name: when several match, it returns a Conflict
// stall instead, counting them and listing their ids after what
// ("labels named "bug" exist in acme/web"), followed by advice.
func One[T any](items []T, match func(T) bool, id func(T) int64, what, advice string) (*T, error) {
	var found []int
	for i, it := range items {
		if match(it) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return &items[found[0]], nil
	}
	ids := make([]string, len(found))
	for i, at := range found {
		ids[i] = strconv.FormatInt(id(items[at]), 10)
	}
	return nil, Stall(forgev1.ReasonConflict, "%d %s (ids %s); %s", len(found), what, strings.Join(ids, ", "), advice)
}
