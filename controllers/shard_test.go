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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// TestForgeOfAnotherShardIsNotChecked: only the manager of a Forge's
// server's shard (docs/shards.md) calls its forge and writes its status;
// the others leave it as it is. A Forge whose own label is not its
// server's shard says which connection decides.
func TestForgeOfAnotherShardIsNotChecked(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasSuffix(r.URL.Path, "/version") {
			_, _ = w.Write([]byte(`{"version":"1.26.4"}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":1,"login":"ops","is_admin":false}`))
	}))
	t.Cleanup(ts.Close)
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	key := types.NamespacedName{Namespace: "team", Name: "gitea"}
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	forgeAt := func(name, shard string, created metav1.Time) *forgev1.Forge {
		f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: name, Generation: 1, CreationTimestamp: created},
			Spec: forgev1.ForgeSpec{URL: ts.URL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "token"}}}}
		if shard != "" {
			f.Labels = map[string]string{forgev1.ShardLabel: shard}
		}
		return f
	}
	alone := forgeAt("gitea", "eu-1", metav1.NewTime(t0.Add(time.Hour)))
	older := forgeAt("old", "", t0)
	const decided = `its label forge.forgeops.dev/shard="eu-1" is not its server's shard: Forge team/old, which decides the server's shard, puts it in the default shard (no label)`
	const unstarted = `its server's shard is shard eu-1 (Forge team/gitea), which has no manager (no leader-election Lease ops/forge-operator.forge.forgeops.dev-eu-1): the default shard (no label) keeps serving it until one runs`
	const stopped = `its server's shard is shard eu-1 (Forge team/gitea), whose manager does not run (its leader-election Lease ops/forge-operator.forge.forgeops.dev-eu-1 is not held and renewed): the default shard (no label) keeps serving it until one runs`
	for _, tc := range []struct {
		shard, holder string
		others        []*forgev1.Forge
		served        bool
		note          string
		managers      []string
		// stopped have a leader-election Lease nobody renews.
		stopped []string
	}{
		{shard: "", managers: []string{""}, served: true, note: unstarted},                          // kept: no manager of eu-1 to hand it to
		{shard: "", managers: []string{""}, stopped: []string{"eu-1"}, served: true, note: stopped}, // kept: eu-1's manager is gone
		{shard: "", served: false},                     // handing it over to eu-1
		{shard: "us-1", holder: "eu-1", served: false}, // neither
		{shard: "eu-1", served: false},                 // awaiting it from the default manager
		{shard: "eu-1", holder: "eu-1", served: true},
		{shard: "", others: []*forgev1.Forge{older}, served: true, note: decided},
		{shard: "eu-1", holder: "eu-1", others: []*forgev1.Forge{older}, served: false}, // handing it back
	} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "token"}, Data: map[string][]byte{"token": []byte("t")}}
		b := fake.NewClientBuilder().WithScheme(scheme).WithObjects(alone.DeepCopy(), secret).WithStatusSubresource(&forgev1.Forge{})
		for _, o := range tc.others {
			b = b.WithObjects(o.DeepCopy())
		}
		managers := tc.managers
		if managers == nil {
			managers = []string{"", "eu-1"}
		}
		for i, m := range append(managers, tc.stopped...) {
			renewed := metav1.NewMicroTime(time.Now())
			if i >= len(managers) {
				renewed = metav1.NewMicroTime(time.Now().Add(-time.Hour))
			}
			b = b.WithObjects(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: shards.LeaderElectionID(m)},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: new("pod"), RenewTime: &renewed, LeaseDurationSeconds: new(int32(15))}})
		}
		if tc.holder != "" {
			b = b.WithObjects(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: shards.ServerLeaseName(forge.ServerKey(ts.URL))},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: &tc.holder}})
		}
		c := b.Build()
		opts := reconciler.Options{Shards: shards.New(shards.Options{Shard: tc.shard, Namespace: "ops"}, c, c, c, nil)}.WithDefaults()
		r := &ForgeReconciler{connectionChecks: connectionChecks{Pool: &connection.Pool{Reader: c}, Options: opts,
			client: c, status: reconciler.StatusWriter{Client: c, Recorder: events.NewFakeRecorder(10)}, backoff: reconciler.NewBackoff(opts)}}
		hits.Store(0)
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("shard %q, holder %q: %v", tc.shard, tc.holder, err)
		}
		var got forgev1.Forge
		if err := c.Get(context.Background(), key, &got); err != nil {
			t.Fatal(err)
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, forgev1.ConditionReady)
		switch {
		case tc.served && (hits.Load() == 0 || ready == nil || ready.Status != metav1.ConditionTrue):
			t.Errorf("shard %q, %d other Forges: its Forge: %d requests, Ready %v; want it checked", tc.shard, len(tc.others), hits.Load(), ready)
		case tc.served && tc.note == "" && strings.Contains(ready.Message, "shard"),
			tc.served && !strings.Contains(ready.Message, tc.note):
			t.Errorf("shard %q, %d other Forges: Ready message %q, want it to say %q", tc.shard, len(tc.others), ready.Message, tc.note)
		case !tc.served && (hits.Load() != 0 || len(got.Status.Conditions) != 0):
			t.Errorf("shard %q, %d other Forges: another shard's Forge: %d requests, conditions %v; want none", tc.shard, len(tc.others), hits.Load(), got.Status.Conditions)
		}
	}
}
