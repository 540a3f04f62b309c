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
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The team behaviours are what the Team kind relies on, probed on Gitea 1.26.4
// (and read in the handlers of 1.24.6 and 1.25.5, which are the same)
// before the fake learnt them. TestContract runs them.
var _ = registerBehaviours("team", []behaviour{
	{"teams/Owners exists; create needs units; names unique without case", contractTeamCreate, nil},
	{"teams/PATCH: units map replaced, include-all only with permission, name optional", contractTeamEdit, nil},
	{"teams/members: added users join the organization, the last owner stays, paged", contractTeamMembers, nil},
	{"teams/repositories added and removed; unknown is 404; delete is 204 then 404", contractTeamRepos, nil},
	{"teams/repositories: adding one twice and removing one it lacks are 204; an include-all team lists every repository and keeps them", contractTeamReposIdempotent, nil},
	{"teams/a user who is no member is refused an organization's teams, 403 Must be an organization member, private or public; a member lists them", contractTeamsOfNonMember, nil},
})

func teamNamed(t *testing.T, tg *target, org, name string) *forge.Team {
	t.Helper()
	all, err := tg.c.ListTeams(ctx(t), org)
	mustNoErr(t, err)
	for i := range all {
		if strings.EqualFold(all[i].Name, name) {
			return &all[i]
		}
	}
	return nil
}

func contractTeamCreate(t *testing.T, tg *target) {
	org := tg.org()
	owners := teamNamed(t, tg, org, "owners")
	if owners == nil || owners.Name != "Owners" || owners.Permission != "owner" || !owners.IncludesAllRepositories ||
		!owners.CanCreateOrgRepo || owners.UnitsMap["repo.code"] != "owner" {
		t.Fatalf("the Owners team: %+v", owners)
	}
	_, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "noperm"})
	wantKind(t, err, forge.KindServer)
	tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "platform", Description: "d",
		UnitsMap: map[string]string{"repo.code": "write", "repo.issues": "read", "repo.wiki": "none"}})
	mustNoErr(t, err)
	want := map[string]string{"repo.code": "write", "repo.issues": "read", "repo.wiki": "none"}
	if tm.Permission != "none" || !maps.Equal(tm.UnitsMap, want) || tm.Description != "d" || tm.IncludesAllRepositories {
		t.Fatalf("created: %+v", tm)
	}
	admin, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "admins", Permission: "admin"})
	mustNoErr(t, err)
	if admin.Permission != "admin" || len(admin.UnitsMap) != 10 || admin.UnitsMap["repo.actions"] != "admin" {
		t.Fatalf("admin team: %+v", admin)
	}
	_, err = tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "PLATFORM", UnitsMap: map[string]string{"repo.code": "read"}})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "bad name!", UnitsMap: map[string]string{"repo.code": "read"}})
	wantKind(t, err, forge.KindValidation)
	listed := teamNamed(t, tg, org, "platform")
	if listed == nil || listed.ID != tm.ID || !maps.Equal(listed.UnitsMap, want) {
		t.Fatalf("listed: %+v", listed)
	}
}

