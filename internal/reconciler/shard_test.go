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
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// shardForge is a Forge of server url created at created, labelled with
// shard unless it is "".
func shardForge(namespace, name, url, shard string, created metav1.Time) *forgev1.Forge {
	f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: created},
		Spec: forgev1.ForgeSpec{URL: url}}
	if shard != "" {
		f.Labels = map[string]string{forgev1.ShardLabel: shard}
	}
	return f
}

// TestShardOf: a server's shard is its oldest connection's label; the
// other connections' labels, and other servers' connections, do not count.
func TestShardOf(t *testing.T) {
	t2 := metav1.NewTime(t1.Add(time.Minute))
	const a, b = "https://a.example.com", "https://b.example.com"
	for name, tc := range map[string]struct {
		objs          []client.Object
		shard, decide string
	}{
		"no connection": {
			objs: []client.Object{shardForge("team", "b", b, "eu-1", t0)},
		},
		"the oldest decides": {
			objs: []client.Object{shardForge("team", "new", a, "", t2), shardForge("other", "old", a+"/", "eu-1", t1),
				shardForge("team", "b", b, "us-1", t0)},
			shard: "eu-1", decide: "Forge other/old",
		},
		"an unlabelled oldest keeps the server on the default manager": {
			objs:   []client.Object{shardForge("team", "new", a, "eu-1", t2), shardForge("team", "old", a, "", t1)},
			decide: "Forge team/old",
		},
		"created together: namespace then name": {
			objs:  []client.Object{shardForge("team-b", "x", a, "us-1", t1), shardForge("team-a", "z", a, "eu-1", t1), shardForge("team-b", "a", a, "", t1)},
			shard: "eu-1", decide: "Forge team-a/z",
		},
	} {
		t.Run(name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := forgev1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tc.objs...).Build()
			shard, decider, err := ShardOf(context.Background(), c, forge.ServerKey(a))
			if err != nil || shard != tc.shard || decider != tc.decide {
				t.Errorf("ShardOf = %q, %q, %v; want %q, %q", shard, decider, err, tc.shard, tc.decide)
			}
		})
	}
}

// TestPassOfAnotherShard: a manager passes only over the resources of the
// servers its shard is to have and holds (the Lease); a resource of a
// server it hands over or awaits, Ready or being deleted, is left exactly
// as it was: no forge call, no status, label or finalizer write.
func TestPassOfAnotherShard(t *testing.T) {
	both := []string{"", "eu-1"}
	older := shardForge("team", "older", forgeSpec.URL, "eu-1", t0)
	olderDefault := shardForge("team", "older", forgeSpec.URL, "", t0)
	ready := `True Created: created`
	for name, tc := range map[string]struct {
		env    passEnv
		obj    *forgev1.Label
		others []client.Object
		served bool
	}{
		"default manager, its server moving to eu-1": {env: passEnv{forgeShard: "eu-1", managers: both}, obj: label(readyAt(7))},
		"default manager, deleting, its server moving": {env: passEnv{forgeShard: "eu-1", managers: both},
			obj: label(readyAt(7), deleting(forgev1.DeletionPolicyDelete))},
		"default manager, its server labelled for a shard with no manager": {env: passEnv{forgeShard: "eu-2", managers: both},
			obj: label(readyAt(7)), served: true},
		"default manager, its server labelled for a shard whose manager stopped": {env: passEnv{forgeShard: "eu-1", managers: []string{""}, stopped: []string{"eu-1"}},
			obj: label(readyAt(7)), served: true},
		"shard manager, awaiting its server":      {env: passEnv{shard: "eu-1", forgeShard: "eu-1"}, obj: label(readyAt(7))},
		"shard manager, awaiting it from another": {env: passEnv{shard: "eu-1", forgeShard: "eu-1", holder: "us-1"}, obj: label(readyAt(7))},
		"shard manager, handing its server back":  {env: passEnv{shard: "eu-1", holder: "eu-1", managers: both}, obj: label(readyAt(7))},
		"shard manager, its server held":          {env: passEnv{shard: "eu-1", forgeShard: "eu-1", holder: "eu-1"}, obj: label(readyAt(7)), served: true},
		"default manager, unlabelled":             {env: passEnv{}, obj: label(readyAt(7)), served: true},
		"an older Forge of the server labelled decides": {env: passEnv{shard: "eu-1", forgeCreated: t1, holder: "eu-1"},
			obj: label(readyAt(7)), others: []client.Object{older}, served: true},
		"an older unlabelled Forge of the server decides": {env: passEnv{shard: "eu-1", forgeShard: "eu-1", forgeCreated: t1, holder: "eu-1", managers: both},
			obj: label(readyAt(7)), others: []client.Object{olderDefault}},
	} {
		t.Run(name, func(t *testing.T) {
			ext := &fakeExternal{observe: Observation{Exists: true, ID: 7}}
			got, writes := runPassIn(t, tc.env, fakeKind{ext: ext}, func() []string { return ext.calls },
				append([]client.Object{tc.obj}, tc.others...)...)
			switch {
			case tc.served && len(got.Calls) == 0:
				t.Errorf("its shard's resource was not passed over: %+v", got)
			case !tc.served && (len(got.Calls) != 0 || len(writes) != 0 || got.Ready != ready || !got.Finalizer || len(got.Events) != 0):
				t.Errorf("another shard's resource: calls %v, writes %v, Ready %q, finalizer %t, Events %v; want none, none, %q, kept, none",
					got.Calls, writes, got.Ready, got.Finalizer, got.Events, ready)
			}
		})
	}
}

