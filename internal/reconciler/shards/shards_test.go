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

package shards

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

const (
	// ns is the namespace of the tests' resources; leasesNS the operator's,
	// where the Leases of the shards are.
	ns       = "default"
	leasesNS = "forge-operator-system"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 = metav1.NewTime(t0.Add(time.Minute))
)

// label is a Label of namespace ns using Forge "gitea".
func label(mutate ...func(*forgev1.Label)) *forgev1.Label {
	l := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bug", Generation: 1},
		Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}}}
	for _, m := range mutate {
		m(l)
	}
	return l
}

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
			s := New(Options{Shard: tc.shard, Namespace: leasesNS}, c, c, c, nil)
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
