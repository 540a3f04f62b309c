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
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// yieldingForge lists one organization's repositories and gives way on
// the label listing of "api", as Snapshots do for a background check while
// the forge is busy.
type yieldingForge struct {
	forge.Interface
}

func (yieldingForge) ListOrgRepos(context.Context, string) ([]forge.Repository, error) {
	return []forge.Repository{{ID: 1, Name: "api"}, {ID: 2, Name: "web"}}, nil
}

func (yieldingForge) ListLabels(_ context.Context, sc forge.Scope) ([]forge.Label, error) {
	if sc.Repo == "api" {
		return nil, forge.ErrYield
	}
	return []forge.Label{{ID: 1, Name: "bug", Color: "ff0000"}}, nil
}

// labelClaimsCache is a cache of the resources a LabelSet's claims list
// (Labels and LabelSets by Forge), empty.
func labelClaimsCache(t *testing.T) client.Reader {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	forgeRef := func(o client.Object) []string { return []string{o.(forgev1.Managed).GetManagedSpec().ForgeRef.Name} }
	return fake.NewClientBuilder().WithScheme(scheme).
		WithIndex(&forgev1.Label{}, claims.IndexForgeRef, forgeRef).
		WithIndex(&forgev1.LabelSet{}, claims.IndexForgeRef, forgeRef).Build()
}

// TestLabelSetGivesWayWhole: a repository's read that gives way is no
// member failure (no ForgeError, no Warning): the pass gives way whole.
func TestLabelSetGivesWayWhole(t *testing.T) {
	cache := labelClaimsCache(t)
	org := forgev1.OwnerName("acme")
	s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "std"},
		Spec: forgev1.LabelSetSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
			Repositories: forgev1.RepositorySelector{Organization: &org},
			Labels:       []forgev1.LabelSetLabel{{Name: "bug", Color: "#ff0000"}}}}
	pass := &reconciler.Pass{Forge: yieldingForge{}, Cache: cache}
	e := &labelSet{obj: s, Set: sets.New(s, s.Spec.Repositories, pass, nil, "label", "labels")}
	_, err := e.Sync(context.Background(), true)
	if !errors.Is(err, forge.ErrYield) {
		t.Fatalf("Sync = %v, want the pass to give way", err)
	}
	if len(s.Status.Failures) != 0 {
		t.Fatalf("failures recorded for a pass that gave way: %+v", s.Status.Failures)
	}
	if c, ok := reconciler.Classify(err); !ok || !c.Yield || c.Reason != "" {
		t.Fatalf("giving way classified as %+v (known %v), want a yield with no failure reason", c, ok)
	}
}

// TestLabelSetClaimsNeedASeeingConnection: a Label or LabelSet claims
// only with its status's record (a Label's id, a set's status.matched)
// through a Ready connection: a resource whose connection is not Ready (a
// token that does not work) claims nothing, recorded or not, and neither
// does one with a spec alone under a Ready connection; a recorded Label
// claims its id and its name, a recorded set its names.
func TestLabelSetClaimsNeedASeeingConnection(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	forgeRef := func(o client.Object) []string { return []string{o.(forgev1.Managed).GetManagedSpec().ForgeRef.Key()} }
	ready := func(ok bool) forgev1.ForgeStatus {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		return forgev1.ForgeStatus{Conditions: []metav1.Condition{{Type: forgev1.ConditionReady, Status: s, Reason: "Test", ObservedGeneration: 1}}}
	}
	conn := func(ns string, ok bool) *forgev1.Forge {
		return &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gitea", Generation: 1},
			Spec: forgev1.ForgeSpec{URL: "https://git.example.com"}, Status: ready(ok)}
	}
	repoName := forgev1.RepositoryName("acme/web")
	lbl := func(ns, name string, id int64) *forgev1.Label {
		return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: &repoName, Name: name, Color: "#ff0000"},
			Status: forgev1.LabelStatus{ManagedStatus: forgev1.ManagedStatus{ID: id}}}
	}
	set := func(ns, name string, recorded bool) *forgev1.LabelSet {
		s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name)},
			Spec: forgev1.LabelSetSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{repoName}},
				Labels:       []forgev1.LabelSetLabel{{Name: forgev1.LabelName(name + "-" + ns), Color: "#ff0000"}}}}
		if recorded {
			s.Status.Matched = &forgev1.MatchedRepositories{Count: 1, IDs: "7"}
		}
		return s
	}
	cache := fake.NewClientBuilder().WithScheme(scheme).
		WithIndex(&forgev1.Label{}, claims.IndexForgeRef, forgeRef).
		WithIndex(&forgev1.LabelSet{}, claims.IndexForgeRef, forgeRef).
		WithObjects(conn("team", true), conn("blind", false), conn("seeing", true),
			lbl("blind", "unseen", 0), lbl("blind", "recorded", 7), set("blind", "std", true),
			lbl("seeing", "seen", 0), lbl("seeing", "held", 9), set("seeing", "std", false), set("seeing", "rec", true)).Build()
	own := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "mine", UID: "team/mine"},
		Spec: forgev1.LabelSetSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}}}
	e := &labelSet{obj: own, Set: sets.Set{Cache: cache}}
	claims, err := e.claims(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The claims name holders of other namespaces only by kind (what a
	// tenant may learn of another), so they are told apart by what they hold.
	var got []string
	for _, c := range claims {
		var names []string
		for n := range c.names {
			names = append(names, n)
		}
		slices.Sort(names)
		got = append(got, fmt.Sprintf("%s: names %v id %d", c.who, names, c.id))
	}
	slices.Sort(got)
	want := []string{
		"a Label in another namespace: names [held] id 9",
		"a LabelSet in another namespace: names [rec-seeing] id 0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}
