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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// rollbackRig is a fake forge, a cluster holding one Secret "ci" and the
// digest key, and the kind's passes run by hand as the loop runs them, so
// that a pass can start from a stale copy of the resource: the manager's
// cache not yet showing the status the previous pass wrote.
type rollbackRig struct {
	t       *testing.T
	ff      *fakeforge.Server
	fc      *forge.Client
	cluster client.Client
	digests *secretdigest.Digester
	// reader is the passes' Pass.Reader (the cluster unless a test counts
	// reads); metadata their Pass.Metadata, nil as in plan unless set.
	reader, metadata client.Reader
}

func newRollbackRig(t *testing.T, opts ...fakeforge.Option) *rollbackRig {
	t.Helper()
	ff, srv := fakeforge.NewTestServer(t, opts...)
	if _, err := ff.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	cluster := fake.NewClientBuilder().WithObjects(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ci"},
		Data:       map[string][]byte{"value": []byte("unset")},
	}).Build()
	return &rollbackRig{t: t, ff: ff, fc: fc, cluster: cluster, reader: cluster,
		digests: secretdigest.New(cluster, cluster, types.NamespacedName{Namespace: "ops", Name: "digest-key"})}
}

// setSecret writes every key of Secret ci with v (a write the Secret watch
// would answer with a pass).
func (r *rollbackRig) setSecret(v string) {
	r.t.Helper()
	var s corev1.Secret
	ctx := context.Background()
	if err := r.cluster.Get(ctx, client.ObjectKey{Namespace: "team", Name: "ci"}, &s); err != nil {
		r.t.Fatal(err)
	}
	s.Data = map[string][]byte{"value": []byte(v), "header": []byte("Bearer " + v), "secret": []byte("hook-" + v)}
	if err := r.cluster.Update(ctx, &s); err != nil {
		r.t.Fatal(err)
	}
}

