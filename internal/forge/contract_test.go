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

package forge_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestContract runs every forge behaviour the operator relies on
// (forge-behaviour.md) through the real client, against the fake or a
// live server. A behaviour the target lacks is skipped with the reason.
func TestContract(t *testing.T) {
	behaviours := []struct {
		name string
		run  func(t *testing.T, tg *target)
		// needs says why the behaviour does not apply to the target, "" when it does.
		needs func(tg *target) string
	}{
		{"server/version parses", contractVersion, nil},
		{"server/current user", contractCurrentUser, nil},
		{"auth/bad token is 401 everywhere", contractBadToken, nil},
		{"auth/no token where needed is 401 token is required", contractNoToken, nil},
		{"auth/basic", contractBasicAuth, nil},
		{"routes/unknown route is a plain-text 404", contractRouteNotFound, nil},
		{"orgs/create get edit delete", contractOrgLifecycle, nil},
		{"orgs/the user's list holds private ones as GET answers them", contractOrgListMine, nil},
		{"orgs/name rules", contractOrgNameRules, nil},
		{"orgs/duplicate name is 422, case-insensitive", contractOrgDuplicate, nil},
		{"orgs/visibility and website rules", contractOrgFieldRules, nil},
		{"orgs/edit changes only what is sent", contractOrgEditPartial, nil},
		{"orgs/delete refused while repositories remain", contractOrgDeleteWithRepos, nil},
		{"hooks/create checks in order", contractHookCreateChecks, nil},
		{"hooks/active defaults to false", contractHookActiveDefault, nil},
		{"hooks/events default, groups, case, unknown", contractHookEvents, nil},
		{"hooks/secret never returned, PATCH cannot change it", contractHookSecret, nil},
		{"hooks/PATCH replaces events, branch filter, authorization header", contractHookPatchQuirks, nil},
		{"hooks/authorization header read-back by version", contractHookAuthHeader, nil},
		{"hooks/slack channel", contractHookSlack, nil},
		{"hooks/unknown or foreign id is 404", contractHookNotFound, nil},
		{"hooks/list pages past 50", contractHookPaging, nil},
		{"repo hooks/create, read, PATCH quirks, delete as org hooks", contractRepoHookLifecycle, nil},
		{"repo hooks/one id sequence with org hooks; another scope's id is 404", contractRepoHookScopes, nil},
		{"repo hooks/list pages past 50 by count, no Link", contractRepoHookPaging, nil},
		{"labels/colour normalisation and 422", contractLabelColour, nil},
		{"labels/required fields", contractLabelRequired, nil},
		{"labels/duplicate names allowed", contractLabelDuplicates, nil},
		{"labels/PATCH without is_archived un-archives", contractLabelArchiveQuirk, nil},
		{"labels/org create ignores is_archived", contractOrgLabelArchived, nil},
		{"labels/delete unknown id is 204", contractLabelDeleteUnknown, nil},
		{"labels/unknown scope is 404", contractLabelScopeNotFound, nil},
		{"labels/list pages past 50", contractLabelPaging, nil},
		{"projects/lifecycle", contractProjects, needProjects},
		{"projects/validation", contractProjectValidation, needProjects},
		{"projects/missing API is route-not-found", contractProjectsMissing, needNoProjects},
		{"runners/register list get edit", contractRunners, nil},
		{"runners/edit needs disabled; 404 outside scope", contractRunnerEditErrors, nil},
		{"runners/missing edit endpoint is route-not-found", contractRunnerEditMissing, needFake},
		{"repos/create get conflict delete", contractRepos, nil},
	}
	behaviours = append(behaviours, issueBehaviours...)
	behaviours = append(behaviours, repositoryBehaviours...)
	behaviours = append(behaviours, generateBehaviours...)
	behaviours = append(behaviours, teamBehaviours...)
	behaviours = append(behaviours, actionsBehaviours...)
	behaviours = append(behaviours, branchProtectionBehaviours...)
	behaviours = append(behaviours, tagProtectionBehaviours...)
	behaviours = append(behaviours, userBehaviours...)
	behaviours = append(behaviours, deployKeyBehaviours...)
	behaviours = append(behaviours, runnerTokenBehaviours...)
	behaviours = append(behaviours, pushMirrorBehaviours...)
	behaviours = append(behaviours, renameBehaviours...)
	behaviours = append(behaviours, newFieldBehaviours...)
	behaviours = append(behaviours, tokenBehaviours...)
	probe := newTarget(t)
	for _, b := range behaviours {
		if b.needs != nil {
			if why := b.needs(probe); why != "" {
				// Not a skip: the behaviour is not one this server has.
				t.Logf("not applicable to %s: %s: %s", probe.describe(), b.name, why)
				continue
			}
		}
		t.Run(b.name, func(t *testing.T) {
			b.run(t, newTarget(t))
		})
	}
	if probe.live {
		return
	}
	// The fake again as Gitea 1.27.3, so its 1.27 answers are checked
	// against the same expectations real 1.27.3 meets.
	t.Run("fake@1.27.3", func(t *testing.T) {
		p127 := newTarget(t, fakeforge.WithVersion(fake127))
		for _, b := range behaviours {
			if why := notOnFake127[b.name]; why != "" {
				t.Logf("not run on the fake at %s: %s: %s", fake127, b.name, why)
				continue
			}
			if b.needs != nil && b.needs(p127) != "" {
				continue
			}
			t.Run(b.name, func(t *testing.T) {
				b.run(t, newTarget(t, fakeforge.WithVersion(fake127)))
			})
		}
	})
}

// fake127 is the release the fake is checked at besides its default.
const fake127 = "1.27.3"

// notOnFake127: behaviours not run on the fake at 1.27.3, and why.
var notOnFake127 = map[string]string{
	"server/version parses": "checks the fake's default version",
}

// needProjects: the lifecycle checks need a server with the projects API
// (the fake; no released Gitea has it yet).
func needProjects(tg *target) string {
	if !tg.hasProjects() {
		return "the server has no projects API"
	}
	return ""
}

// needNoProjects: a live server with the projects API has no missing route
// to check; the fake is switched to answer as Gitea 1.26 does.
func needNoProjects(tg *target) string {
	if tg.live && tg.hasProjects() {
		return "the server has the projects API"
	}
	return ""
}

// needFake: the check switches the fake to other server versions.
func needFake(tg *target) string {
	if tg.live {
		return "needs the fake forge's version switch"
	}
	return ""
}

// ---- server and auth ----

func contractVersion(t *testing.T, tg *target) {
	v, err := tg.c.Version(ctx(t))
	mustNoErr(t, err)
	if _, _, ok := forge.ParseVersion(v); !ok {
		t.Logf("server reports an unstamped version %q", v)
	}
	if !tg.live {
		flavor, semver, ok := forge.ParseVersion(v)
		if !ok || flavor != "gitea" || semver != "1.26.0" {
			t.Fatalf("fake version %q parsed as %q %q %v", v, flavor, semver, ok)
		}
	}
}

