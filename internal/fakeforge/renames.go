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
	"net/http"
	"net/url"
	"strings"
)

// Renamed organizations and users, as Gitea 1.24 to 1.26 answer them
// (read in their source, services/context and routers/api/v1, the same in
// the three releases, and probed on 1.26.4; the contract suite checks it):
//   - POST /orgs/{org}/rename {"new_name"} (an owner of the organization)
//     and POST /admin/users/{user}/rename {"new_username"} (a site admin;
//     an organization there is 422 "X is an organization not a user")
//     answer 204 (PATCH on the user route is 405). A name taken by a user or an organization, in any case,
//     is 422 "user already exists [name: X]"; the same name is a no-op;
//     a change of case only renames, without a redirect.
//   - The old name then redirects (user_redirect, one namespace for users
//     and organizations): every route that finds its owner by name
//     (/orgs/{org}/..., /repos/{owner}/..., /users/{user}/...,
//     /admin/users/{user}/..., /teams/{id}/members/{user}) answers 307, for
//     every method, with Location the request's escaped path with the
//     first occurrence of the escaped old name replaced by the new one,
//     the query kept, no scheme or host (context.RedirectToUser). A
//     collaborator's name is looked up without a redirect.
//   - A user or organization created under the old name takes it back: the
//     redirect goes (DeleteUserRedirect in CreateUser and CreateOrganization);
//     so does one renamed to it. A redirect to an account that is gone
//     is gone too.

// renamed is where an old name of a user or organization leads.
type renamed struct {
	org bool
	id  int64
}

// redirectParams are the path values that name an owner Gitea resolves
// with a redirect; "user" only outside the collaborator routes.
var redirectParams = []string{"org", "owner", "o", "user"}

// redirectOwner answers 307 when a path value names a user or organization
// by an old name, as Gitea's assignments do before the handler runs; it
// reports whether it did.
func (c *rc) redirectOwner() bool {
	if strings.Contains(c.r.Pattern, " /api/v1/admin/") && (c.doer == nil || !c.doer.admin) {
		return false // the admin routes check the caller first
	}
	for _, p := range redirectParams {
		name := c.r.PathValue(p)
		if name == "" || p == "user" && strings.Contains(c.r.Pattern, "/collaborators/") {
			continue
		}
		if c.s.orgByName(name) != nil || c.s.userByLogin(name) != nil {
			continue
		}
		now := c.s.redirectOf(name)
		if now == "" {
			continue
		}
		loc := strings.Replace(c.r.URL.EscapedPath(), url.PathEscape(name), url.PathEscape(now), 1)
		if c.r.URL.RawQuery != "" {
			loc += "?" + c.r.URL.RawQuery
		}
		c.w.Header().Set("Location", loc)
		c.w.WriteHeader(http.StatusTemporaryRedirect)
		return true
	}
	return false
}

// redirectOf gives the name an old name now leads to, "" when none.
func (s *Server) redirectOf(old string) string {
	to, ok := s.st.renamed[strings.ToLower(old)]
	if !ok {
		return ""
	}
	if to.org {
		if o := s.st.orgs[to.id]; o != nil {
			return o.name
		}
		return ""
	}
	for _, u := range s.users {
		if u.id == to.id {
			return u.login
		}
	}
	return ""
}

// takeName drops the redirect of a name a new account or a rename takes.
func (s *Server) takeName(name string) { delete(s.st.renamed, strings.ToLower(name)) }

// rename gives an account a new name; the old one redirects unless only
// its case changed. It writes the answer.
func (s *Server) rename(c *rc, to renamed, old, name string) bool {
	if strings.EqualFold(old, name) {
		return true
	}
	if msg := s.checkNewOrgName(name); msg != "" {
		c.validation(msg)
		return false
	}
	s.takeName(name)
	s.st.renamed[strings.ToLower(old)] = to
	return true
}

// renameOrg is POST /orgs/{org}/rename.
func (s *Server) renameOrg(c *rc) {
	o := c.org()
	if o == nil || !c.requireOrgOwner(o) {
		return
	}
	var req struct {
		NewName string `json:"new_name"`
	}
	if !c.bind(&req) {
		return
	}
	if req.NewName == "" {
		c.validation("[NewName]: Required")
		return
	}
	if req.NewName == o.name {
		c.noContent()
		return
	}
	if !s.rename(c, renamed{org: true, id: o.id}, o.name, req.NewName) {
		return
	}
	o.name = req.NewName
	c.noContent()
}

// adminRenameUser is POST /admin/users/{user}/rename.
func (s *Server) adminRenameUser(c *rc) {
	if !c.requireSiteAdmin() {
		return
	}
	u, o := c.account()
	switch {
	case o != nil:
		c.validation(c.orgNotUser(o))
		return
	case u == nil:
		return
	}
	var req struct {
		NewName string `json:"new_username"`
	}
	if !c.bind(&req) {
		return
	}
	if req.NewName == "" {
		c.validation("[NewName]: Required")
		return
	}
	if req.NewName == u.login {
		c.noContent()
		return
	}
	if !s.rename(c, renamed{id: u.id}, u.login, req.NewName) {
		return
	}
	u.login = req.NewName
	c.noContent()
}
