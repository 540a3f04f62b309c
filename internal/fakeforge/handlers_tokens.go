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

package fakeforge

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Access tokens made through the API, and the scopes Gitea holds them to
// (read in Gitea 1.27.3: routers/api/v1/user/app.go, routers/api/v1/token,
// models/auth/access_token_scope.go, and routers/api/v1/api.go's
// tokenRequiresScopes). The configured accounts' tokens (WithToken,
// WithUser) have every scope, as the one hack/gitea makes does.

// accessToken is a token made by POST /users/{user}/tokens.
type accessToken struct {
	id      int64
	name    string
	value   string
	scopes  []string // normalized, as Gitea stores them
	owner   *user
	created time.Time
}

// tokenScopeOrder is Gitea's allAccessTokenScopes: the order a normalized
// scope lists its scopes in. write:x implies read:x.
var tokenScopeOrder = []string{
	"public-only",
	"write:activitypub", "read:activitypub",
	"write:admin", "read:admin",
	"write:misc", "read:misc",
	"write:notification", "read:notification",
	"write:organization", "read:organization",
	"write:package", "read:package",
	"write:issue", "read:issue",
	"write:repository", "read:repository",
	"write:user", "read:user",
}

// allWrites is what a normalized scope holding every write scope reads:
// Gitea replaces it with "all".
const allWrites = "write:activitypub,write:admin,write:misc,write:notification,write:organization,write:package,write:issue,write:repository,write:user"

// normalizeScopes is AccessTokenScope.Normalize: unknown scopes are an
// error; "all" stands for every write scope; a read implied by its write
// goes; the result is in Gitea's order, every write scope together
// reading "all".
func normalizeScopes(requested []string) ([]string, error) {
	have := map[string]bool{}
	for _, sc := range strings.Split(strings.Join(requested, ","), ",") {
		switch {
		case sc == "":
		case sc == "all":
			for _, k := range tokenScopeOrder {
				if strings.HasPrefix(k, "write:") {
					have[k] = true
				}
			}
		case slices.Contains(tokenScopeOrder, sc):
			have[sc] = true
		default:
			return nil, fmt.Errorf("invalid access token scope: %s", sc)
		}
	}
	var out []string
	for _, k := range tokenScopeOrder {
		if !have[k] {
			continue
		}
		if level, cat, _ := strings.Cut(k, ":"); level == "read" && have["write:"+cat] {
			continue
		}
		out = append(out, k)
	}
	joined := strings.Replace(strings.Join(out, ","), allWrites, "all", 1)
	if joined == "" {
		return nil, nil
	}
	return strings.Split(joined, ","), nil
}

// has is bitmap.hasScope: all covers every write (and so read) scope;
// write:x covers read:x. public-only is granted only by itself.
func (t *accessToken) has(scope string) bool {
	if slices.Contains(t.scopes, scope) {
		return true
	}
	level, cat, _ := strings.Cut(scope, ":")
	if cat == "" {
		return false
	}
	return slices.Contains(t.scopes, "all") || (level == "read" && slices.Contains(t.scopes, "write:"+cat))
}