func contractCurrentUser(t *testing.T, tg *target) {
	u, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	if u.Login == "" || u.ID == 0 {
		t.Fatalf("current user: %+v", u)
	}
	if !tg.live && (u.Login != fakeforge.DefaultLogin || !u.IsAdmin) {
		t.Fatalf("fake user: %+v", u)
	}
}

func contractBadToken(t *testing.T, tg *target) {
	bad := tg.client(forge.Config{Token: "not-the-token"})
	_, err := bad.Version(ctx(t))
	wantKind(t, err, forge.KindUnauthorized)
	// Gitea 1.24 words it "user does not exist [uid: 0, name: ]"; the
	// operator reads the status, never the wording.
	want := "invalid username, password or token"
	if before(tg, 1, 25) {
		want = "user does not exist"
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("401 message: %v", err)
	}
	_, err = bad.GetOrg(ctx(t), "whatever")
	wantKind(t, err, forge.KindUnauthorized)
}

func contractNoToken(t *testing.T, tg *target) {
	anon := tg.client(forge.Config{})
	_, err := anon.CurrentUser(ctx(t))
	wantKind(t, err, forge.KindUnauthorized)
	if !strings.Contains(err.Error(), "token is required") {
		t.Fatalf("401 message: %v", err)
	}
	// /version needs no credentials.
	_, err = anon.Version(ctx(t))
	mustNoErr(t, err)
}

func contractBasicAuth(t *testing.T, tg *target) {
	user, pass := liveUser, livePassword
	if !tg.live {
		tg = tg.sibling(t, fakeforge.WithBasicAuth("root", "s3cret"))
		user, pass = "root", "s3cret"
	} else if user == "" {
		t.Fatal("live server: set FORGE_USER and FORGE_PASSWORD (an admin's) to check basic auth")
	}
	u, err := tg.client(forge.Config{Username: user, Password: pass}).CurrentUser(ctx(t))
	mustNoErr(t, err)
	if !strings.EqualFold(u.Login, user) {
		t.Fatalf("basic auth user %q, want %q", u.Login, user)
	}
	_, err = tg.client(forge.Config{Username: user, Password: "wrong"}).CurrentUser(ctx(t))
	wantKind(t, err, forge.KindUnauthorized)
	// A token stands in for the password.
	_, err = tg.client(forge.Config{Username: user, Password: tg.token}).CurrentUser(ctx(t))
	mustNoErr(t, err)
}

func contractRouteNotFound(t *testing.T, tg *target) {
	status, body := tg.raw(http.MethodGet, "/api/v1/no/such/route", nil)
	if status != http.StatusNotFound || strings.TrimSpace(string(body)) != "404 page not found" {
		t.Fatalf("unknown route: %d %q", status, body)
	}
	// The client tells it from a missing object.
	_, err := tg.client(forge.Config{URL: tg.root + "/no-such-prefix", Token: tg.token}).GetOrg(ctx(t), "acme")
	wantKind(t, err, forge.KindRouteNotFound)
	_, err = tg.c.GetOrg(ctx(t), uniqueName("missing"))
	wantKind(t, err, forge.KindNotFound)
}

// ---- organizations ----

func contractOrgLifecycle(t *testing.T, tg *target) {
	name := uniqueName("ct")
	created, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{
		Name: name, FullName: "Acme Corp", Email: "ops@acme.example", Description: "d",
		Website: "https://acme.example", Location: "Mars", Visibility: "limited",
		RepoAdminChangeTeamAccess: true,
	})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })
	want := forge.Organization{
		ID: created.ID, Name: name, FullName: "Acme Corp", Email: "ops@acme.example", Description: "d",
		Website: "https://acme.example", Location: "Mars", Visibility: "limited", RepoAdminChangeTeamAccess: true,
	}
	if diff := cmp.Diff(want, *created); diff != "" {
		t.Fatalf("created org (-want +got):\n%s", diff)
	}
	got, err := tg.c.GetOrg(ctx(t), strings.ToUpper(name)) // names are case-insensitive
	mustNoErr(t, err)
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Fatalf("got org (-want +got):\n%s", diff)
	}
	mustNoErr(t, tg.c.DeleteOrg(ctx(t), name))
	_, err = tg.c.GetOrg(ctx(t), name)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteOrg(ctx(t), name), forge.KindNotFound)
}

func contractOrgListMine(t *testing.T, tg *target) {
	var names []string
	for _, vis := range []string{"public", "limited", "private"} {
		name := uniqueName("mine")
		_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name, FullName: "F " + vis, Description: "d",
			Website: "https://acme.example", Location: "Mars", Visibility: vis})
		mustNoErr(t, err)
		t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })
		names = append(names, name)
	}
	mine, err := tg.c.ListMyOrgs(ctx(t))
	mustNoErr(t, err)
	for _, name := range names {
		got, err := tg.c.GetOrg(ctx(t), name)
		mustNoErr(t, err)
		i := slices.IndexFunc(mine, func(o forge.Organization) bool { return o.Name == name })
		if i < 0 {
			t.Fatalf("organization %s (%s) is not in the user's list", name, got.Visibility)
		}
		if diff := cmp.Diff(*got, mine[i]); diff != "" {
			t.Fatalf("listed %s differs from GET (-get +list):\n%s", name, diff)
		}
	}
	mustNoErr(t, tg.c.DeleteOrg(ctx(t), names[0]))
	mine, err = tg.c.ListMyOrgs(ctx(t))
	mustNoErr(t, err)
	if slices.ContainsFunc(mine, func(o forge.Organization) bool { return o.Name == names[0] }) {
		t.Fatalf("deleted organization %s still listed", names[0])
	}
}

func contractOrgNameRules(t *testing.T, tg *target) {
	cases := map[string]string{
		"-lead":    "[UserName]: invalid username",
		"trail-":   "[UserName]: invalid username",
		"dou..ble": "[UserName]: invalid username",
		"sp ace":   "[UserName]: invalid username",
		strings.Replace(uniqueName("a"), "-", "_", 1): "", // one "_" inside is fine
		strings.Repeat("a", 41):                       "[UserName]: MaxSize",
		"":                                            "[UserName]: Required",
		"api":                                         "name is reserved",
		"Explore":                                     "name is reserved",
		"acme.keys":                                   "name pattern is not allowed",
	}
	for name, msg := range cases {
		org, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name})
		if msg == "" {
			mustNoErr(t, err)
			_ = tg.c.DeleteOrg(ctx(t), org.Name)
			continue
		}
		if err == nil {
			_ = tg.c.DeleteOrg(ctx(t), name)
		}
		wantRejected(t, err, msg)
	}
}

