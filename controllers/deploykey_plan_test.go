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
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

func newTestKey(t *testing.T, comment string) (string, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " " + comment, ssh.FingerprintSHA256(pk)
}

// TestPlanDeployKeys: plan tells a new key (given or to be generated), an
// adoption by fingerprint in sync whatever the forge's title when the spec
// sets none, and a replacement for a title or readOnly the forge cannot
// edit; it writes nothing.
func TestPlanDeployKeys(t *testing.T) {
	ctx := context.Background()
	ff, fc, url := testForge(t, "acme")
	if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	fresh, _ := newTestKey(t, "new")
	kept, _ := newTestKey(t, "kept")
	moved, _ := newTestKey(t, "moved")
	for title, key := range map[string]string{"hand-made": kept, "old": moved} {
		if _, err := fc.CreateDeployKey(ctx, "acme", "web", forge.CreateDeployKeyOption{Title: title, Key: key, ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
	}
	ff.ClearRequests()
	doc := func(name, rest string) string {
		return fmt.Sprintf("apiVersion: forge.forgeops.dev/v1beta1\nkind: DeployKey\nmetadata: {name: %s, namespace: team}\n"+
			"spec:\n  forgeRef: {name: gitea}\n  repository: acme/web\n%s", name, rest)
	}
	manifests := planObjects(t, strings.Join([]string{
		doc("fresh", fmt.Sprintf("  publicKey: %q\n", fresh)),
		doc("generated", "  generate: {secretName: generated-key}\n"),
		doc("kept", fmt.Sprintf("  publicKey: %q\n", kept)),
		doc("moved", fmt.Sprintf("  title: new\n  readOnly: false\n  publicKey: %q\n", moved)),
	}, "---\n"))
	_, got := planOnFake(ctx, fc, url, manifests)
	compareItems(t, map[string]plan.Item{
		"fresh":     {Action: plan.Create},
		"generated": {Action: plan.Create},
		"kept":      {Action: plan.InSync},
		"moved": {Action: plan.Replace, Reason: "title, readOnly cannot be changed in place", Changes: []plan.Change{
			{Field: "readOnly", Forge: "true", Spec: "false"},
			{Field: "title", Forge: `"old"`, Spec: `"new"`},
		}},
	}, got)
	if w := ff.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}
