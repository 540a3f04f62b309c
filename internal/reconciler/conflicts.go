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
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Claims: one answer to "who holds this forge object" (DESIGN
// "Reconciliation semantics", Conflicts). A resource holds the forge object
// of its natural key and of its status.id; holds are compared across every
// namespace the manager watches and every Forge that points at the same
// server (forge.ServerKey), so that two tenants' resources for one object
// never both write to it. The indexes (setup.go) are cluster-wide, by the
// natural key and by the id alone; the server is decided when asking,
// from the Forges in the cache, so that a Forge whose URL changes moves
// its resources' holds with it at once.

// Servers is which Forge and ClusterForge objects point at the server of
// one resource's connection: its own, and every other with the same server
// key. Connections are keyed as ForgeKey keys them (a ClusterForge by its
// name with no namespace).
type Servers struct {
	own  types.NamespacedName
	same map[types.NamespacedName]bool
	// ready are the connections of the server that can see its objects:
	// Ready, or a ClusterForge being deleted that still serves its
	// resources (InUse).
	ready map[types.NamespacedName]bool
	// clusters are the server's ClusterForges, by name: a resource using
	// one holds nothing its tenants entries do not grant it.
	clusters map[string]*forgev1.ClusterForge
	c        client.Reader
}

// clusterForgesServed is whether this manager serves ClusterForges
// (SetupForgeIndexes): without, they are not in its cache and not listed.
var clusterForgesServed atomic.Bool

// ServersOf reads, from the manager's cache c, the Forges and ClusterForges
// that point at the server obj's connection points at. Without its
// connection in the cache (being created, or gone), only its own counts.
func ServersOf(ctx context.Context, c client.Reader, obj forgev1.Managed) (*Servers, error) {
	own := ForgeKey(obj)
	s := &Servers{own: own, same: map[types.NamespacedName]bool{own: true}, ready: map[types.NamespacedName]bool{},
		clusters: map[string]*forgev1.ClusterForge{}, c: c}
	key := ServerOf(ctx, c, own)
	if key == "" {
		return s, nil
	}
	conns, err := connectionsOf(ctx, c, key)
	if err != nil {
		return nil, err
	}
	for _, f := range conns.forges {
		k := types.NamespacedName{Namespace: f.Namespace, Name: f.Name}
		s.same[k] = true
		s.ready[k] = conditions.IsReady(f, f.Generation)
	}
	for _, cf := range conns.clusters {
		k := types.NamespacedName{Name: cf.Name}
		s.same[k] = true
		s.clusters[cf.Name] = cf
		s.ready[k] = conditions.IsReady(cf, cf.Generation) ||
			(&target{obj: cf, status: &cf.Status.ForgeStatus, cluster: cf}).waitsForUsers()
	}
	return s, nil
}

// connections are the Forges and ClusterForges of one server.
type connections struct {
	forges   []*forgev1.Forge
	clusters []*forgev1.ClusterForge
}

// connectionsOf reads, from the manager's cache c, the Forges and (when
// this manager serves them) ClusterForges pointing at server key. They are
// the cache's own objects (not copied): read them, never change them.
func connectionsOf(ctx context.Context, c client.Reader, key string) (connections, error) {
	var out connections
	var forges forgev1.ForgeList
	if err := c.List(ctx, &forges, client.UnsafeDisableDeepCopy); err != nil {
		return out, fmt.Errorf("list Forges: %w", err)
	}
	for i := range forges.Items {
		if f := &forges.Items[i]; forge.ServerKey(f.Spec.URL) == key {
			out.forges = append(out.forges, f)
		}
	}
	if !clusterForgesServed.Load() {
		return out, nil
	}
	var clusters forgev1.ClusterForgeList
	if err := c.List(ctx, &clusters, client.UnsafeDisableDeepCopy); err != nil {
		return out, fmt.Errorf("list ClusterForges: %w", err)
	}
	for i := range clusters.Items {
		if cf := &clusters.Items[i]; forge.ServerKey(cf.Spec.URL) == key {
			out.clusters = append(out.clusters, cf)
		}
	}
	return out, nil
}

// Lists are the list options that find the resources using each Forge and
// ClusterForge of the server, its own first: a Forge's in its namespace, a
// ClusterForge's in every namespace.
func (s *Servers) Lists() [][]client.ListOption {
	keys := []types.NamespacedName{s.own}
	for n := range s.same {
		if n != s.own {
			keys = append(keys, n)
		}
	}
	out := make([][]client.ListOption, 0, len(keys))
	for _, k := range keys {
		if k.Namespace == "" {
			ref := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: k.Name}
			out = append(out, []client.ListOption{client.MatchingFields{IndexForgeRef: ref.Key()}})
			continue
		}
		out = append(out, []client.ListOption{client.InNamespace(k.Namespace), client.MatchingFields{IndexForgeRef: k.Name}})
	}
	return out
}

