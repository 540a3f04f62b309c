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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The rename behaviours are what renamed organizations and users answer under
// their old names, probed on Gitea 1.26.4 before the fake learnt them
// (fakeforge/renames.go says them in full): the client never
// takes an answer through a redirect for the name it called.
var _ = registerBehaviours("rename", []behaviour{
	{"renames/org: 204; the old name answers 307 on every route and method, the client calls it Moved", contractRenameOrg, nil},
	{"renames/user: 204 by the admin route; the old name answers 307, an organization there is 422", contractRenameUser, nil},
	{"renames/team by id names its organization; another organization's is Moved", contractTeamOfAnotherOrg, nil},
})

// redirect sends a request without following a redirect and gives the
// status and Location.
func (tg *target) redirect(method, path string, body any) (int, string) {
	tg.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			tg.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx(tg.t), method, tg.root+path, rd)
	if err != nil {
		tg.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+tg.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		tg.t.Fatalf("%s %s: %v", method, path, err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

func wantRedirect(t *testing.T, tg *target, method, path string, body any, location string) {
	t.Helper()
	if status, loc := tg.redirect(method, path, body); status != http.StatusTemporaryRedirect || loc != location {
		t.Fatalf("%s %s: %d to %q, want 307 to %q", method, path, status, loc, location)
	}
}

// wantMoved checks a client call met the redirect to path and was not
// followed.
func wantMoved(t *testing.T, what string, err error, to string) {
	t.Helper()
	var moved *forge.MovedError
	if !errors.As(err, &moved) || !forge.IsMoved(err) || moved.To != to {
		t.Fatalf("%s: want Moved to %s, got %v", what, to, err)
	}
}

func contractRenameOrg(t *testing.T, tg *target) {
	old := tg.org()
	repo := tg.repo(old)
	team, err := tg.c.CreateTeam(ctx(t), old, forge.CreateTeamOption{Name: "devs", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	org, _ := tg.c.GetOrg(ctx(t), old)
	name := uniqueName("renamed")
	status, body := tg.raw(http.MethodPost, "/api/v1/orgs/"+old+"/rename", map[string]string{"new_name": name})
	if status != http.StatusNoContent {
		t.Fatalf("rename: %d %s", status, body)
	}
	// The cleanups of org and repo address the old name; these run first.
	t.Cleanup(func() {
		_ = tg.c.DeleteRepo(context.Background(), name, repo)
		_ = tg.c.DeleteOrg(context.Background(), name)
	})
	got, err := tg.c.GetOrg(ctx(t), name)
	mustNoErr(t, err)
	if got.ID != org.ID || got.Name != name {
		t.Fatalf("renamed: %+v, was id %d", got, org.ID)
	}
	// Every route under the old name, reads and writes alike, answers 307
	// to the same route under the new one, the query kept.
	wantRedirect(t, tg, http.MethodGet, "/api/v1/orgs/"+old, nil, "/api/v1/orgs/"+name)
	wantRedirect(t, tg, http.MethodGet, "/api/v1/orgs/"+old+"/teams?limit=5&page=1", nil, "/api/v1/orgs/"+name+"/teams?limit=5&page=1")
	wantRedirect(t, tg, http.MethodGet, "/api/v1/repos/"+old+"/"+repo, nil, "/api/v1/repos/"+name+"/"+repo)
	wantRedirect(t, tg, http.MethodGet, "/api/v1/users/"+old, nil, "/api/v1/users/"+name)
	wantRedirect(t, tg, http.MethodPatch, "/api/v1/orgs/"+old, map[string]string{"description": "lost"}, "/api/v1/orgs/"+name)
	wantRedirect(t, tg, http.MethodPost, "/api/v1/orgs/"+old+"/teams", map[string]any{"name": "x"}, "/api/v1/orgs/"+name+"/teams")
	wantRedirect(t, tg, http.MethodDelete, "/api/v1/orgs/"+old, nil, "/api/v1/orgs/"+name)
	wantRedirect(t, tg, http.MethodGet, "/api/v1/orgs/"+strings.ToUpper(old)+"/hooks", nil, "/api/v1/orgs/"+name+"/hooks")

	// The client follows none of them.
	_, err = tg.c.GetOrg(ctx(t), old)
	wantMoved(t, "GET the old name", err, "/api/v1/orgs/"+name)
	_, err = tg.c.ListTeams(ctx(t), old)
	wantMoved(t, "list teams of the old name", err, "/api/v1/orgs/"+name+"/teams")
	_, err = tg.c.GetRepo(ctx(t), old, repo)
	wantMoved(t, "GET a repository under the old name", err, "/api/v1/repos/"+name+"/"+repo)
	_, err = tg.c.EditOrg(ctx(t), old, forge.EditOrgOption{Description: ptr("lost")})
	wantMoved(t, "PATCH the old name", err, "/api/v1/orgs/"+name)
	// A team read by id answers the organization it is in now.
	_, err = tg.c.GetTeam(ctx(t), old, team.ID)
	wantKind(t, err, forge.KindMoved)
	if got, err := tg.c.GetTeam(ctx(t), name, team.ID); err != nil || got.Organization == nil || got.Organization.Name != name {
		t.Fatalf("the team by id: %+v, %v", got, err)
	}

	// A taken name, in any case, is 422.
	other := tg.org()
	status, _ = tg.raw(http.MethodPost, "/api/v1/orgs/"+other+"/rename", map[string]string{"new_name": strings.ToUpper(name)})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("rename to a taken name: %d", status)
	}
	// An organization made under the old name takes it back: no redirect.
	_, err = tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: old})
	mustNoErr(t, err)
	again, err := tg.c.GetOrg(ctx(t), old)
	mustNoErr(t, err)
	if again.ID == org.ID {
		t.Fatalf("the old name still reads the renamed organization: %+v", again)
	}
}

func contractRenameUser(t *testing.T, tg *target) {
	old := tg.user()
	u := tg.readUser(old)
	name := uniqueName("renamed")
	status, body := tg.raw(http.MethodPost, "/api/v1/admin/users/"+old+"/rename", map[string]string{"new_username": name})
	if status != http.StatusNoContent {
		t.Fatalf("rename: %d %s", status, body)
	}
	t.Cleanup(func() { tg.raw(http.MethodDelete, "/api/v1/admin/users/"+name+"?purge=true", nil) })
	if now := tg.readUser(name); now.ID != u.ID || now.Login != name {
		t.Fatalf("renamed: %+v, was id %d", now, u.ID)
	}
	org := tg.org()
	team, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "devs", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	wantRedirect(t, tg, http.MethodGet, "/api/v1/users/"+old, nil, "/api/v1/users/"+name)
	wantRedirect(t, tg, http.MethodGet, "/api/v1/users/"+old+"/repos?limit=5", nil, "/api/v1/users/"+name+"/repos?limit=5")
	wantRedirect(t, tg, http.MethodPatch, "/api/v1/admin/users/"+old, map[string]any{"full_name": "lost"}, "/api/v1/admin/users/"+name)
	wantRedirect(t, tg, http.MethodPut, "/api/v1/teams/"+strconv.FormatInt(team.ID, 10)+"/members/"+old, nil, "/api/v1/teams/"+strconv.FormatInt(team.ID, 10)+"/members/"+name)
	// The client follows none of them: the member is not added.
	err = tg.c.AddTeamMember(ctx(t), team.ID, old)
	wantMoved(t, "add a member by the old name", err, "/api/v1/teams/"+strconv.FormatInt(team.ID, 10)+"/members/"+name)
	members, err := tg.c.ListTeamMembers(ctx(t), team.ID)
	mustNoErr(t, err)
	if len(members) != 0 {
		t.Fatalf("members after the refused add: %+v", members)
	}
	// The admin route renames users only.
	status, _ = tg.raw(http.MethodPost, "/api/v1/admin/users/"+org+"/rename", map[string]string{"new_username": uniqueName("x")})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("rename an organization as a user: %d", status)
	}
}

func contractTeamOfAnotherOrg(t *testing.T, tg *target) {
	a, b := tg.org(), tg.org()
	team, err := tg.c.CreateTeam(ctx(t), a, forge.CreateTeamOption{Name: "devs", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	if team.Organization == nil || !strings.EqualFold(team.Organization.Name, a) {
		t.Fatalf("the create's answer: %+v", team)
	}
	_, err = tg.c.GetTeam(ctx(t), b, team.ID)
	wantKind(t, err, forge.KindMoved)
	if !strings.Contains(err.Error(), "belongs to organization "+a) {
		t.Fatalf("error %q", err)
	}
	// The listing does not name the organization.
	all, err := tg.c.ListTeams(ctx(t), a)
	mustNoErr(t, err)
	for _, x := range all {
		if x.Organization != nil {
			t.Fatalf("the listing names the organization: %+v", x)
		}
	}
}