// TestStrayResourcesAreRelabelled: a resource in the cache of a manager
// that neither holds nor is to have its server (a new resource of a
// sharded server in the default manager's cache, or one a move left
// behind) is relabelled for its server's shard with one metadata patch,
// and nothing else; one of the manager's own server keeps its label.
func TestStrayResourcesAreRelabelled(t *testing.T) {
	inShard := func(shard string) func(*forgev1.Label) {
		return func(l *forgev1.Label) { l.Labels = map[string]string{forgev1.ShardLabel: shard} }
	}
	for name, tc := range map[string]struct {
		env            passEnv
		obj            *forgev1.Label
		shard          string
		writes, served bool
	}{
		"new, of a sharded server":                {env: passEnv{forgeShard: "eu-1", holder: "eu-1"}, obj: label(), shard: "eu-1", writes: true},
		"waiting for its Forge, of a sharded one": {env: passEnv{forgeShard: "eu-1", holder: "eu-1"}, obj: label(waited), shard: "eu-1", writes: true},
		"served here before its server moved":     {env: passEnv{forgeShard: "eu-1", holder: "eu-1"}, obj: label(readyAt(7)), shard: "eu-1", writes: true},
		"of a server moving between two others":   {env: passEnv{forgeShard: "eu-1", holder: "us-1"}, obj: label(known), shard: "eu-1", writes: true},
		"in a shard, of another shard's server": {env: passEnv{shard: "us-1", forgeShard: "eu-1", holder: "eu-1"},
			obj: label(readyAt(7), inShard("us-1")), shard: "eu-1", writes: true},
		"in a shard, of the default shard's server": {env: passEnv{shard: "us-1"}, obj: label(readyAt(7), inShard("us-1")), writes: true},
		"new, of the default shard's server":        {env: passEnv{}, obj: label(), writes: true, served: true},
	} {
		t.Run(name, func(t *testing.T) {
			before := ""
			if c := meta.FindStatusCondition(tc.obj.Status.Conditions, forgev1.ConditionReady); c != nil {
				before = fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
			}
			finalizer := len(tc.obj.Finalizers) > 0
			ext := &fakeExternal{created: Observation{Exists: true, ID: 7}}
			got, writes := runPassIn(t, tc.env, fakeKind{ext: ext}, func() []string { return ext.calls }, tc.obj)
			if got.Shard != tc.shard || (len(writes) > 0) != tc.writes || (len(got.Calls) > 0) != tc.served {
				t.Errorf("shard label %q, writes %v, forge calls %v; want label %q, writes %t, calls %t", got.Shard, writes, got.Calls, tc.shard, tc.writes, tc.served)
			}
			if !tc.served && (!slices.Equal(writes, []string{"metadata"}) || got.Ready != before || got.Finalizer != finalizer) {
				t.Errorf("handed to its shard with writes %v, Ready %q, finalizer %t; want one metadata patch and nothing else (Ready %q)",
					writes, got.Ready, got.Finalizer, before)
			}
		})
	}
}

