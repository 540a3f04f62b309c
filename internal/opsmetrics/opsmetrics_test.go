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

package opsmetrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/opsmetrics"
)

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := forgev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func cond(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: "m", LastTransitionTime: metav1.Now()}
}

// resourcesFixture: two Forges (one Ready), a ClusterForge, a
// RepositorySet of an organization with some failing, yielded and pending
// removals, a LabelSet naming its repositories, a stalled Label and a
// Repository before its first pass.
func resourcesFixture() []client.Object {
	ready := []metav1.Condition{cond(forgev1.ConditionReady, metav1.ConditionTrue, forgev1.ReasonSynced)}
	return []client.Object{
		&forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gitea"},
			Status: forgev1.ForgeStatus{Conditions: ready}},
		&forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "gitea"},
			Status: forgev1.ForgeStatus{Conditions: []metav1.Condition{cond(forgev1.ConditionReady, metav1.ConditionFalse, "Unauthorized")}}},
		&forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "shared"},
			Status: forgev1.ClusterForgeStatus{ForgeStatus: forgev1.ForgeStatus{Conditions: ready}}},
		&forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "policy"},
			Spec: forgev1.RepositorySetSpec{Repositories: forgev1.RepositorySelector{Organization: new(forgev1.OwnerName("acme"))}},
			Status: forgev1.RepositorySetStatus{SetStatus: forgev1.SetStatus{
				Repositories: 25, InSync: 20, Failing: 3,
				Yielded:         &forgev1.SetYields{Count: 2},
				PendingRemovals: &forgev1.PendingRemovals{Count: 4},
				Failures:        []forgev1.SetFailure{{Repository: "acme/web", Reason: "Rejected", Message: "a secret-looking message"}},
			}, ManagedStatus: forgev1.ManagedStatus{Conditions: []metav1.Condition{cond(forgev1.ConditionReady, metav1.ConditionFalse, "Failing")}}}},
		&forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "labels"},
			Spec: forgev1.LabelSetSpec{Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}}},
			Status: forgev1.LabelSetStatus{SetStatus: forgev1.SetStatus{Repositories: 1, InSync: 1},
				ManagedStatus: forgev1.ManagedStatus{Conditions: ready}}},
		&forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "bug"},
			Status: forgev1.LabelStatus{ManagedStatus: forgev1.ManagedStatus{Conditions: []metav1.Condition{
				cond(forgev1.ConditionReady, metav1.ConditionFalse, "Invalid"),
				cond(forgev1.ConditionStalled, metav1.ConditionTrue, "Invalid"),
			}}}},
		&forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}},
	}
}