func contractTeamEdit(t *testing.T, tg *target) {
	org := tg.org()
	tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "platform",
		UnitsMap: map[string]string{"repo.code": "write", "repo.issues": "read"}})
	mustNoErr(t, err)
	// A units map replaces the whole map; name may be left out.
	got, err := tg.c.EditTeam(ctx(t), org, tm.ID, forge.EditTeamOption{UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	if !maps.Equal(got.UnitsMap, map[string]string{"repo.code": "read"}) || got.Name != "platform" {
		t.Fatalf("after a partial units map: %+v", got)
	}
	// includes_all_repositories without permission is ignored.
	got, err = tg.c.EditTeam(ctx(t), org, tm.ID, forge.EditTeamOption{IncludesAllRepositories: ptr(true)})
	mustNoErr(t, err)
	if got.IncludesAllRepositories {
		t.Fatal("includes_all_repositories applied without permission")
	}
	got, err = tg.c.EditTeam(ctx(t), org, tm.ID, forge.EditTeamOption{Permission: "none", IncludesAllRepositories: ptr(true)})
	mustNoErr(t, err)
	if !got.IncludesAllRepositories || !maps.Equal(got.UnitsMap, map[string]string{"repo.code": "read"}) {
		t.Fatalf("include-all with permission none: %+v", got)
	}
	got, err = tg.c.EditTeam(ctx(t), org, tm.ID, forge.EditTeamOption{Name: "infra", Description: ptr("x"), Permission: "admin"})
	mustNoErr(t, err)
	if got.Name != "infra" || got.Description != "x" || got.Permission != "admin" || got.UnitsMap["repo.wiki"] != "admin" {
		t.Fatalf("renamed admin: %+v", got)
	}
	// "read" is not a team permission: it reads none, with the units given.
	got, err = tg.c.EditTeam(ctx(t), org, tm.ID, forge.EditTeamOption{Permission: "read", UnitsMap: map[string]string{"repo.code": "write"}})
	mustNoErr(t, err)
	if got.Permission != "none" || !maps.Equal(got.UnitsMap, map[string]string{"repo.code": "write"}) {
		t.Fatalf("back from admin: %+v", got)
	}
	other, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "other", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	// Renaming to a taken name is a 500 (the create's 422 check is not made).
	_, err = tg.c.EditTeam(ctx(t), org, other.ID, forge.EditTeamOption{Name: "INFRA"})
	wantKind(t, err, forge.KindServer)
}

func contractTeamMembers(t *testing.T, tg *target) {
	org := tg.org()
	tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "platform", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	alice, bob := tg.user(), tg.user()
	mustNoErr(t, tg.c.AddTeamMember(ctx(t), tm.ID, alice))
	mustNoErr(t, tg.c.AddTeamMember(ctx(t), tm.ID, strings.ToUpper(bob)))
	wantKind(t, tg.c.AddTeamMember(ctx(t), tm.ID, uniqueName("nobody")), forge.KindNotFound)
	members, err := tg.c.ListTeamMembers(ctx(t), tm.ID)
	mustNoErr(t, err)
	var logins []string
	for _, u := range members {
		logins = append(logins, u.Login)
	}
	slices.Sort(logins)
	want := []string{alice, bob}
	slices.Sort(want)
	if !slices.Equal(logins, want) {
		t.Fatalf("members %q, want %q", logins, want)
	}
	mustNoErr(t, tg.c.RemoveTeamMember(ctx(t), tm.ID, bob))
	mustNoErr(t, tg.c.RemoveTeamMember(ctx(t), tm.ID, bob))

	owners := teamNamed(t, tg, org, "Owners")
	ownerMembers, err := tg.c.ListTeamMembers(ctx(t), owners.ID)
	mustNoErr(t, err)
	if len(ownerMembers) != 1 {
		t.Fatalf("Owners members: %+v", ownerMembers)
	}
	wantKind(t, tg.c.RemoveTeamMember(ctx(t), owners.ID, ownerMembers[0].Login), forge.KindServer)
}

func contractTeamRepos(t *testing.T, tg *target) {
	org := tg.org()
	web := tg.repo(org)
	tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "platform", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	mustNoErr(t, tg.c.AddTeamRepo(ctx(t), tm.ID, org, web))
	wantKind(t, tg.c.AddTeamRepo(ctx(t), tm.ID, org, uniqueName("nosuch")), forge.KindNotFound)
	repos, err := tg.c.ListTeamRepos(ctx(t), tm.ID)
	mustNoErr(t, err)
	if len(repos) != 1 || repos[0].Name != web {
		t.Fatalf("team repositories: %+v", repos)
	}
	mustNoErr(t, tg.c.RemoveTeamRepo(ctx(t), tm.ID, org, web))
	repos, err = tg.c.ListTeamRepos(ctx(t), tm.ID)
	mustNoErr(t, err)
	if len(repos) != 0 {
		t.Fatalf("after removal: %+v", repos)
	}
	mustNoErr(t, tg.c.DeleteTeam(ctx(t), org, tm.ID))
	_, err = tg.c.GetTeam(ctx(t), org, tm.ID)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteTeam(ctx(t), org, tm.ID), forge.KindNotFound)
}

