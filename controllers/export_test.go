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

package controllers_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

const (
	hookSecret = "hook-secret-value-1"
	slackURL   = "https://hooks.slack.example/services/T000/B000/XXXXSECRET"
	authHeader = "Bearer auth-header-secret"
)

// newForge starts a fake forge for t and gives it, a client of it, and
// must, which fails t on an error.
func newForge(t *testing.T) (*fakeforge.Server, *forge.Client, func(any, error)) {
	t.Helper()
	fake, srv := fakeforge.NewTestServer(t)
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return fake, fc, func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// writers are the registry's export writers, with what ask asks for.
func writers(t *testing.T, ask controllers.ExportAsk) []export.Writer {
	t.Helper()
	w, err := controllers.Exporters(ask)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// seed gives an organization with what a real one holds: hooks of several
// kinds (one with a secret, a chat hook whose URL is a credential, one with
// an authorization header), labels with names no Kubernetes name allows and
// two of one name, and runners.
func seed(t *testing.T) (*forge.Client, string) {
	t.Helper()
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "Acme", FullName: "Acme Corp"}))
	must(fc.CreateHook(ctx, forge.OrgScope("Acme"), forge.CreateHookOption{Type: "gitea", Active: true,
		Config: map[string]string{"url": "https://ci.example.com", "content_type": "json", "secret": hookSecret}}))
	must(fc.CreateHook(ctx, forge.OrgScope("Acme"), forge.CreateHookOption{Type: "slack", Active: true,
		Config: map[string]string{"url": slackURL, "content_type": "json", "channel": "#ops"}}))
	must(fc.CreateHook(ctx, forge.OrgScope("Acme"), forge.CreateHookOption{Type: "gitea", Active: true, AuthorizationHeader: authHeader,
		Config: map[string]string{"url": "https://deploy.example.com", "content_type": "json"}}))
	for _, name := range []string{"Kind/Bug", "kind-bug", "dup", "dup", strings.Repeat("very-long-", 10)} {
		must(fc.CreateLabel(ctx, forge.OrgScope("Acme"), forge.CreateLabelOption{Name: name, Color: "abcdef"}))
	}
	for _, name := range []string{"r", "r", "solo"} {
		r := fake.RegisterRunner(forge.OrgScope("Acme"), name)
		must(fc.EditRunner(ctx, forge.OrgScope("Acme"), r.ID, true))
	}
	return fc, "Acme"
}

func run(t *testing.T, fc *forge.Client, org string) string {
	t.Helper()
	var out bytes.Buffer
	opts := export.Options{Org: org, Namespace: "team-a", Server: "https://git.example.com", Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		Writers: writers(t, controllers.ExportAsk{})}
	if err := export.Export(context.Background(), fc, opts, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestExportHoldsNoCredential(t *testing.T) {
	fc, org := seed(t)
	out := run(t, fc, org)
	for _, secret := range []string{fakeforge.DefaultToken, hookSecret, slackURL, "XXXXSECRET", authHeader, "auth-header-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	for _, want := range []string{
		"urlSecretRef:\n    key: url\n    name: acme-hook-2-url",
		"kubectl create secret generic acme-hook-2-url --from-literal=url=<the hook's URL>",
		"authorizationHeaderSecretRef:\n    key: header\n    name: acme-hook-3-authorization",
		"config:\n    channel: '#ops'",
		"The forge never returns a hook's secret",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
}

// TestExportCredentialURLs: hook URLs that carry a credential (Packagist's
// apiToken, a CI ?token=, user info) are exported as urlSecretRef with the
// command that makes the Secret, never as text.
func TestExportCredentialURLs(t *testing.T) {
	_, fc, _ := newForge(t)
	ctx := context.Background()
	if _, err := fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}); err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{
		"packagist": "https://packagist.org/api/update-package?username=acme&apiToken=PACKAGIST-TOKEN",
		"gitea":     "https://ci.example.com/hooks/build?token=CI-TOKEN",
		"gogs":      "https://deployer:USERINFO-PASSWORD@deploy.example.com/hook",
	}
	for _, typ := range []string{"packagist", "gitea", "gogs"} {
		if _, err := fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: typ, Active: true,
			Config: map[string]string{"url": urls[typ], "content_type": "json"}}); err != nil {
			t.Fatalf("%s hook: %v", typ, err)
		}
	}
	out := run(t, fc, "acme")
	for _, secret := range []string{"PACKAGIST-TOKEN", "CI-TOKEN", "USERINFO-PASSWORD", "apiToken", "token="} {
		if strings.Contains(out, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	for id := 1; id <= 3; id++ {
		for _, want := range []string{
			fmt.Sprintf("urlSecretRef:\n    key: url\n    name: acme-hook-%d-url", id),
			fmt.Sprintf("kubectl create secret generic acme-hook-%d-url --from-literal=url=<the hook's URL>", id),
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the export lacks %q", want)
			}
		}
	}
}

