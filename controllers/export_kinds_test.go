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
	"crypto/ed25519"
	"crypto/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// notExported are the kinds export never writes, and why.
var notExported = map[string]string{
	"Forge":        "the Forge is what the export is applied beside (--forge-ref)",
	"ClusterForge": "the platform's connection, which the export names (--forge-ref ClusterForge/NAME)",
	"User":         "users are the site's, not the organization's that export writes",
	// A token is no object the forge lists (it hands one out on request),
	// and what a RunnerRegistrationToken would write is a Secret to create.
	"RunnerRegistrationToken": "registration tokens are not listable: a forge holds none to export",
	// Its hooks deliver to this manager's endpoint under a path derived
	// from the Receiver's uid: an exported one would be a new Receiver.
	"Receiver": "a receiver's hooks point at one manager and one resource: a new Receiver makes its own",
	// Which files of a repository a user keeps is no fact of the forge:
	// export is to propose them for the paths a user names, as a FileSet.
	"RepositoryFile": "kept files are chosen by the user, not found on the forge",
	"FileSet":        "proposed only for the paths a user names (export --files, ExportAsk.Files): TestExportFileSet",
	"RepositorySet":  "a policy is proposed only when asked (export --sets, ExportAsk.Sets): TestExportRepositorySet",
}

// TestExportWritesEveryKind: an organization holding one of everything is
// exported with a resource of every kind of the API, so that a kind added
// to the API and not to export fails here rather than going unnoticed (or
// is named in notExported with why).
func TestExportWritesEveryKind(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	org := forge.OrgScope("acme")
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	must(fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "core", UnitsMap: map[string]string{"repo.code": "write"}}))
	must(fc.CreateHook(ctx, org, forge.CreateHookOption{Type: "gitea", Active: true,
		Config: map[string]string{"url": "https://ci.example.com", "content_type": "json"}}))
	must(fc.CreateLabel(ctx, org, forge.CreateLabelOption{Name: "org-wide", Color: "ededed"}))
	must(nil, fc.CreateActionsVariable(ctx, org, "REGISTRY", "registry.example.com", ""))
	must(nil, fc.PutActionsSecret(ctx, org, "TOKEN", "s3cr3t", ""))
	runner := fake.RegisterRunner(org, "builder")
	must(fc.EditRunner(ctx, org, runner.ID, true))
	for _, r := range []string{"api", "web", "solo"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r}))
	}
	for _, r := range []string{"api", "web"} { // alike: a LabelSet and a BranchProtectionSet
		must(fc.CreateLabel(ctx, forge.RepoScope("acme", r), forge.CreateLabelOption{Name: "kind/bug", Color: "d73a4a"}))
		must(fc.CreateBranchProtection(ctx, "acme", r, forge.BranchProtection{RuleName: "main"}))
	}
	must(fc.CreateBranchProtection(ctx, "acme", "solo", forge.BranchProtection{RuleName: "release"}))
	must(fc.CreateTagProtection(ctx, "acme", "solo", forge.CreateTagProtectionOption{NamePattern: "v*", WhitelistTeams: []string{"core"}}))
	must(fc.CreateHook(ctx, forge.RepoScope("acme", "web"), forge.CreateHookOption{Type: "gitea", Active: true,
		Config: map[string]string{"url": "https://deploy.example.com", "content_type": "json"}}))
	must(fc.CreateProject(ctx, forge.RepoScope("acme", "web"), forge.CreateProjectOption{Title: "Roadmap", TemplateType: "basic_kanban"}))
	must(fc.CreateDeployKey(ctx, "acme", "web", forge.CreateDeployKeyOption{Title: "flux", Key: testKey(t), ReadOnly: true}))
	must(fc.CreatePushMirror(ctx, "acme", "web", forge.CreatePushMirrorOption{RemoteAddress: "https://github.com/acme/web.git", Interval: "8h"}))
	must(fc.CreateMilestone(ctx, "acme", "web", forge.CreateMilestoneOption{Title: "v1.0", State: "closed"}))

	var kinds []string
	for _, m := range regexp.MustCompile(`(?m)^kind: (\w+)$`).FindAllStringSubmatch(run(t, fc, "acme"), -1) {
		if !slices.Contains(kinds, m[1]) {
			kinds = append(kinds, m[1])
		}
	}
	slices.Sort(kinds)
	want := slices.DeleteFunc(slices.Sorted(slices.Values(testenv.Kinds())), func(k string) bool { return notExported[k] != "" })
	if !slices.Equal(kinds, want) {
		t.Errorf("export wrote kinds %v, want %v (every kind of the API but those in notExported)", kinds, want)
	}
}

// testKey is a fresh ed25519 public key as an authorized_keys line.
func testKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " flux@cluster"
}

