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

// What plan shows of each kind's changes, and of a connection named by a
// ClusterForge reference.

// TestPlanRepository: plan shows a rename, per-field changes and
// collaborator changes of a Repository, and a create, without a write.
func TestPlanRepository(t *testing.T) {
	fake, url := seedPlanForge(t)
	if err := fake.CreateRepo("acme", "website"); err != nil {
		t.Fatal(err)
	}
	fake.AddUser("alice")
	fake.AddUser("bob")
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.SetCollaborator(context.Background(), "acme", "website", "bob", "read"); err != nil {
		t.Fatal(err)
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1beta1
kind: Repository
metadata: {name: site, namespace: team}
spec:
  forgeRef: {name: gitea}
  owner: acme
  name: www
  previousNames: [website]
  description: The site
  topics: [go]
  collaborators: [{user: alice, permission: write}]
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Repository
metadata: {name: docs, namespace: team}
spec:
  forgeRef: {name: gitea}
  owner: acme
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (changes); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"Repository team/docs: create\n",
		"Repository team/site: update\n  collaborators: +alice(write) -bob\n  description: \"\" -> \"The site\"\n  rename: website -> www\n  topics: [] -> [\"go\"]\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanTeam: plan shows a team's changes per field, per unit and per
// member, and a create, without a write.
func TestPlanTeam(t *testing.T) {
	fake, url, _ := seedPlanTeam(t)
	ctx := context.Background()
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1beta1
kind: Team
metadata: {name: platform, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  description: Runs the platform
  units: {code: write, issues: read}
  members: [alice]
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Team
metadata: {name: docs, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (changes); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"Team team/docs: create\n",
		"Team team/platform: update\n  description: \"\" -> \"Runs the platform\"\n  members: +alice -bob\n  units.code: read -> write\n  units.issues: none -> read\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanActions: without the cluster a secret's value cannot be compared
// (unknown, never printed); a variable's value change is shown.
func TestPlanActions(t *testing.T) {
	fake, url := seedPlanForge(t)
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := fc.PutActionsSecret(ctx, forge.RepoScope("acme", "web"), "DEPLOY_TOKEN", "the-forge-holds-this", ""); err != nil {
		t.Fatal(err)
	}
	if err := fc.CreateActionsVariable(ctx, forge.OrgScope("acme"), "GO_VERSION", "1.25", ""); err != nil {
		t.Fatal(err)
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsSecret
metadata: {name: deploy-token, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  valueFrom: {secretKeyRef: {name: web-ci, key: token}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsVariable
metadata: {name: go-version, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  value: "1.26"
---
apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsVariable
metadata: {name: new-one, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  value: "x"
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (changes); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"ActionsSecret team/deploy-token: unknown",
		"ActionsVariable team/go-version: update\n  value: \"1.25\" -> \"1.26\"\n",
		"ActionsVariable team/new-one: create\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(text, "the-forge-holds-this") {
		t.Error("a secret value was printed")
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanBranchProtections: a rule's differing fields, a set's
// per-repository changes (Authoritative deletions included), and a rule a
// BranchProtection in the same plan holds reported as the set's conflict.
func TestPlanBranchProtections(t *testing.T) {
	fake, url := seedPlanForge(t)
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, r := range []forge.BranchProtection{{RuleName: "main", RequiredApprovals: 1, EnableStatusCheck: true, StatusCheckContexts: []string{"b", "a"}},
		{RuleName: "stale"}} {
		if _, err := fc.CreateBranchProtection(ctx, "acme", "web", r); err != nil {
			t.Fatal(err)
		}
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1beta1
kind: BranchProtection
metadata: {name: web-main, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  ruleName: main
  requiredApprovals: 2
  enableStatusCheck: true
  statusCheckContexts: [a, b]
---
apiVersion: forge.forgeops.dev/v1beta1
kind: BranchProtectionSet
metadata: {name: protect, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {names: [acme/web, acme/api]}
  mode: Authoritative
  rules:
  - ruleName: release/*
    blockOnOutdatedBranch: true
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (changes); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"BranchProtection team/web-main: update\n  requiredApprovals: 1 -> 2\n",
		"BranchProtectionSet team/protect: delete",
		`acme/api: create "release/*"`,
		`acme/web: create "release/*", delete "stale"`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(text, "statusCheckContexts") {
		t.Error("the order of status check contexts was planned as a change")
	}
	if strings.Contains(text, `delete "main"`) {
		t.Error("the set would delete the rule a BranchProtection in the plan holds")
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanTagProtections: a protection found by its pattern whose lists
// differ only in order and case is in sync (adoption writes nothing); a
// list that differs is an update; a pattern not on the forge a create.
func TestPlanTagProtections(t *testing.T) {
	fake, url := seedPlanForge(t)
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"v*", "release-*"} {
		if _, err := fc.CreateTagProtection(ctx, "acme", "web", forge.CreateTagProtectionOption{NamePattern: p, WhitelistTeams: []string{"Owners"}}); err != nil {
			t.Fatal(err)
		}
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1beta1
kind: TagProtection
metadata: {name: web-v, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  namePattern: v*
  whitelistTeams: [OWNERS]
---
apiVersion: forge.forgeops.dev/v1beta1
kind: TagProtection
metadata: {name: web-release, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  namePattern: release-*
  whitelistTeams: []
---
apiVersion: forge.forgeops.dev/v1beta1
kind: TagProtection
metadata: {name: web-nightly, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  namePattern: nightly-*
  whitelistTeams: [Owners]
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (changes); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"TagProtection team/web-v: in sync",
		"TagProtection team/web-release: update\n  whitelistTeams: [\"Owners\"] -> []\n",
		"TagProtection team/web-nightly: create",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanClusterForgeReference: resources that name a ClusterForge plan
// as those naming a Forge do (same lines, same exit code; the ClusterForge
// itself is not planned), and a Forge and a ClusterForge of one name are
// two connections: their resources do not conflict with each other, while
// two under the same ClusterForge do.
func TestPlanClusterForgeReference(t *testing.T) {
	fake, url := seedPlanForge(t)
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	plan := func(manifests string) (int, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := cmd.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
		if errOut.Len() > 0 {
			t.Errorf("stderr: %s", errOut.String())
		}
		return code, out.String()
	}
	const resources = `
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: acme, namespace: team}
spec: {forgeRef: REF, description: new}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: bug, namespace: team}
spec: {forgeRef: REF, organization: acme, color: "#FF0000"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: web-feature, namespace: team}
spec: {forgeRef: REF, repository: acme/web, name: feature, color: "#00ff00"}
`
	const want = "Label team/bug: in sync\n" +
		"Label team/web-feature: create\n" +
		"Organization team/acme: update\n  description: \"old\" -> \"new\"\n" +
		"Plan: 1 create, 1 update, 1 in sync.\n"
	forgeCode, forgeText := plan(strings.ReplaceAll(resources, "REF", "{name: shared}"))
	clusterCode, clusterText := plan(`apiVersion: forge.forgeops.dev/v1beta1
kind: ClusterForge
metadata: {name: shared}
spec:
  url: https://git.example.com
  auth: {tokenSecretRef: {name: shared-token}}
  tenants: [{namespaces: [team], owners: [acme]}]
---` + strings.ReplaceAll(resources, "REF", "{kind: ClusterForge, name: shared}"))
	if forgeCode != 2 || forgeText != want {
		t.Errorf("through Forge shared: exit code %d, output:\n%s\nwant 2 and:\n%s", forgeCode, forgeText, want)
	}
	if clusterCode != forgeCode || clusterText != forgeText {
		t.Errorf("through ClusterForge shared: exit code %d, output:\n%s\nwant as through Forge shared (%d):\n%s", clusterCode, clusterText, forgeCode, forgeText)
	}

	const oneLabel = `
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: NAME, namespace: team}
spec: {forgeRef: REF, organization: acme, name: bug, color: "#ff0000"}
`
	label := func(name, ref string) string {
		return strings.NewReplacer("NAME", name, "REF", ref).Replace(oneLabel)
	}
	code, text := plan(label("bug", "{name: shared}") + "---" + label("bug-cluster", "{kind: ClusterForge, name: shared}"))
	if want := "Label team/bug: in sync\nLabel team/bug-cluster: in sync\nPlan: 2 in sync.\n"; code != 0 || text != want {
		t.Errorf("a Forge and a ClusterForge of one name: exit code %d, output:\n%s\nwant 0 and:\n%s", code, text, want)
	}
	code, text = plan(label("bug-cluster", "{kind: ClusterForge, name: shared}") + "---" + label("bug-cluster-2", "{kind: ClusterForge, name: shared}"))
	if want := "Label team/bug-cluster-2: conflict (label \"bug\" in organization acme is also managed by Label team/bug-cluster)\n"; code != 1 || !strings.Contains(text, want) {
		t.Errorf("two resources under one ClusterForge: exit code %d, output:\n%s\nwant 1 and %q", code, text, want)
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanPushMirrors: a mirror found by its address with the spec's
// interval and syncOnCommit is in sync (adoption writes nothing), another
// interval is a replacement (the forge cannot edit a mirror), a new
// address a create; a password whose Secret plan cannot read is unknown.
func TestPlanPushMirrors(t *testing.T) {
	fake, url := seedPlanForge(t)
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, a := range []string{"https://github.com/acme/web.git", "https://mirror.example.com/web.git"} {
		if _, err := fc.CreatePushMirror(ctx, "acme", "web", forge.CreatePushMirrorOption{RemoteAddress: a, Interval: "8h"}); err != nil {
			t.Fatal(err)
		}
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1beta1
kind: PushMirror
metadata: {name: web-github, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://github.com/acme/web.git
---
apiVersion: forge.forgeops.dev/v1beta1
kind: PushMirror
metadata: {name: web-mirror, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://mirror.example.com/web.git
  interval: 1h
---
apiVersion: forge.forgeops.dev/v1beta1
kind: PushMirror
metadata: {name: web-backup, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://backup.example.com/web.git
  auth: {passwordSecretRef: {name: backup, key: token}}
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (changes); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"PushMirror team/web-github: in sync",
		"PushMirror team/web-mirror: replace",
		"interval: \"8h0m0s\" -> \"1h0m0s\"",
		"PushMirror team/web-backup: create",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}