func contractOrgDuplicate(t *testing.T, tg *target) {
	name := tg.org()
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: strings.ToUpper(name)})
	wantRejected(t, err, "user already exists")
	// Users and organizations share one namespace.
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	_, err = tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: me.Login})
	wantRejected(t, err, "user already exists")
}

func contractOrgFieldRules(t *testing.T, tg *target) {
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: uniqueName("ct"), Visibility: "secret"})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: uniqueName("ct"), Website: "ftp://acme.example"})
	wantKind(t, err, forge.KindValidation)
	name := uniqueName("ct")
	org, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })
	if org.Visibility != "public" {
		t.Fatalf("default visibility %q, want public", org.Visibility)
	}
	_, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Website: ptr("not a url")})
	wantKind(t, err, forge.KindValidation)
}

func contractOrgEditPartial(t *testing.T, tg *target) {
	orgEditPartial(t, tg)
	if !tg.live {
		orgEditPartial(t, newTarget(t, fakeforge.WithVersion("1.25.5")))
	}
}

func orgEditPartial(t *testing.T, tg *target) {
	name := uniqueName("ct")
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name, FullName: "Full", Email: "a@b.example", Location: "Here", Visibility: "private"})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })

	before, err := tg.c.GetOrg(ctx(t), name)
	mustNoErr(t, err)
	if !editsOnlySent(tg) {
		// Gitea 1.24 and 1.25 write full_name, description, website and
		// location empty when they are not sent; email and visibility stay.
		got, err := tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Description: ptr("new")})
		mustNoErr(t, err)
		if got.FullName != "" || got.Location != "" || got.Description != "new" || got.Visibility != "private" || got.Email != "a@b.example" {
			t.Fatalf("unsent fields on a release before 1.26: %+v", got)
		}
		_, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{FullName: ptr("Full"), Location: ptr("Here")})
		mustNoErr(t, err)
		before, err = tg.c.GetOrg(ctx(t), name)
		mustNoErr(t, err)
	}
	// What the operator sends (KeepUnsent) keeps them on every release.
	got, err := tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Description: ptr("new")}.KeepUnsent(before))
	mustNoErr(t, err)
	if got.FullName != "Full" || got.Location != "Here" || got.Description != "new" || got.Visibility != "private" {
		t.Fatalf("unsent fields changed: %+v", got)
	}
	// visibility "" is ignored; email "" clears from 1.26 and is ignored before.
	got, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Visibility: ptr(""), Email: ptr("")}.KeepUnsent(got))
	mustNoErr(t, err)
	wantEmail := ""
	if !editsOnlySent(tg) {
		wantEmail = "a@b.example"
	}
	if got.Visibility != "private" || got.Email != wantEmail || got.FullName != "Full" {
		t.Fatalf("after visibility \"\" and email \"\": %+v", got)
	}
	got, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Visibility: ptr("public"), RepoAdminChangeTeamAccess: ptr(true)})
	mustNoErr(t, err)
	if got.Visibility != "public" || !got.RepoAdminChangeTeamAccess {
		t.Fatalf("after edit: %+v", got)
	}
}

func contractOrgDeleteWithRepos(t *testing.T, tg *target) {
	org := uniqueName("ct")
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: org})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), org) })
	repo := tg.repo(org)
	err = tg.c.DeleteOrg(ctx(t), org)
	wantKind(t, err, forge.KindServer)
	if _, err := tg.c.GetOrg(ctx(t), org); err != nil {
		t.Fatalf("org gone after a refused delete: %v", err)
	}
	mustNoErr(t, tg.c.DeleteRepo(ctx(t), org, repo))
	mustNoErr(t, tg.c.DeleteOrg(ctx(t), org))
}

// ---- hooks ----

func hookOpt(url string) forge.CreateHookOption {
	return forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": url, "content_type": "json"}, Active: true}
}

func contractHookCreateChecks(t *testing.T, tg *target) {
	org := tg.org()
	cases := []struct {
		opt forge.CreateHookOption
		msg string
	}{
		{forge.CreateHookOption{Type: "bogus", Config: map[string]string{"content_type": "json"}}, "Invalid hook type: bogus"},
		// An empty config passes binding (Required wants the map, not keys).
		{forge.CreateHookOption{Type: "bogus", Config: map[string]string{}}, "Invalid hook type: bogus"},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{}}, "Missing config option: url"},
		{forge.CreateHookOption{Type: "gitea"}, "[Config]: Required"},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{"content_type": "xml"}}, "Missing config option: url"},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "https://x.example"}}, "Missing config option: content_type"},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "nope", "content_type": "xml"}}, "Invalid content type"},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "ftp://x.example", "content_type": "form"}}, "Invalid url"},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "not a url", "content_type": "json"}}, "Invalid url"},
	}
	for _, c := range cases {
		_, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), c.opt)
		wantRejected(t, err, c.msg)
	}
	// The ten types of the reference are accepted.
	for _, typ := range []string{"gitea", "gogs", "discord", "dingtalk", "telegram", "msteams", "feishu", "wechatwork", "packagist"} {
		opt := hookOpt("https://hooks.example/" + typ)
		opt.Type = typ
		h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
		mustNoErr(t, err)
		if h.Type != typ {
			t.Fatalf("type %q came back as %q", typ, h.Type)
		}
	}
}

func contractHookActiveDefault(t *testing.T, tg *target) {
	org := tg.org()
	var h forge.Hook
	tg.rawJSON(http.MethodPost, "/api/v1/orgs/"+org+"/hooks", map[string]any{
		"type": "gitea", "config": map[string]string{"url": "https://x.example/h", "content_type": "json"},
	}, &h)
	if h.Active {
		t.Fatal("a hook created without active is active; the forge defaults to false")
	}
	// The client always sends active.
	created, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), hookOpt("https://x.example/h2"))
	mustNoErr(t, err)
	if !created.Active {
		t.Fatal("CreateHookOption{Active: true} made an inactive hook")
	}
}

var (
	issuesGroup = []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}
	pullGroup   = []string{
		"pull_request", "pull_request_assign", "pull_request_label", "pull_request_milestone",
		"pull_request_comment", "pull_request_review", "pull_request_review_request", "pull_request_sync",
	}
)

func contractHookEvents(t *testing.T, tg *target) {
	hookEvents(t, tg)
	if !tg.live {
		hookEvents(t, newTarget(t, fakeforge.WithVersion("1.24.6")))
	}
}

