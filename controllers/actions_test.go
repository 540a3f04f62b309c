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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

type secretsForge struct {
	forge.Interface
}

func (secretsForge) ListActionsSecrets(context.Context, forge.Scope) ([]forge.ActionsSecret, error) {
	return []forge.ActionsSecret{{Name: "DEPLOY_TOKEN"}}, nil
}

// TestSecretSentOnceWhileTheCacheLags: a pass that starts from a cached
// resource older than the status the pass before it wrote (two events
// close together) does not send the value again when this manager sent it.
func TestSecretSentOnceWhileTheCacheLags(t *testing.T) {
	oldDigest := forgev1.AppliedSecret{Field: fieldValueFrom, Name: "ci", Key: "token", ResourceVersion: "1", Digest: "hmac-sha256:k1:old"}
	newDigest := forgev1.AppliedSecret{Field: fieldValueFrom, Name: "ci", Key: "token", ResourceVersion: "2", Digest: "hmac-sha256:k1:new"}
	stale := func() *forgev1.ActionsSecret {
		s := &forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Name: "deploy-token", UID: "u1"}}
		s.Spec.Repository = new(forgev1.RepositoryName("acme/web"))
		s.Status.ExternalName = "DEPLOY_TOKEN"
		s.Status.AppliedSecrets = []forgev1.AppliedSecret{oldDigest}
		return s
	}
	observe := func(sent *secrets.Sent) []string {
		t.Helper()
		s := stale()
		e := &actionsSecret{obj: s, fc: secretsForge{}, At: child.At{Place: actionsScope(&s.Spec.ActionsScope)},
			WriteOnly: secrets.WriteOnly{Obj: s, Field: fieldValueFrom, Ref: &s.Spec.ValueFrom.SecretKeyRef,
				Loaded: true, Applied: []forgev1.AppliedSecret{newDigest}}, sent: sent}
		obs, err := e.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return obs.Diff
	}
	if diff := observe(secrets.NewSent()); len(diff) != 1 || diff[0] != "value" {
		t.Fatalf("a new value this manager never sent: diff %v, want [value]", diff)
	}
	sent := secrets.NewSent()
	sent.Sent("u1", 0, []forgev1.AppliedSecret{newDigest})
	if diff := observe(sent); len(diff) != 0 {
		t.Fatalf("the value this manager just sent, seen through a lagging cache: diff %v, want none", diff)
	}
	sent.Sent("u1", 0, []forgev1.AppliedSecret{oldDigest})
	if diff := observe(sent); len(diff) != 1 {
		t.Fatalf("a value other than the one last sent: diff %v, want [value]", diff)
	}
}

// TestActionsSecretReadsItsSecretOnlyWhenItMust: with
// the manager's metadata cache, a pass reads the Secret's value only when it
// sends it, or when the Secret's version is not the one the value last sent
// came from (a write to the Secret, a new digest key); without the cache
// (plan) every pass reads it. A deleted Secret is still told.
func TestActionsSecretReadsItsSecretOnlyWhenItMust(t *testing.T) {
	ctx := context.Background()
	r := newRollbackRig(t)
	reads := 0
	r.reader = interceptor.NewClient(r.cluster.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*corev1.Secret); ok && key.Name == "ci" {
				reads++
			}
			return c.Get(ctx, key, obj, opts...)
		}})
	r.metadata = r.cluster
	sent := secrets.NewSent()
	kind := actionsSecretKind(r.digests, sent)
	obj := &forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "deploy-token", UID: "uid-secret"},
		Spec: forgev1.ActionsSecretSpec{ActionsScope: forgev1.ActionsScope{Organization: new(forgev1.OwnerName("acme"))},
			ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "ci", Key: "value"}}}}
	step := func(what string, wantReads, wantWrites int) {
		t.Helper()
		reads = 0
		r.ff.ClearRequests()
		pass(r, kind, obj, false)
		obj.Status.ExternalName = "DEPLOY_TOKEN" // as the loop records it
		if w := len(r.ff.WriteRequests()); reads != wantReads || w != wantWrites {
			t.Errorf("%s: %d reads of the Secret and %d writes, want %d and %d", what, reads, w, wantReads, wantWrites)
		}
	}
	r.setSecret("value-A")
	step("never sent", 1, 1)
	step("unchanged", 0, 0)
	step("unchanged, again", 0, 0)
	obj.Spec.Description = new("deploys")
	step("a description to write (the PUT sends the value too)", 1, 1)
	step("description written", 0, 0)
	r.setSecret("value-A")
	step("the Secret rewritten with the value sent", 1, 0)
	step("its new version recorded", 0, 0)
	r.setSecret("value-B")
	step("a new value", 1, 1)
	if v, _ := r.ff.ActionsSecretValue(forge.OrgScope("acme"), "DEPLOY_TOKEN"); v != "value-B" {
		t.Fatalf("the forge holds %q, want value-B", v)
	}
	step("the new value sent", 0, 0)

	kind = actionsSecretKind(secretdigest.New(r.cluster, r.cluster, types.NamespacedName{Namespace: "ops", Name: "another-digest-key"}), sent)
	step("recorded under another digest key (compared by version, re-stamped)", 1, 0)
	step("re-stamped under the current key", 0, 0)

	r.metadata = nil
	step("without the metadata cache, as plan", 1, 0)
	r.metadata = r.cluster

	if err := r.cluster.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ci"}}); err != nil {
		t.Fatal(err)
	}
	_, err := kind.Connect(ctx, obj, &reconciler.Pass{Forge: r.fc, Reader: r.reader, Metadata: r.metadata})
	if se := (*connection.SecretError)(nil); !errors.As(err, &se) {
		t.Fatalf("the Secret deleted: %v, want a SecretError (SecretNotFound)", err)
	}
}

// TestSameVariableValue: values that differ only in line ends are the
// value the forge stored; any other difference counts.
func TestSameVariableValue(t *testing.T) {
	cases := []struct {
		want, have string
		same       bool
	}{
		{"a\r\nb\r\n", "a\nb\n", true}, // every Gitea, Forgejo
		{"a\rb", "a\nb", true},         // Gitea 1.26 and later
		{"a\rb", "a\rb", true},         // Gitea 1.24, 1.25, Forgejo
		{" a \n", " a \n", true},       // nothing trimmed...
		{" a \n", "a", false},          // ...so spaces count
		{"a\r\n", "a", false},          // the line end is kept
		{"a\n\nb", "a\nb", false},      // CRLF is one line end, not two
		{"a\r\n\r\nb", "a\n\nb", true},
		{"value", "other value", false},
	}
	for _, tc := range cases {
		if got := sameVariableValue(tc.want, tc.have); got != tc.same {
			t.Errorf("sameVariableValue(%q, %q) = %v, want %v", tc.want, tc.have, got, tc.same)
		}
	}
}