// Reach reports whether a resource in namespace ns using connection ref
// addresses the same server.
func (s *Servers) Reach(ns string, ref forgev1.ForgeReference) bool {
	return s.same[refKey(ns, ref)]
}

// Permitted reports whether other may act through its connection: always
// through a Forge; through a ClusterForge of the server only when its
// tenants entries grant other's namespace its owners. A resource that may
// not act holds nothing: a tenant cannot claim, and so block, an
// organization the platform gave another.
func (s *Servers) Permitted(ctx context.Context, other forgev1.Managed) bool {
	ref := other.GetManagedSpec().ForgeRef
	if !ref.Cluster() {
		return true
	}
	cf, ok := s.clusters[ref.Name]
	if !ok {
		return false
	}
	p, err := permission(ctx, s.c, cf, other)
	return err == nil && p.Allowed
}

// Holds reports whether other, a resource using the same server, holds the
// forge object of its natural key: one under the same connection always
// does (it reads with the same credentials); one under another only once
// it has read it (status records it) or may have made it (a create-pending
// mark in its status, which its own create wrote), so that a tenant whose
// credentials cannot see an object does not hold it. A resource whose
// connection is not Ready sees nothing: it holds only what its status
// recorded (HoldsRecorded), by name for a kind the forge addresses by name.
// A resource its ClusterForge does not permit holds nothing.
func (s *Servers) Holds(ctx context.Context, other forgev1.Managed) bool {
	key := ForgeKey(other)
	if !s.same[key] || !s.Permitted(ctx, other) {
		return false
	}
	st := other.GetManagedStatus()
	if !s.ready[key] {
		return st.ID == 0 && st.ExternalName != ""
	}
	return key == s.own || st.Known() || pendingMark(other) != ""
}

// HoldsRecorded reports whether other, a resource using the same server,
// holds the forge object its status records (status.id): always, whether
// its connection is Ready or not, unless its ClusterForge does not permit it.
func (s *Servers) HoldsRecorded(ctx context.Context, other forgev1.Managed) bool {
	return s.same[ForgeKey(other)] && s.Permitted(ctx, other)
}

// Sees reports whether other's connection can see the server's objects
// (it is Ready): a resource whose connection cannot holds only what its
// status recorded.
func (s *Servers) Sees(other forgev1.Managed) bool {
	return s.ready[ForgeKey(other)]
}

// Older orders resources by creation time, then namespace and name, so that
// of two holders of one forge object exactly one is older: it keeps it.
func Older(a, b client.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	if a.GetNamespace() != b.GetNamespace() {
		return a.GetNamespace() < b.GetNamespace()
	}
	return a.GetName() < b.GetName()
}

// Holder names a resource holding a forge object: "Repository team-a/web".
func Holder(kind string, o client.Object) string {
	return kind + " " + o.GetNamespace() + "/" + o.GetName()
}

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
// namespace, named as obj's namespace may learn of it (HolderFor); with
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
	var servers *Servers
	var oldest client.Object
	for _, it := range items {
		o := it.(T)
		if o.GetUID() == obj.GetUID() || !o.GetDeletionTimestamp().IsZero() {
			continue
		}
		if olderOnly && !Older(o, obj) || oldest != nil && !Older(o, oldest) {
			continue
		}
		if servers == nil {
			if servers, err = ServersOf(ctx, r.client, obj); err != nil {
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
	return HolderFor(obj.GetNamespace(), r.kindName, oldest), nil
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