// waited is a Label whose pass found no Forge yet: a status, nothing more.
func waited(l *forgev1.Label) {
	l.Status.ObservedGeneration = l.Generation
	l.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: forgev1.ReasonForgeNotReady, Message: `Forge "gitea" not found`, ObservedGeneration: l.Generation, LastTransitionTime: t0}}
}

// known is a Label whose read-only pass recorded the forge object it found.
func known(l *forgev1.Label) {
	waited(l)
	l.Status.ID = 7
}

// TestLeaderElectionID: each shard elects its leader on a Lease of its own.
func TestLeaderElectionID(t *testing.T) {
	if got := LeaderElectionID(""); got != "forge-operator.forge.forgeops.dev" {
		t.Errorf("default manager's lease %q: must stay the one installations already hold", got)
	}
	if got := LeaderElectionID("eu-1"); got != "forge-operator.forge.forgeops.dev-eu-1" {
		t.Errorf("shard eu-1's lease %q", got)
	}
}

// TestDecideAlone: a default manager that reads no Leases (nil Shards)
// serves every server, saying so of one labelled for a shard, which it
// knows of no manager of.
func TestDecideAlone(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	const a = "https://a.example.com"
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(shardForge("team", "gitea", a, "eu-1", t0)).Build()
	d, err := (*Shards)(nil).Decide(context.Background(), c, forge.ServerKey(a))
	if err != nil || d.State != Serve || !d.Unstarted || d.Desired != "eu-1" || d.Holder != "" {
		t.Errorf("Decide = %+v, %v; want served, its shard eu-1 without a manager, held by the default manager", d, err)
	}
	if n := (*Shards)(nil).Note(d, "team"); !strings.Contains(n, "shard eu-1 (Forge team/gitea), which has no manager") {
		t.Errorf("Note = %q, want it to say that shard eu-1 has no manager", n)
	}
}

// electionLease is shard's leader-election Lease in the passes' operator
// namespace: held and renewed now when running, else last renewed an hour
// ago (a shard retired, or whose manager died).
func electionLease(shard string, running bool) *coordinationv1.Lease {
	renewed := metav1.NewMicroTime(time.Now())
	if !running {
		renewed = metav1.NewMicroTime(time.Now().Add(-time.Hour))
	}
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leasesNS, Name: LeaderElectionID(shard)},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: new("pod"), RenewTime: &renewed, LeaseDurationSeconds: new(int32(15))}}
}

// serverLease records that holder serves server url.
func serverLease(url, holder string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leasesNS, Name: ServerLeaseName(forge.ServerKey(url))},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
}

// shardClusterForge is a ClusterForge of server url created at created,
// labelled with shard unless it is "".
func shardClusterForge(name, url, shard string, created metav1.Time) *forgev1.ClusterForge {
	cf := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: created},
		Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{URL: url}}}
	if shard != "" {
		cf.Labels = map[string]string{forgev1.ShardLabel: shard}
	}
	return cf
}

