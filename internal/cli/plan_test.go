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

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/cli"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

const hookSecret = "s3cret-hook-value"

// seedPlanForge makes a forge for which the manifests below plan every
// verb plan can show, over every kind.
func seedPlanForge(t *testing.T) (*fakeforge.Server, string) {
	t.Helper()
	fake, srv := fakeforge.NewTestServer(t)
	ctx := context.Background()
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme", Description: "old"}))
	if err := fake.CreateRepo("acme", "web"); err != nil {
		t.Fatal(err)
	}
	must(fc.CreateLabel(ctx, forge.OrgScope("acme"), forge.CreateLabelOption{Name: "bug", Color: "#ff0000"}))
	must(fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
		Config: map[string]string{"url": "https://ci.example.com/hook", "content_type": "json"}}))
	must(fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
		Config: map[string]string{"url": "https://signed.example.com/hook", "content_type": "json", "secret": hookSecret}}))
	must(fc.CreateProject(ctx, forge.RepoScope("acme", "web"), forge.CreateProjectOption{Title: "Roadmap"}))
	if err := fake.CreateRepo("acme", "api"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"keep", "old"} {
		must(fc.CreateLabel(ctx, forge.RepoScope("acme", "api"), forge.CreateLabelOption{Name: name, Color: "#123456"}))
	}
	fake.RegisterRunner(forge.OrgScope("acme"), "r1")
	fake.ClearRequests()
	return fake, srv.URL
}

// planManifests holds one object per plan verb and kind, as kustomize
// build prints them (one stream, other kinds mixed in).
const planManifests = `
apiVersion: v1
kind: ConfigMap
metadata: {name: not-ours, namespace: team}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Forge
metadata: {name: gitea, namespace: team}
spec: {url: https://git.example.com, auth: {tokenSecretRef: {name: gitea-token}}}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Organization
metadata: {name: acme, namespace: team}
spec: {forgeRef: {name: gitea}, description: new}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Organization
metadata: {name: newco, namespace: team}
spec: {forgeRef: {name: gitea}, fullName: New Co}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: bug, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, color: "#FF0000"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: bug-again, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, name: bug, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: web-feature, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, name: feature, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: newco-bug, namespace: team}
spec: {forgeRef: {name: gitea}, organization: newco, name: bug, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: paused, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, name: paused, color: "#00ff00", suspend: true}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Organization
metadata: {name: watched, namespace: audit}
spec: {forgeRef: {name: gitea}, name: acme, location: Lisbon, managementPolicy: Observe}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: OrgHook
metadata: {name: ci, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "https://ci.example.com/hook"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: OrgHook
metadata: {name: signed, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  type: gitea
  url: "https://signed.example.com/hook"
  secretRef: {name: hook-secret, key: secret}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: OrgHook
metadata: {name: chat, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  type: slack
  urlSecretRef: {name: slack-url, key: url}
  config: {channel: "#dev"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: RepoHook
metadata: {name: web-deploy, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, type: gitea, url: "https://deploy.example.com/hook", events: [release]}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Project
metadata: {name: roadmap, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, title: Roadmap, state: closed}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: RunnerSetting
metadata: {name: r1, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, runner: {name: r1}, disabled: true}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: RunnerSetting
metadata: {name: r9, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, runner: {name: r9}, disabled: true}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: LabelSet
metadata: {name: web-labels, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {names: [acme/web]}
  labels: [{name: bug, color: "#ff0000"}]
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: LabelSet
metadata: {name: api-labels, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {names: [acme/api]}
  mode: Authoritative
  labels: [{name: keep, color: "#123456"}]
`

