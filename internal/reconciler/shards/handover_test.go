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
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

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
	s := New(Options{Shard: "us-1", Namespace: leasesNS, Lists: []func() client.ObjectList{
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
