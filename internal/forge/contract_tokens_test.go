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
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Access tokens with scopes: made with HTTP Basic (POST
// /users/{user}/tokens, every release), told by GET /token (Gitea 1.27 and
// later; a plain-text 404 before), and held to their scopes on every
// request (a write needs write:<category> of the route, a read
// read:<category>; 403 with Gitea's message otherwise).
var _ = registerBehaviours("token", []behaviour{
	{"tokens/GET /token tells the token's scopes and user from 1.27, route-not-found before", contractCurrentToken, nil},
	{"tokens/a scoped token is refused what its scopes do not cover, 403", contractScopedToken, nil},
	{"tokens/made with basic auth only, a scope required, names unique", contractTokenCreate, nil},
})

// tokenReleases are the targets a token behaviour runs on: the live
// server, or the fake as 1.26 and as 1.27.
func tokenReleases(t *testing.T, tg *target) []*target {
	if tg.live {
		return []*target{tg}
	}
	return []*target{tg, newTarget(t, fakeforge.WithVersion("1.27.3"))}
}

// hasTokenRoute: GET /token exists from Gitea 1.27.
func (tg *target) hasTokenRoute() bool {
	tg.t.Helper()
	flavor, semver := tg.version()
	var major, minor int
	if _, err := fmt.Sscanf(semver, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return flavor == forge.FlavorGitea && (major > 1 || (major == 1 && minor >= 27))
}

// scopedToken makes an account and a token of it with scopes; it gives the
// account's login and password and the token's value.
func (tg *target) scopedToken(scopes ...string) (login, password, token string) {
	tg.t.Helper()
	login, password = tg.createUser("tok")
	status, body := tg.rawWith(func(r *http.Request) { r.SetBasicAuth(login, password) }, http.MethodPost,
		"/api/v1/users/"+login+"/tokens", map[string]any{"name": uniqueName("scoped"), "scopes": scopes})
	var made struct {
		ID     int64    `json:"id"`
		SHA1   string   `json:"sha1"`
		Last8  string   `json:"token_last_eight"`
		Scopes []string `json:"scopes"`
	}
	if status != http.StatusCreated || json.Unmarshal(body, &made) != nil || made.SHA1 == "" || made.ID == 0 ||
		!strings.HasSuffix(made.SHA1, made.Last8) {
		tg.t.Fatalf("create a token with scopes %v: %d %s", scopes, status, body)
	}
	return login, password, made.SHA1
}

func contractCurrentToken(t *testing.T, tg *target) {
	for _, tg := range tokenReleases(t, tg) {
		login, password, token := tg.scopedToken("read:repository", "write:organization", "read:organization")
		c := tg.client(forge.Config{Token: token})
		got, err := c.CurrentToken(ctx(t))
		if !tg.hasTokenRoute() {
			wantKind(t, err, forge.KindRouteNotFound)
			continue
		}
		mustNoErr(t, err)
		// Normalized as Gitea stores it: read:organization is in its
		// write, the categories in Gitea's order.
		if got.ID == 0 || got.Name == "" || !slices.Equal(got.Scopes, []string{"write:organization", "read:repository"}) ||
			got.User == nil || !strings.EqualFold(got.User.Login, login) {
			t.Fatalf("%s: GET /token: %+v (user %+v)", tg.describe(), got, got.User)
		}
		// The token of every scope reads "all".
		all, err := tg.c.CurrentToken(ctx(t))
		mustNoErr(t, err)
		if !slices.Equal(all.Scopes, []string{"all"}) {
			t.Fatalf("%s: the suite's token has scopes %v", tg.describe(), all.Scopes)
		}
		// Basic auth is no token: the route answers 404 (an object's).
		_, err = tg.client(forge.Config{Username: login, Password: password}).CurrentToken(ctx(t))
		wantKind(t, err, forge.KindNotFound)
	}
}

func contractScopedToken(t *testing.T, tg *target) {
	for _, tg := range tokenReleases(t, tg) {
		_, _, token := tg.scopedToken("write:organization", "read:repository")
		c := tg.client(forge.Config{Token: token})
		refused := func(err error, required string) {
			t.Helper()
			wantKind(t, err, forge.KindForbidden)
			if want := "token does not have at least one of required scope(s), required=[" + required + "]"; !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: refusal %q does not say %q", tg.describe(), err, want)
			}
		}
		// The admin routes need write:admin, asked before the site-admin check.
		_, err := c.CreateUser(ctx(t), forge.CreateUserOption{Username: uniqueName("nope"), Email: uniqueName("nope") + "@example.com", Password: "Pw-" + uniqueName("x")})
		refused(err, "write:admin")
		// GET /user needs read:user.
		_, err = c.CurrentUser(ctx(t))
		refused(err, "read:user")
		// write:organization makes an organization...
		org := uniqueName("scoped")
		_, err = c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: org})
		mustNoErr(t, err)
		t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), org) })
		_, err = c.GetOrg(ctx(t), org)
		mustNoErr(t, err)
		// ...but from 1.27 not a repository in it: that route also asks
		// write:repository there (1.24 to 1.26 ask write:organization only).
		_, err = c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: "web"})
		if tg.hasTokenRoute() {
			refused(err, "write:repository")
			if _, err := tg.c.GetRepo(ctx(t), org, "web"); !forge.IsNotFound(err) {
				t.Fatalf("%s: the refused create made a repository: %v", tg.describe(), err)
			}
		} else {
			mustNoErr(t, err)
			t.Cleanup(func() { _ = tg.c.DeleteRepo(ctx(t), org, "web") })
		}
		// A repository's labels are the issue routes'.
		repo := tg.repo(org)
		_, err = c.CreateLabel(ctx(t), forge.RepoScope(org, repo), forge.CreateLabelOption{Name: "bug", Color: "#ee0701"})
		refused(err, "write:issue")
	}
}

func contractTokenCreate(t *testing.T, tg *target) {
	login, password := tg.createUser("tok")
	basic := func(r *http.Request) { r.SetBasicAuth(login, password) }
	path := "/api/v1/users/" + login + "/tokens"
	if status, body := tg.rawWith(basic, http.MethodPost, path, map[string]any{"name": "t"}); status != http.StatusBadRequest ||
		!strings.Contains(string(body), "access token must have a scope") {
		t.Fatalf("a token without a scope: %d %s", status, body)
	}
	if status, body := tg.rawWith(basic, http.MethodPost, path, map[string]any{"name": "t", "scopes": []string{"write:nothing"}}); status != http.StatusBadRequest ||
		!strings.Contains(string(body), "invalid access token scope provided") {
		t.Fatalf("a token with an unknown scope: %d %s", status, body)
	}
	if status, body := tg.rawWith(basic, http.MethodPost, path, map[string]any{"name": "t", "scopes": []string{"read:user"}}); status != http.StatusCreated {
		t.Fatalf("a token: %d %s", status, body)
	}
	if status, body := tg.rawWith(basic, http.MethodPost, path, map[string]any{"name": "t", "scopes": []string{"read:user"}}); status != http.StatusBadRequest ||
		!strings.Contains(string(body), "access token name has been used already") {
		t.Fatalf("a second token of the name: %d %s", status, body)
	}
	// A token cannot make tokens, not even the site admin's.
	if status, body := tg.raw(http.MethodPost, path, map[string]any{"name": "u", "scopes": []string{"read:user"}}); status != http.StatusUnauthorized {
		t.Fatalf("a token made with a token: %d %s", status, body)
	}
}