// TestPlanEveryVerb plans objects of every kind against the fake through
// the command line, from standard input: what is printed per object, the
// exit code, and that nothing was written to the forge.
func TestPlanEveryVerb(t *testing.T) {
	fake, url := seedPlanForge(t)
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(planManifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 1 {
		t.Errorf("exit code %d, want 1 (errors and a conflict); stderr: %s", code, errOut.String())
	}
	want := []string{
		"Label team/bug: in sync\n",
		"Label team/bug-again: conflict (label \"bug\" in organization acme is also managed by Label team/bug)\n",
		"Label team/newco-bug: create (organization newco not found on the forge; waiting for it to exist)\n",
		"Label team/paused: in sync (spec.suspend is true: the operator makes no forge calls)\n",
		"Label team/web-feature: create\n",
		"Organization audit/watched: in sync (managementPolicy Observe: the operator never changes the forge object)\n  location: \"\" -> \"Lisbon\"\n",
		"LabelSet team/api-labels: delete (0 of 1 repository match)\n  acme/api: delete \"old\"\n",
		"LabelSet team/web-labels: update (0 of 1 repository match)\n  acme/web: create \"bug\"\n",
		"OrgHook team/chat: unknown (the hook is found by its URL, which comes from a Secret plan cannot read; give --kubeconfig and -n)\n",
		"OrgHook team/ci: in sync\n",
		// Adopting a hook with a secret replaces it, whatever the secret:
		// the forge never tells which one a hook has.
		"OrgHook team/signed: replace (secret cannot be changed in place)\nOrganization",
		"Organization team/acme: update\n  description: \"old\" -> \"new\"\n",
		"Organization team/newco: create\n",
		"Project team/roadmap: update\n  state: \"open\" -> \"closed\"\n",
		"RepoHook team/web-deploy: create\n",
		"RunnerSetting team/r1: update\n  disabled: false -> true\n",
		"RunnerSetting team/r9: error (no runner \"r9\" in organization acme yet; waiting for it to register)\n",
		"Plan: 4 create, 4 update, 1 replace, 1 delete, 1 unknown, 1 conflict, 1 error, 4 in sync.\n",
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(text, "ConfigMap") || strings.Contains(text, "Forge ") {
		t.Error("objects of other kinds were planned")
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
	if strings.Contains(text+errOut.String(), fakeforge.DefaultToken) || strings.Contains(text, hookSecret) {
		t.Fatal("a credential was printed")
	}
}

// TestPlanExclusiveMerge: a merge into an exclusive label names every issue
// it would leave alone because adding the label would strip another label
// of its scope, and what that label is.
func TestPlanExclusiveMerge(t *testing.T) {
	fake, url := seedPlanForge(t)
	ctx := context.Background()
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	web := forge.RepoScope("acme", "web")
	label := func(name string, exclusive bool) int64 {
		l, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: name, Color: "#ededed", Exclusive: exclusive})
		if err != nil {
			t.Fatal(err)
		}
		return l.ID
	}
	old, feature := label("bug", false), label("kind/feature", true)
	label("kind/bug", true)
	for _, ids := range [][]int64{{old, feature}, {old}} {
		if _, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "t", Labels: ids}); err != nil {
			t.Fatal(err)
		}
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(`apiVersion: forge.forgeops.dev/v1alpha1
kind: LabelSet
metadata: {name: web-labels, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {names: [acme/web]}
  labels: [{name: kind/bug, color: "#ededed", exclusive: true, previousNames: [bug]}]
`), &out, &errOut)
	text := out.String()
	t.Log(text)
	want := "LabelSet team/web-labels: delete (0 of 1 repository match)\n" +
		"  acme/web: merge \"bug\" into \"kind/bug\" except #1 (would lose \"kind/feature\"), kept with \"bug\" (an exclusive label strips the others of its scope)\n"
	if code != 2 || !strings.Contains(text, want) {
		t.Errorf("exit code %d, output lacks %q; stderr: %s", code, want, errOut.String())
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

// TestPlanExitCodes: 0 when nothing would change, 2 when something would,
// 1 when plan cannot tell or is used wrongly; files and directories as
// inputs alike.
func TestPlanExitCodes(t *testing.T) {
	_, url := seedPlanForge(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inSync := write("sync/org.yaml", `apiVersion: forge.forgeops.dev/v1alpha1
kind: Organization
metadata: {name: acme}
spec: {forgeRef: {name: gitea}, description: old}
`)
	write("sync/nested/label.yml", `apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: bug}
spec: {forgeRef: {name: gitea}, organization: acme, color: "ff0000"}
`)
	write("sync/README.md", "not a manifest: skipped in a directory")
	pending := write("pending.json", `{"apiVersion":"forge.forgeops.dev/v1alpha1","kind":"Label","metadata":{"name":"wip"},
"spec":{"forgeRef":{"name":"gitea"},"organization":"acme","color":"#123456"}}`)
	cases := []struct {
		name   string
		env    string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "in sync, a directory read recursively", env: fakeforge.DefaultToken,
			args: []string{"--url", url, "-f", filepath.Join(dir, "sync"), "-n", "team"}, code: 0,
			stdout: "Label team/bug: in sync\nOrganization team/acme: in sync\nPlan: 2 in sync.\n"},
		{name: "a create pending, files repeated", env: fakeforge.DefaultToken,
			args: []string{"--url", url, "-f", inSync, "-f", pending}, code: 2,
			stdout: "Label wip: create\nOrganization acme: in sync\nPlan: 1 create, 1 in sync.\n"},
		{name: "nothing of the operator's kinds", env: fakeforge.DefaultToken,
			args: []string{"--url", url, "-f", write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")}, code: 0,
			stdout: "Plan: no objects of the operator's kinds.\n"},
		{name: "no -f", env: fakeforge.DefaultToken, args: []string{"--url", url}, code: 1, stderr: "-f is required"},
		{name: "a missing file", env: fakeforge.DefaultToken, args: []string{"--url", url, "-f", filepath.Join(dir, "nope.yaml")},
			code: 1, stderr: "nope.yaml: no such file"},
		{name: "not YAML", env: fakeforge.DefaultToken, args: []string{"--url", url, "-f", write("bad.yaml", "kind: [\n")},
			code: 1, stderr: "read " + filepath.Join(dir, "bad.yaml")},
		{name: "a bad output format", env: fakeforge.DefaultToken, args: []string{"--url", url, "-f", inSync, "-o", "yaml"},
			code: 1, stderr: `-o "yaml": want text or json`},
		{name: "--kubeconfig without -n", env: fakeforge.DefaultToken, args: []string{"--url", url, "-f", inSync, "--kubeconfig", "kc"},
			code: 1, stderr: "--kubeconfig needs -n"},
		{name: "no token", args: []string{"--url", url, "-f", inSync}, code: 1, stderr: "no token: set FORGE_TOKEN or --token-file"},
		{name: "a token is never a flag value", env: fakeforge.DefaultToken, args: []string{"--url", url, "-f", inSync, "--token", "x"},
			code: 1, stderr: "flag provided but not defined: -token"},
		{name: "a wrong token", env: "wrong-token-value", args: []string{"--url", url, "-f", inSync}, code: 1, stderr: "401"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("FORGE_TOKEN", c.env)
			var out, errOut bytes.Buffer
			code := cli.RunWithInput(context.Background(), "plan", c.args, strings.NewReader(""), &out, &errOut)
			if code != c.code {
				t.Fatalf("exit code %d, want %d; stdout: %s; stderr: %s", code, c.code, out.String(), errOut.String())
			}
			if c.stdout != "" && out.String() != c.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), c.stdout)
			}
			if !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("stderr lacks %q: %s", c.stderr, errOut.String())
			}
			if strings.Contains(out.String()+errOut.String(), fakeforge.DefaultToken) || strings.Contains(out.String()+errOut.String(), "wrong-token-value") {
				t.Fatal("the token was printed")
			}
		})
	}
}

