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
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// teamRefKind is a Label kind whose resources name team acme/dev.
type teamRefKind struct{ fakeKind }

func (teamRefKind) References(*forgev1.Label) []Ref { return []Ref{{Kind: RefTeam, Name: "Acme/Dev"}} }

// A resource waits for a team only while a Team resource of its server
// declares it in a way that could be honoured (its connection Ready and
// permitted, in the waiting resource's namespace or under the same
// ClusterForge) and is on its way; one of another server, another
// tenant's, one settled, or none leaves it to the forge. A Team becoming
// Ready wakes only the resources that would wait for it.
func TestReferencesWaitForDeclarersOfTheSameServer(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	before := claims.SetServeClusterForges(true)
	t.Cleanup(func() { claims.SetServeClusterForges(before) })
	ready := []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 1, Reason: "Created"}}
	forgeOf := func(ns, name, url string) *forgev1.Forge {
		return &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1}, Spec: forgev1.ForgeSpec{URL: url},
			Status: forgev1.ForgeStatus{Conditions: ready}}
	}
	// The platform's ClusterForge serves namespaces default and team-b,
	// acme for both, and team-c without acme.
	platform := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "platform", Generation: 1},
		Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{URL: "https://git.example.com"}, Tenants: []forgev1.ClusterForgeTenant{
			{Namespaces: []string{ns, "team-b"}, Owners: []forgev1.OwnerGlob{"acme"}},
			{Namespaces: []string{"team-c"}, Owners: []forgev1.OwnerGlob{"team-c-*"}}}},
		Status: forgev1.ClusterForgeStatus{ForgeStatus: forgev1.ForgeStatus{Conditions: ready}}}
	onPlatform := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: "platform"}
	team := func(ns, forgeRef string, mutate ...func(*forgev1.Team)) *forgev1.Team {
		tm := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dev-" + forgeRef, Generation: 1, UID: types.UID(ns + forgeRef), CreationTimestamp: t0},
			Spec: forgev1.TeamSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: forgeRef}},
				Organization: "acme", Name: new(forgev1.TeamName("dev"))}}
		for _, m := range mutate {
			m(tm)
		}
		return tm
	}
	viaPlatform := func(tm *forgev1.Team) { tm.Spec.ForgeRef = onPlatform }
	declares := func(o client.Object) []Ref {
		tm, ok := o.(*forgev1.Team)
		if !ok {
			return nil
		}
		return []Ref{{Kind: RefTeam, Name: string(tm.Spec.Organization) + "/" + tm.TeamName()}}
	}
	kind := teamRefKind{fakeKind{}}
	// runFor asks whether waiter waits, among objs and the connections:
	// Forges gitea and other in waiter's namespace default (other points
	// at another server), Forge shared of tenant team-b, Forge down of
	// default (the same server, not Ready), and the ClusterForge.
	runFor := func(waiter *forgev1.Label, objs ...client.Object) (*Reconciler[*forgev1.Label], error) {
		down := forgeOf(ns, "down", "https://git.example.com")
		down.Status.Conditions = nil
		objs = append(objs, forgeOf(ns, "gitea", "https://git.example.com"), forgeOf(ns, "other", "https://other.example.com"),
			forgeOf("team-b", "shared", "https://git.example.com/"), down, platform.DeepCopy(), waiter)
		b := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
			WithIndex(&forgev1.Team{}, indexDeclares, func(o client.Object) []string {
				var out []string
				for _, ref := range declares(o) {
					out = append(out, refValue(ref))
				}
				return out
			})
		for name, fn := range indexers[*forgev1.Label](kind) {
			b = b.WithIndex(&forgev1.Label{}, name, fn)
		}
		b = b.WithIndex(&forgev1.Label{}, indexReferences, func(o client.Object) []string {
			var out []string
			for _, ref := range refsOf[*forgev1.Label](kind, o.(*forgev1.Label)) {
				out = append(out, refValue(ref))
			}
			return out
		})
		r := &Reconciler[*forgev1.Label]{client: b.Build(), kind: kind, kindName: "Label", declarers: &declarers{}}
		r.declarers.add(declaring{kind: "Team", list: func() client.ObjectList { return &forgev1.TeamList{} }, declares: declares})
		return r, r.awaitRefs(context.Background(), waiter, false)
	}
	run := func(objs ...client.Object) (*Reconciler[*forgev1.Label], error) { return runFor(label(), objs...) }
	// A Label of team-b under the platform's ClusterForge.
	tenantLabel := func() *forgev1.Label {
		return label(func(l *forgev1.Label) { l.Namespace, l.Spec.ForgeRef = "team-b", onPlatform })
	}

	if _, err := run(); err != nil {
		t.Errorf("no Team declares acme/dev: %v, want no wait", err)
	}
	if _, err := run(team(ns, "other")); err != nil {
		t.Errorf("a Team of another server: %v, want no wait", err)
	}
	_, err := run(team(ns, "gitea"))
	c, _ := Classify(err)
	if !errors.Is(err, errAwaiting) || c.Reason != forgev1.ReasonTeamNotFound ||
		c.Message != `waiting for Team "Dev" in Acme, declared by Team default/dev-gitea, which is not Ready yet` {
		t.Errorf("a Team of the same Forge on its way: %v (%s), want a TeamNotFound wait naming it", err, c.Reason)
	}
	if _, err := run(team("team-b", "shared")); err != nil {
		t.Errorf("a Team of another tenant (another namespace, its own Forge of the same server): %v, want no wait", err)
	}
	if _, err := run(team(ns, "down")); err != nil {
		t.Errorf("a Team of the same namespace through a Forge that is not Ready: %v, want no wait", err)
	}
	if _, err := run(team(ns, "platform", viaPlatform)); !errors.Is(err, errAwaiting) {
		t.Errorf("a Team of the same namespace under a ClusterForge that permits it: %v, want a wait", err)
	}
	_, err = runFor(tenantLabel(), team(ns, "platform", viaPlatform))
	if c, _ := Classify(err); !errors.Is(err, errAwaiting) ||
		c.Message != `waiting for Team "Dev" in Acme, declared by a Team in another namespace, which is not Ready yet` {
		t.Errorf("a Team of another namespace under the same ClusterForge: %v, want a wait naming no namespace", err)
	}
	if _, err := runFor(tenantLabel(), team(ns, "gitea")); err != nil {
		t.Errorf("a Team of another namespace under its own Forge, for a resource under the ClusterForge: %v, want no wait", err)
	}
	if _, err := runFor(label(func(l *forgev1.Label) { l.Namespace, l.Spec.ForgeRef = "team-c", onPlatform }),
		team("team-c", "platform", viaPlatform)); err != nil {
		t.Errorf("a Team its ClusterForge does not permit for acme: %v, want no wait", err)
	}
	if _, err := run(team(ns, "gitea", func(tm *forgev1.Team) { tm.Status.Conditions = ready })); err != nil {
		t.Errorf("a Ready Team: %v, want no wait", err)
	}
	if _, err := run(team(ns, "gitea", func(tm *forgev1.Team) { tm.Status.ID = 7 }), team(ns, "platform", viaPlatform)); err != nil {
		t.Errorf("a Team that recorded its team on the forge (another on its way): %v, want no wait", err)
	}
	stalled := func(tm *forgev1.Team) {
		tm.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionStalled, Status: metav1.ConditionTrue, ObservedGeneration: 1, Reason: "Rejected"}}
	}
	if _, err := run(team(ns, "gitea", stalled)); err != nil {
		t.Errorf("a stalled Team: %v, want no wait", err)
	}

	// The watch: a Team becoming Ready wakes the not Ready resources that
	// name its team and would wait for it.
	r, _ := run()
	old := team(ns, "gitea")
	now := team(ns, "gitea", func(tm *forgev1.Team) { tm.Status.Conditions = ready })
	if !(declarerSettled{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: now}) {
		t.Error("a Team becoming Ready passes the predicate")
	}
	if (declarerSettled{}).Update(event.UpdateEvent{ObjectOld: now, ObjectNew: now}) {
		t.Error("a Ready Team's other update passes the predicate")
	}
	if !(declarerSettled{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: team(ns, "gitea", stalled)}) {
		t.Error("a Team becoming Stalled (no longer waited for) passes the predicate")
	}
	if (declarerSettled{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: team(ns, "gitea", func(tm *forgev1.Team) { tm.Status.ID = 7 })}) {
		t.Error("a Team recording its id before it is Ready passes the predicate (its Ready wakes the waiting resources)")
	}
	var got []string
	for _, req := range r.forDeclarer(context.Background(), now) {
		got = append(got, req.Name)
	}
	if !slices.Equal(got, []string{"bug"}) {
		t.Errorf("the Team becoming Ready wakes %v, want [bug]", got)
	}
	if reqs := r.forDeclarer(context.Background(), team(ns, "other")); len(reqs) != 0 {
		t.Errorf("a Team of another server wakes %v, want none", reqs)
	}
	if reqs := r.forDeclarer(context.Background(), team("team-b", "shared", func(tm *forgev1.Team) { tm.Status.Conditions = ready })); len(reqs) != 0 {
		t.Errorf("another tenant's Team becoming Ready wakes %v, want none", reqs)
	}
}