func hookEvents(t *testing.T, tg *target) {
	org := tg.org()
	cases := []struct {
		in, want []string
	}{
		{nil, []string{"push"}},
		{[]string{}, []string{"push"}},
		{[]string{"issues"}, issuesGroup},
		{[]string{"pull_request"}, pullGroup},
		{[]string{"issues_only"}, []string{"issues"}},
		{[]string{"pull_request_only", "issue_comment"}, []string{"pull_request", "issue_comment"}},
		{[]string{"PUSH", "Create", "Release"}, []string{"push", "create", "release"}},
		{[]string{"push", "no_such_event"}, []string{"push"}},
		{[]string{"workflow_run", "workflow_job", "package", "status"}, []string{"workflow_run", "workflow_job", "package", "status"}},
	}
	if before(tg, 1, 25) {
		// Gitea 1.24 has no workflow_run event and drops it as unknown
		// (the hook kinds report Unsupported for it there).
		cases[len(cases)-1].want = []string{"workflow_job", "package", "status"}
	}
	for i, c := range cases {
		opt := hookOpt(fmt.Sprintf("https://x.example/%d", i))
		opt.Events = c.in
		h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
		mustNoErr(t, err)
		if diff := cmp.Diff(sorted(c.want), sorted(h.Events)); diff != "" {
			t.Fatalf("events %v (-want +got):\n%s", c.in, diff)
		}
		got, err := tg.c.GetHook(ctx(t), forge.OrgScope(org), h.ID)
		mustNoErr(t, err)
		if diff := cmp.Diff(sorted(c.want), sorted(got.Events)); diff != "" {
			t.Fatalf("events %v read back (-want +got):\n%s", c.in, diff)
		}
	}
}

func contractHookSecret(t *testing.T, tg *target) {
	org := tg.org()
	opt := hookOpt("https://x.example/s")
	opt.Config["secret"] = "hunter2"
	h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
	mustNoErr(t, err)
	if diff := cmp.Diff(map[string]string{"url": "https://x.example/s", "content_type": "json"}, h.Config); diff != "" {
		t.Fatalf("create response config (-want +got):\n%s", diff)
	}
	hooks, err := tg.c.ListHooks(ctx(t), forge.OrgScope(org))
	mustNoErr(t, err)
	for _, l := range hooks {
		if _, ok := l.Config["secret"]; ok {
			t.Fatal("list returned the secret")
		}
	}
	_, err = tg.c.EditHook(ctx(t), forge.OrgScope(org), h.ID, forge.EditHookOption{Config: map[string]string{"secret": "changed"}, Events: []string{"push"}})
	mustNoErr(t, err)
	got, err := tg.c.GetHook(ctx(t), forge.OrgScope(org), h.ID)
	mustNoErr(t, err)
	if _, ok := got.Config["secret"]; ok {
		t.Fatal("get returned the secret")
	}
	if tg.fake != nil {
		if s := tg.fake.HookSecret(org, h.ID); s != "hunter2" {
			t.Fatalf("stored secret %q after PATCH, want the original", s)
		}
	}
}

func contractHookPatchQuirks(t *testing.T, tg *target) {
	org := tg.org()
	opt := hookOpt("https://x.example/q")
	opt.Events, opt.BranchFilter, opt.AuthorizationHeader, opt.Name = []string{"release", "create"}, "main", "Bearer abc", "named"
	h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
	mustNoErr(t, err)

	// A raw PATCH with only active: the three always-replaced fields reset,
	// name and config stay.
	var got forge.Hook
	tg.rawJSON(http.MethodPatch, fmt.Sprintf("/api/v1/orgs/%s/hooks/%d", org, h.ID), map[string]any{"active": false}, &got)
	if got.Active || got.BranchFilter != "" || got.AuthorizationHeader != "" ||
		!cmp.Equal(sorted(got.Events), []string{"push"}) || got.Config["url"] != "https://x.example/q" {
		t.Fatalf("after a PATCH of active only: %+v", got)
	}
	if hasName(t, tg) && got.Name != "named" {
		t.Fatalf("name changed by a PATCH without name: %q", got.Name)
	}

	// The client states all three every time, and active/name only when set.
	edited, err := tg.c.EditHook(ctx(t), forge.OrgScope(org), h.ID, forge.EditHookOption{
		Events: []string{"issues"}, BranchFilter: "release/*", AuthorizationHeader: "Bearer xyz",
		Config: map[string]string{"url": "https://x.example/q2", "content_type": "form"},
	})
	mustNoErr(t, err)
	if edited.Active || edited.BranchFilter != "release/*" || !cmp.Equal(sorted(edited.Events), sorted(issuesGroup)) ||
		edited.Config["url"] != "https://x.example/q2" || edited.Config["content_type"] != "form" {
		t.Fatalf("after client edit: %+v", edited)
	}
	edited, err = tg.c.EditHook(ctx(t), forge.OrgScope(org), h.ID, forge.EditHookOption{Active: ptr(true), Name: ptr("renamed"), Events: []string{"push"}})
	mustNoErr(t, err)
	if !edited.Active || (hasName(t, tg) && edited.Name != "renamed") {
		t.Fatalf("after active/name edit: %+v", edited)
	}
	_, err = tg.c.EditHook(ctx(t), forge.OrgScope(org), h.ID, forge.EditHookOption{Config: map[string]string{"url": "gopher://x"}})
	wantRejected(t, err, "Invalid url")
	_, err = tg.c.EditHook(ctx(t), forge.OrgScope(org), h.ID, forge.EditHookOption{Config: map[string]string{"content_type": "xml"}})
	wantRejected(t, err, "Invalid content type")
}

// hasName: hook names exist from Gitea 1.26.
func hasName(t *testing.T, tg *target) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, 1, 26)
}

// before: the server is a Gitea release older than major.minor (the fake
// reports 1.26 unless told otherwise).
func before(tg *target, major, minor int) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && !atLeast(semver, major, minor)
}

// giteaSince: the server is Gitea major.minor or newer.
func giteaSince(tg *target, major, minor int) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, major, minor)
}

// archivedMessage is how a release refuses a write to an archived
// repository (423): "<owner>/<repo> is archived"; 1.24 names the repository
// by its Go value ("<Repository 30:acme/web> is archived"); from 1.27 the
// message names none ("repo is archived", probed on 1.27.3).
func archivedMessage(tg *target, org, repo string) string {
	switch {
	case before(tg, 1, 25):
		return org + "/" + repo + "> is archived"
	case giteaSince(tg, 1, 27):
		return "repo is archived"
	}
	return org + "/" + repo + " is archived"
}

// editsOnlySent: PATCH /orgs/{org} leaves unsent fields alone and organization
// hook lists carry Link from Gitea 1.26 (the fake treats Forgejo the same).
func editsOnlySent(tg *target) bool { return !before(tg, 1, 26) }

// hasRunnerEdit: PATCH .../actions/runners/{id} exists from Gitea 1.26
// (Forgejo has none).
func hasRunnerEdit(tg *target) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, 1, 26)
}

