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
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Organizations as Gitea serves them: created by POST /orgs, read, edited
// and deleted under /orgs/{org}, listed at /orgs and the user's own at
// /user/orgs, renamed by POST /orgs/{org}/rename (renames.go),
// and the users an organization blocks under /orgs/{org}/blocks.

var _ = registerRoutes((*Server).orgRoutes)

func (s *Server) orgRoutes(h func(string, func(*rc))) {
	h("GET /api/v1/orgs", s.listOrgs)
	h("POST /api/v1/orgs", s.createOrg)
	h("GET /api/v1/orgs/{org}", s.getOrg)
	h("GET /api/v1/user/orgs", s.listMyOrgs)
	h("PATCH /api/v1/orgs/{org}", s.editOrg)
	h("DELETE /api/v1/orgs/{org}", s.deleteOrg)
	h("POST /api/v1/orgs/{org}/rename", s.renameOrg)
	h("GET /api/v1/orgs/{org}/blocks", s.listOrgBlocks)
	h("GET /api/v1/orgs/{org}/blocks/{username}", s.checkOrgBlock)
	h("PUT /api/v1/orgs/{org}/blocks/{username}", s.blockOrgUser)
	h("DELETE /api/v1/orgs/{org}/blocks/{username}", s.unblockOrgUser)
}

type org struct {
	id                        int64
	name                      string
	fullName                  string
	email                     string
	description               string
	website                   string
	location                  string
	visibility                string
	repoAdminChangeTeamAccess bool
	owners                    map[int64]bool // user ids
	// blocked are the users the organization blocks (ids).
	blocked map[int64]bool
}

func (s *Server) orgByName(name string) *org {
	for _, o := range s.st.orgs {
		if strings.EqualFold(o.name, name) {
			return o
		}
	}
	return nil
}

func (o *org) toForge() forge.Organization {
	return forge.Organization{
		ID: o.id, Name: o.name, FullName: o.fullName, Email: o.email, Description: o.description,
		Website: o.website, Location: o.location, Visibility: o.visibility,
		RepoAdminChangeTeamAccess: o.repoAdminChangeTeamAccess,
	}
}

// Org returns the organization named name (case-insensitive).
func (s *Server) Org(name string) (forge.Organization, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.orgByName(name); o != nil {
		return o.toForge(), true
	}
	return forge.Organization{}, false
}

// Orgs returns every organization, by id.
func (s *Server) Orgs() []forge.Organization {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []forge.Organization
	for _, o := range sortedByID(s.st.orgs, nil) {
		out = append(out, o.toForge())
	}
	return out
}

// CreateOrg creates an organization owned by the site admin, with the same
// checks as POST /orgs.
func (s *Server) CreateOrg(name string) (forge.Organization, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if msg := s.checkNewOrgName(name); msg != "" {
		return forge.Organization{}, fmt.Errorf("create organization %q: %s", name, msg)
	}
	o := s.addOrg(name, s.admin())
	return o.toForge(), nil
}

func (s *Server) addOrg(name string, creator *user) *org {
	o := &org{id: s.st.next("org"), name: name, visibility: "public", owners: map[int64]bool{creator.id: true}}
	s.st.orgs[o.id] = o
	s.addOwnersTeam(o)
	return o
}

func (s *Server) orgJSON(o *org) map[string]any {
	return map[string]any{
		"id": o.id, "name": o.name, "username": o.name, "full_name": o.fullName, "email": o.email,
		"avatar_url": s.root + "/avatars/" + strconv.FormatInt(o.id, 10), "description": o.description,
		"website": o.website, "location": o.location, "visibility": o.visibility,
		"repo_admin_change_team_access": o.repoAdminChangeTeamAccess,
	}
}

func (s *Server) listOrgs(c *rc) {
	if !c.requireToken() {
		return
	}
	var visible []*org
	for _, o := range sortedByID(s.st.orgs, nil) {
		if c.canSeeOrg(o) {
			visible = append(visible, o)
		}
	}
	servePage(c, visible, true, func(o *org) map[string]any { return s.orgJSON(o) })
}

// listMyOrgs lists the organizations the doer owns, by name as Gitea does.
func (s *Server) listMyOrgs(c *rc) {
	if !c.requireToken() {
		return
	}
	var mine []*org
	for _, o := range sortedByID(s.st.orgs, nil) {
		if o.owners[c.doer.id] {
			mine = append(mine, o)
		}
	}
	slices.SortFunc(mine, func(a, b *org) int { return strings.Compare(strings.ToLower(a.name), strings.ToLower(b.name)) })
	servePage(c, mine, true, func(o *org) map[string]any { return s.orgJSON(o) })
}

