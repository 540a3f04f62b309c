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
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// userBehaviours are the admin user API the contract suite makes its
// members, collaborators and allow-list entries with, probed on Gitea
// 1.26.4 (and 1.25.5, 1.24.6) before the fake learnt it. TestContract
// appends them.
var userBehaviours = []struct {
	name  string
	run   func(t *testing.T, tg *target)
	needs func(tg *target) string
}{
	{"users/create get list delete; taken name or email is 422; unknown is 404", contractUserLifecycle, nil},
	{"users/the admin API is the site admin's: 403 to others", contractUserAdminOnly, nil},
	{"users/delete refused while the user owns repositories or belongs to an organization; purge removes them", contractUserDeleteRefused, nil},
	{"users/delete drops collaborations and allow-list entries", contractUserDeleteReferences, nil},
}

// createUser makes an account through the admin API, on the fake as on a
// live server, purged after the test; it gives its login and password.
func (tg *target) createUser(prefix string) (name, password string) {
	tg.t.Helper()
	name, password = uniqueName(prefix), "Pw-"+uniqueName("x")
	tg.rawJSON(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": name, "email": strings.ToLower(name) + "@example.com", "password": password, "must_change_password": false,
	}, nil)
	tg.t.Cleanup(func() { tg.raw(http.MethodDelete, "/api/v1/admin/users/"+name+"?purge=true", nil) })
	return name, password
}

// namedUser creates an account whose login starts with prefix (case kept).
func (tg *target) namedUser(prefix string) string {
	tg.t.Helper()
	name, _ := tg.createUser(prefix)
	return name
}

// user gives the login of a new account.
func (tg *target) user() string {
	tg.t.Helper()
	return tg.namedUser("u")
}

// apiUser is the part of the forge's User the checks read.
type apiUser struct {
	ID       int64  `json:"id"`
	Login    string `json:"login"`
	FullName string `json:"full_name"`
	Email    string `json:"email"`
	IsAdmin  bool   `json:"is_admin"`
	Active   bool   `json:"active"`
}

// wantAnswer checks a raw answer's status and that its message holds msg.
func wantAnswer(t *testing.T, what string, status int, body []byte, wantCode int, msg string) {
	t.Helper()
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &e)
	if status != wantCode || !strings.Contains(e.Message, msg) {
		t.Fatalf("%s: %d %s, want %d with a message containing %q", what, status, body, wantCode, msg)
	}
}

// listedUsers pages through GET /admin/users and gives every login.
func listedUsers(t *testing.T, tg *target) []string {
	t.Helper()
	var logins []string
	for page := 1; ; page++ {
		var users []apiUser
		tg.rawJSON(http.MethodGet, "/api/v1/admin/users?limit=50&page="+strconv.Itoa(page), nil, &users)
		if len(users) == 0 {
			return logins
		}
		for _, u := range users {
			logins = append(logins, u.Login)
		}
	}
}