// atLeast compares the major.minor of a semver.
func atLeast(semver string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(semver, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

func contractHookAuthHeader(t *testing.T, tg *target) {
	check := func(tg *target) {
		org := tg.org()
		opt := hookOpt("https://x.example/a")
		opt.AuthorizationHeader = "Bearer secret-value"
		h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
		mustNoErr(t, err)
		got, err := tg.c.GetHook(ctx(t), forge.OrgScope(org), h.ID)
		mustNoErr(t, err)
		flavor, semver := tg.version()
		want := "Bearer secret-value"
		if flavor == "gitea" && atLeast(semver, 1, 27) {
			want = "" // 1.27.3 stopped returning it
		}
		if got.AuthorizationHeader != want {
			t.Fatalf("%s %s: authorization_header %q, want %q", flavor, semver, got.AuthorizationHeader, want)
		}
	}
	check(tg)
	if !tg.live {
		check(newTarget(t, fakeforge.WithVersion("1.27.3")))
		check(newTarget(t, fakeforge.WithVersion("15.0.3+gitea-1.22.0")))
	}
}

func contractHookSlack(t *testing.T, tg *target) {
	org := tg.org()
	opt := forge.CreateHookOption{Type: "slack", Config: map[string]string{"url": "https://hooks.slack.example/T", "content_type": "json"}, Active: true}
	_, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
	wantRejected(t, err, "Missing config option: channel")
	opt.Config["channel"] = "#"
	bare, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
	if giteaSince(tg, 1, 27) {
		// 1.27 takes any channel but an empty one
		// (services/webhook/slack.go IsValidSlackChannel).
		mustNoErr(t, err)
		mustNoErr(t, tg.c.DeleteHook(ctx(t), forge.OrgScope(org), bare.ID))
	} else {
		wantKind(t, err, forge.KindValidation) // 400 Invalid slack channel name
	}
	opt.Config["channel"] = " #ops "
	opt.Config["username"] = "bot"
	h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), opt)
	mustNoErr(t, err)
	want := map[string]string{
		"url": "https://hooks.slack.example/T", "content_type": "json",
		"channel": "#ops", "username": "bot", "icon_url": "", "color": "",
	}
	if diff := cmp.Diff(want, h.Config); diff != "" {
		t.Fatalf("slack config (-want +got):\n%s", diff)
	}
}

func contractHookNotFound(t *testing.T, tg *target) {
	a, b := tg.org(), tg.org()
	h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(a), hookOpt("https://x.example/n"))
	mustNoErr(t, err)
	_, err = tg.c.GetHook(ctx(t), forge.OrgScope(b), h.ID)
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.EditHook(ctx(t), forge.OrgScope(b), h.ID, forge.EditHookOption{})
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteHook(ctx(t), forge.OrgScope(b), h.ID), forge.KindNotFound)
	mustNoErr(t, tg.c.DeleteHook(ctx(t), forge.OrgScope(a), h.ID))
	wantKind(t, tg.c.DeleteHook(ctx(t), forge.OrgScope(a), h.ID), forge.KindNotFound)
	_, err = tg.c.ListHooks(ctx(t), forge.OrgScope(uniqueName("missing")))
	wantKind(t, err, forge.KindNotFound)
}

func contractHookPaging(t *testing.T, tg *target) {
	hookPaging(t, tg)
	if !tg.live {
		hookPaging(t, newTarget(t, fakeforge.WithVersion("1.25.5")))
	}
}

func hookPaging(t *testing.T, tg *target) {
	org := tg.org()
	want := map[int64]bool{}
	for i := range 53 {
		h, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), hookOpt(fmt.Sprintf("https://x.example/p%d", i)))
		mustNoErr(t, err)
		want[h.ID] = true
	}
	hooks, err := tg.c.ListHooks(ctx(t), forge.OrgScope(org))
	mustNoErr(t, err)
	got := map[int64]bool{}
	for _, h := range hooks {
		got[h.ID] = true
	}
	if len(hooks) != 53 || !cmp.Equal(want, got) {
		t.Fatalf("listed %d hooks (%d distinct), want the 53 created", len(hooks), len(got))
	}
	// Headers: X-Total-Count always (the client pages by it); Link on
	// organization hook lists from Gitea 1.26 only.
	req, _ := http.NewRequestWithContext(ctx(t), http.MethodGet, tg.root+"/api/v1/orgs/"+org+"/hooks?limit=50", nil)
	req.Header.Set("Authorization", "token "+tg.token)
	resp, err := http.DefaultClient.Do(req)
	mustNoErr(t, err)
	_ = resp.Body.Close()
	if resp.Header.Get("X-Total-Count") != "53" || strings.Contains(resp.Header.Get("Link"), `rel="next"`) != editsOnlySent(tg) {
		t.Fatalf("paging headers: X-Total-Count %q Link %q", resp.Header.Get("X-Total-Count"), resp.Header.Get("Link"))
	}
}

// ---- repository hooks ----

func contractRepoHookLifecycle(t *testing.T, tg *target) {
	org := tg.org()
	sc := forge.RepoScope(org, tg.repo(org))

	_, err := tg.c.CreateHook(ctx(t), sc, forge.CreateHookOption{Type: "bogus", Config: map[string]string{"content_type": "json"}})
	wantRejected(t, err, "Invalid hook type: bogus")
	_, err = tg.c.CreateHook(ctx(t), sc, forge.CreateHookOption{Type: "gitea", Config: map[string]string{"content_type": "json"}})
	wantRejected(t, err, "Missing config option: url")

	opt := hookOpt("https://x.example/r")
	opt.Active = false
	opt.Config["secret"] = "hunter2"
	opt.Events, opt.BranchFilter, opt.AuthorizationHeader = []string{"ISSUES", "no_such_event"}, "main", "Bearer r"
	h, err := tg.c.CreateHook(ctx(t), sc, opt)
	mustNoErr(t, err)
	if h.Active || !cmp.Equal(sorted(h.Events), sorted(issuesGroup)) || h.BranchFilter != "main" {
		t.Fatalf("created: %+v; want inactive (the forge's default), the issues group, the branch filter", h)
	}
	if diff := cmp.Diff(map[string]string{"url": "https://x.example/r", "content_type": "json"}, h.Config); diff != "" {
		t.Fatalf("create response config, never the secret (-want +got):\n%s", diff)
	}
	got, err := tg.c.GetHook(ctx(t), sc, h.ID)
	mustNoErr(t, err)
	if got.ID != h.ID || got.Type != "gitea" {
		t.Fatalf("get: %+v", got)
	}
	hooks, err := tg.c.ListHooks(ctx(t), sc)
	mustNoErr(t, err)
	if len(hooks) != 1 || hooks[0].ID != h.ID {
		t.Fatalf("list: %+v", hooks)
	}

	// PATCH cannot change the secret, and replaces events, branch filter
	// and authorization header whether sent or not.
	edited, err := tg.c.EditHook(ctx(t), sc, h.ID, forge.EditHookOption{Config: map[string]string{"secret": "changed"}, Active: ptr(true)})
	mustNoErr(t, err)
	if !edited.Active || edited.BranchFilter != "" || edited.AuthorizationHeader != "" || !cmp.Equal(sorted(edited.Events), []string{"push"}) {
		t.Fatalf("after a PATCH of active and secret: %+v", edited)
	}
	if tg.fake != nil {
		if s := tg.fake.HookSecret(sc.String(), h.ID); s != "hunter2" {
			t.Fatalf("stored secret %q after PATCH, want the original", s)
		}
	}
	_, err = tg.c.EditHook(ctx(t), sc, h.ID, forge.EditHookOption{Config: map[string]string{"url": "gopher://x"}})
	wantRejected(t, err, "Invalid url")

	mustNoErr(t, tg.c.DeleteHook(ctx(t), sc, h.ID))
	wantKind(t, tg.c.DeleteHook(ctx(t), sc, h.ID), forge.KindNotFound)
	_, err = tg.c.GetHook(ctx(t), sc, h.ID)
	wantKind(t, err, forge.KindNotFound)
}

