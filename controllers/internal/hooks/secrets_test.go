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

package hooks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// orgHooks is the OrgHook kind as package controllers declares it.
func orgHooks(digests *secretdigest.Digester) child.Kind[*forgev1.OrgHook] {
	return Kind(digests, secrets.NewSent(), &forgev1.OrgHookList{},
		func(h *forgev1.OrgHook) (*forgev1.HookSpec, *forgev1.HookStatus, child.Place) {
			return &h.Spec.HookSpec, &h.Status, child.PlaceOf(nil, &h.Spec.Organization)
		})
}

func TestSettledRecordsOnlyWhatTheForgeHolds(t *testing.T) {
	oldSecret := forgev1.AppliedSecret{Field: FieldSecret, Name: "s", Key: "k", ResourceVersion: "1", Digest: "hmac-sha256:A"}
	newSecret := forgev1.AppliedSecret{Field: FieldSecret, Name: "s", Key: "k", ResourceVersion: "2", Digest: "hmac-sha256:B"}
	header := forgev1.AppliedSecret{Field: FieldAuthHeader, Name: "h", Key: "k", ResourceVersion: "3", Digest: "hmac-sha256:C"}
	have := []forgev1.AppliedSecret{oldSecret}
	want := []forgev1.AppliedSecret{header, newSecret}

	got := settled(have, want, map[string]bool{FieldSecret: true})
	if d := cmp.Diff([]forgev1.AppliedSecret{header, oldSecret}, got); d != "" {
		t.Errorf("a changed secret keeps its old record until sent (-want +got):\n%s", d)
	}
	if got := settled(have, want, map[string]bool{}); cmp.Diff(want, got) != "" {
		t.Errorf("nothing changed: want the current record, got %v", got)
	}
	if got := settled(nil, nil, nil); got != nil {
		t.Errorf("no secrets: want nil, got %v", got)
	}
}

// TestDigestKeyOnlyWhenNeeded: the key Secret is read on first use only (a
// hook without secrets never needs it), and when it cannot be read the
// resource waits with a reason that names it, never with the value.
func TestDigestKeyOnlyWhenNeeded(t *testing.T) {
	ctx := context.Background()
	cluster := fake.NewClientBuilder().WithObjects(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "hook-secret"},
		Data:       map[string][]byte{"secret": []byte("do-not-show")},
	}).Build()
	calls := 0
	denied := interceptor.NewClient(fake.NewClientBuilder().Build(), interceptor.Funcs{
		Get: func(_ context.Context, _ client.WithWatch, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
			calls++
			return apierrors.NewForbidden(corev1.Resource("secrets"), key.Name, errors.New("no access"))
		},
	})
	kind := orgHooks(secretdigest.New(denied, denied, types.NamespacedName{Namespace: "ops", Name: "digest-key"}))
	pass := &reconciler.Pass{Reader: cluster}
	h := &forgev1.OrgHook{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ci", UID: "uid-1"},
		Spec:       forgev1.OrgHookSpec{Organization: "acme", HookSpec: forgev1.HookSpec{Type: "gitea", URL: "https://ci.example.com"}},
	}

	if _, err := kind.Connect(ctx, h, pass); err != nil || calls != 0 {
		t.Fatalf("a hook without secrets: err %v, %d reads of the digest key; want none", err, calls)
	}

	h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
	_, err := kind.Connect(ctx, h, pass)
	var le *reconciler.Error
	if !errors.As(err, &le) || le.State != conditions.Waiting || le.Reason != forgev1.ReasonDigestKeyUnavailable {
		t.Fatalf("err %v, want a wait with reason %s", err, forgev1.ReasonDigestKeyUnavailable)
	}
	if msg := le.Error(); !strings.Contains(msg, "ops/digest-key") || strings.Contains(msg, "do-not-show") {
		t.Errorf("message %q: want the key Secret named, never the hook's secret", msg)
	}
}