func TestExportNamesAreValidUniqueAndStable(t *testing.T) {
	fc, org := seed(t)
	out := run(t, fc, org)
	if again := run(t, fc, org); again != out {
		t.Fatalf("two exports differ:\n%s", cmp.Diff(out, again))
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	seen := map[string]bool{}
	var names []string
	for {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, Namespace string
			} `json:"metadata"`
			Spec struct {
				DeletionPolicy string `json:"deletionPolicy"`
			} `json:"spec"`
		}
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if obj.Kind == "" {
			continue
		}
		key := obj.Kind + "/" + obj.Metadata.Name
		if seen[key] {
			t.Errorf("%s written twice", key)
		}
		seen[key] = true
		if errs := validation.IsDNS1123Subdomain(obj.Metadata.Name); len(errs) > 0 {
			t.Errorf("%s: %v", key, errs)
		}
		if obj.Metadata.Namespace != "team-a" || obj.Spec.DeletionPolicy != "Orphan" {
			t.Errorf("%s: namespace %q deletionPolicy %q", key, obj.Metadata.Namespace, obj.Spec.DeletionPolicy)
		}
		names = append(names, key)
	}
	want := []string{
		"Organization/acme",
		"OrgHook/acme-hook-1", "OrgHook/acme-hook-2", "OrgHook/acme-hook-3",
		"Label/acme-label-kind-bug-", "Label/acme-label-dup", "Label/acme-label-dup-", "Label/acme-label-kind-bug",
		"Label/acme-label-very-long-very-long-very-long-very-long-",
		"RunnerSetting/acme-runner-", "RunnerSetting/acme-runner-", "RunnerSetting/acme-runner-",
		"Team/owners",
	}
	if len(names) != len(want) {
		t.Fatalf("exported %v", names)
	}
	for i := range want {
		if !strings.HasPrefix(names[i], want[i]) {
			t.Errorf("resource %d is %s, want a name starting %s", i, names[i], want[i])
		}
	}
	if !strings.Contains(out, "2 labels are named \"dup\"") {
		t.Error("duplicate label names are not called out")
	}
	if strings.Count(out, "    id: ") != 2 || !strings.Contains(out, "name: solo") {
		t.Errorf("runners of one name are selected by id, others by name:\n%s", out)
	}
}

