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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// TestOlder: of two holders of one forge object exactly one is older.
func TestOlder(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Second))
	obj := func(name string, ts metav1.Time) *forgev1.Label {
		return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: ts}}
	}
	tests := []struct {
		a, b *forgev1.Label
		want bool
	}{
		{obj("z", t0), obj("a", t1), true},
		{obj("a", t1), obj("z", t0), false},
		// Created in the same second: the name decides, so exactly one of two is older.
		{obj("a", t0), obj("b", t0), true},
		{obj("b", t0), obj("a", t0), false},
	}
	for _, tt := range tests {
		if got := Older(tt.a, tt.b); got != tt.want {
			t.Errorf("older(%s@%s, %s@%s) = %t, want %t", tt.a.Name, tt.a.CreationTimestamp, tt.b.Name, tt.b.CreationTimestamp, got, tt.want)
		}
	}
}

// TestWins: a holder wins only with a record of the object, through a
// connection of the same server that is Ready; under another connection a
// spec alone holds nothing, under the yielding resource's own Forge it does.
func TestWins(t *testing.T) {
	ready := types.NamespacedName{Namespace: "platform", Name: "gitea"}
	notReady := types.NamespacedName{Namespace: "tenant", Name: "gitea"}
	elsewhere := types.NamespacedName{Namespace: "other", Name: "gitea"}
	tenant := types.NamespacedName{Namespace: "tenant", Name: "own"}
	s := &Servers{own: ready, same: map[types.NamespacedName]bool{ready: true, notReady: true, tenant: true},
		ready: map[types.NamespacedName]bool{ready: true, notReady: false, tenant: true}}
	holder := func(at types.NamespacedName, ready string) *forgev1.Repository {
		r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: at.Namespace, Name: "web"}}
		r.Spec.ForgeRef.Name = at.Name
		if ready != "" {
			r.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse, Reason: ready}}
		}
		return r
	}
	tests := []struct {
		reason   string
		at       types.NamespacedName
		recorded bool
		// ready is the holder's own Ready reason, "" for none yet.
		ready string
		want  bool
	}{
		{"a record through a Ready connection wins", ready, true, "", true},
		{"a spec with no record under another Ready connection holds nothing", tenant, false, "", false},
		{"a record under another Ready connection wins", tenant, true, "", true},
		{"a spec under the yielding resource's own Forge holds (its namespace, its credentials)", ready, false, "", true},
		{"a connection that is not Ready wins nothing, record or not", notReady, true, "", false},
		{"a spec under a connection that is not Ready holds nothing", notReady, false, "", false},
		{"a connection of another server holds nothing", elsewhere, true, "", false},
		{"a record the forge refused to act on (a token that reads but may not administer) holds nothing", ready, true, forgev1.ReasonUnauthorized, false},
		{"a record whose last pass failed otherwise still wins", ready, true, forgev1.ReasonRejected, true},
	}
	for _, tt := range tests {
		if got := s.Wins(context.Background(), holder(tt.at, tt.ready), tt.recorded); got != tt.want {
			t.Errorf("%s: Wins = %t, want %t", tt.reason, got, tt.want)
		}
	}
}

// TestAwaits: a reference waits only for a declaration that could be
// honoured: through a Ready connection permitted for the owner, in the
// waiting resource's namespace or under its ClusterForge. Another
// tenant's declaration makes nothing wait.
func TestAwaits(t *testing.T) {
	platform := types.NamespacedName{Namespace: "platform", Name: "gitea"}
	other := types.NamespacedName{Namespace: "platform", Name: "admin"}
	down := types.NamespacedName{Namespace: "platform", Name: "down"}
	tenant := types.NamespacedName{Namespace: "tenant", Name: "gitea"}
	shared := types.NamespacedName{Name: "shared"}
	cf := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "shared"}, Spec: forgev1.ClusterForgeSpec{Tenants: []forgev1.ClusterForgeTenant{
		{Namespaces: []string{"platform", "tenant"}, Owners: []forgev1.OwnerGlob{"acme"}},
		{Namespaces: []string{"team-c"}, Owners: []forgev1.OwnerGlob{"team-c-*"}}}}}
	s := &Servers{own: platform, same: map[types.NamespacedName]bool{platform: true, other: true, down: true, tenant: true, shared: true},
		ready:    map[types.NamespacedName]bool{platform: true, other: true, tenant: true, shared: true},
		clusters: map[string]*forgev1.ClusterForge{"shared": cf}, c: fakeclient.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()}
	at := func(ns string, conn types.NamespacedName) *forgev1.Team {
		tm := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "developers"}}
		tm.Spec.Organization = "acme"
		tm.Spec.ForgeRef.Name = conn.Name
		if conn.Namespace == "" {
			tm.Spec.ForgeRef.Kind = forgev1.ClusterForgeKind
		}
		return tm
	}
	tests := []struct {
		reason           string
		waiter, declarer *forgev1.Team
		want             bool
	}{
		{"the same namespace and Forge", at("platform", platform), at("platform", platform), true},
		{"the same namespace, another Forge of the server", at("platform", platform), at("platform", other), true},
		{"the same namespace, a Forge that is not Ready", at("platform", platform), at("platform", down), false},
		{"another tenant: another namespace, its own Forge", at("platform", platform), at("tenant", tenant), false},
		{"another namespace under the same ClusterForge, permitted", at("platform", shared), at("tenant", shared), true},
		{"another namespace under the ClusterForge, the waiter under its own Forge", at("platform", platform), at("tenant", shared), false},
		{"another namespace under its own Forge, the waiter under the ClusterForge", at("platform", shared), at("tenant", tenant), false},
		{"under the same ClusterForge, not permitted for the owner", at("platform", shared), at("team-c", shared), false},
	}
	for _, tt := range tests {
		if got := s.Awaits(context.Background(), tt.waiter, tt.declarer); got != tt.want {
			t.Errorf("%s: Awaits = %t, want %t", tt.reason, got, tt.want)
		}
	}
}

// TestRefusedHoldsNothing: a resource whose last pass the forge refused
// (Ready reason Unauthorized) holds neither its natural key nor the id its
// status recorded, so it blocks no other resource of the server.
func TestRefusedHoldsNothing(t *testing.T) {
	at := types.NamespacedName{Namespace: "tenant", Name: "gitea"}
	s := &Servers{own: at, same: map[types.NamespacedName]bool{at: true}, ready: map[types.NamespacedName]bool{at: true}}
	for _, reason := range []string{forgev1.ReasonSynced, forgev1.ReasonUnauthorized} {
		r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: at.Namespace, Name: "web"}}
		r.Spec.ForgeRef.Name = at.Name
		r.Status.ID = 7
		r.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason}}
		want := reason != forgev1.ReasonUnauthorized
		if got := s.Holds(context.Background(), r); got != want {
			t.Errorf("Ready reason %s: Holds = %t, want %t", reason, got, want)
		}
		if got := s.HoldsRecorded(context.Background(), r); got != want {
			t.Errorf("Ready reason %s: HoldsRecorded = %t, want %t", reason, got, want)
		}
	}
}