func contractRepoHookScopes(t *testing.T, tg *target) {
	org := tg.org()
	repo, other := forge.RepoScope(org, tg.repo(org)), forge.RepoScope(org, tg.repo(org))
	first, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), hookOpt("https://x.example/o1"))
	mustNoErr(t, err)
	inRepo, err := tg.c.CreateHook(ctx(t), repo, hookOpt("https://x.example/r1"))
	mustNoErr(t, err)
	last, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), hookOpt("https://x.example/o2"))
	mustNoErr(t, err)
	if !(first.ID < inRepo.ID && inRepo.ID < last.ID) {
		t.Fatalf("hook ids %d (org), %d (repo), %d (org): want one increasing sequence", first.ID, inRepo.ID, last.ID)
	}
	for _, c := range []struct {
		sc forge.Scope
		id int64
	}{{repo, first.ID}, {other, inRepo.ID}, {forge.OrgScope(org), inRepo.ID}} {
		_, err := tg.c.GetHook(ctx(t), c.sc, c.id)
		wantKind(t, err, forge.KindNotFound)
		_, err = tg.c.EditHook(ctx(t), c.sc, c.id, forge.EditHookOption{})
		wantKind(t, err, forge.KindNotFound)
		wantKind(t, tg.c.DeleteHook(ctx(t), c.sc, c.id), forge.KindNotFound)
	}
	hooks, err := tg.c.ListHooks(ctx(t), forge.OrgScope(org))
	mustNoErr(t, err)
	if len(hooks) != 2 {
		t.Fatalf("organization lists %d hooks, want its own 2 (not the repository's)", len(hooks))
	}
	_, err = tg.c.ListHooks(ctx(t), forge.RepoScope(org, uniqueName("missing")))
	wantKind(t, err, forge.KindNotFound)
}

func contractRepoHookPaging(t *testing.T, tg *target) {
	org := tg.org()
	name := tg.repo(org)
	want := map[int64]bool{}
	for i := range 53 {
		h, err := tg.c.CreateHook(ctx(t), forge.RepoScope(org, name), hookOpt(fmt.Sprintf("https://x.example/p%d", i)))
		mustNoErr(t, err)
		want[h.ID] = true
	}
	hooks, err := tg.c.ListHooks(ctx(t), forge.RepoScope(org, name))
	mustNoErr(t, err)
	got := map[int64]bool{}
	for _, h := range hooks {
		got[h.ID] = true
	}
	if len(hooks) != 53 || !cmp.Equal(want, got) {
		t.Fatalf("listed %d hooks (%d distinct), want the 53 created", len(hooks), len(got))
	}
	req, _ := http.NewRequestWithContext(ctx(t), http.MethodGet, tg.root+"/api/v1/repos/"+org+"/"+name+"/hooks?limit=50", nil)
	req.Header.Set("Authorization", "token "+tg.token)
	resp, err := http.DefaultClient.Do(req)
	mustNoErr(t, err)
	_ = resp.Body.Close()
	if resp.Header.Get("X-Total-Count") != "53" || resp.Header.Get("Link") != "" {
		t.Fatalf("paging headers: X-Total-Count %q Link %q, want 53 and none", resp.Header.Get("X-Total-Count"), resp.Header.Get("Link"))
	}
}

// ---- labels ----

func labelScopes(t *testing.T, tg *target) []forge.Scope {
	org := tg.org()
	return []forge.Scope{forge.RepoScope(org, tg.repo(org)), forge.OrgScope(org)}
}

func contractLabelColour(t *testing.T, tg *target) {
	for _, sc := range labelScopes(t, tg) {
		for in, want := range map[string]string{"#F00": "ff0000", "ABCDEF": "abcdef", " #AbC ": "aabbcc", "#00aa11": "00aa11"} {
			l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "c" + want, Color: in})
			mustNoErr(t, err)
			if l.Color != want {
				t.Fatalf("%s: colour %q came back %q, want %q", sc, in, l.Color, want)
			}
		}
		_, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "bad", Color: "#12345g"})
		badColour := "invalid color: "
		if before(tg, 1, 25) {
			badColour = "bad color code: " // Gitea 1.24's wording
		}
		wantRejected(t, err, badColour+"#12345g")
		if !strings.Contains(err.Error(), `create label "bad" in `+sc.String()+": 422 "+badColour+"#12345g") {
			t.Fatalf("error string: %v", err)
		}
		for _, bad := range []string{"#1234", "red", "#ff00ff00"} {
			_, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "bad", Color: bad})
			wantKind(t, err, forge.KindValidation)
		}
		l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "edit-me", Color: "#000"})
		mustNoErr(t, err)
		_, err = tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Color: ptr("zzz")})
		wantRejected(t, err, badColour)
		got, err := tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Color: ptr("#FFF")})
		mustNoErr(t, err)
		if got.Color != "ffffff" {
			t.Fatalf("edited colour %q", got.Color)
		}
	}
}

func contractLabelRequired(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[0]
	_, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Color: "#fff"})
	wantRejected(t, err, "[Name]: Required")
	_, err = tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "x"})
	wantRejected(t, err, "[Color]: Required")
}

func contractLabelDuplicates(t *testing.T, tg *target) {
	for _, sc := range labelScopes(t, tg) {
		a, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "kind/bug", Color: "#f00", Exclusive: true})
		mustNoErr(t, err)
		b, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "kind/bug", Color: "#0f0", Exclusive: true})
		mustNoErr(t, err)
		if a.ID == b.ID || !a.Exclusive {
			t.Fatalf("duplicates: %+v %+v", a, b)
		}
		labels, err := tg.c.ListLabels(ctx(t), sc)
		mustNoErr(t, err)
		n := 0
		for _, l := range labels {
			if l.Name == "kind/bug" {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("%s: %d labels named kind/bug, want 2", sc, n)
		}
	}
}