// TestDecideShards is the decision table of the shards: which connection
// decides a server's shard (its oldest ClusterForge, tenants' Forges only
// for a server no ClusterForge points at), and what a manager does with
// it: a server is handed over only to a shard whose manager runs (its
// leader-election Lease held and renewed); otherwise its holder keeps
// serving it, says so in its connections' Ready message, and takes the
// new resources of the server a stray would have sent to nobody.
func TestDecideShards(t *testing.T) {
	served := claims.SetServeClusterForges(true)
	t.Cleanup(func() { claims.SetServeClusterForges(served) })
	t2 := metav1.NewTime(t1.Add(time.Minute))
	const a, b = "https://a.example.com", "https://b.example.com"
	tenantOld := shardForge("team-a", "gitea", a, "eu-1", t0)
	for name, tc := range map[string]struct {
		shard string // the manager's
		objs  []client.Object
		want  Decision
		// note is what a served Forge of team-a says ("" nothing).
		note string
	}{
		"a ClusterForge's label wins over an older tenant Forge's": {
			objs: []client.Object{tenantOld, shardClusterForge("platform", a, "", t1),
				electionLease("", true), electionLease("eu-1", true)},
			want: Decision{State: Serve, Decider: "ClusterForge platform"},
		},
		"a tenant's label does not move the platform's server to a running shard": {
			shard: "eu-1",
			objs: []client.Object{tenantOld, shardClusterForge("platform", a, "", t1),
				electionLease("", true), electionLease("eu-1", true)},
			want: Decision{State: Stray, Decider: "ClusterForge platform", StrayTo: ""},
		},
		"the oldest ClusterForge decides": {
			objs: []client.Object{shardClusterForge("newer", a, "", t2), shardClusterForge("older", a+"/", "eu-1", t1), tenantOld,
				shardClusterForge("elsewhere", b, "us-1", t0), electionLease("", true), electionLease("eu-1", true)},
			want: Decision{State: HandOver, Desired: "eu-1", Decider: "ClusterForge older"},
		},
		"a tenant Forge's label decides a server no ClusterForge points at": {
			objs: []client.Object{shardForge("team-b", "gitea", a, "", t1), tenantOld, shardClusterForge("platform", b, "", t0),
				electionLease("", true), electionLease("eu-1", true)},
			want: Decision{State: HandOver, Desired: "eu-1", Decider: "Forge team-a/gitea"},
		},
		"a move to a shard with no leader-election Lease keeps the holder serving": {
			objs: []client.Object{tenantOld, electionLease("", true)},
			want: Decision{State: Serve, Desired: "eu-1", Decider: "Forge team-a/gitea", Unstarted: true},
			note: "its server's shard is shard eu-1 (Forge team-a/gitea), which has no manager (no leader-election Lease " +
				leasesNS + "/forge-operator.forge.forgeops.dev-eu-1): the default shard (no label) keeps serving it until one runs",
		},
		"a move to a shard whose manager does not renew its Lease keeps the holder serving": {
			objs: []client.Object{tenantOld, electionLease("", true), electionLease("eu-1", false)},
			want: Decision{State: Serve, Desired: "eu-1", Decider: "Forge team-a/gitea", Unstarted: true, Stopped: true},
			note: "its server's shard is shard eu-1 (Forge team-a/gitea), whose manager does not run (its leader-election Lease " +
				leasesNS + "/forge-operator.forge.forgeops.dev-eu-1 is not held and renewed): the default shard (no label) keeps serving it until one runs",
		},
		"a move of the platform's server to a retired shard keeps the holder serving": {
			shard: "us-1",
			objs: []client.Object{shardClusterForge("platform", a, "eu-1", t1), serverLease(a, "us-1"),
				electionLease("us-1", true), electionLease("eu-1", false)},
			want: Decision{State: Serve, Desired: "eu-1", Holder: "us-1", Decider: "ClusterForge platform", Unstarted: true, Stopped: true},
			note: "its server's shard is shard eu-1 (ClusterForge platform), whose manager does not run",
		},
		"another namespace's deciding Forge is not named": {
			objs: []client.Object{shardForge("team-b", "gitea", a, "eu-1", t0), electionLease("", true)},
			want: Decision{State: Serve, Desired: "eu-1", Decider: "Forge team-b/gitea", Unstarted: true},
			note: "its server's shard is shard eu-1 (a Forge in another namespace), which has no manager",
		},
		"a move to a running shard is handed over": {
			objs: []client.Object{tenantOld, electionLease("", true), electionLease("eu-1", true)},
			want: Decision{State: HandOver, Desired: "eu-1", Decider: "Forge team-a/gitea"},
		},
		"the desired shard awaits the holder": {
			shard: "eu-1",
			objs:  []client.Object{tenantOld, electionLease("", true), electionLease("eu-1", true)},
			want:  Decision{State: Await, Desired: "eu-1", Decider: "Forge team-a/gitea"},
		},
		"a stray goes to the desired shard when it runs": {
			objs: []client.Object{tenantOld, serverLease(a, "us-1"), electionLease("us-1", true), electionLease("eu-1", true)},
			want: Decision{State: Stray, Desired: "eu-1", Holder: "us-1", Decider: "Forge team-a/gitea", StrayTo: "eu-1"},
		},
		"a stray goes to the holder while the desired shard has no running manager": {
			objs: []client.Object{tenantOld, serverLease(a, "us-1"), electionLease("us-1", true), electionLease("eu-1", false)},
			want: Decision{State: Stray, Desired: "eu-1", Holder: "us-1", Decider: "Forge team-a/gitea", StrayTo: "us-1"},
		},
		"a stray goes to the desired shard when neither runs": {
			objs: []client.Object{tenantOld, serverLease(a, "us-1"), electionLease("us-1", false)},
			want: Decision{State: Stray, Desired: "eu-1", Holder: "us-1", Decider: "Forge team-a/gitea", StrayTo: "eu-1"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
				if err := add(scheme); err != nil {
					t.Fatal(err)
				}
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tc.objs...).Build()
			s := NewShards(ShardsOptions{Shard: tc.shard, Namespace: leasesNS}, c, c, c, nil)
			d, err := s.decide(context.Background(), c, forge.ServerKey(a))
			if err != nil {
				t.Fatal(err)
			}
			note := s.Note(d, "team-a")
			d.conns, d.deciding = claims.Connections{}, nil
			if !reflect.DeepEqual(d, tc.want) {
				t.Errorf("Decide = %+v\nwant       %+v", d, tc.want)
			}
			switch {
			case tc.note == "" && note != "":
				t.Errorf("Note = %q, want none", note)
			case !strings.Contains(note, tc.note):
				t.Errorf("Note = %q, want it to say %q", note, tc.note)
			}
		})
	}
}