// TestExportRepositories: repository hooks become RepoHooks, projects
// Projects, disabled repository runners RunnerSettings, and labels
// LabelSets, one per list, shared by the repositories that hold the same
// list; archived repositories are left out.
func TestExportRepositories(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	for _, r := range []string{"api", "web", "docs", "old"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r}))
	}
	standard := []forge.CreateLabelOption{{Name: "kind/bug", Color: "d73a4a", Exclusive: true}, {Name: "kind/feature", Color: "a2eeef", Exclusive: true}}
	for _, r := range []string{"api", "web"} {
		for _, l := range standard {
			must(fc.CreateLabel(ctx, forge.RepoScope("acme", r), l))
		}
	}
	for _, name := range []string{"docs", "dup", "dup"} {
		must(fc.CreateLabel(ctx, forge.RepoScope("acme", "docs"), forge.CreateLabelOption{Name: name, Color: "ffffff"}))
	}
	must(fc.CreateLabel(ctx, forge.RepoScope("acme", "old"), forge.CreateLabelOption{Name: "legacy", Color: "000000"}))
	must(fc.CreateHook(ctx, forge.RepoScope("acme", "web"), forge.CreateHookOption{Type: "gitea", Active: true,
		Config: map[string]string{"url": "https://deploy.example.com/web", "content_type": "json", "secret": hookSecret}}))
	must(fc.CreateProject(ctx, forge.RepoScope("acme", "web"), forge.CreateProjectOption{Title: "Roadmap", TemplateType: "basic_kanban"}))
	r := fake.RegisterRunner(forge.RepoScope("acme", "api"), "api-runner")
	must(fc.EditRunner(ctx, forge.RepoScope("acme", "api"), r.ID, true))
	fake.SetArchived("acme", "old", true)

	out := run(t, fc, "acme")
	if strings.Contains(out, hookSecret) || strings.Contains(out, "legacy") {
		t.Fatalf("the export holds a hook secret or an archived repository's labels:\n%s", out)
	}
	for _, want := range []string{
		"kind: RepoHook\nmetadata:\n  name: acme-web-hook-",
		"repository: acme/web\n  type: gitea\n  url: https://deploy.example.com/web",
		"kind: Project\nmetadata:\n  name: acme-web-project-",
		"templateType: basic_kanban\n  title: Roadmap",
		"kind: RunnerSetting\nmetadata:\n  name: acme-api-runner-",
		"repository: acme/api\n  runner:\n    name: api-runner",
		"# 2 repositories hold exactly these labels.\napiVersion: forge.forgeops.dev/v1beta1\nkind: LabelSet\nmetadata:\n  name: acme-labels-2-repositories",
		"repositories:\n    names:\n    - acme/api\n    - acme/web",
		"- color: '#d73a4a'\n    exclusive: true\n    name: kind/bug\n  - color: '#a2eeef'\n    exclusive: true\n    name: kind/feature",
		"# acme/docs has 2 labels named \"dup\": left out, a LabelSet cannot adopt one of several.",
		"name: acme-docs-labels\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if strings.Count(out, "kind: LabelSet") != 2 {
		t.Errorf("want 2 LabelSets (api and web share one, docs has its own):\n%s", out)
	}
}

// TestExportBranchProtections: repositories with equal rule lists share a
// BranchProtectionSet, a list of one repository becomes BranchProtections;
// every field is written at the forge's value (so applying adopts without
// a write), lists only under their switch; archived repositories are left out.
func TestExportBranchProtections(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	for _, r := range []string{"api", "web", "docs", "old"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r}))
	}
	main := forge.BranchProtection{RuleName: "main", Priority: 1, RequiredApprovals: 2, EnableStatusCheck: true,
		StatusCheckContexts: []string{"ci/build"}, BlockOnRejectedReviews: true, ProtectedFilePatterns: "*.lock"}
	for _, r := range []string{"api", "web"} {
		must(fc.CreateBranchProtection(ctx, "acme", r, main))
	}
	// A list the forge keeps under a switch that is off does nothing: left out.
	must(fc.CreateBranchProtection(ctx, "acme", "docs", forge.BranchProtection{RuleName: "release/*", EnablePush: true,
		EnableMergeWhitelist: false, MergeWhitelistUsernames: []string{fake.Login()}}))
	must(fc.CreateBranchProtection(ctx, "acme", "old", forge.BranchProtection{RuleName: "frozen"}))
	fake.SetArchived("acme", "old", true)

	out := run(t, fc, "acme")
	for _, want := range []string{
		"# 2 repositories hold exactly these branch protection rules.\napiVersion: forge.forgeops.dev/v1beta1\nkind: BranchProtectionSet\nmetadata:\n  name: acme-branch-rules-2-repositories",
		"repositories:\n    names:\n    - acme/api\n    - acme/web",
		"enableStatusCheck: true",
		"protectedFilePatterns: '*.lock'",
		"requiredApprovals: 2",
		"ruleName: main\n",
		"statusCheckContexts:\n    - ci/build",
		"kind: BranchProtection\nmetadata:\n  name: acme-docs-release-",
		"repository: acme/docs",
		"ruleName: release/*",
		"enableMergeWhitelist: false",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if strings.Contains(out, "mergeWhitelistUsernames") || strings.Contains(out, "frozen") {
		t.Errorf("the export holds a list under a switch that is off, or an archived repository's rule:\n%s", out)
	}
	if strings.Contains(out, "applyToAdmins") {
		t.Errorf("the export of a Gitea holds Forgejo's applyToAdmins (Unsupported there):\n%s", out)
	}
}

