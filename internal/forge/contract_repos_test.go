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
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The repository behaviours are what the Repository kind relies on, probed on
// Gitea 1.26.4 before the fake learnt them. TestContract runs them.
var _ = registerBehaviours("repository", []behaviour{
	{"repos/create get conflict delete", contractRepos, nil},
	{"repos/create takes init options; settings come back in GET and the listing", contractRepoCreateInit, nil},
	{"repos/PATCH renames in place; the old path redirects, a write there is refused", contractRepoRename, nil},
	{"repos/PATCH changes only what is sent, also while archived", contractRepoEditArchived, nil},
	{"repos/topics replaced, lower-cased, checked", contractRepoTopics, nil},
	{"repos/topics in the organization's listing", contractRepoTopicsListed, nil},
	{"repos/the organization's listing carries every setting an edit wrote, as GET does", contractRepoSettingsListed, nil},
	{"repos/collaborators: direct list without permission, PUT changes in place", contractRepoCollaborators, nil},
	{"repos/permissions are the caller's own: owner, stranger, team writer, read collaborator, anonymous", contractRepoPermissions, nil},
})

// contractRepoPermissions: every repository answer carries the caller's own
// access (convert.ToRepo with the doer's access mode), on GET by name and by
// id and in the organization's listing; probed on Gitea 1.27.3: the site
// admin and an organization owner {admin, push, pull}, a member of a team
// with write to the code {push, pull}, a stranger, a read collaborator and an
// anonymous caller {pull} on a public repository, the creator all three in
// the create's answer.
func contractRepoPermissions(t *testing.T, tg *target) {
	org := tg.org()
	made, err := tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: uniqueName("web")})
	mustNoErr(t, err)
	web := made.Name
	t.Cleanup(func() { _ = tg.c.DeleteRepo(context.Background(), org, web) })
	all := forge.RepoPermissions{Admin: true, Push: true, Pull: true}
	if made.Permissions == nil || *made.Permissions != all {
		t.Fatalf("the create's answer: permissions %+v", made.Permissions)
	}
	secret, err := tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: uniqueName("secret"), Private: true})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteRepo(context.Background(), org, secret.Name) })

	client := func(role string) (string, *forge.Client) {
		login, _, token := tg.scopedToken("all")
		t.Logf("%s: %s", role, login)
		return login, tg.client(forge.Config{Token: token})
	}
	ownerLogin, owner := client("owner")
	writerLogin, writer := client("writer")
	readerLogin, reader := client("read collaborator")
	_, stranger := client("stranger")
	teams, err := tg.c.ListTeams(ctx(t), org)
	mustNoErr(t, err)
	for _, tm := range teams {
		if tm.Name == "Owners" {
			mustNoErr(t, tg.c.AddTeamMember(ctx(t), tm.ID, ownerLogin))
		}
	}
	team, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "writers", Permission: "write",
		UnitsMap: map[string]string{"repo.code": "write"}})
	mustNoErr(t, err)
	mustNoErr(t, tg.c.AddTeamMember(ctx(t), team.ID, writerLogin))
	mustNoErr(t, tg.c.AddTeamRepo(ctx(t), team.ID, org, web))
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, web, readerLogin, "read"))

	for _, tc := range []struct {
		who    string
		c      *forge.Client
		public forge.RepoPermissions
		// private is the answer on the private repository (which the
		// team is not given), nil for a 404.
		private *forge.RepoPermissions
	}{
		{"the site admin", tg.c, all, &all},
		{"an organization owner", owner, all, &all},
		{"a team member with write", writer, forge.RepoPermissions{Push: true, Pull: true}, nil},
		{"a read collaborator", reader, forge.RepoPermissions{Pull: true}, nil},
		{"a stranger", stranger, forge.RepoPermissions{Pull: true}, nil},
	} {
		got := map[string]*forge.RepoPermissions{}
		r, err := tc.c.GetRepo(ctx(t), org, web)
		mustNoErr(t, err)
		got["GET /repos/{o}/{r}"] = r.Permissions
		r, err = tc.c.GetRepoByID(ctx(t), made.ID)
		mustNoErr(t, err)
		got["GET /repositories/{id}"] = r.Permissions
		listed, err := tc.c.ListOrgRepos(ctx(t), org)
		mustNoErr(t, err)
		for _, l := range listed {
			if l.ID == made.ID {
				got["GET /orgs/{org}/repos"] = l.Permissions
			}
		}
		for _, route := range []string{"GET /repos/{o}/{r}", "GET /repositories/{id}", "GET /orgs/{org}/repos"} {
			if p := got[route]; p == nil || *p != tc.public {
				t.Errorf("%s: %s of a public repository: permissions %+v, want %+v", tc.who, route, p, tc.public)
			}
		}
		r, err = tc.c.GetRepo(ctx(t), org, secret.Name)
		switch {
		case tc.private == nil && !forge.IsNotFound(err):
			t.Errorf("%s: GET of a private repository: want 404, got %+v, %v", tc.who, r, err)
		case tc.private != nil && (err != nil || r.Permissions == nil || *r.Permissions != *tc.private):
			t.Errorf("%s: GET of a private repository: %+v, %v, want permissions %+v", tc.who, r, err, *tc.private)
		}
	}
	// An anonymous caller reads a public repository with pull only.
	status, body := tg.rawWith(nil, http.MethodGet, "/api/v1/repos/"+org+"/"+web, nil)
	var anon struct {
		Permissions *forge.RepoPermissions `json:"permissions"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &anon) != nil || anon.Permissions == nil ||
		*anon.Permissions != (forge.RepoPermissions{Pull: true}) {
		t.Errorf("anonymous GET of a public repository: %d %s", status, body)
	}
}

func contractRepoCreateInit(t *testing.T, tg *target) {
	org := tg.org()
	r, err := tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: uniqueName("init"), AutoInit: true,
		DefaultBranch: "trunk", License: "MIT", Gitignores: "Go", Description: "d", Private: true})
	mustNoErr(t, err)
	if r.Empty || r.DefaultBranch != "trunk" || !r.Private || r.Description != "d" || r.ID <= 0 {
		t.Fatalf("created with auto_init: %+v", r)
	}
	if !strings.HasSuffix(r.CloneURL, "/"+org+"/"+r.Name+".git") || r.HTMLURL == "" || r.SSHURL == "" {
		t.Fatalf("urls: %q %q %q", r.HTMLURL, r.CloneURL, r.SSHURL)
	}
	bare, err := tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: uniqueName("bare")})
	mustNoErr(t, err)
	// A new repository's settings, as the Repository kind compares them.
	if !bare.Empty || bare.DefaultBranch != "main" || bare.DefaultMergeStyle != "merge" || !bare.HasIssues || !bare.HasWiki ||
		!bare.HasPullRequests || !bare.AllowSquashMerge || bare.AllowManualMerge || bare.Archived || len(bare.Topics) != 0 {
		t.Fatalf("a bare repository: %+v", bare)
	}
	// The listing carries the same settings as GET.
	all, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	i := slices.IndexFunc(all, func(x forge.Repository) bool { return x.ID == r.ID })
	got, gerr := tg.c.GetRepo(ctx(t), org, r.Name)
	mustNoErr(t, gerr)
	if i < 0 || !sameSettings(all[i], *got) {
		t.Fatalf("listing %+v, GET %+v", all, got)
	}
	byID, err := tg.c.GetRepoByID(ctx(t), r.ID)
	mustNoErr(t, err)
	if byID.Name != r.Name {
		t.Fatalf("by id: %+v", byID)
	}
	// An unknown license with auto_init fails the create (500) and makes nothing.
	name := uniqueName("badlicense")
	_, err = tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: name, AutoInit: true, License: "no-such-license"})
	wantKind(t, err, forge.KindServer)
}

// sameSettings compares what the Repository kind reads.
func sameSettings(a, b forge.Repository) bool {
	a.Owner, b.Owner = nil, nil
	return a.Name == b.Name && a.Description == b.Description && a.Website == b.Website && a.Private == b.Private &&
		a.Archived == b.Archived && a.DefaultBranch == b.DefaultBranch && a.HasWiki == b.HasWiki &&
		a.DefaultMergeStyle == b.DefaultMergeStyle && a.AllowRebaseUpdate == b.AllowRebaseUpdate &&
		slices.Equal(a.Topics, b.Topics) && a.Empty == b.Empty && a.CloneURL == b.CloneURL
}

func contractRepoRename(t *testing.T, tg *target) {
	org := tg.org()
	old := tg.repo(org)
	before, err := tg.c.GetRepo(ctx(t), org, old)
	mustNoErr(t, err)
	name := uniqueName("renamed")
	r, err := tg.c.EditRepo(ctx(t), org, old, forge.EditRepoOption{Name: &name})
	mustNoErr(t, err)
	if r.ID != before.ID || r.Name != name {
		t.Fatalf("renamed: %+v, was id %d", r, before.ID)
	}
	// The old name answers with a redirect to the new one (301 on Gitea
	// 1.26.4, for GET and PATCH alike), which the client does not follow:
	// the call is Moved, and names where the forge points.
	for _, call := range []func() error{
		func() error { _, err := tg.c.GetRepo(ctx(t), org, old); return err },
		func() error {
			_, err := tg.c.EditRepo(ctx(t), org, old, forge.EditRepoOption{Description: ptr("lost")})
			return err
		},
	} {
		err := call()
		var moved *forge.MovedError
		if !errors.As(err, &moved) || forge.KindOf(err) != forge.KindMoved || moved.StatusCode != http.StatusMovedPermanently ||
			moved.To != "/api/v1/repos/"+org+"/"+name {
			t.Fatalf("a call to the old path: %v", err)
		}
	}
	if got, err := tg.c.GetRepo(ctx(t), org, name); err != nil || got.Description == "lost" {
		t.Fatalf("after the refused PATCH: %+v, %v", got, err)
	}
	// A taken name, in any case, is 422.
	other := tg.repo(org)
	upper := strings.ToUpper(name)
	_, err = tg.c.EditRepo(ctx(t), org, other, forge.EditRepoOption{Name: &upper})
	wantKind(t, err, forge.KindValidation)
}

func contractRepoEditArchived(t *testing.T, tg *target) {
	org := tg.org()
	name := tg.repo(org)
	// A pull request setting alone is applied, except by Gitea 1.25, which
	// needs has_pull_requests: true in the same PATCH (the operator always
	// sends it with them).
	r, err := tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{DefaultMergeStyle: ptr("rebase")})
	mustNoErr(t, err)
	_, semver := tg.version()
	if want := !strings.HasPrefix(semver, "1.25."); (r.DefaultMergeStyle == "rebase") != want {
		t.Fatalf("%s: a merge style sent alone applied: %v, want %v", semver, r.DefaultMergeStyle == "rebase", want)
	}
	r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{HasWiki: ptr(false), DefaultMergeStyle: ptr("squash"),
		HasPullRequests: ptr(true), Website: ptr("https://example.com")})
	mustNoErr(t, err)
	if r.HasWiki || r.DefaultMergeStyle != "squash" || r.Website != "https://example.com" || !r.HasIssues {
		t.Fatalf("edited: %+v", r)
	}
	// The forge takes any merge style string (admission checks it).
	r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{DefaultMergeStyle: ptr("bogus"), HasPullRequests: ptr(true)})
	mustNoErr(t, err)
	if r.DefaultMergeStyle != "bogus" {
		t.Fatalf("merge style: %q", r.DefaultMergeStyle)
	}
	r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{Archived: ptr(true)})
	mustNoErr(t, err)
	if !r.Archived || r.Website != "https://example.com" {
		t.Fatalf("archived: %+v", r)
	}
	// An archived repository still takes settings, topics and collaborators.
	r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{Description: ptr("while archived")})
	mustNoErr(t, err)
	if !r.Archived || r.Description != "while archived" {
		t.Fatalf("edited while archived: %+v", r)
	}
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, name, []string{"frozen"}))
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, name, tg.user(), "read"))
	r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{Archived: ptr(false)})
	mustNoErr(t, err)
	if r.Archived || !slices.Equal(r.Topics, []string{"frozen"}) {
		t.Fatalf("unarchived: %+v", r)
	}
}

func contractRepoTopics(t *testing.T, tg *target) {
	org := tg.org()
	name := tg.repo(org)
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, name, []string{"Kubernetes", "go", "go"}))
	r, err := tg.c.GetRepo(ctx(t), org, name)
	mustNoErr(t, err)
	if !slices.Equal(r.Topics, []string{"go", "kubernetes"}) {
		t.Fatalf("topics: %q", r.Topics)
	}
	for _, bad := range [][]string{{"a_b"}, {strings.Repeat("t", 36)}, topicList(26)} {
		wantKind(t, tg.c.SetRepoTopics(ctx(t), org, name, bad), forge.KindValidation)
	}
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, name, topicList(25)))
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, name, nil))
	r, err = tg.c.GetRepo(ctx(t), org, name)
	mustNoErr(t, err)
	if len(r.Topics) != 0 {
		t.Fatalf("topics after an empty PUT: %q", r.Topics)
	}
}

// contractRepoTopicsListed: the organization's repository listing carries
// each repository's topics (lower-cased, sorted; an empty list for none) on
// Gitea 1.24.6 to 1.27.3, so a set selecting by topics needs no read per
// repository.
func contractRepoTopicsListed(t *testing.T, tg *target) {
	org := tg.org()
	both, one, none := tg.repo(org), tg.repo(org), tg.repo(org)
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, both, []string{"Service", "go"}))
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, one, []string{"service"}))
	listed, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	want := map[string][]string{both: {"go", "service"}, one: {"service"}, none: nil}
	for _, r := range listed {
		w, ok := want[r.Name]
		if !ok {
			continue
		}
		delete(want, r.Name)
		if !slices.Equal(r.Topics, w) && (len(w) > 0 || len(r.Topics) > 0) {
			t.Errorf("%s listed with topics %q, want %q", r.Name, r.Topics, w)
		}
	}
	if len(want) > 0 {
		t.Fatalf("not listed: %v", want)
	}
	status, body := tg.raw(http.MethodGet, "/api/v1/orgs/"+org+"/repos?limit=50", nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"topics":[]`) {
		t.Fatalf("a repository without topics is listed with \"topics\":[]: %d %.300s", status, body)
	}
}

