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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
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
	observe := func(sent *sentSecrets) []string {
		t.Helper()
		s := stale()
		e := &actionsSecret{obj: s, fc: secretsForge{}, scope: actionsScope(&s.Spec.ActionsScope),
			applied: []forgev1.AppliedSecret{newDigest}, sent: sent}
		obs, err := e.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return obs.Diff
	}
	if diff := observe(newSentSecrets()); len(diff) != 1 || diff[0] != "value" {
		t.Fatalf("a new value this manager never sent: diff %v, want [value]", diff)
	}
	sent := newSentSecrets()
	sent.sent("u1", 0, []forgev1.AppliedSecret{newDigest})
	if diff := observe(sent); len(diff) != 0 {
		t.Fatalf("the value this manager just sent, seen through a lagging cache: diff %v, want none", diff)
	}
	sent.sent("u1", 0, []forgev1.AppliedSecret{oldDigest})
	if diff := observe(sent); len(diff) != 1 {
		t.Fatalf("a value other than the one last sent: diff %v, want [value]", diff)
	}
}

// TestSameVariableValue: values that differ only in line ends are the
// value the forge stored (issue 32 item 6); any other difference counts.
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
