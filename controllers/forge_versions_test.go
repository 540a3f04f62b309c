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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
	"github.com/forgeops/forge-operator/internal/storageversion"
)

// TestForgeSaysWhileDeprecatedVersionsAreStored: while the storage
// migration cannot write an object back (here: every update of a Label
// fails), every Forge says which kinds still store v1alpha1 and what to
// run; once it could, the condition is gone.
func TestForgeSaysWhileDeprecatedVersionsAreStored(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/version") {
			_, _ = w.Write([]byte(`{"version":"1.27.3"}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":1,"login":"ops","is_admin":false}`))
	}))
	t.Cleanup(ts.Close)
	scheme, err := storageversion.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	key := types.NamespacedName{Namespace: "team", Name: "gitea"}
	f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Generation: 1},
		Spec: forgev1.ForgeSpec{URL: ts.URL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "token"}}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "token"}, Data: map[string][]byte{"token": []byte("t")}}
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "labels.forge.forgeops.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: forgev1.GroupVersion.Group,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Kind: "Label", ListKind: "LabelList", Plural: "labels"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true}, {Name: "v1alpha1", Served: true}}},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1alpha1", "v1beta1"}}}
	label := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "bug"}}
	var frozen atomic.Bool
	frozen.Store(true)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(f, secret, crd, label).
		WithStatusSubresource(&forgev1.Forge{}, &apiextensionsv1.CustomResourceDefinition{}).
		WithInterceptorFuncs(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			if frozen.Load() && o.GetObjectKind().GroupVersionKind().Kind == "Label" {
				return errors.New("refused")
			}
			return c.Update(ctx, o, opts...)
		}}).Build()

	changed := make(chan struct{}, 10)
	m := &storageversion.Migrator{Client: c, Log: testr.New(t), Changed: func() { changed <- struct{}{} }}
	opts := reconciler.Options{Shards: shards.New(shards.Options{Namespace: "ops"}, c, c, c, nil)}.WithDefaults()
	r := &ForgeReconciler{connectionChecks: connectionChecks{Pool: &connection.Pool{Reader: c}, Options: opts,
		client: c, status: reconciler.StatusWriter{Client: c, Recorder: events.NewFakeRecorder(10)}, backoff: reconciler.NewBackoff(opts)},
		versions: m}
	condition := func() *metav1.Condition {
		t.Helper()
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatal(err)
		}
		var got forgev1.Forge
		if err := c.Get(context.Background(), key, &got); err != nil {
			t.Fatal(err)
		}
		if ready := meta.FindStatusCondition(got.Status.Conditions, forgev1.ConditionReady); ready == nil || ready.Status != metav1.ConditionTrue {
			t.Errorf("Ready %v, want True: the storage version says nothing of the connection", ready)
		}
		return meta.FindStatusCondition(got.Status.Conditions, forgev1.ConditionDeprecatedVersionsStored)
	}
	if got := condition(); got != nil {
		t.Errorf("before the migration ran: %v, want no condition (unknown)", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() { _ = m.Start(ctx); close(done) }()
	<-changed
	got := condition()
	if got == nil || got.Status != metav1.ConditionTrue || got.Reason != forgev1.ReasonMigrationPending ||
		!strings.Contains(got.Message, "Label (v1alpha1)") || !strings.Contains(got.Message, "forge-operator migrate") {
		t.Errorf("while Labels cannot be written back: %v, want True, MigrationPending, naming Label (v1alpha1) and forge-operator migrate", got)
	}

	frozen.Store(false)
	select {
	case <-changed: // the next try (the backoff starts at 5 s)
	case <-ctx.Done():
		t.Fatal("the migration did not finish once Labels could be written")
	}
	<-done
	if got := condition(); got != nil {
		t.Errorf("once migrated: %v, want no condition", got)
	}
}
