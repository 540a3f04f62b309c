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

package forge

import (
	"context"
	"net/http"
	"slices"
	"strings"
)

// The token scopes the operator's writes need. Gitea decides a request's
// scope from its route and method (routers/api/v1/api.go,
// tokenRequiresScopes): the route group names one or more categories, a
// GET needs read:<category> and any other method write:<category>, and a
// route under two groups needs both. The categories of the routes the
// operator writes (read in Gitea 1.24.6, 1.26.4 and 1.27.3):
//
//	/orgs, /orgs/{org}/... (hooks, labels, teams, actions)   organization
//	/orgs/{org}/repos (POST)                                 organization, and repository from 1.27
//	/teams/{id}/... (edit, members, repositories)            organization
//	/user/repos (POST)                                       user and repository
//	/repos/{owner}/{repo}/issues, /labels, /milestones       issue
//	/repos/{owner}/{repo}/... (everything else)              repository
//	/admin/...                                               admin
//
// Basic auth is no token: no scope limits it.
const (
	ScopeAll               = "all"
	ScopeWriteOrganization = "write:organization"
	ScopeWriteRepository   = "write:repository"
	ScopeWriteIssue        = "write:issue"
	ScopeWriteUser         = "write:user"
	ScopeWriteAdmin        = "write:admin"
)

// WriteScopeOf is the scope a write under scope needs: write:organization
// for an organization's objects, write:repository for a repository's,
// write:admin for the instance's (the /admin routes).
func WriteScopeOf(scope Scope) string {
	switch {
	case scope.IsInstance():
		return ScopeWriteAdmin
	case scope.IsOrg():
		return ScopeWriteOrganization
	}
	return ScopeWriteRepository
}

// Covers reports whether a token with scopes have may make requests that
// need scope need: `all` covers every scope but public-only (which
// narrows, never grants), and write:x covers read:x.
func Covers(have []string, need string) bool {
	if slices.Contains(have, need) {
		return true
	}
	level, category, ok := strings.Cut(need, ":")
	if !ok {
		return false
	}
	if slices.Contains(have, ScopeAll) {
		return true
	}
	return level == "read" && slices.Contains(have, "write:"+category)
}

// MissingScopes lists the scopes of need that have does not cover, in
// need's order, without repeats.
func MissingScopes(have, need []string) []string {
	var out []string
	for _, n := range need {
		if !Covers(have, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Token is what GET /token tells of the token a request authenticates
// with (Gitea 1.27 and later; earlier releases and Forgejo have no such
// route and answer KindRouteNotFound). The route needs no scope, so any
// token may read its own.
type Token struct {
	ID     int64    `json:"id"`
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
	User   *struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
	} `json:"user"`
}

// maxScopes bounds how many scopes a token's answer may list (Gitea has
// about twenty); maxScopeLen bounds each.
const (
	maxScopes   = 32
	maxScopeLen = 64
)

// CurrentToken implements ServerClient.
func (c *Client) CurrentToken(ctx context.Context) (*Token, error) {
	out, err := fetch[Token](ctx, c, call{op: "get the current token", method: http.MethodGet, route: "/token"})
	if err != nil {
		return nil, err
	}
	scopes := out.Scopes[:min(len(out.Scopes), maxScopes)]
	out.Scopes = nil
	for _, s := range scopes {
		if s = strings.TrimSpace(s); s != "" {
			out.Scopes = append(out.Scopes, truncate(s, maxScopeLen))
		}
	}
	if out.User != nil {
		out.User.Login = truncate(out.User.Login, maxLoginLen)
	}
	return out, nil
}