// TestPlanJSON checks the documented JSON form a CI bot reads: version,
// objects sorted by kind, namespace and name, changes with both values.
func TestPlanJSON(t *testing.T) {
	fake, url := seedPlanForge(t)
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `apiVersion: forge.forgeops.dev/v1alpha1
kind: Project
metadata: {name: roadmap, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, title: Roadmap, description: Plans, cardType: images_and_text}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: OrgHook
metadata: {name: signed, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "https://signed.example.com/hook", secretRef: {name: s, key: k}}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Organization
metadata: {name: acme, namespace: team}
spec: {forgeRef: {name: gitea}, description: old}
`
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-", "-o", "json"}, strings.NewReader(manifests), &out, &errOut)
	if code != 2 {
		t.Fatalf("exit code %d, want 2; stderr: %s", code, errOut.String())
	}
	var got plan.Plan
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	want := plan.Plan{Version: 1, Objects: []plan.Item{
		{Kind: "OrgHook", Namespace: "team", Name: "signed", Action: plan.Replace, Reason: "secret cannot be changed in place",
			Changes: []plan.Change{}},
		{Kind: "Organization", Namespace: "team", Name: "acme", Action: plan.InSync, Changes: []plan.Change{}},
		{Kind: "Project", Namespace: "team", Name: "roadmap", Action: plan.Update, Changes: []plan.Change{
			{Field: "cardType", Forge: `"text_only"`, Spec: `"images_and_text"`},
			{Field: "description", Forge: `""`, Spec: `"Plans"`},
		}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	// The keys a bot reads, spelled as documented.
	for _, key := range []string{`"version": 1`, `"objects"`, `"kind"`, `"namespace"`, `"name"`, `"action"`, `"reason"`, `"changes"`, `"field"`, `"forge"`, `"spec"`} {
		if !strings.Contains(out.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}

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
apiVersion: forge.forgeops.dev/v1alpha1
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
apiVersion: forge.forgeops.dev/v1alpha1
kind: Repository
metadata: {name: docs, namespace: team}
spec:
  forgeRef: {name: gitea}
  owner: acme
`
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
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
	fake, url := seedPlanForge(t)
	fake.AddUser("alice")
	fake.AddUser("bob")
	fc, err := forge.New(forge.Config{URL: url, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tm, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "platform", UnitsMap: map[string]string{"repo.code": "read"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.AddTeamMember(ctx, tm.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	manifests := `
apiVersion: forge.forgeops.dev/v1alpha1
kind: Team
metadata: {name: platform, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  description: Runs the platform
  units: {code: write, issues: read}
  members: [alice]
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Team
metadata: {name: docs, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
`
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
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
apiVersion: forge.forgeops.dev/v1alpha1
kind: ActionsSecret
metadata: {name: deploy-token, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  valueFrom: {secretKeyRef: {name: web-ci, key: token}}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: ActionsVariable
metadata: {name: go-version, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  value: "1.26"
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: ActionsVariable
metadata: {name: new-one, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  value: "x"
`
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
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
apiVersion: forge.forgeops.dev/v1alpha1
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
apiVersion: forge.forgeops.dev/v1alpha1
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
	code := cli.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
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
apiVersion: forge.forgeops.dev/v1alpha1
kind: TagProtection
metadata: {name: web-v, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  namePattern: v*
  whitelistTeams: [OWNERS]
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: TagProtection
metadata: {name: web-release, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  namePattern: release-*
  whitelistTeams: []
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: TagProtection
metadata: {name: web-nightly, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  namePattern: nightly-*
  whitelistTeams: [Owners]
`
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
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
		code := cli.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
		if errOut.Len() > 0 {
			t.Errorf("stderr: %s", errOut.String())
		}
		return code, out.String()
	}
	const resources = `
apiVersion: forge.forgeops.dev/v1alpha1
kind: Organization
metadata: {name: acme, namespace: team}
spec: {forgeRef: REF, description: new}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: bug, namespace: team}
spec: {forgeRef: REF, organization: acme, color: "#FF0000"}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: Label
metadata: {name: web-feature, namespace: team}
spec: {forgeRef: REF, repository: acme/web, name: feature, color: "#00ff00"}
`
	const want = "Label team/bug: in sync\n" +
		"Label team/web-feature: create\n" +
		"Organization team/acme: update\n  description: \"old\" -> \"new\"\n" +
		"Plan: 1 create, 1 update, 1 in sync.\n"
	forgeCode, forgeText := plan(strings.ReplaceAll(resources, "REF", "{name: shared}"))
	clusterCode, clusterText := plan(`apiVersion: forge.forgeops.dev/v1alpha1
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
apiVersion: forge.forgeops.dev/v1alpha1
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
apiVersion: forge.forgeops.dev/v1alpha1
kind: PushMirror
metadata: {name: web-github, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://github.com/acme/web.git
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: PushMirror
metadata: {name: web-mirror, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://mirror.example.com/web.git
  interval: 1h
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: PushMirror
metadata: {name: web-backup, namespace: team}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://backup.example.com/web.git
  auth: {passwordSecretRef: {name: backup, key: token}}
`
	var out, errOut bytes.Buffer
	code := cli.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
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