func topicList(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return out
}

func contractRepoCollaborators(t *testing.T, tg *target) {
	org := tg.org()
	name := tg.repo(org)
	alice, bob := tg.user(), tg.user()
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, name, alice, "write"))
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, name, bob, "read"))
	// A permission change is a PUT in place.
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, name, alice, "admin"))
	users, err := tg.c.ListCollaborators(ctx(t), org, name)
	mustNoErr(t, err)
	var logins []string
	for _, u := range users {
		logins = append(logins, u.Login)
	}
	slices.Sort(logins)
	want := []string{alice, bob}
	slices.Sort(want)
	if !slices.Equal(logins, want) {
		t.Fatalf("collaborators %q, want %q", logins, want)
	}
	p, err := tg.c.GetCollaboratorPermission(ctx(t), org, name, alice)
	mustNoErr(t, err)
	if p != "admin" {
		t.Fatalf("alice's permission %q", p)
	}
	// Removing a user who is not a collaborator is 204; an unknown user is 422.
	mustNoErr(t, tg.c.RemoveCollaborator(ctx(t), org, name, bob))
	mustNoErr(t, tg.c.RemoveCollaborator(ctx(t), org, name, bob))
	wantKind(t, tg.c.SetCollaborator(ctx(t), org, name, uniqueName("nobody"), "read"), forge.KindValidation)
	users, err = tg.c.ListCollaborators(ctx(t), org, name)
	mustNoErr(t, err)
	if len(users) != 1 || users[0].Login != alice {
		t.Fatalf("after removing bob: %+v", users)
	}
}

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