// scopeGroups are the categories tokenRequiresScopes asks of a route
// (path after /api/v1), one group per middleware in the order Gitea runs
// them: every category of a group must be granted, and the first group
// that fails answers. Routes no group names need no scope (/version,
// /settings, /token).
func scopeGroups(fl errFlavor, method, path string) [][]string {
	seg := strings.Split(strings.Trim(path, "/"), "/")
	at := func(i int) string {
		if i < len(seg) {
			return seg[i]
		}
		return ""
	}
	switch at(0) {
	case "admin":
		return [][]string{{"admin"}}
	case "orgs":
		if len(seg) == 3 && at(2) == "repos" && method != http.MethodGet && fl == flavorGitea127 {
			// The organization group, then the route's own repository
			// scope, which Gitea 1.27 added (1.24 to 1.26 make a
			// repository in an organization with write:organization).
			return [][]string{{"organization"}, {"repository"}}
		}
		return [][]string{{"organization"}}
	case "teams":
		return [][]string{{"organization"}}
	case "user":
		switch {
		case at(1) == "orgs":
			return [][]string{{"user", "organization"}}
		case at(1) == "repos":
			return [][]string{{"user"}, {"repository"}}
		}
		return [][]string{{"user"}}
	case "users":
		switch at(2) {
		case "orgs":
			return [][]string{{"user", "organization"}}
		case "repos":
			return [][]string{{"user"}, {"repository"}}
		}
		return [][]string{{"user"}}
	case "repositories", "topics":
		return [][]string{{"repository"}}
	case "notifications":
		return [][]string{{"notification"}}
	case "repos":
		switch at(3) {
		case "issues", "labels", "milestones":
			return [][]string{{"issue"}}
		case "notifications":
			return [][]string{{"notification"}}
		}
		if at(1) == "issues" { // /repos/issues/search
			return [][]string{{"issue"}}
		}
		return [][]string{{"repository"}}
	}
	return nil
}

// refuses is tokenRequiresScopes for a request made with t: the 403
// message when t lacks a scope the route needs (read:x for a GET, write:x
// for any other method), "" when it may go on. Basic auth and the
// configured tokens (t nil) are never refused. Gitea checks before it
// looks up what the route addresses; the fake checks before routing.
func (t *accessToken) refuses(fl errFlavor, method, path string) string {
	if t == nil {
		return ""
	}
	level := "write"
	if method == http.MethodGet || method == http.MethodHead {
		level = "read"
	}
	for _, group := range scopeGroups(fl, method, path) {
		var required []string
		ok := true
		for _, cat := range group {
			required = append(required, level+":"+cat)
			ok = ok && t.has(level+":"+cat)
		}
		if !ok {
			// Gitea formats both with %v: a slice in brackets, the stored scope string.
			return fmt.Sprintf("token does not have at least one of required scope(s), required=[%s], token scope=%s",
				strings.Join(required, " "), strings.Join(t.scopes, ","))
		}
	}
	return ""
}

// tokenByValue finds an API-made token by its value; nil when none.
func (s *Server) tokenByValue(value string) *accessToken {
	if value == "" {
		return nil
	}
	for _, t := range s.tokens {
		if t.value == value {
			return t
		}
	}
	return nil
}

func (s *Server) tokenRoutes(h func(string, func(*rc))) {
	h("POST /api/v1/users/{user}/tokens", s.createToken)
	h("DELETE /api/v1/users/{user}/tokens/{id}", s.deleteToken)
	h("GET /api/v1/token", s.currentToken)
	h("DELETE /api/v1/token", s.deleteCurrentToken)
}

// tokenOwner is the /users/{user}/tokens group's checks: the user exists
// (404), the caller is that user or a site admin (403), and signed in with
// HTTP Basic (401 "auth required": a token cannot make or delete tokens).
func (c *rc) tokenOwner() *user {
	name := c.r.PathValue("user")
	u := c.s.userByLogin(name)
	if u == nil {
		c.notFound("user redirect does not exist [name: " + strings.ToLower(name) + "]")
		return nil
	}
	if c.doer == nil || (!c.doer.admin && c.doer != u) {
		c.error(http.StatusForbidden, "doer should be the site admin or be same as the contextUser")
		return nil
	}
	if how, _ := c.r.Context().Value(authKey{}).(authMethod); !how.basic {
		c.error(http.StatusUnauthorized, "auth required")
		return nil
	}
	return u
}

