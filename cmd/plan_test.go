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
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

const hookSecret = "s3cret-hook-value"

// seedPlanTeam is seedPlanForge with users alice and bob and the team
// acme/platform (code read) whose one member is bob; fc is a client of it.
func seedPlanTeam(t *testing.T) (*fakeforge.Server, string, forge.Interface) {
	t.Helper()
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
	return fake, url, fc
}

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
apiVersion: forge.forgeops.dev/v1beta1
kind: Forge
metadata: {name: gitea, namespace: team}
spec: {url: https://git.example.com, auth: {tokenSecretRef: {name: gitea-token}}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: acme, namespace: team}
spec: {forgeRef: {name: gitea}, description: new}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: newco, namespace: team}
spec: {forgeRef: {name: gitea}, fullName: New Co}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: bug, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, color: "#FF0000"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: bug-again, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, name: bug, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: web-feature, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, name: feature, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: newco-bug, namespace: team}
spec: {forgeRef: {name: gitea}, organization: newco, name: bug, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: paused, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, name: paused, color: "#00ff00", suspend: true}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: watched, namespace: audit}
spec: {forgeRef: {name: gitea}, name: acme, location: Lisbon, managementPolicy: Observe}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: ci, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "https://ci.example.com/hook"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: signed, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  type: gitea
  url: "https://signed.example.com/hook"
  secretRef: {name: hook-secret, key: secret}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: chat, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  type: slack
  urlSecretRef: {name: slack-url, key: url}
  config: {channel: "#dev"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: RepoHook
metadata: {name: web-deploy, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, type: gitea, url: "https://deploy.example.com/hook", events: [release]}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Project
metadata: {name: roadmap, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, title: Roadmap, state: closed}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: RunnerSetting
metadata: {name: r1, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, runner: {name: r1}, disabled: true}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: RunnerSetting
metadata: {name: r9, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, runner: {name: r9}, disabled: true}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: LabelSet
metadata: {name: web-labels, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {names: [acme/web]}
  labels: [{name: bug, color: "#ff0000"}]
---
apiVersion: forge.forgeops.dev/v1beta1
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
	code := cmd.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(planManifests), &out, &errOut)
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
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(`apiVersion: forge.forgeops.dev/v1beta1
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
	inSync := write("sync/org.yaml", `apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: acme}
spec: {forgeRef: {name: gitea}, description: old}
`)
	write("sync/nested/label.yml", `apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: bug}
spec: {forgeRef: {name: gitea}, organization: acme, color: "ff0000"}
`)
	write("sync/README.md", "not a manifest: skipped in a directory")
	pending := write("pending.json", `{"apiVersion":"forge.forgeops.dev/v1beta1","kind":"Label","metadata":{"name":"wip"},
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
			code := cmd.RunWithInput(context.Background(), "plan", c.args, strings.NewReader(""), &out, &errOut)
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
	manifests := `apiVersion: forge.forgeops.dev/v1beta1
kind: Project
metadata: {name: roadmap, namespace: team}
spec: {forgeRef: {name: gitea}, repository: acme/web, title: Roadmap, description: Plans, cardType: images_and_text}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: signed, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "https://signed.example.com/hook", secretRef: {name: s, key: k}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: acme, namespace: team}
spec: {forgeRef: {name: gitea}, description: old}
`
	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-", "-o", "json"}, strings.NewReader(manifests), &out, &errOut)
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

// TestPlanReadsDeprecatedV1alpha1: the same manifests at the deprecated
// v1alpha1 are planned exactly as at v1beta1 (same output, same exit code,
// no forge write), and plan names every one of them with the warning the
// API server would give on applying it; a version no release serves is
// refused before any forge call.
func TestPlanReadsDeprecatedV1alpha1(t *testing.T) {
	fake, url := seedPlanForge(t)
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)
	run := func(manifests string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cmd.RunWithInput(context.Background(), "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(manifests), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, text, errText := run(planManifests)
	if strings.Contains(errText, "deprecated") {
		t.Errorf("at v1beta1, plan warns: %s", errText)
	}
	old := strings.ReplaceAll(planManifests, "forge.forgeops.dev/v1beta1", "forge.forgeops.dev/v1alpha1")
	oldCode, oldText, oldErr := run(old)
	if oldCode != code || oldText != text {
		t.Errorf("at v1alpha1: exit %d and\n%s\nwant exit %d and the v1beta1 plan\n%s", oldCode, oldText, code, text)
	}
	for _, w := range []string{
		"plan: Label team/bug: forge.forgeops.dev/v1alpha1 Label is deprecated; use forge.forgeops.dev/v1beta1 Label (docs/api.md)\n",
		"plan: LabelSet team/api-labels: forge.forgeops.dev/v1alpha1 LabelSet is deprecated; use forge.forgeops.dev/v1beta1 LabelSet (docs/api.md)\n",
		"plan: Organization audit/watched: forge.forgeops.dev/v1alpha1 Organization is deprecated",
	} {
		if !strings.Contains(oldErr, w) {
			t.Errorf("stderr at v1alpha1 lacks %q:\n%s", w, oldErr)
		}
	}
	if got, want := strings.Count(oldErr, "is deprecated"), strings.Count(planManifests, "forge.forgeops.dev/v1beta1"); got != want {
		t.Errorf("%d deprecation lines, want one per manifest at v1alpha1 (%d)", got, want)
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}

	reads := len(fake.Requests())
	code, _, errText = run(strings.Replace(planManifests, "forge.forgeops.dev/v1beta1", "forge.forgeops.dev/v2", 1))
	if code != 1 || !strings.Contains(errText, "apiVersion forge.forgeops.dev/v2 is not served") {
		t.Errorf("an unserved version: exit %d, stderr %q; want a failure naming it", code, errText)
	}
	if len(fake.Requests()) != reads {
		t.Error("plan called the forge for manifests it refused")
	}
}