func contractLabelArchiveQuirk(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[0]
	l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "old", Color: "#123", IsArchived: true, Description: "keep"})
	mustNoErr(t, err)
	if !l.IsArchived {
		t.Fatal("repository label created archived is not archived")
	}
	// The client always sends is_archived, so other edits keep it.
	got, err := tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Name: ptr("older"), IsArchived: true})
	mustNoErr(t, err)
	if !got.IsArchived || got.Name != "older" || got.Description != "keep" || got.Color != "112233" {
		t.Fatalf("after client edit: %+v", got)
	}
	// The forge un-archives on a PATCH that omits it.
	var raw forge.Label
	tg.rawJSON(http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/%s/labels/%d", sc.Owner, sc.Repo, l.ID), map[string]any{"description": "changed"}, &raw)
	if raw.IsArchived || raw.Description != "changed" || raw.Name != "older" {
		t.Fatalf("after a PATCH without is_archived: %+v", raw)
	}
}

func contractOrgLabelArchived(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[1]
	l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "old", Color: "#123", IsArchived: true})
	mustNoErr(t, err)
	if l.IsArchived {
		t.Fatal("organization label create honoured is_archived; the forge ignores it")
	}
	got, err := tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{IsArchived: true})
	mustNoErr(t, err)
	if !got.IsArchived {
		t.Fatal("organization label edit did not archive")
	}
}

func contractLabelDeleteUnknown(t *testing.T, tg *target) {
	for _, sc := range labelScopes(t, tg) {
		mustNoErr(t, tg.c.DeleteLabel(ctx(t), sc, 987654321))
		l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "gone", Color: "#000"})
		mustNoErr(t, err)
		mustNoErr(t, tg.c.DeleteLabel(ctx(t), sc, l.ID))
		_, err = tg.c.GetLabel(ctx(t), sc, l.ID)
		wantKind(t, err, forge.KindNotFound)
		_, err = tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{})
		wantKind(t, err, forge.KindNotFound)
	}
}

func contractLabelScopeNotFound(t *testing.T, tg *target) {
	org := tg.org()
	_, err := tg.c.ListLabels(ctx(t), forge.RepoScope(org, "no-such-repo"))
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.CreateLabel(ctx(t), forge.OrgScope(uniqueName("missing")), forge.CreateLabelOption{Name: "x", Color: "#fff"})
	wantKind(t, err, forge.KindNotFound)
	// A label of one scope is not found through another.
	scopes := labelScopes(t, tg)
	l, err := tg.c.CreateLabel(ctx(t), scopes[0], forge.CreateLabelOption{Name: "x", Color: "#fff"})
	mustNoErr(t, err)
	_, err = tg.c.GetLabel(ctx(t), scopes[1], l.ID)
	wantKind(t, err, forge.KindNotFound)
}

func contractLabelPaging(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[0]
	want := map[int64]string{}
	for i := range 57 {
		name := fmt.Sprintf("l%02d", 56-i) // created in reverse name order
		if i%10 == 0 {
			name = "dup"
		}
		l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: name, Color: "#abc"})
		mustNoErr(t, err)
		want[l.ID] = name
	}
	labels, err := tg.c.ListLabels(ctx(t), sc)
	mustNoErr(t, err)
	got := map[int64]string{}
	for _, l := range labels {
		got[l.ID] = l.Name
	}
	if len(labels) != 57 || !cmp.Equal(want, got) {
		t.Fatalf("listed %d labels (%d distinct), want the 57 created", len(labels), len(got))
	}
}

// ---- projects ----

// projectsRepo gives a repository on a server with the projects API.
func projectsRepo(t *testing.T, tg *target) (string, string) {
	org := tg.org()
	repo := tg.repo(org)
	if _, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), ""); err != nil {
		t.Fatal(err)
	}
	return org, repo
}

func contractProjects(t *testing.T, tg *target) {
	org, repo := projectsRepo(t, tg)
	p, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "Roadmap", Description: "d"})
	mustNoErr(t, err)
	if p.CardType != "text_only" || p.TemplateType != "none" || p.State != "open" || p.Title != "Roadmap" {
		t.Fatalf("created project defaults: %+v", p)
	}
	q, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "Triage", CardType: "images_and_text", TemplateType: "bug_triage"})
	mustNoErr(t, err)
	list, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "")
	mustNoErr(t, err)
	if len(list) != 2 || list[0].ID != q.ID {
		t.Fatalf("open projects, newest first: %+v", list)
	}
	closed, err := tg.c.EditProject(ctx(t), forge.RepoScope(org, repo), p.ID, forge.EditProjectOption{State: ptr("closed"), Description: ptr("done")})
	mustNoErr(t, err)
	if closed.State != "closed" || closed.Description != "done" || closed.Title != "Roadmap" {
		t.Fatalf("after close: %+v", closed)
	}
	open, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "")
	mustNoErr(t, err)
	all, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "all")
	mustNoErr(t, err)
	onlyClosed, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "closed")
	mustNoErr(t, err)
	if len(open) != 1 || len(all) != 2 || len(onlyClosed) != 1 || onlyClosed[0].ID != p.ID {
		t.Fatalf("open %d all %d closed %d", len(open), len(all), len(onlyClosed))
	}
	got, err := tg.c.GetProject(ctx(t), forge.RepoScope(org, repo), q.ID)
	mustNoErr(t, err)
	if got.CardType != "images_and_text" || got.TemplateType != "bug_triage" {
		t.Fatalf("get: %+v", got)
	}
	mustNoErr(t, tg.c.DeleteProject(ctx(t), forge.RepoScope(org, repo), q.ID))
	_, err = tg.c.GetProject(ctx(t), forge.RepoScope(org, repo), q.ID)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteProject(ctx(t), forge.RepoScope(org, repo), q.ID), forge.KindNotFound)
}

func contractProjectValidation(t *testing.T, tg *target) {
	org, repo := projectsRepo(t, tg)
	_, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x", CardType: "huge"})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x", TemplateType: "scrum"})
	wantKind(t, err, forge.KindValidation)
	p, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x"})
	mustNoErr(t, err)
	_, err = tg.c.EditProject(ctx(t), forge.RepoScope(org, repo), p.ID, forge.EditProjectOption{State: ptr("archived")})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.ListProjects(ctx(t), forge.RepoScope(org, "no-such-repo"), "")
	wantKind(t, err, forge.KindNotFound)
}