// TestExportBranchProtectionsForgejo: a Forgejo's rules are exported with
// its applyToAdmins and without the fields it lacks (priority, force push,
// blockAdminMergeOverride), which applying would find Unsupported there.
func TestExportBranchProtectionsForgejo(t *testing.T) {
	fake, fc, must := newForge(t)
	fake.SetVersion("15.0.3+gitea-1.22.0")
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}))
	must(fc.CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: "main", ApplyToAdmins: true, RequiredApprovals: 1}))
	out := run(t, fc, "acme")
	if !strings.Contains(out, "applyToAdmins: true") || !strings.Contains(out, "requiredApprovals: 1") {
		t.Errorf("the export lacks the rule's fields:\n%s", out)
	}
	for _, never := range []string{"priority", "ForcePush", "forcePush", "blockAdminMergeOverride"} {
		if strings.Contains(out, never) {
			t.Errorf("the export of a Forgejo holds %q:\n%s", never, out)
		}
	}
}

// TestExportTagProtections: each tag protection of a repository is one
// TagProtection with both lists as the forge shows them (so applying adopts
// without a write); several of one pattern are each written, with a
// comment saying they stall; archived repositories are left out.
func TestExportTagProtections(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	for _, r := range []string{"web", "old"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r}))
	}
	must(fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "Release", IncludesAllRepositories: true, UnitsMap: map[string]string{"repo.code": "write"}}))
	must(fc.CreateTagProtection(ctx, "acme", "web", forge.CreateTagProtectionOption{NamePattern: "v*", WhitelistTeams: []string{"release"}}))
	vStar := "v*"
	twin, err := fc.CreateTagProtection(ctx, "acme", "web", forge.CreateTagProtectionOption{NamePattern: "w*", WhitelistTeams: []string{"release"}})
	must(twin, err)
	must(fc.EditTagProtection(ctx, "acme", "web", twin.ID, forge.EditTagProtectionOption{NamePattern: &vStar}))
	must(fc.CreateTagProtection(ctx, "acme", "old", forge.CreateTagProtectionOption{NamePattern: "frozen*", WhitelistTeams: []string{"release"}}))
	fake.SetArchived("acme", "old", true)

	out := run(t, fc, "acme")
	for _, want := range []string{
		"kind: TagProtection\nmetadata:\n  name: acme-web-tags-1",
		"namePattern: v*\n  repository: acme/web\n  whitelistTeams:\n  - Release\n  whitelistUsernames: []",
		"# The forge holds 2 tag protections of pattern \"v*\" in acme/web",
		"deletionPolicy: Orphan",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "frozen") {
		t.Errorf("the export holds an archived repository's tag protection:\n%s", out)
	}
}

// TestExportOwnersByPermission: the Owners team is the forge's team with
// permission owner, also renamed: it is exported with its members only
// (its access is the forge's; units "owner" would be refused at
// admission), with a comment saying the operator manages it only under the
// name Owners.
func TestExportOwnersByPermission(t *testing.T) {
	_, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	teams, err := fc.ListTeams(ctx, "acme")
	if err != nil || len(teams) != 1 || teams[0].Permission != "owner" {
		t.Fatalf("a new organization's teams: %+v, %v; want its Owners team", teams, err)
	}
	must(fc.EditTeam(ctx, "acme", teams[0].ID, forge.EditTeamOption{Name: "admins"}))
	out := run(t, fc, "acme")
	for _, want := range []string{"name: admins", "is the organization's Owners team, renamed on the forge"} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
	for _, never := range []string{"units:", "permission:", "includesAllRepositories:", "canCreateOrgRepo:"} {
		if strings.Contains(out, never) {
			t.Errorf("the renamed Owners team is exported with %s:\n%s", never, out)
		}
	}
}

