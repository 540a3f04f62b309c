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

package cmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestPlanTopics: plan selects by topics as the operator does: a LabelSet
// and a BranchProtectionSet over acme with topics [go, service] plan only
// for the repositories carrying both, read from the organization's listing
// (no read of a repository's topics).
func TestPlanTopics(t *testing.T) {
	fake, srv := fakeforge.NewTestServer(t)
	ctx := context.Background()
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}); err != nil {
		t.Fatal(err)
	}
	for name, topics := range map[string][]string{"web": {"Service", "go"}, "api": {"service"}, "docs": nil} {
		if err := fake.CreateRepo("acme", name); err != nil {
			t.Fatal(err)
		}
		if err := fc.SetRepoTopics(ctx, "acme", name, topics); err != nil {
			t.Fatal(err)
		}
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", srv.URL, "-f", "-"}, strings.NewReader(`apiVersion: forge.forgeops.dev/v1beta1
kind: LabelSet
metadata: {name: services, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {organization: acme, topics: [go, service]}
  labels: [{name: bug, color: "#ff0000"}]
---
apiVersion: forge.forgeops.dev/v1beta1
kind: BranchProtectionSet
metadata: {name: services, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {organization: acme, topics: [go, service]}
  rules: [{ruleName: main}]
`), &out, &errOut)
	text := out.String()
	t.Log(text)
	for _, want := range []string{
		"LabelSet team/services: update (0 of 1 repository match)\n  acme/web: create \"bug\"\n",
		"BranchProtectionSet team/services: update (0 of 1 repository match)\n  acme/web: create \"main\"\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != 2 || strings.Contains(text, "acme/api") || strings.Contains(text, "acme/docs") {
		t.Errorf("exit code %d (want 2), or a repository without both topics planned; stderr: %s", code, errOut.String())
	}
	for _, r := range fake.Requests() {
		if strings.HasSuffix(r.Path, "/topics") {
			t.Errorf("read topics per repository: %s %s", r.Method, r.Path)
		}
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}
