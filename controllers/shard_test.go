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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// TestForgeOfAnotherShardIsNotChecked: only the manager of a Forge's shard
// (docs/shards.md) calls its forge and writes its status; the others leave
// it as it is.
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
	for shard, served := range map[string]bool{"": false, "us-1": false, "eu-1": true} {
		f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Generation: 1,
			Labels: map[string]string{forgev1.ShardLabel: "eu-1"}},
			Spec: forgev1.ForgeSpec{URL: ts.URL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "token"}}}}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "token"}, Data: map[string][]byte{"token": []byte("t")}}
		c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(f, secret).WithStatusSubresource(&forgev1.Forge{}).Build()
		opts := reconciler.Options{Shard: shard}.WithDefaults()
		r := &ForgeReconciler{connectionChecks{Pool: &connection.Pool{Reader: c}, Options: opts,
			client: c, status: reconciler.StatusWriter{Client: c, Recorder: events.NewFakeRecorder(10)}, backoff: reconciler.NewBackoff(opts)}}
		hits.Store(0)
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("shard %q: %v", shard, err)
		}
		var got forgev1.Forge
		if err := c.Get(context.Background(), key, &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case served && (hits.Load() == 0 || got.Status.ServerVersion != "1.26.4"):
			t.Errorf("shard %q: its Forge: %d requests, status %+v; want it checked", shard, hits.Load(), got.Status)
		case !served && (hits.Load() != 0 || len(got.Status.Conditions) != 0):
			t.Errorf("shard %q: another shard's Forge: %d requests, conditions %v; want none", shard, hits.Load(), got.Status.Conditions)
		}
	}
}