// checkNewOrgName gives the 422 message for an unusable new org name, "" if fine.
func (s *Server) checkNewOrgName(name string) string {
	switch {
	case name == "":
		return "[UserName]: Required"
	case !isValidUsername(name):
		return "[UserName]: invalid username"
	case !maxSize(name, 40):
		return "[UserName]: MaxSize"
	}
	if msg := nameReserved(name, reservedUsernames, reservedUserPatterns); msg != "" {
		return msg
	}
	if s.orgByName(name) != nil || s.userByLogin(name) != nil {
		return "user already exists [name: " + name + "]"
	}
	return ""
}

type orgFields struct {
	FullName                  *string `json:"full_name"`
	Email                     *string `json:"email"`
	Description               *string `json:"description"`
	Website                   *string `json:"website"`
	Location                  *string `json:"location"`
	Visibility                *string `json:"visibility"`
	RepoAdminChangeTeamAccess *bool   `json:"repo_admin_change_team_access"`
}

// check applies the binding rules of Create/EditOrgOption in field order.
func (f *orgFields) check() string {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch {
	case !maxSize(str(f.FullName), 100):
		return "[FullName]: MaxSize"
	case !maxSize(str(f.Email), 255):
		return "[Email]: MaxSize"
	case !maxSize(str(f.Description), 255):
		return "[Description]: MaxSize"
	case str(f.Website) != "" && !isValidURL(str(f.Website)):
		return "[Website]: Url"
	case !maxSize(str(f.Website), 255):
		return "[Website]: MaxSize"
	case !maxSize(str(f.Location), 50):
		return "[Location]: MaxSize"
	}
	switch str(f.Visibility) {
	case "", "public", "limited", "private":
	default:
		return "[Visibility]: In"
	}
	if e := str(f.Email); e != "" && !validEmail(e) {
		return "e-mail invalid [email: " + e + "]"
	}
	return ""
}

func validEmail(e string) bool {
	local, domain, ok := strings.Cut(e, "@")
	return ok && local != "" && domain != "" && !strings.ContainsAny(e, " \t\r\n")
}

func (f *orgFields) apply(o *org) {
	if f.FullName != nil {
		o.fullName = *f.FullName
	}
	if f.Email != nil {
		o.email = *f.Email
	}
	if f.Description != nil {
		o.description = *f.Description
	}
	if f.Website != nil {
		o.website = *f.Website
	}
	if f.Location != nil {
		o.location = *f.Location
	}
	if f.Visibility != nil && *f.Visibility != "" {
		o.visibility = *f.Visibility
	}
	if f.RepoAdminChangeTeamAccess != nil {
		o.repoAdminChangeTeamAccess = *f.RepoAdminChangeTeamAccess
	}
}

func (s *Server) createOrg(c *rc) {
	if !c.requireToken() {
		return
	}
	var req struct {
		UserName *string `json:"username"`
		orgFields
	}
	if !c.bind(&req) {
		return
	}
	name := ""
	if req.UserName != nil {
		name = *req.UserName
	}
	// Binding checks the name's form first, then the other fields; the
	// reserved and taken checks come after, from the model.
	switch {
	case name == "":
		c.validation("[UserName]: Required")
		return
	case !isValidUsername(name):
		c.validation("[UserName]: invalid username")
		return
	case !maxSize(name, 40):
		c.validation("[UserName]: MaxSize")
		return
	}
	if msg := req.check(); msg != "" {
		c.validation(msg)
		return
	}
	if msg := s.checkNewOrgName(name); msg != "" {
		c.validation(msg)
		return
	}
	s.takeName(name)
	o := s.addOrg(name, c.doer)
	req.apply(o)
	c.json(http.StatusCreated, s.orgJSON(o))
}

func (s *Server) getOrg(c *rc) {
	if o := c.org(); o != nil {
		c.json(http.StatusOK, s.orgJSON(o))
	}
}

func (s *Server) editOrg(c *rc) {
	o := c.org()
	if o == nil || !c.requireOrgOwner(o) {
		return
	}
	var req orgFields
	if !c.bind(&req) {
		return
	}
	if msg := req.check(); msg != "" {
		c.validation(msg)
		return
	}
	if !c.fl.editsOnlySent() {
		req.clearUnsent()
	}
	req.apply(o)
	c.json(http.StatusOK, s.orgJSON(o))
}

// clearUnsent does what Gitea 1.24 and 1.25 do on PATCH /orgs/{org}: their
// EditOrgOption has plain strings, so full_name, description, website and
// location not sent are written empty; an empty email is skipped, not
// cleared (routers/api/v1/org/org.go Edit).
func (f *orgFields) clearUnsent() {
	empty := func(p **string) {
		if *p == nil {
			*p = new(string)
		}
	}
	empty(&f.FullName)
	empty(&f.Description)
	empty(&f.Website)
	empty(&f.Location)
	if f.Email != nil && *f.Email == "" {
		f.Email = nil
	}
}