// TestKeptServerTakesItsResourcesBack: the holder of a server whose
// desired shard's manager stopped (mid-handover, or before it began) keeps
// serving it, and its mover takes back, from the API server, the server's
// resources left labelled for that shard, which no running manager's
// cache holds; another server's resources of that shard stay where they are.
func TestKeptServerTakesItsResourcesBack(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	inShard := func(name, forgeName, shard string) *forgev1.Label {
		return label(func(l *forgev1.Label) {
			l.Name, l.Spec.ForgeRef.Name = name, forgeName
			l.Labels = map[string]string{forgev1.ShardLabel: shard}
		})
	}
	const a, b = "https://a.example.com", "https://b.example.com"
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		shardForge(ns, "gitea", a, "eu-1", t0), shardForge(ns, "other", b, "eu-1", t0),
		inShard("left", "gitea", "eu-1"), inShard("other", "other", "eu-1"),
		serverLease(a, "us-1"), electionLease("us-1", true), electionLease("eu-1", false),
	).Build()
	rec := events.NewFakeRecorder(10)
	s := NewShards(ShardsOptions{Shard: "us-1", Namespace: leasesNS, Lists: []func() client.ObjectList{
		func() client.ObjectList { return &forgev1.LabelList{} }}}, c, c, c, rec)
	ctx := context.Background()
	after, err := s.move(ctx, forge.ServerKey(a))
	if err != nil || after != s.recheck {
		t.Fatalf("move = %v, %v; want to look again in %v", after, err, s.recheck)
	}
	for name, want := range map[string]string{"left": "us-1", "other": "eu-1"} {
		var l forgev1.Label
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &l); err != nil {
			t.Fatal(err)
		}
		if got := l.Labels[forgev1.ShardLabel]; got != want {
			t.Errorf("Label %s labelled for %q, want %q", name, got, want)
		}
	}
	var lease coordinationv1.Lease
	if err := c.Get(ctx, types.NamespacedName{Namespace: leasesNS, Name: ServerLeaseName(forge.ServerKey(a))}, &lease); err != nil ||
		ptr.Deref(lease.Spec.HolderIdentity, "") != "us-1" {
		t.Errorf("the server's Lease: %v, %v; want it still held by us-1", lease.Spec.HolderIdentity, err)
	}
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	if len(got) != 1 || !strings.Contains(got[0], "NoShardManager") || !strings.Contains(got[0], "whose manager does not run") {
		t.Errorf("Events %q, want one NoShardManager saying that eu-1's manager does not run", got)
	}
}