// TestCollect: every set's counts, the resources by kind and Ready, the
// stalled ones and the connections, from the objects a reader holds.
func TestCollect(t *testing.T) {
	r := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(resourcesFixture()...).Build()
	c := opsmetrics.New()
	c.Read(r, true)
	want := `
# HELP forge_connection_ready 1 while a Forge or ClusterForge is Ready (the resources naming it wait while it is not), else 0; namespace is empty for a ClusterForge.
# TYPE forge_connection_ready gauge
forge_connection_ready{kind="ClusterForge",name="shared",namespace=""} 1
forge_connection_ready{kind="Forge",name="gitea",namespace="team-a"} 1
forge_connection_ready{kind="Forge",name="gitea",namespace="team-b"} 0
# HELP forge_resources Resources of the operator's kinds, by kind and the status (True, False, Unknown) and reason of their Ready condition; Unknown with no reason before the first pass.
# TYPE forge_resources gauge
forge_resources{kind="ClusterForge",ready="True",reason="Synced"} 1
forge_resources{kind="Forge",ready="False",reason="Unauthorized"} 1
forge_resources{kind="Forge",ready="True",reason="Synced"} 1
forge_resources{kind="Label",ready="False",reason="Invalid"} 1
forge_resources{kind="LabelSet",ready="True",reason="Synced"} 1
forge_resources{kind="Repository",ready="Unknown",reason=""} 1
forge_resources{kind="RepositorySet",ready="False",reason="Failing"} 1
# HELP forge_resources_stalled Resources whose Stalled condition is True (they wait for a change of their spec or the forge), by kind and reason.
# TYPE forge_resources_stalled gauge
forge_resources_stalled{kind="Label",reason="Invalid"} 1
# HELP forge_set_pending_removals Removals a set with removals Report planned and did not make (status.pendingRemovals.count).
# TYPE forge_set_pending_removals gauge
forge_set_pending_removals{kind="LabelSet",name="labels",namespace="team-b",organization=""} 0
forge_set_pending_removals{kind="RepositorySet",name="policy",namespace="team-a",organization="acme"} 4
# HELP forge_set_repositories Repositories a set selected in its last pass (status.repositories), archived ones excluded.
# TYPE forge_set_repositories gauge
forge_set_repositories{kind="LabelSet",name="labels",namespace="team-b",organization=""} 1
forge_set_repositories{kind="RepositorySet",name="policy",namespace="team-a",organization="acme"} 25
# HELP forge_set_repositories_failing Repositories a set could not be applied to (status.failing).
# TYPE forge_set_repositories_failing gauge
forge_set_repositories_failing{kind="LabelSet",name="labels",namespace="team-b",organization=""} 0
forge_set_repositories_failing{kind="RepositorySet",name="policy",namespace="team-a",organization="acme"} 3
# HELP forge_set_repositories_in_sync Repositories of a set that match its spec, with no failure and nothing left to another resource (status.inSync).
# TYPE forge_set_repositories_in_sync gauge
forge_set_repositories_in_sync{kind="LabelSet",name="labels",namespace="team-b",organization=""} 1
forge_set_repositories_in_sync{kind="RepositorySet",name="policy",namespace="team-a",organization="acme"} 20
# HELP forge_set_repositories_yielded Repositories where a set leaves some of what it sets to another resource holding it there (status.yielded.count).
# TYPE forge_set_repositories_yielded gauge
forge_set_repositories_yielded{kind="LabelSet",name="labels",namespace="team-b",organization=""} 0
forge_set_repositories_yielded{kind="RepositorySet",name="policy",namespace="team-a",organization="acme"} 2
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	// A namespaced install reads no ClusterForge.
	c.Read(r, false)
	if err := testutil.CollectAndCompare(c, strings.NewReader(`
# HELP forge_connection_ready 1 while a Forge or ClusterForge is Ready (the resources naming it wait while it is not), else 0; namespace is empty for a ClusterForge.
# TYPE forge_connection_ready gauge
forge_connection_ready{kind="Forge",name="gitea",namespace="team-a"} 1
forge_connection_ready{kind="Forge",name="gitea",namespace="team-b"} 0
`), "forge_connection_ready"); err != nil {
		t.Error(err)
	}
}

// TestCollectBeforeRead: nothing before the manager's cache is given.
func TestCollectBeforeRead(t *testing.T) {
	if n := testutil.CollectAndCount(opsmetrics.New()); n != 0 {
		t.Errorf("%d series before Read, want none", n)
	}
}

// TestWhileLeader: the runnable main adds waits for leadership, serves the
// series while it runs, and none once the manager stops.
func TestWhileLeader(t *testing.T) {
	c := opsmetrics.New()
	run := c.WhileLeader(fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(resourcesFixture()...).Build(), true)
	if le, ok := run.(interface{ NeedLeaderElection() bool }); !ok || !le.NeedLeaderElection() {
		t.Fatal("the runnable does not wait for leader election: every replica would serve the series")
	}
	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("%d series before the manager leads, want none", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- run.Start(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for testutil.CollectAndCount(c, "forge_connection_ready") != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("forge_connection_ready: %d series while leading, want 3", testutil.CollectAndCount(c, "forge_connection_ready"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("%d series after the manager stopped, want none", n)
	}
}

// TestEveryKindIsCounted: forge_resources has a series for every kind of
// the API (the 25 of docs/kinds.md), and every set kind has its series.
func TestEveryKindIsCounted(t *testing.T) {
	s := scheme(t)
	var objs []client.Object
	sets := 0
	for name := range s.KnownTypes(forgev1.GroupVersion) {
		if strings.HasSuffix(name, "List") {
			continue
		}
		obj, err := s.New(forgev1.GroupVersion.WithKind(name))
		if err != nil {
			t.Fatal(err)
		}
		o, ok := obj.(client.Object)
		if !ok {
			continue
		}
		if _, ok := obj.(forgev1.ConditionsAccessor); !ok {
			continue
		}
		if _, ok := obj.(interface{ GetSetStatus() *forgev1.SetStatus }); ok {
			sets++
		}
		o.SetName("x")
		if name != "ClusterForge" {
			o.SetNamespace("ns")
		}
		objs = append(objs, o)
	}
	if len(objs) != 25 {
		t.Errorf("%d kinds with conditions, want 25", len(objs))
	}
	c := opsmetrics.New()
	c.Read(fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build(), true)
	if n := testutil.CollectAndCount(c, "forge_resources"); n != len(objs) {
		t.Errorf("forge_resources has %d series, want one per kind (%d)", n, len(objs))
	}
	if n := testutil.CollectAndCount(c, "forge_set_repositories"); n != sets || sets != 4 {
		t.Errorf("forge_set_repositories has %d series of %d set kinds, want 4", n, sets)
	}
}

// TestShardLabel: on a shard's manager the resources' series carry the
// shard, as the other forge_* series do (main hands the collector to
// manager.ShardMetrics).
func TestShardLabel(t *testing.T) {
	c := opsmetrics.New()
	c.Read(fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(resourcesFixture()...).Build(), true)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	served, err := manager.ShardMetrics(reg, "eu-1", c)
	if err != nil {
		t.Fatal(err)
	}
	if err := testutil.GatherAndCompare(served, strings.NewReader(`
# HELP forge_set_repositories_failing Repositories a set could not be applied to (status.failing).
# TYPE forge_set_repositories_failing gauge
forge_set_repositories_failing{kind="LabelSet",name="labels",namespace="team-b",organization="",shard="eu-1"} 0
forge_set_repositories_failing{kind="RepositorySet",name="policy",namespace="team-a",organization="acme",shard="eu-1"} 3
`), "forge_set_repositories_failing"); err != nil {
		t.Error(err)
	}
}