// TestExportForgeRef: every exported resource names the connection given,
// a Forge by its name as before or a ClusterForge with its kind, and the
// header says where the stream adopts without a write.
func TestExportForgeRef(t *testing.T) {
	fc, org := seed(t)
	cases := []struct {
		name, flag, ref, header string
	}{
		{"default", "", "forgeRef:\n    name: gitea\n", `namespace holding Forge "gitea" adopts`},
		{"a Forge by name", "git-prod", "forgeRef:\n    name: git-prod\n", `namespace holding Forge "git-prod" adopts`},
		{"a Forge by kind and name", "forge/git-prod", "forgeRef:\n    name: git-prod\n", `namespace holding Forge "git-prod" adopts`},
		{"a ClusterForge", "ClusterForge/shared", "forgeRef:\n    kind: ClusterForge\n    name: shared\n",
			`namespace that ClusterForge "shared" allows to manage Acme adopts`},
		{"a ClusterForge, kind in lower case", "clusterforge/shared", "forgeRef:\n    kind: ClusterForge\n    name: shared\n",
			`namespace that ClusterForge "shared" allows to manage Acme adopts`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := export.Options{Org: org, Namespace: "team-a", Server: "https://git.example.com", Writers: writers(t, controllers.ExportAsk{})}
			if c.flag != "" {
				ref, err := export.ParseForgeRef(c.flag)
				if err != nil {
					t.Fatal(err)
				}
				opts.ForgeRef = ref
			}
			var out bytes.Buffer
			if err := export.Export(context.Background(), fc, opts, &out); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if !strings.Contains(text, c.header) {
				t.Errorf("the header lacks %q:\n%s", c.header, text)
			}
			resources := strings.Count(text, "\nkind: ")
			if n := strings.Count(text, "\n  "+c.ref); n != resources || resources == 0 {
				t.Errorf("%d of %d resources have %q:\n%s", n, resources, c.ref, text)
			}
		})
	}
}

// TestExportGeneratedRepository: a repository made from a template is
// exported as any other, without init (the template is not exported as a
// way to make it: it exists); the template itself with template: true.
func TestExportGeneratedRepository(t *testing.T) {
	_, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "go-service", AutoInit: true, Template: true}))
	must(fc.GenerateRepo(ctx, "acme/go-service", forge.GenerateRepoOption{Owner: "acme", Name: "billing", GitContent: true}))
	out := run(t, fc, "acme")
	for _, want := range []string{"  name: billing\n", "  name: go-service\n", "  template: true\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "init:") || strings.Count(out, "template: true") != 1 {
		t.Fatalf("the export holds init, or marks the generated repository as a template:\n%s", out)
	}
}

// TestExportLaterReleaseFields: Gitea 1.27's fields (a rule's bypass
// allow-list, a team's visibility, a repository's update settings) and
// 1.25's has_code and manual-merge settings (which 1.24 never answers) are exported from a release that has them, and left out
// on one that lacks them, where a spec setting them would be Unsupported.
func TestExportLaterReleaseFields(t *testing.T) {
	for _, tc := range []struct {
		version      string
		want, absent []string
	}{
		{"1.27.3", []string{"enableBypassAllowlist: true", "bypassAllowlistUsernames:\n  - " + fakeforge.DefaultLogin,
			"visibility: limited", "hasCode: false", "allowMergeUpdate: false", "defaultUpdateStyle: rebase"}, nil},
		{"1.26.4", []string{"hasCode: false", "allowManualMerge: false"}, []string{"bypass", "Bypass", "visibility: limited", "visibility: private", "allowMergeUpdate", "defaultUpdateStyle"}},
		{"1.24.6", nil, []string{"bypass", "Bypass", "visibility: limited", "visibility: private", "hasCode", "allowMergeUpdate", "defaultUpdateStyle",
			"allowManualMerge", "autodetectManualMerge"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			fake, fc, must := newForge(t)
			fake.SetVersion(tc.version)
			ctx := context.Background()
			must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
			must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}))
			must(fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{HasCode: new(false), AllowMergeUpdate: new(false), DefaultUpdateStyle: new("rebase")}))
			must(fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "platform", Visibility: "limited", UnitsMap: map[string]string{"repo.code": "read"}}))
			must(fc.CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: "main",
				EnableBypassAllowlist: true, BypassAllowlistUsernames: []string{fakeforge.DefaultLogin}}))
			out := run(t, fc, "acme")
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("the export lacks %q:\n%s", want, out)
				}
			}
			for _, never := range tc.absent {
				if strings.Contains(out, never) {
					t.Errorf("the export holds %q:\n%s", never, out)
				}
			}
		})
	}
}
