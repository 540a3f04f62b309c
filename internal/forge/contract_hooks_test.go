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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The hook behaviours are what the OrgHook and RepoHook kinds rely on:
// organization hooks and, sharing their code, repository hooks.
// TestContract runs them.
var _ = registerBehaviours("hook", []behaviour{
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
})

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