func contractUserLifecycle(t *testing.T, tg *target) {
	name := uniqueName("Lc")
	email := strings.ToLower(name) + "@example.com"
	body := map[string]any{"username": name, "email": email, "password": "Pw-" + uniqueName("x"),
		"must_change_password": false, "full_name": "Life Cycle"}
	var created apiUser
	tg.rawJSON(http.MethodPost, "/api/v1/admin/users", body, &created)
	t.Cleanup(func() { tg.raw(http.MethodDelete, "/api/v1/admin/users/"+name+"?purge=true", nil) })
	want := apiUser{ID: created.ID, Login: name, FullName: "Life Cycle", Email: email, Active: true}
	if created.ID <= 0 || created != want {
		t.Fatalf("created %+v, want %+v", created, want)
	}

	// Names are found without case; the admin reads what the create gave.
	var got apiUser
	tg.rawJSON(http.MethodGet, "/api/v1/users/"+strings.ToUpper(name), nil, &got)
	if got != want {
		t.Fatalf("GET %+v, want %+v", got, want)
	}
	if !slices.Contains(listedUsers(t, tg), name) {
		t.Fatalf("%s is not in the admin listing", name)
	}

	// A name taken (any case) or an email taken is a 422, not a 409.
	status, data := tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": strings.ToUpper(name), "email": "other-" + email, "password": "Pw-" + uniqueName("x")})
	wantAnswer(t, "create a taken name", status, data, http.StatusUnprocessableEntity, "user already exists [name: "+strings.ToUpper(name)+"]")
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": uniqueName("other"), "email": strings.ToUpper(email), "password": "Pw-" + uniqueName("x")})
	wantAnswer(t, "create a taken email", status, data, http.StatusUnprocessableEntity, "e-mail already in use")
	// Users and organizations share one namespace.
	org := tg.org()
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": org, "email": "org-" + email, "password": "Pw-" + uniqueName("x")})
	wantAnswer(t, "create an organization's name", status, data, http.StatusUnprocessableEntity, "user already exists")
	// The binding first, then the password (a 400), then the model.
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{"email": email})
	wantAnswer(t, "create without a name", status, data, http.StatusUnprocessableEntity, "[Username]: Required")
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{"username": "a-", "email": "x"})
	wantAnswer(t, "create with a bad name", status, data, http.StatusUnprocessableEntity, "[Username]: invalid username")
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{"username": uniqueName("n"), "email": "no-at"})
	wantAnswer(t, "create with a bad email", status, data, http.StatusUnprocessableEntity, "[Email]: Email")
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{"username": name, "email": email, "password": "short"})
	wantAnswer(t, "create with a short password", status, data, http.StatusBadRequest, "PasswordIsRequired")
	status, data = tg.raw(http.MethodPost, "/api/v1/admin/users", map[string]any{"username": "api", "email": "api-" + email, "password": "Pw-" + uniqueName("x")})
	wantAnswer(t, "create a reserved name", status, data, http.StatusUnprocessableEntity, "name is reserved")

	unknown := uniqueName("Nobody")
	status, data = tg.raw(http.MethodGet, "/api/v1/users/"+unknown, nil)
	wantAnswer(t, "GET an unknown user", status, data, http.StatusNotFound, "user redirect does not exist [name: "+strings.ToLower(unknown)+"]")
	// An organization is a user to GET, not to DELETE.
	tg.rawJSON(http.MethodGet, "/api/v1/users/"+org, nil, &got)
	if got.Login != org {
		t.Fatalf("GET /users/%s: %+v", org, got)
	}
	status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+org, nil)
	wantAnswer(t, "DELETE an organization", status, data, http.StatusUnprocessableEntity, org+" is an organization not a user")
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+me.Login, nil)
	wantAnswer(t, "DELETE oneself", status, data, http.StatusUnprocessableEntity, "you cannot delete yourself")

	if status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+name, nil); status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", status, data)
	}
	status, data = tg.raw(http.MethodGet, "/api/v1/users/"+name, nil)
	wantAnswer(t, "GET after DELETE", status, data, http.StatusNotFound, "user redirect does not exist [name: "+strings.ToLower(name)+"]")
	if slices.Contains(listedUsers(t, tg), name) {
		t.Fatalf("deleted %s is still in the admin listing", name)
	}
	status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+name, nil)
	wantAnswer(t, "DELETE again", status, data, http.StatusNotFound, "user redirect does not exist")
	// The name is free again.
	tg.rawJSON(http.MethodPost, "/api/v1/admin/users", body, &got)
	if got.Login != name || got.ID == created.ID {
		t.Fatalf("re-created %+v after %+v", got, created)
	}
}

// asUser gives a way to send requests as a signed-in user who is not a
// site admin, and the target that user is on: on a live server one made
// through the admin API, with basic auth (a scoped token would be refused
// by its scopes first); on the fake one configured at start, with its
// token.
func asUser(t *testing.T, tg *target) (*target, func(method, path string, body any) (int, []byte)) {
	t.Helper()
	if !tg.live {
		m := newTarget(t, fakeforge.WithUser("stranger", "stranger-token"))
		auth := func(req *http.Request) { req.Header.Set("Authorization", "token stranger-token") }
		return m, func(method, path string, body any) (int, []byte) { return m.rawWith(auth, method, path, body) }
	}
	name, password := tg.createUser("u")
	auth := func(req *http.Request) { req.SetBasicAuth(name, password) }
	return tg, func(method, path string, body any) (int, []byte) { return tg.rawWith(auth, method, path, body) }
}