// contractTeamReposIdempotent: what a RepositorySet relies on (probed on
// Gitea 1.24.6 and 1.27.3). Adding a repository the team has, and
// removing one it lacks, answer 204; a repository of another organization
// is 404. A team with includes_all_repositories lists every repository of
// its organization, a new one too; a PUT or DELETE of one answers 204 and
// leaves the listing as it was.
func contractTeamReposIdempotent(t *testing.T, tg *target) {
	org := tg.org()
	web, api := tg.repo(org), tg.repo(org)
	other := tg.org()
	elsewhere := tg.repo(other)
	tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "developers", Permission: "write", UnitsMap: map[string]string{"repo.code": "write"}})
	mustNoErr(t, err)
	mustNoErr(t, tg.c.AddTeamRepo(ctx(t), tm.ID, org, web))
	mustNoErr(t, tg.c.AddTeamRepo(ctx(t), tm.ID, org, web))
	mustNoErr(t, tg.c.RemoveTeamRepo(ctx(t), tm.ID, org, api))
	wantKind(t, tg.c.AddTeamRepo(ctx(t), tm.ID, other, elsewhere), forge.KindNotFound)
	repos, err := tg.c.ListTeamRepos(ctx(t), tm.ID)
	mustNoErr(t, err)
	if len(repos) != 1 || repos[0].Name != web {
		t.Fatalf("team repositories: %+v", repos)
	}

	all, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "everyone", Permission: "read", IncludesAllRepositories: true,
		UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	later := tg.repo(org)
	mustNoErr(t, tg.c.AddTeamRepo(ctx(t), all.ID, org, web))
	mustNoErr(t, tg.c.RemoveTeamRepo(ctx(t), all.ID, org, api))
	repos, err = tg.c.ListTeamRepos(ctx(t), all.ID)
	mustNoErr(t, err)
	var names []string
	for _, r := range repos {
		names = append(names, r.Name)
	}
	for _, want := range []string{web, api, later} {
		if !slices.Contains(names, want) {
			t.Fatalf("include-all team lists %v, without %s", names, want)
		}
	}
}

// contractTeamsOfNonMember: Gitea lists an organization's teams to its
// members only, whatever its visibility (routers/api/v1/api.go: the
// /orgs/{org}/teams group goes through reqToken and reqOrgMembership, not
// reqOrgVisible; the same in 1.24.6 and 1.27.3). Probed on 1.27.3, a
// signed-in user who is no member gets, for a private and a public
// organization alike, 403 {"message":"Must be an organization member"}
// from GET /orgs/{org}/teams and from /orgs/{org}/teams/search?q=... (which
// the client does not call), while GET /orgs/{org} of the private one is
// 404 "not found"; an unknown organization is 404 on every route. The
// client gives that 403 as KindForbidden with ErrNotOrgMember, so that a
// caller takes it for neither a missing organization nor a missing team.
// A member of one of its teams who is no owner lists them all, and reads
// the private organization.
func contractTeamsOfNonMember(t *testing.T, tg *target) {
	name, password := tg.createUser("plain")
	as := tg.client(forge.Config{Username: name, Password: password})
	for _, vis := range []string{"private", "public"} {
		org := uniqueName("ct")
		_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: org, Visibility: vis})
		mustNoErr(t, err)
		t.Cleanup(func() { _ = tg.c.DeleteOrg(context.Background(), org) })
		tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "developers", UnitsMap: map[string]string{"repo.code": "read"}})
		mustNoErr(t, err)

		_, err = as.ListTeams(ctx(t), org)
		wantKind(t, err, forge.KindForbidden)
		if !errors.Is(err, forge.ErrNotOrgMember) || !strings.Contains(err.Error(), "403 Must be an organization member") {
			t.Fatalf("%s organization's teams to a user who is no member: %v, want the 403 with ErrNotOrgMember", vis, err)
		}
		_, err = as.GetOrg(ctx(t), org)
		if vis == "private" {
			wantKind(t, err, forge.KindNotFound)
		} else {
			mustNoErr(t, err)
		}
		basic := func(req *http.Request) { req.SetBasicAuth(name, password) }
		status, data := tg.rawWith(basic, http.MethodGet, "/api/v1/orgs/"+org+"/teams", nil)
		wantAnswer(t, vis+": GET teams", status, data, http.StatusForbidden, "Must be an organization member")
		status, data = tg.rawWith(basic, http.MethodPost, "/api/v1/orgs/"+org+"/teams", map[string]any{"name": "x", "units_map": map[string]string{"repo.code": "read"}})
		wantAnswer(t, vis+": POST teams", status, data, http.StatusForbidden, "Must be an organization member")

		// A member of one of its teams, no owner, lists them.
		mustNoErr(t, tg.c.AddTeamMember(ctx(t), tm.ID, name))
		ts, err := as.ListTeams(ctx(t), org)
		mustNoErr(t, err)
		if !slices.ContainsFunc(ts, func(x forge.Team) bool { return x.Name == "developers" }) {
			t.Fatalf("%s organization's teams to a member: %+v", vis, ts)
		}
		_, err = as.GetOrg(ctx(t), org)
		mustNoErr(t, err)
		mustNoErr(t, tg.c.RemoveTeamMember(ctx(t), tm.ID, name))
	}
	_, err := as.ListTeams(ctx(t), uniqueName("nosuch"))
	wantKind(t, err, forge.KindNotFound)
}
