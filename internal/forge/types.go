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
	"fmt"
	"strings"
)

// User is the forge's view of an account (GET /user, repository owners,
// the admin listing). IsAdmin, Active, ProhibitLogin, LoginName and
// SourceID read false, zero or "" unless the caller is the site admin or
// the user; Email is "" to an anonymous caller. The forge does not report
// must_change_password.
type User struct {
	ID            int64  `json:"id"`
	Login         string `json:"login"`
	FullName      string `json:"full_name,omitempty"`
	Email         string `json:"email,omitempty"`
	IsAdmin       bool   `json:"is_admin"`
	Restricted    bool   `json:"restricted,omitempty"`
	Active        bool   `json:"active,omitempty"`
	ProhibitLogin bool   `json:"prohibit_login,omitempty"`
	Visibility    string `json:"visibility,omitempty"`
	LoginName     string `json:"login_name,omitempty"`
	SourceID      int64  `json:"source_id,omitempty"`
}

// Scope names where labels and runners live: a repository (Owner and Repo)
// or an organization (Repo empty).
type Scope struct {
	Owner, Repo string
}

// RepoScope is the scope of repository owner/repo.
func RepoScope(owner, repo string) Scope { return Scope{Owner: owner, Repo: repo} }

// OrgScope is the scope of organization org.
func OrgScope(org string) Scope { return Scope{Owner: org} }

// InstanceScope is the whole forge (the site admin's /admin routes): only
// runner registration tokens are asked for in it.
var InstanceScope = Scope{}

// IsOrg reports whether the scope is an organization.
func (s Scope) IsOrg() bool { return s.Repo == "" }

// IsInstance reports whether the scope is the whole forge.
func (s Scope) IsInstance() bool { return s == InstanceScope }

// String gives "acme" for an organization and "acme/web" for a repository.
func (s Scope) String() string {
	if s.IsInstance() {
		return "the instance"
	}
	if s.IsOrg() {
		return s.Owner
	}
	return s.Owner + "/" + s.Repo
}

// describe names the scope for messages: "organization acme", "repository acme/web".
func (s Scope) describe() string {
	if s.IsOrg() {
		return "organization " + s.Owner
	}
	return "repository " + s.String()
}

// ParseScope reads "acme" (organization) or "acme/web" (repository).
func ParseScope(s string) (Scope, error) {
	owner, repo, found := strings.Cut(s, "/")
	if owner == "" || (found && (repo == "" || strings.Contains(repo, "/"))) {
		return Scope{}, fmt.Errorf("invalid scope %q: want \"org\" or \"owner/repo\"", s)
	}
	return Scope{Owner: owner, Repo: repo}, nil
}

// The route templates of the two scopes, under /api/v1.
const (
	OrgRoute  = "/orgs/{org}"
	RepoRoute = "/repos/{owner}/{repo}"
)

// routePrefix gives the route template and the concrete path prefix of the
// scope, e.g. "/repos/{owner}/{repo}" and "/repos/acme/web".
func (s Scope) routePrefix() (string, []any) {
	if s.IsOrg() {
		return OrgRoute, []any{s.Owner}
	}
	return RepoRoute, []any{s.Owner, s.Repo}
}

// forgeID gives the id of an object the forge answered with; doJSON
// refuses ids <= 0.
func (o *User) forgeID() int64 { return o.ID }
