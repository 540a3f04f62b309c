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

package controllers

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// holdPair is one (yielding kind, holding kind) pair of the registry.
type holdPair struct{ yielding, holding string }

// holdRows are the records by which a holder of each pair holds: what its
// status says it read or wrote (the caller then matches that very object:
// the repository's or the label's id, the branch, the repositories a set
// recorded). Every pair the registry declares (registered.yieldsTo) has a
// row, and every row is a declared pair.
var holdRows = map[holdPair]func(forgev1.Managed){
	{"Repository", "RepositorySet"}:                recordMatched,
	{"RepositoryFile", "FileSet"}:                  recordMatched,
	{"RepositorySet", "Repository"}:                recordID,
	{"RepositorySet", "Team"}:                      recordID,
	{"RepositorySet", "RepositorySet"}:             recordMatched,
	{"FileSet", "RepositoryFile"}:                  recordName,
	{"FileSet", "FileSet"}:                         recordMatched,
	{"RepositoryFile", "RepositoryFile"}:           recordName,
	{"LabelSet", "Label"}:                          recordID,
	{"LabelSet", "LabelSet"}:                       recordMatched,
	{"BranchProtectionSet", "BranchProtection"}:    recordName,
	{"BranchProtectionSet", "BranchProtectionSet"}: recordMatched,
}

func recordID(m forgev1.Managed)   { m.GetManagedStatus().ID = 7 }
func recordName(m forgev1.Managed) { m.GetManagedStatus().ExternalName = "main" }
func recordMatched(m forgev1.Managed) {
	m.(interface{ GetSetStatus() *forgev1.SetStatus }).GetSetStatus().Matched = &forgev1.MatchedRepositories{Count: 1, IDs: "7"}
}

// TestEveryYieldHoldsFromRecords: for every pair of kinds where one yields
// to the other, the holder (a tenant's, in another namespace, through a
// connection of the same server) holds nothing with a spec and no record
// (under the yielding resource's own Forge its spec holds),
// nothing through a connection that is not Ready or that its ClusterForge
// does not permit, nothing while being deleted, and holds with a record
// through a Ready connection. A pair the registry declares without a row
// here fails, and so does a row no kind declares.
func TestEveryYieldHoldsFromRecords(t *testing.T) {
	ctx := context.Background()
	c := holdsCache(t)
	objects := map[string]func() client.Object{}
	declared := map[holdPair]bool{}
	for _, k := range registry(nil, nil) {
		objects[k.kind] = k.object
		for _, h := range k.yieldsTo {
			declared[holdPair{k.kind, h}] = true
		}
	}
	for p := range holdRows {
		if !declared[p] {
			t.Errorf("%s yielding to %s has a row, but the registry does not declare the pair", p.yielding, p.holding)
		}
	}
	pairs := slices.SortedFunc(func(yield func(holdPair) bool) {
		for p := range declared {
			if !yield(p) {
				return
			}
		}
	}, func(a, b holdPair) int {
		if a.yielding != b.yielding {
			return cmp.Compare(a.yielding, b.yielding)
		}
		return cmp.Compare(a.holding, b.holding)
	})
	for _, p := range pairs {
		record, ok := holdRows[p]
		if !ok {
			t.Errorf("the registry declares that %s yields to %s, but TestEveryYieldHoldsFromRecords has no row for the pair", p.yielding, p.holding)
			continue
		}
		yielding := objects[p.yielding]().(forgev1.Managed)
		yielding.SetNamespace("platform")
		yielding.SetName("policy")
		yielding.GetManagedSpec().ForgeRef = forgev1.ForgeReference{Name: "gitea"}
		servers, err := claims.ServersOf(ctx, c, yielding)
		if err != nil {
			t.Fatal(err)
		}
		holder := func(ref forgev1.ForgeReference, recorded, deleting bool, edit ...func(forgev1.Managed)) forgev1.Managed {
			h := objects[p.holding]().(forgev1.Managed)
			h.SetNamespace("tenant")
			h.SetName("web")
			h.GetManagedSpec().ForgeRef = ref
			if recorded {
				record(h)
			}
			if deleting {
				now := metav1.Now()
				h.SetDeletionTimestamp(&now)
			}
			for _, e := range edit {
				e(h)
			}
			return h
		}
		ownForge := func(h forgev1.Managed) { h.SetNamespace("platform") }
		observes := func(h forgev1.Managed) { h.GetManagedSpec().ManagementPolicy = forgev1.ManagementPolicyObserve }
		refusedByForge := func(h forgev1.Managed) {
			h.SetGeneration(2)
			h.SetConditions([]metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: 2,
				Reason: forgev1.ReasonUnauthorized, Message: "the forge answered 403"}})
		}
		ready := forgev1.ForgeReference{Name: "gitea"}
		down := forgev1.ForgeReference{Name: "down"}
		refused := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: "shared"}
		cases := []struct {
			why                string
			ref                forgev1.ForgeReference
			recorded, deleting bool
			want               bool
			edit               []func(forgev1.Managed)
		}{
			{"a spec under the yielding resource's own Forge (its namespace, its credentials) holds", ready, false, false, true, []func(forgev1.Managed){ownForge}},
			{"a holder of the yielding resource's own Forge that only observes holds", ready, false, false, true, []func(forgev1.Managed){ownForge, observes}},
			{"a record of a holder that only observes holds nothing", ready, true, false, false, []func(forgev1.Managed){observes}},
			{"a record of a holder the forge refused (a read-only token) holds nothing", ready, true, false, false, []func(forgev1.Managed){refusedByForge}},
			{"a spec with no record holds nothing", ready, false, false, false, nil},
			{"a record through a Ready connection holds", ready, true, false, true, nil},
			{"a connection that is not Ready holds nothing, even with a record", down, true, false, false, nil},
			{"a spec under a connection that is not Ready holds nothing", down, false, false, false, nil},
			{"a record through a ClusterForge that does not permit the namespace holds nothing", refused, true, false, false, nil},
			{"a holder being deleted holds nothing", ready, true, true, false, nil},
		}
		for _, tc := range cases {
			if got := servers.HoldsOver(ctx, holder(tc.ref, tc.recorded, tc.deleting, tc.edit...)); got != tc.want {
				t.Errorf("%s yielding to %s: %s: HoldsOver = %t, want %t", p.yielding, p.holding, tc.why, got, tc.want)
			}
		}
	}
}

// holdsCache is a cache of one server's connections: the platform's Forge
// and a tenant's, both Ready; a tenant's Forge that is not; and a
// ClusterForge whose tenants entry selects another namespace only.
func holdsCache(t *testing.T) client.Reader {
	t.Helper()
	before := claims.SetServeClusterForges(true)
	t.Cleanup(func() { claims.SetServeClusterForges(before) })
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	const url = "https://git.example.com"
	readyAt := func(c forgev1.ConditionsAccessor) {
		c.SetConditions([]metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 1,
			Reason: "Connected", LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}})
	}
	forgeAt := func(ns, name string, ready bool) *forgev1.Forge {
		f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1}, Spec: forgev1.ForgeSpec{URL: url}}
		if ready {
			readyAt(f)
		}
		return f
	}
	cf := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "shared", Generation: 1},
		Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{URL: url},
			Tenants: []forgev1.ClusterForgeTenant{{Namespaces: []string{"someone-else"}, Owners: []forgev1.OwnerGlob{"*"}}}}}
	readyAt(cf)
	return fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(forgeAt("platform", "gitea", true), forgeAt("tenant", "gitea", true), forgeAt("tenant", "down", false), cf).Build()
}