// pass runs one pass of kind on obj as the loop does: observe, then create,
// replace (create, then delete the old) or update; it returns the id the
// loop would record.
func pass[T forgev1.Managed](r *rollbackRig, kind reconciler.Kind[T], obj T, pending bool) int64 {
	r.t.Helper()
	ctx := context.Background()
	e, err := kind.Connect(ctx, obj, &reconciler.Pass{Forge: r.fc, Reader: r.reader, Metadata: r.metadata, Pending: pending})
	if err != nil {
		r.t.Fatal(err)
	}
	obs, err := e.Observe(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	switch {
	case !obs.Exists:
		obs, err = e.Create(ctx)
	case obs.Replace:
		var made reconciler.Observation
		if made, err = e.Create(ctx); err == nil {
			err = e.Delete(ctx, obs)
		}
		obs = made
	case len(obs.Changes) > 0:
		err = e.Update(ctx, obs)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return obs.ID
}

// TestSecretRolledBackBeforeTheCacheCatchesUp: a
// Secret's value A is sent, then B, then A again in a pass that starts
// before the manager's cache shows the status of the pass that sent B.
// Status still says A, as the Secret does, but the forge holds B: what
// this manager sent last is the newer truth, and A is sent again. Each
// kind that records status.appliedSecrets is checked.
func TestSecretRolledBackBeforeTheCacheCatchesUp(t *testing.T) {
	actionsSecret := func(t *testing.T, metadata bool) {
		r := newRollbackRig(t)
		if metadata {
			r.metadata = r.cluster
		}
		kind := actionsSecretKind(r.digests, secrets.NewSent())
		obj := &forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "deploy-token", UID: "uid-secret"},
			Spec: forgev1.ActionsSecretSpec{ActionsScope: forgev1.ActionsScope{Organization: new(forgev1.OwnerName("acme"))},
				ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "ci", Key: "value"}}}}
		value := func() string { v, _ := r.ff.ActionsSecretValue(forge.OrgScope("acme"), "DEPLOY_TOKEN"); return v }

		r.setSecret("value-A")
		pass(r, kind, obj, true)
		obj.Status.ExternalName = "DEPLOY_TOKEN"
		stale := obj.DeepCopy() // status: A sent
		r.setSecret("value-B")
		pass(r, kind, obj, false)
		if v := value(); v != "value-B" {
			t.Fatalf("after B: the forge holds %q", v)
		}
		r.setSecret("value-A")
		pass(r, kind, stale.DeepCopy(), false)
		if v := value(); v != "value-A" {
			t.Fatalf("A again, from a resource whose status still says A: the forge holds %q, want value-A", v)
		}
		// Once the cache shows the last pass's status, nothing more is sent.
		r.ff.ClearRequests()
		pass(r, kind, stale.DeepCopy(), false)
		if w := r.ff.WriteRequests(); len(w) != 0 {
			t.Fatalf("A already sent: %d more writes", len(w))
		}
	}
	t.Run("ActionsSecret", func(t *testing.T) { actionsSecret(t, false) })
	// The Secret's version read from the cache decides whether its value is read.
	t.Run("ActionsSecret with the metadata cache", func(t *testing.T) { actionsSecret(t, true) })

	hookRig := func(t *testing.T, spec forgev1.HookSpec, opts ...fakeforge.Option) (*rollbackRig, child.Kind[*forgev1.OrgHook], *forgev1.OrgHook) {
		r := newRollbackRig(t, opts...)
		obj := &forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ci", UID: "uid-hook"},
			Spec: forgev1.OrgHookSpec{Organization: "acme", HookSpec: spec}}
		return r, orgHookKind(r.digests), obj
	}
	// Gitea 1.27 no longer shows the header: it is compared by digest.
	t.Run("OrgHook authorization header", func(t *testing.T) {
		r, kind, obj := hookRig(t, forgev1.HookSpec{Type: "gitea", URL: "https://ci.example.com/hook",
			AuthorizationHeaderSecretRef: &forgev1.SecretKeySelector{Name: "ci", Key: "header"}}, fakeforge.WithVersion("1.27.0"))
		header := func() string {
			hooks := r.ff.Hooks(forge.OrgScope("acme"))
			if len(hooks) != 1 {
				t.Fatalf("hooks %d, want 1", len(hooks))
			}
			return hooks[0].AuthorizationHeader
		}
		r.setSecret("value-A")
		obj.Status.ID = pass(r, kind, obj, true)
		stale := obj.DeepCopy()
		r.setSecret("value-B")
		pass(r, kind, obj, false)
		if h := header(); h != "Bearer value-B" {
			t.Fatalf("after B: the forge holds %q", h)
		}
		r.setSecret("value-A")
		pass(r, kind, stale.DeepCopy(), false)
		if h := header(); h != "Bearer value-A" {
			t.Fatalf("A again, from a resource whose status still says A: the forge holds %q, want Bearer value-A", h)
		}
	})
	t.Run("OrgHook secret (replaced)", func(t *testing.T) {
		r, kind, obj := hookRig(t, forgev1.HookSpec{Type: "gitea", URL: "https://ci.example.com/hook",
			SecretRef: &forgev1.SecretKeySelector{Name: "ci", Key: "secret"}})
		secret := func() string {
			hooks := r.ff.Hooks(forge.OrgScope("acme"))
			if len(hooks) != 1 {
				t.Fatalf("hooks %d, want 1", len(hooks))
			}
			return r.ff.HookSecret("acme", hooks[0].ID)
		}
		r.setSecret("value-A")
		obj.Status.ID = pass(r, kind, obj, true)
		stale := obj.DeepCopy()
		r.setSecret("value-B")
		obj.Status.ID = pass(r, kind, obj, false)
		if s := secret(); s != "hook-value-B" {
			t.Fatalf("after B: the forge holds %q", s)
		}
		// The replacement's create-pending mark is visible, its status is not:
		// the hook of B is found by its URL, as after a lost create answer.
		r.setSecret("value-A")
		pass(r, kind, stale.DeepCopy(), true)
		if s := secret(); s != "hook-value-A" {
			t.Fatalf("A again, from a resource whose status still says A: the forge holds %q, want hook-value-A", s)
		}
	})
}