// TestDeciderChangedDecidesTheServerAgain: a connection of a server made,
// deleted, relabelled or pointed at another server makes each connection
// of the server (of both servers when its URL changed) look again, since
// a manager may have decided before the change reached its cache (a
// ClusterForge made after a tenant's Forge of its server); a change of
// anything else does not.
func TestDeciderChangedDecidesTheServerAgain(t *testing.T) {
	served := claims.SetServeClusterForges(true)
	t.Cleanup(func() { claims.SetServeClusterForges(served) })
	const a, b = "https://a.example.com", "https://b.example.com"
	tenant := shardForge("team", "gitea", a, "eu-1", t0)
	other := shardForge("other", "gitea", b, "", t0)
	platform := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "platform", CreationTimestamp: t1},
		Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{URL: a + "/"}}}
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tenant, other, platform).Build()
	h := ServerHandler(c, func(_ context.Context, conn types.NamespacedName) []ctrl.Request {
		return []ctrl.Request{{NamespacedName: conn}}
	})
	moved := other.DeepCopy()
	moved.Spec.URL = a
	relabelled := platform.DeepCopy()
	relabelled.Labels = map[string]string{forgev1.ShardLabel: "us-1"}
	status := platform.DeepCopy()
	status.Status.InUse = 3
	for name, tc := range map[string]struct {
		send func(context.Context, handler.EventHandler, workqueue.TypedRateLimitingInterface[ctrl.Request]) bool
		want []string
	}{
		"a ClusterForge made after a tenant's Forge": {
			send: func(ctx context.Context, h handler.EventHandler, q workqueue.TypedRateLimitingInterface[ctrl.Request]) bool {
				e := event.CreateEvent{Object: platform}
				h.Create(ctx, e, q)
				return DeciderChanged{}.Create(e)
			},
			want: []string{"/platform", "team/gitea"},
		},
		"a ClusterForge deleted": {
			send: func(ctx context.Context, h handler.EventHandler, q workqueue.TypedRateLimitingInterface[ctrl.Request]) bool {
				e := event.DeleteEvent{Object: platform}
				h.Delete(ctx, e, q)
				return DeciderChanged{}.Delete(e)
			},
			want: []string{"/platform", "team/gitea"},
		},
		"a ClusterForge relabelled": {
			send: func(ctx context.Context, h handler.EventHandler, q workqueue.TypedRateLimitingInterface[ctrl.Request]) bool {
				e := event.UpdateEvent{ObjectOld: platform, ObjectNew: relabelled}
				h.Update(ctx, e, q)
				return DeciderChanged{}.Update(e)
			},
			want: []string{"/platform", "team/gitea"},
		},
		"a Forge pointed at another server": {
			send: func(ctx context.Context, h handler.EventHandler, q workqueue.TypedRateLimitingInterface[ctrl.Request]) bool {
				e := event.UpdateEvent{ObjectOld: other, ObjectNew: moved}
				h.Update(ctx, e, q)
				return DeciderChanged{}.Update(e)
			},
			want: []string{"/platform", "other/gitea", "team/gitea"},
		},
		"a ClusterForge's status": {
			send: func(_ context.Context, _ handler.EventHandler, _ workqueue.TypedRateLimitingInterface[ctrl.Request]) bool {
				return DeciderChanged{}.Update(event.UpdateEvent{ObjectOld: platform, ObjectNew: status})
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[ctrl.Request]())
			defer q.ShutDown()
			passed := tc.send(context.Background(), h, q)
			var got []string
			for q.Len() > 0 {
				req, _ := q.Get()
				got = append(got, req.String())
				q.Done(req)
			}
			slices.Sort(got)
			if passed != (tc.want != nil) || !slices.Equal(got, tc.want) {
				t.Errorf("passed %t, enqueued %v; want %t, %v", passed, got, tc.want != nil, tc.want)
			}
		})
	}
}
