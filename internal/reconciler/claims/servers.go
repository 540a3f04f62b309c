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

package claims

import (
	"context"
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
)

// IndexForgeRef is the field index of the managed resources (and of the
// Forges, by their own name) by the connection they use
// (ForgeReference.Key): the loop registers it for every kind, Lists and
// the shards' handover list by it.
const IndexForgeRef = "spec.forgeRef.name"

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
// (SetServeClusterForges): without, they are not in its cache and not listed.
var clusterForgesServed atomic.Bool

// SetServeClusterForges records whether this manager serves ClusterForges
// (the loop's SetupForgeIndexes says so once per manager); it returns what
// was recorded before, for a test to put it back.
func SetServeClusterForges(served bool) (before bool) {
	return clusterForgesServed.Swap(served)
}

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
	conns, err := ConnectionsOf(ctx, c, key)
	if err != nil {
		return nil, err
	}
	for _, f := range conns.Forges {
		k := types.NamespacedName{Namespace: f.Namespace, Name: f.Name}
		s.same[k] = true
		s.ready[k] = conditions.IsReady(f, f.Generation)
	}
	for _, cf := range conns.Clusters {
		k := types.NamespacedName{Name: cf.Name}
		s.same[k] = true
		s.clusters[cf.Name] = cf
		s.ready[k] = conditions.IsReady(cf, cf.Generation) || WaitsForUsers(cf)
	}
	return s, nil
}

// WaitsForUsers reports whether cf is a connected ClusterForge being
// deleted, which waits (InUse) for its resources: they go on working
// through it, their own deletions included.
func WaitsForUsers(cf *forgev1.ClusterForge) bool {
	reason, _ := conditions.ReadyReason(cf)
	return !cf.DeletionTimestamp.IsZero() && reason == forgev1.ReasonInUse && cf.Status.ServerVersion != ""
}

// Connections are the Forges and ClusterForges of one server.
type Connections struct {
	Forges   []*forgev1.Forge
	Clusters []*forgev1.ClusterForge
}

// ConnectionsOf reads, from the manager's cache c, the Forges and (when
// this manager serves them) ClusterForges pointing at server key. They are
// the cache's own objects (not copied): read them, never change them.
func ConnectionsOf(ctx context.Context, c client.Reader, key string) (Connections, error) {
	var out Connections
	var forges forgev1.ForgeList
	if err := c.List(ctx, &forges, client.UnsafeDisableDeepCopy); err != nil {
		return out, fmt.Errorf("list Forges: %w", err)
	}
	for i := range forges.Items {
		if f := &forges.Items[i]; forge.ServerKey(f.Spec.URL) == key {
			out.Forges = append(out.Forges, f)
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
			out.Clusters = append(out.Clusters, cf)
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
	p, err := PermissionOf(ctx, s.c, cf, other)
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
// A resource its ClusterForge does not permit holds nothing, and neither
// does one the forge refused (Refused).
func (s *Servers) Holds(ctx context.Context, other forgev1.Managed) bool {
	key := ForgeKey(other)
	if !s.same[key] || !s.Permitted(ctx, other) || Refused(other) {
		return false
	}
	st := other.GetManagedStatus()
	if !s.ready[key] {
		return st.ID == 0 && st.ExternalName != ""
	}
	return key == s.own || st.Known() || createPending(st)
}

// createPending reports whether st carries a create-pending mark not yet
// settled: the resource's own create, which the loop marks before it
// (pending.go there), may have made the object.
func createPending(st *forgev1.ManagedStatus) bool {
	return st.CreatePending != "" && st.CreatePending != st.LastHandledCreatePending
}

// HoldsRecorded reports whether other, a resource using the same server,
// holds the forge object its status records (status.id): always, whether
// its connection is Ready or not, unless its ClusterForge does not permit it
// or the forge refused it (Refused).
func (s *Servers) HoldsRecorded(ctx context.Context, other forgev1.Managed) bool {
	return s.same[ForgeKey(other)] && s.Permitted(ctx, other) && !Refused(other)
}

// Refused reports whether the forge refused other's credentials what it
// asked of its object (its Ready condition says Unauthorized: a 401 or
// 403, or a Repository whose token may read its repository but not
// administer it). Such a resource holds nothing, whatever its status
// recorded: a token that can read a public repository does not make a
// tenant's resource keep its fields from the platform or conflict with
// the platform's own resource for it.
func Refused(other forgev1.Managed) bool {
	reason, _ := conditions.ReadyReason(other)
	return reason == forgev1.ReasonUnauthorized
}

// Wins decides, where a resource of one kind yields to another (a
// RepositorySet to a Repository or a Team, a FileSet to a RepositoryFile,
// a RepositoryFile to an older one), whether holder wins a field, a path
// or a team's access, or keeps what is taken back. recorded says whether
// holder's status records having read or written that very object (its
// status.id matched by id, a commit or externalName for that repository):
// under another connection a spec alone holds nothing (DESIGN "Precedence
// and enforcement"); under the yielding resource's own Forge (its
// namespace, its credentials) the spec holds, so that a Label or a rule
// applied with an Authoritative set is not deleted before its first pass
// records it. A connection that is not Ready wins nothing, and neither
// does one its ClusterForge does not permit for the owner or one the forge
// refused (Refused).
func (s *Servers) Wins(ctx context.Context, holder forgev1.Managed, recorded bool) bool {
	return (recorded || s.SameForge(holder)) && s.Sees(holder) && s.Permitted(ctx, holder) && !Refused(holder)
}

// SameForge reports whether holder goes through the very Forge these
// Servers are of: the same namespace and the same credentials (never a
// ClusterForge, which many tenants share).
func (s *Servers) SameForge(holder forgev1.Managed) bool {
	k := ForgeKey(holder)
	return k == s.own && k.Namespace != ""
}

// Awaits decides whether a reference of waiter waits for declarer, a
// resource of the same server that declares the object referenced and is
// on its way (DESIGN "References wait for what the same apply declares"):
// only a declaration that could be honoured makes anything wait, one
// whose connection is Ready, permitted for the owner (a ClusterForge's
// tenants entries; a kind that needs a site administrator only through a
// ClusterForge), and shared with waiter: its namespace, or the same
// ClusterForge. Another tenant's declaration (another namespace, its own
// Forge) makes nothing wait, as a tenant must not hold up the platform's
// resources with a resource that can never become Ready; the reference is
// then as one nothing declares, and the forge's answer decides.
func (s *Servers) Awaits(ctx context.Context, waiter, declarer forgev1.Managed) bool {
	ref := declarer.GetManagedSpec().ForgeRef
	if !s.Sees(declarer) || !s.Permitted(ctx, declarer) || (forgev1.NeedsSiteAdmin(declarer) && !ref.Cluster()) {
		return false
	}
	return declarer.GetNamespace() == waiter.GetNamespace() || (ref.Cluster() && ForgeKey(declarer) == ForgeKey(waiter))
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

// ServerOf is the server key of connection ref (a Forge, or a
// ClusterForge keyed by its name alone), read from c; "" when it cannot be
// read (the pass then counts against its connection and namespace).
func ServerOf(ctx context.Context, c client.Reader, ref types.NamespacedName) string {
	if ref.Namespace == "" {
		if !clusterForgesServed.Load() {
			return ""
		}
		var cf forgev1.ClusterForge
		if err := c.Get(ctx, ref, &cf); err != nil {
			return ""
		}
		return forge.ServerKey(cf.Spec.URL)
	}
	var f forgev1.Forge
	if err := c.Get(ctx, ref, &f); err != nil {
		return ""
	}
	return forge.ServerKey(f.Spec.URL)
}