func (s *Server) deleteOrg(c *rc) {
	o := c.org()
	if o == nil || !c.requireOrgOwner(o) {
		return
	}
	if s.orgHasRepos(o) {
		// Gitea answers a refused delete with a bare 500; only admins see why.
		msg := ""
		if c.doer.admin {
			msg = fmt.Sprintf("user still has ownership of repositories [uid: %d]", o.id)
		}
		c.error(http.StatusInternalServerError, msg)
		return
	}
	s.deleteOwned(owner{id: o.id})
	delete(s.st.orgs, o.id)
	c.noContent()
}

// ---- blocks ----

// Gitea 1.24.6 to 1.27.3 answer these alike but for their error bodies,
// and the list's Link header (from 1.26). Forgejo's routes differ
// (.../list_blocked, .../block/{username}, .../unblock/{username}): it has
// none of these.

// blocksOrg is the organization of a blocks route, for its owners only;
// nil when answered.
func (c *rc) blocksOrg() *org {
	if c.fl == flavorForgejo {
		c.routeNotFound()
		return nil
	}
	o := c.org()
	if o == nil || !c.requireOrgOwner(o) {
		return nil
	}
	return o
}

// blockTarget resolves {username}; an unknown one is 404 with the
// forge's message.
func (c *rc) blockTarget() *user {
	name := c.r.PathValue("username")
	u := c.s.userByLogin(name)
	if u == nil {
		detail := fmt.Sprintf("user does not exist [uid: 0, name: %s]", strings.ToLower(name))
		if c.fl == flavorGitea127 {
			c.error(http.StatusNotFound, detail)
		} else {
			c.error(http.StatusNotFound, "GetUserByName", detail)
		}
	}
	return u
}

// listOrgBlocks is GET /orgs/{org}/blocks: the blocked users, paged.
func (s *Server) listOrgBlocks(c *rc) {
	o := c.blocksOrg()
	if o == nil {
		return
	}
	var users []*user
	for _, u := range s.users {
		if o.blocked[u.id] {
			users = append(users, u)
		}
	}
	servePage(c, users, c.fl != flavorGiteaOld, c.userJSON)
}

// checkOrgBlock is GET /orgs/{org}/blocks/{username}: 204 when blocked,
// else a bare 404.
func (s *Server) checkOrgBlock(c *rc) {
	o := c.blocksOrg()
	if o == nil {
		return
	}
	if u := s.userByLogin(c.r.PathValue("username")); u != nil && o.blocked[u.id] {
		c.noContent()
		return
	}
	c.w.WriteHeader(http.StatusNotFound)
}

// blockOrgUser is PUT /orgs/{org}/blocks/{username}: 204, ending the
// user's collaborations on the organization's repositories. An
// organization cannot be blocked; nor a user already blocked, a member of
// the organization or a site administrator (400 "cannot block the user").
func (s *Server) blockOrgUser(c *rc) {
	o := c.blocksOrg()
	if o == nil {
		return
	}
	if s.orgByName(c.r.PathValue("username")) != nil {
		c.error(http.StatusBadRequest, "cannot block an organization")
		return
	}
	u := c.blockTarget()
	if u == nil {
		return
	}
	if o.blocked[u.id] || u.admin || s.isMemberOf(o, u) {
		c.error(http.StatusBadRequest, "cannot block the user")
		return
	}
	if o.blocked == nil {
		o.blocked = map[int64]bool{}
	}
	o.blocked[u.id] = true
	for _, r := range s.st.repos {
		if r.orgID == o.id {
			delete(r.collaborators, u.id)
		}
	}
	c.noContent()
}

// unblockOrgUser is DELETE /orgs/{org}/blocks/{username}: 204; a user not
// blocked is 400 "cannot unblock the user".
func (s *Server) unblockOrgUser(c *rc) {
	o := c.blocksOrg()
	if o == nil {
		return
	}
	u := c.blockTarget()
	if u == nil {
		return
	}
	if !o.blocked[u.id] {
		c.error(http.StatusBadRequest, "cannot unblock the user")
		return
	}
	delete(o.blocked, u.id)
	c.noContent()
}

// isMemberOf: an owner or a member of any team of o.
func (s *Server) isMemberOf(o *org, u *user) bool {
	if o.owners[u.id] {
		return true
	}
	for _, t := range s.st.teams.in(owner{id: o.id}) {
		if t.members[u.id] {
			return true
		}
	}
	return false
}

// OrgBlocks gives the logins an organization blocks, sorted by id.
func (s *Server) OrgBlocks(orgName string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{}
	o := s.orgByName(orgName)
	if o == nil {
		return out
	}
	for _, u := range s.users {
		if o.blocked[u.id] {
			out = append(out, u.login)
		}
	}
	return out
}