// contractRepoSettingsListed: a RepositorySet compares every setting from
// the organization's listing, with no read per repository; the listing
// answers each as GET does (Gitea 1.24.6 to 1.27.3, each release's own
// fields).
func contractRepoSettingsListed(t *testing.T, tg *target) {
	org := tg.org()
	name := tg.repo(org)
	// Gitea 1.25 applies a pull request setting only with
	// has_pull_requests in the same edit, as the operator sends it.
	_, err := tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{Description: ptr("policy"), Website: ptr("https://example.com"),
		HasPullRequests: ptr(true), HasWiki: ptr(false), HasProjects: ptr(false), AllowMergeCommits: ptr(false), AllowRebase: ptr(false),
		DefaultMergeStyle: ptr("squash"), DefaultDeleteBranchAfterMerge: ptr(true), IgnoreWhitespaceConflicts: ptr(true)})
	mustNoErr(t, err)
	got, err := tg.c.GetRepo(ctx(t), org, name)
	mustNoErr(t, err)
	if got.HasWiki || got.AllowRebase || got.DefaultMergeStyle != "squash" || !got.DefaultDeleteBranchAfterMerge || !got.IgnoreWhitespaceConflicts {
		t.Fatalf("after the edit: %+v", got)
	}
	all, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	i := slices.IndexFunc(all, func(x forge.Repository) bool { return x.ID == got.ID })
	if i < 0 {
		t.Fatalf("%s not listed: %+v", name, all)
	}
	listed := all[i]
	listed.Owner, got.Owner = nil, nil
	if !reflect.DeepEqual(listed, *got) {
		t.Fatalf("listing %+v, GET %+v", listed, *got)
	}
}