// TestExportDeployKeys: a deploy key is exported with its public key,
// title and readOnly as the forge holds them, never as generate (the
// private half is not the forge's to give), and Orphan.
func TestExportDeployKeys(t *testing.T) {
	_, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}))
	line := testKey(t)
	k, err := fc.CreateDeployKey(ctx, "acme", "web", forge.CreateDeployKeyOption{Title: "ci push", Key: line})
	must(k, err)
	out := run(t, fc, "acme")
	i := strings.Index(out, "kind: DeployKey")
	if i < 0 {
		t.Fatalf("no DeployKey in\n%s", out)
	}
	doc, _, _ := strings.Cut(out[i:], "\n---")
	for _, want := range []string{"name: acme-web-deploykey-" + strconv.FormatInt(k.ID, 10), "repository: acme/web",
		"title: ci push", "readOnly: false", "deletionPolicy: Orphan",
		// YAML may fold the line before its comment.
		"publicKey: " + strings.Join(strings.Fields(line)[:2], " "), "flux@cluster"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the DeployKey lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "generate") {
		t.Errorf("a DeployKey exported with generate:\n%s", doc)
	}
}

// TestExportPushMirrors: a push mirror is exported with its address,
// interval and syncOnCommit as the forge shows them and without auth (the
// forge never shows credentials), saying so; two of one address are both
// written, each said to stall; a server with mirrors disabled has none.
func TestExportPushMirrors(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}))
	m, err := fc.CreatePushMirror(ctx, "acme", "web", forge.CreatePushMirrorOption{RemoteAddress: "https://github.com/acme/web.git",
		RemoteUsername: "git", RemotePassword: "never-exported", Interval: "1h", SyncOnCommit: true})
	must(m, err)
	out := run(t, fc, "acme")
	i := strings.Index(out, "kind: PushMirror")
	if i < 0 {
		t.Fatalf("no PushMirror in\n%s", out)
	}
	doc, _, _ := strings.Cut(out[i:], "\n---")
	for _, want := range []string{"name: acme-web-mirror-", "repository: acme/web", "remoteAddress: https://github.com/acme/web.git",
		"interval: 1h0m0s", "syncOnCommit: true", "deletionPolicy: Orphan"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the PushMirror lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "auth:") || strings.Contains(out, "never-exported") {
		t.Errorf("a PushMirror exported with credentials:\n%s", doc)
	}
	if !strings.Contains(out, "never shows a mirror's credentials") {
		t.Errorf("no comment on the missing auth:\n%s", out)
	}
	must(fc.CreatePushMirror(ctx, "acme", "web", forge.CreatePushMirrorOption{RemoteAddress: "https://github.com/acme/web.git", Interval: "8h"}))
	must(fc.CreateMilestone(ctx, "acme", "web", forge.CreateMilestoneOption{Title: "v1.0", State: "closed"}))
	if out := run(t, fc, "acme"); strings.Count(out, "kind: PushMirror") != 2 || !strings.Contains(out, "holds 2 push mirrors to https://github.com/acme/web.git") {
		t.Errorf("two mirrors of one address:\n%s", out)
	}
	fake.SetMirrorsEnabled(false)
	if out := run(t, fc, "acme"); strings.Contains(out, "kind: PushMirror") {
		t.Errorf("mirrors exported from a server with mirrors disabled:\n%s", out)
	}
}

// TestExportRepositorySet: export --sets proposes one RepositorySet over
// the organization holding the settings every live repository shares (an
// archived one aside), never one they differ in, nor a description or a
// website.
func TestExportRepositorySet(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	for _, r := range []string{"api", "web", "old"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, Description: "the " + r}))
	}
	must(fc.EditRepo(ctx, "acme", "api", forge.EditRepoOption{HasPullRequests: new(true), HasWiki: new(false),
		DefaultMergeStyle: new("squash"), AllowRebase: new(false)}))
	must(fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{HasPullRequests: new(true), HasWiki: new(false), DefaultMergeStyle: new("squash")}))
	fake.SetArchived("acme", "old", true)

	var out bytes.Buffer
	opts := export.Options{Org: "acme", Namespace: "team-a", Server: "https://git.example.com", Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		Writers: writers(t, controllers.ExportAsk{Sets: true})}
	if err := export.Export(ctx, fc, opts, &out); err != nil {
		t.Fatal(err)
	}
	doc := out.String()
	if !strings.Contains(doc, "each of the 2 live repositories hold alike") {
		t.Errorf("no comment saying what the set holds:\n%s", doc)
	}
	i := strings.Index(doc, "kind: RepositorySet")
	if i < 0 {
		t.Fatalf("no RepositorySet in\n%s", doc)
	}
	doc = doc[i:]
	for _, want := range []string{"organization: acme", "hasWiki: false", "defaultMergeStyle: squash", "hasIssues: true",
		"deletionPolicy: Orphan"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the RepositorySet lacks %q:\n%s", want, doc)
		}
	}
	for _, never := range []string{"allowRebase:", "description:", "website:"} {
		if strings.Contains(doc, never) {
			t.Errorf("the RepositorySet holds %q, which the repositories do not share or is theirs:\n%s", never, doc)
		}
	}
}