// createToken is POST /users/{user}/tokens: a name unique among the
// user's tokens (400 otherwise), at least one valid scope (400), answered
// 201 with the token's value (sha1) once.
func (s *Server) createToken(c *rc) {
	u := c.tokenOwner()
	if u == nil {
		return
	}
	var req struct {
		Name   string   `json:"name"`
		Scopes []string `json:"scopes"`
	}
	if !c.bind(&req) {
		return
	}
	if req.Name == "" {
		c.validation("[Name]: Required")
		return
	}
	for _, t := range s.tokens {
		if t.owner == u && t.name == req.Name {
			c.error(http.StatusBadRequest, "access token name has been used already")
			return
		}
	}
	scopes, err := normalizeScopes(req.Scopes)
	if err != nil {
		c.error(http.StatusBadRequest, "invalid access token scope provided: "+err.Error())
		return
	}
	if len(scopes) == 0 {
		c.error(http.StatusBadRequest, "access token must have a scope")
		return
	}
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	s.lastTokenID++
	t := &accessToken{id: s.lastTokenID, name: req.Name, value: hex.EncodeToString(b), scopes: scopes, owner: u,
		created: time.Now().UTC().Truncate(time.Second)}
	s.tokens = append(s.tokens, t)
	made := map[string]any{"id": t.id, "name": t.name, "sha1": t.value,
		"token_last_eight": t.value[len(t.value)-8:], "scopes": t.scopes}
	if c.fl != flavorForgejo {
		// Gitea (1.24 to 1.27) adds the times, read before the token is
		// stored: zero.
		made["created_at"], made["last_used_at"] = time.Time{}, time.Time{}
	}
	c.json(http.StatusCreated, made)
}

// deleteToken is DELETE /users/{user}/tokens/{id}: 204, or 404 for a
// token the user does not have.
func (s *Server) deleteToken(c *rc) {
	u := c.tokenOwner()
	if u == nil {
		return
	}
	id, _ := c.id("id")
	for i, t := range s.tokens {
		if t.owner == u && t.id == id {
			s.tokens = slices.Delete(s.tokens, i, i+1)
			c.noContent()
			return
		}
	}
	c.notFound("")
}

// currentToken is GET /token (Gitea 1.27 and later; earlier releases and
// Forgejo have no such route): the token the request authenticates with,
// its normalized scopes and its user. A configured account's token reads
// as the one hack/gitea makes does: scope all. Basic auth is no token:
// 404 "invalid access token".
func (s *Server) currentToken(c *rc) {
	t, ok := c.currentAccessToken()
	if !ok {
		return
	}
	c.json(http.StatusOK, map[string]any{"id": t.id, "name": t.name, "scopes": t.scopes,
		"created_at": t.created, "last_used_at": t.created,
		"user": map[string]any{"id": t.owner.id, "login": t.owner.login}})
}

// deleteCurrentToken is DELETE /token (1.27 and later): the token
// deletes itself. A configured account's token is not the fake's to
// delete: it answers 204 and stays.
func (s *Server) deleteCurrentToken(c *rc) {
	t, ok := c.currentAccessToken()
	if !ok {
		return
	}
	s.tokens = slices.DeleteFunc(s.tokens, func(o *accessToken) bool { return o == t })
	c.noContent()
}

// currentAccessToken is what GET and DELETE /token address, having
// answered when there is none.
func (c *rc) currentAccessToken() (*accessToken, bool) {
	if !c.fl.hasTokenRoute() {
		c.routeNotFound()
		return nil, false
	}
	if !c.requireToken() {
		return nil, false
	}
	how, _ := c.r.Context().Value(authKey{}).(authMethod)
	scheme, _, _ := strings.Cut(strings.TrimSpace(c.r.Header.Get("Authorization")), " ")
	if s := strings.ToLower(scheme); s != "token" && s != "bearer" {
		c.error(http.StatusNotFound, "invalid access token")
		return nil, false
	}
	if how.token != nil {
		return how.token, true
	}
	return &accessToken{name: "fake", scopes: []string{"all"}, owner: c.doer}, true
}

// hasTokenRoute: GET and DELETE /token exist from Gitea 1.27.
func (f errFlavor) hasTokenRoute() bool { return f == flavorGitea127 }

var _ = registerRoutes((*Server).tokenRoutes)
