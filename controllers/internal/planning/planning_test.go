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

package planning

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Plan reads the cluster in its namespace and the digest key only, lists
// nothing and writes nothing: everything else is unreadable, which the
// kinds report as unknown fields.
func TestPlanReadsOnlyWhatItMay(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	secret := func(ns, name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	key := types.NamespacedName{Namespace: "operator", Name: "digest-key"}
	c := fake.NewClientBuilder().WithScheme(scheme).
		WithObjects(secret("team", "token"), secret("other", "token"), secret(key.Namespace, key.Name)).Build()
	r := planReader{r: c, ns: "team", key: key}

	for _, ok := range []types.NamespacedName{{Namespace: "team", Name: "token"}, key} {
		if err := r.Get(ctx, ok, &corev1.Secret{}); err != nil {
			t.Errorf("Get %s: %v, want it read", ok, err)
		}
	}
	if err := r.Get(ctx, types.NamespacedName{Namespace: "other", Name: "token"}, &corev1.Secret{}); !errors.Is(err, reconciler.ErrUnreadable) {
		t.Errorf("Get of another namespace: %v, want ErrUnreadable", err)
	}
	if err := r.List(ctx, &corev1.SecretList{}); !errors.Is(err, reconciler.ErrUnreadable) {
		t.Errorf("List: %v, want ErrUnreadable", err)
	}
	if err := (planReader{ns: "team"}).Get(ctx, types.NamespacedName{Namespace: "team", Name: "token"}, &corev1.Secret{}); !errors.Is(err, reconciler.ErrUnreadable) {
		t.Errorf("Get without a cluster: %v, want ErrUnreadable", err)
	}

	var w client.Writer = refusingWriter{}
	if err := w.Create(ctx, secret(key.Namespace, "new-key")); !errors.Is(err, reconciler.ErrUnreadable) {
		t.Errorf("Create: %v, want plan to refuse", err)
	}
}