func contractUserAdminOnly(t *testing.T, tg *target) {
	admin, as := asUser(t, tg)
	victim := admin.user()
	const msg = "user should be the site admin"
	status, data := as(http.MethodGet, "/api/v1/admin/users", nil)
	wantAnswer(t, "list", status, data, http.StatusForbidden, msg)
	// Refused before the body is read or the name resolved.
	status, data = as(http.MethodPost, "/api/v1/admin/users", map[string]any{})
	wantAnswer(t, "create", status, data, http.StatusForbidden, msg)
	status, data = as(http.MethodDelete, "/api/v1/admin/users/"+uniqueName("nobody"), nil)
	wantAnswer(t, "delete an unknown user", status, data, http.StatusForbidden, msg)
	status, data = as(http.MethodDelete, "/api/v1/admin/users/"+victim, nil)
	wantAnswer(t, "delete", status, data, http.StatusForbidden, msg)
	// Anyone signed in reads a public user, without what only the admin sees.
	status, data = as(http.MethodGet, "/api/v1/users/"+victim, nil)
	var got apiUser
	if status != http.StatusOK || json.Unmarshal(data, &got) != nil || got.Login != victim || got.Active {
		t.Fatalf("GET /users/%s as another user: %d %s", victim, status, data)
	}
	status, data = admin.rawWith(nil, http.MethodGet, "/api/v1/admin/users", nil)
	wantAnswer(t, "list without a token", status, data, http.StatusUnauthorized, "token is required")

	// A private user is the admin's and their own to read; others get a 404.
	private := uniqueName("pv")
	admin.rawJSON(http.MethodPost, "/api/v1/admin/users", map[string]any{"username": private,
		"email": private + "@example.com", "password": "Pw-" + uniqueName("x"), "visibility": "private"}, nil)
	t.Cleanup(func() { admin.raw(http.MethodDelete, "/api/v1/admin/users/"+private+"?purge=true", nil) })
	status, data = as(http.MethodGet, "/api/v1/users/"+private, nil)
	wantAnswer(t, "GET a private user as another user", status, data, http.StatusNotFound, "Visit Project")
	var seen struct {
		Visibility string `json:"visibility"`
	}
	admin.rawJSON(http.MethodGet, "/api/v1/users/"+private, nil, &seen)
	if seen.Visibility != "private" {
		t.Fatalf("the admin reads %s as %+v", private, seen)
	}
}

func contractUserDeleteRefused(t *testing.T, tg *target) {
	org := tg.org()
	tm, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "members", UnitsMap: map[string]string{"repo.code": "read"}})
	mustNoErr(t, err)
	member := tg.user()
	mustNoErr(t, tg.c.AddTeamMember(ctx(t), tm.ID, member))
	status, data := tg.raw(http.MethodDelete, "/api/v1/admin/users/"+member, nil)
	wantAnswer(t, "DELETE a team member", status, data, http.StatusUnprocessableEntity, "user still has membership of organizations [uid: ")
	if status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+member+"?purge=true", nil); status != http.StatusNoContent {
		t.Fatalf("DELETE ?purge=true a team member: %d %s", status, data)
	}
	members, err := tg.c.ListTeamMembers(ctx(t), tm.ID)
	mustNoErr(t, err)
	if len(members) != 0 {
		t.Fatalf("team members after the purge: %+v", members)
	}

	owner := tg.user()
	repo := uniqueName("own")
	if tg.live {
		tg.rawJSON(http.MethodPost, "/api/v1/admin/users/"+owner+"/repos", map[string]any{"name": repo}, nil)
	} else {
		mustNoErr(t, tg.fake.CreateRepo(owner, repo))
	}
	status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+owner, nil)
	wantAnswer(t, "DELETE a repository owner", status, data, http.StatusUnprocessableEntity, "user still has ownership of repositories [uid: ")
	if status, data = tg.raw(http.MethodDelete, "/api/v1/admin/users/"+owner+"?purge=true", nil); status != http.StatusNoContent {
		t.Fatalf("DELETE ?purge=true a repository owner: %d %s", status, data)
	}
	_, err = tg.c.GetRepo(ctx(t), owner, repo)
	wantKind(t, err, forge.KindNotFound)
}

func contractUserDeleteReferences(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	writer, other := tg.namedUser("Wr"), tg.namedUser("wz")
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, repo, writer, "write"))
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, repo, other, "write"))
	_, err := tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "main",
		EnablePush: true, EnablePushWhitelist: true, PushWhitelistUsernames: []string{writer, other},
		EnableMergeWhitelist: true, MergeWhitelistUsernames: []string{writer}})
	mustNoErr(t, err)

	if status, data := tg.raw(http.MethodDelete, "/api/v1/admin/users/"+writer, nil); status != http.StatusNoContent {
		t.Fatalf("DELETE a collaborator: %d %s", status, data)
	}
	collaborators, err := tg.c.ListCollaborators(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(collaborators) != 1 || collaborators[0].Login != other {
		t.Fatalf("collaborators after the delete: %+v", collaborators)
	}
	rules, err := tg.c.ListBranchProtections(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(rules) != 1 || !slices.Equal(rules[0].PushWhitelistUsernames, []string{other}) || len(rules[0].MergeWhitelistUsernames) != 0 {
		t.Fatalf("rule after the delete: push %q merge %q", rules[0].PushWhitelistUsernames, rules[0].MergeWhitelistUsernames)
	}
}