func contractProjectsMissing(t *testing.T, tg *target) {
	if !tg.live {
		tg = tg.sibling(t, fakeforge.WithoutProjects())
	}
	org := tg.org()
	repo := tg.repo(org)
	_, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "")
	wantKind(t, err, forge.KindRouteNotFound)
	_, err = tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x"})
	wantKind(t, err, forge.KindRouteNotFound)
	// ... while the repository itself is there.
	_, err = tg.c.GetRepo(ctx(t), org, repo)
	mustNoErr(t, err)
}

// ---- runners ----

// register registers a runner the way act_runner does and returns its id.
func register(t *testing.T, tg *target, sc forge.Scope, name string, labels ...string) int64 {
	t.Helper()
	id, err := tg.c.RegisterRunner(ctx(t), sc, name, labels...)
	if forge.IsRouteNotFound(err) || (tg.live && forge.IsNotFound(err)) {
		t.Fatalf("server cannot register runners (enable [actions] ENABLED=true): %v", err)
	}
	mustNoErr(t, err)
	return id
}

func contractRunners(t *testing.T, tg *target) {
	org := tg.org()
	repo := forge.RepoScope(org, tg.repo(org))
	orgScope := forge.OrgScope(org)
	rid := register(t, tg, repo, "repo-runner", "ubuntu-latest", "docker")
	oid := register(t, tg, orgScope, "org-runner")

	list, err := tg.c.ListRunners(ctx(t), repo)
	mustNoErr(t, err)
	if len(list) != 1 || list[0].ID != rid || list[0].Name != "repo-runner" || list[0].Disabled {
		t.Fatalf("repo runners: %+v", list)
	}
	var names []string
	for _, l := range list[0].Labels {
		names = append(names, l.Name)
	}
	if !cmp.Equal(sorted(names), []string{"docker", "ubuntu-latest"}) {
		t.Fatalf("runner labels: %+v", list[0].Labels)
	}
	list, err = tg.c.ListRunners(ctx(t), orgScope)
	mustNoErr(t, err)
	if len(list) != 1 || list[0].ID != oid {
		t.Fatalf("org runners: %+v", list)
	}
	r, err := tg.c.GetRunner(ctx(t), repo, rid)
	mustNoErr(t, err)
	if r.Status != "offline" && r.Status != "online" {
		t.Fatalf("runner status %q", r.Status)
	}

	if !hasRunnerEdit(tg) {
		// Gitea 1.24 and 1.25 list and show runners but have no PATCH:
		// the operator reports RunnerSetting Unsupported there.
		_, err = tg.c.EditRunner(ctx(t), repo, rid, true)
		wantKind(t, err, forge.KindRouteNotFound)
		return
	}
	r, err = tg.c.EditRunner(ctx(t), repo, rid, true)
	mustNoErr(t, err)
	if !r.Disabled {
		t.Fatal("runner not disabled")
	}
	r, err = tg.c.EditRunner(ctx(t), repo, rid, true) // idempotent
	mustNoErr(t, err)
	if !r.Disabled {
		t.Fatal("runner re-enabled by a repeated disable")
	}
	r, err = tg.c.GetRunner(ctx(t), repo, rid)
	mustNoErr(t, err)
	if !r.Disabled {
		t.Fatal("disable not stored")
	}
	r, err = tg.c.EditRunner(ctx(t), repo, rid, false)
	mustNoErr(t, err)
	if r.Disabled {
		t.Fatal("runner not enabled")
	}
}

func contractRunnerEditErrors(t *testing.T, tg *target) {
	org := tg.org()
	repo := forge.RepoScope(org, tg.repo(org))
	rid := register(t, tg, repo, "r1")
	// Before 1.26 there is no PATCH at all: every edit is route-not-found,
	// whatever the runner.
	editMissing := forge.KindNotFound
	if hasRunnerEdit(tg) {
		status, body := tg.raw(http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/%s/actions/runners/%d", repo.Owner, repo.Repo, rid), map[string]any{})
		if status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "[Disabled]: Required") {
			t.Fatalf("PATCH without disabled: %d %s", status, body)
		}
	} else {
		editMissing = forge.KindRouteNotFound
	}
	_, err := tg.c.EditRunner(ctx(t), repo, 987654, true)
	wantKind(t, err, editMissing)
	_, err = tg.c.GetRunner(ctx(t), repo, 987654)
	wantKind(t, err, forge.KindNotFound)
	// A repository's runner is not reachable through its organization.
	_, err = tg.c.GetRunner(ctx(t), forge.OrgScope(org), rid)
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.EditRunner(ctx(t), forge.OrgScope(org), rid, true)
	wantKind(t, err, editMissing)
	_, err = tg.c.ListRunners(ctx(t), forge.RepoScope(org, "no-such-repo"))
	wantKind(t, err, forge.KindNotFound)
}

func contractRunnerEditMissing(t *testing.T, tg *target) {
	for _, opt := range []fakeforge.Option{
		fakeforge.WithoutRunnerEdit(), fakeforge.WithVersion("1.25.3"), fakeforge.WithVersion("15.0.3+gitea-1.22.0"),
	} {
		tg := newTarget(t, opt)
		org := tg.org()
		rid := register(t, tg, forge.OrgScope(org), "r")
		_, err := tg.c.EditRunner(ctx(t), forge.OrgScope(org), rid, true)
		wantKind(t, err, forge.KindRouteNotFound)
		_, err = tg.c.GetRunner(ctx(t), forge.OrgScope(org), rid)
		mustNoErr(t, err)
	}
}

// ---- repositories ----

func contractRepos(t *testing.T, tg *target) {
	org := tg.org()
	name := tg.repo(org)
	r, err := tg.c.GetRepo(ctx(t), org, name)
	mustNoErr(t, err)
	if r.Name != name || r.FullName != org+"/"+name || r.Owner == nil || !strings.EqualFold(r.Owner.Login, org) {
		t.Fatalf("repo: %+v", r)
	}
	_, err = tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: name})
	wantKind(t, err, forge.KindConflict)
	_, err = tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: "bad name"})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateOrgRepo(ctx(t), uniqueName("missing"), forge.CreateRepoOption{Name: "x"})
	wantKind(t, err, forge.KindNotFound)
	mustNoErr(t, tg.c.DeleteRepo(ctx(t), org, name))
	_, err = tg.c.GetRepo(ctx(t), org, name)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteRepo(ctx(t), org, name), forge.KindNotFound)

	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	mine, err := tg.c.CreateUserRepo(ctx(t), forge.CreateRepoOption{Name: uniqueName("mine")})
	mustNoErr(t, err)
	if mine.Owner == nil || mine.Owner.Login != me.Login {
		t.Fatalf("user repo owner: %+v", mine.Owner)
	}
	mustNoErr(t, tg.c.DeleteRepo(ctx(t), me.Login, mine.Name))
}

func ptr[T any](v T) *T { return &v }
