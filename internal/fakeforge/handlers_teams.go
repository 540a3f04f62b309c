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
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Teams as Gitea 1.24 to 1.26 serve them (probed on 1.26.4; the handlers
// of the three releases are the same): every organization has an Owners
// team (permission "owner", every unit "owner", its members the
// organization's owners); a non-admin team keeps a unit map and reads
// permission "none"; an admin team has every unit "admin".
//
// Gitea 1.27 added a team's visibility (its modules/structs/org_team.go,
// routers/api/v1/org/team.go): "public", "limited" or "private"; a create
// without it makes the team private, a PATCH without it leaves it, the
// Owners team's (limited, as a new organization gets it) is never
// changed, and another value is a 422 of the binding. Older releases
// neither answer nor read it.

// teamUnits are the units a team's access is given for.
var teamUnits = []string{"repo.code", "repo.issues", "repo.ext_issues", "repo.wiki", "repo.ext_wiki",
	"repo.pulls", "repo.releases", "repo.projects", "repo.packages", "repo.actions"}

type team struct {
	row         // an organization's
	name        string
	description string
	// mode is "none" (access per unit), "admin" or "owner".
	mode        string
	includesAll bool
	canCreate   bool
	visibility  string // Gitea 1.27 and later
	units       map[string]string
	// members are user ids; the Owners team's map is its organization's owners.
	members map[int64]bool
	repos   map[int64]bool
}

func (t *team) owners() bool { return t.mode == "owner" }

func allUnits(mode string) map[string]string {
	m := map[string]string{}
	for _, u := range teamUnits {
		m[u] = mode
	}
	return m
}

func (s *Server) addOwnersTeam(o *org) {
	t := &team{row: row{owner: owner{id: o.id}}, name: "Owners", mode: "owner", includesAll: true, canCreate: true, visibility: "limited",
		units: allUnits("owner"), members: o.owners, repos: map[int64]bool{}}
	s.st.teams.add(t)
}

// teamJSON is convert.ToTeam; withOrg adds the organization, as GET
// /teams/{id} and the create answer (the listing and the edit answer
// "organization": null).
func (s *Server) teamJSON(t *team, withOrg bool) map[string]any {
	perm := t.mode
	units := make([]string, 0, len(t.units))
	for u := range t.units {
		units = append(units, u)
	}
	slices.Sort(units)
	j := map[string]any{
		"id": t.id, "name": t.name, "description": t.description, "permission": perm,
		"includes_all_repositories": t.includesAll, "can_create_org_repo": t.canCreate,
		"units": units, "units_map": maps.Clone(t.units),
	}
	j["organization"] = nil
	if o := s.st.orgs[t.owner.id]; withOrg && o != nil {
		j["organization"] = s.orgJSON(o)
	}
	if flavorOf(s.version) == flavorGitea127 {
		// A team made before the upgrade has the column's default.
		j["visibility"] = cmp.Or(t.visibility, "private")
	}
	return j
}

func (t *team) toForge() forge.Team {
	return forge.Team{ID: t.id, Name: t.name, Description: t.description, Permission: t.mode,
		IncludesAllRepositories: t.includesAll, CanCreateOrgRepo: t.canCreate, UnitsMap: maps.Clone(t.units), Visibility: t.visibility}
}

// teamRes serves GET /orgs/{org}/teams (by name, X-Total-Count and Link)
// and /teams/{id}, which is for the owners of the team's organization.
//
// An organization's teams are its members' to list, whatever its
// visibility (Gitea's routers/api/v1/api.go: the /orgs/{org}/teams group,
// its listing, create and search, goes through reqToken and
// reqOrgMembership, never reqOrgVisible; the same in 1.24.6 and 1.27.3).
// Probed on 1.27.3, a signed-in user who is no member gets, for a private
// and a public organization alike, 403 {"message":"Must be an organization
// member"} from GET /orgs/{org}/teams and /orgs/{org}/teams/search?q=...,
// while GET /orgs/{org} of the private one answers that user 404; an
// unknown organization is 404 and no token 401 "token is required". So a
// Forge whose user is no member sees the organization's teams refused,
// never missing. A create by a member who is no owner is 403 "Must be an
// organization owner".
var teamRes = &resource[*team]{
	route: forge.RouteOf("teams"), scopes: []string{forge.OrgRoute}, unseenOrg: true,
	table: func(st *state) *table[*team] { return st.teams },
	may: func(c *rc, o *org, _ *repo, verb string) bool {
		switch verb {
		case "list":
			return c.requireOrgMember(o)
		case "create":
			if !c.requireOrgMember(o) {
				return false
			}
		}
		return c.requireOrgOwner(o)
	},
	missing: func(c *rc, _ owner, _ *team) { c.error(http.StatusNotFound, "not found") },
	order: func(_ *rc, ts []*team) ([]*team, bool) {
		slices.SortStableFunc(ts, func(a, b *team) int {
			return cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name))
		})
		return ts, true
	},
	link: withLink,
	json: func(c *rc, t *team) map[string]any { return c.s.teamJSON(t, c.r.PathValue("id") != "") },
}

type teamReq struct {
	Name                    *string           `json:"name"`
	Description             *string           `json:"description"`
	Permission              string            `json:"permission"`
	IncludesAllRepositories *bool             `json:"includes_all_repositories"`
	CanCreateOrgRepo        *bool             `json:"can_create_org_repo"`
	Units                   []string          `json:"units"`
	UnitsMap                map[string]string `json:"units_map"`
	Visibility              *string           `json:"visibility"`
}

// visibility checks the visibility sent as Gitea 1.27's binding does
// (empty is as not sent); older releases drop it unread.
func (c *rc) visibility(req *teamReq) bool {
	if c.fl != flavorGitea127 || (req.Visibility != nil && *req.Visibility == "") {
		req.Visibility = nil
	}
	if v := req.Visibility; v != nil && *v != "public" && *v != "limited" && *v != "private" {
		c.validation("[Visibility]: In")
		return false
	}
	return true
}

// accessMode parses a permission the way Gitea's ParseAccessMode does with
// the modes allowed: anything else is the first of them.
func accessMode(p string, allowed ...string) string {
	if slices.Contains(allowed, p) {
		return p
	}
	return allowed[0]
}

// attachUnits sets a non-admin team's units from a units map (unknown unit
// names are kept as Gitea keeps them: under the empty name) or a unit
// list at the permission's mode.
func attachUnits(t *team, req teamReq) bool {
	switch {
	case len(req.UnitsMap) > 0:
		t.units = map[string]string{}
		for u, p := range req.UnitsMap {
			if !slices.Contains(teamUnits, u) {
				u = ""
			}
			t.units[u] = accessMode(p, "none", "read", "write", "admin")
		}
	case len(req.Units) > 0:
		mode := accessMode(req.Permission, "read", "write")
		t.units = map[string]string{}
		for _, u := range req.Units {
			if !slices.Contains(teamUnits, u) {
				u = ""
			}
			t.units[u] = mode
		}
	default:
		return false
	}
	return true
}

// checkTeamName refuses a team name as the forge's binding and store do.
func (s *Server) checkTeamName(o *org, name string, except int64) (int, string) {
	switch {
	case name == "":
		return http.StatusUnprocessableEntity, "[Name]: Required"
	case !alphaDashDot.MatchString(name):
		return http.StatusUnprocessableEntity, "[Name]: AlphaDashDot"
	case !maxSize(name, 255):
		return http.StatusUnprocessableEntity, "[Name]: MaxSize"
	}
	for _, t := range s.st.teams.in(owner{id: o.id}) {
		if t.id != except && strings.EqualFold(t.name, name) {
			return http.StatusUnprocessableEntity, fmt.Sprintf("team already exists [org_id: %d, name: %s]", o.id, strings.ToLower(name))
		}
	}
	return 0, ""
}

// createTeam is POST /orgs/{org}/teams: a non-admin team without units is
// a 500; a taken name (any case) 422.
func (s *Server) createTeam(c *rc) {
	ow, ok := teamRes.scope(c, "create")
	if !ok {
		return
	}
	o := s.st.orgs[ow.id]
	var req teamReq
	if !c.bind(&req) || !c.visibility(&req) {
		return
	}
	t := &team{row: row{owner: owner{id: o.id}}, mode: accessMode(req.Permission, "none", "admin"), members: map[int64]bool{}, repos: map[int64]bool{}}
	if c.fl == flavorGitea127 {
		t.visibility = "private"
		set(&t.visibility, req.Visibility)
	}
	if req.Name != nil {
		t.name = *req.Name
	}
	if status, msg := s.checkTeamName(o, t.name, 0); status != 0 {
		c.error(status, msg)
		return
	}
	set(&t.description, req.Description)
	set(&t.includesAll, req.IncludesAllRepositories)
	set(&t.canCreate, req.CanCreateOrgRepo)
	if t.mode == "admin" {
		t.units = allUnits("admin")
	} else if !attachUnits(t, req) {
		c.error(http.StatusInternalServerError, "units permission should not be empty")
		return
	}
	s.st.teams.add(t)
	c.json(http.StatusCreated, s.teamJSON(t, true))
}

// team resolves /teams/{id} for an owner of its organization; 404 otherwise.
func (c *rc) team() (*team, *org) {
	t, ok := teamRes.find(c, "edit")
	if !ok {
		return nil, nil
	}
	return t, c.s.st.orgs[t.owner.id]
}

// editTeam is PATCH /teams/{id}: name and description when sent;
// permission (not for Owners) and, only with it, includes_all_repositories;
// a non-admin team's units replaced by units_map or units; an admin
// team's all admin.
func (s *Server) editTeam(c *rc) {
	t, o := c.team()
	if t == nil {
		return
	}
	var req teamReq
	if !c.bind(&req) || !c.visibility(&req) {
		return
	}
	if req.Visibility != nil && !t.owners() {
		t.visibility = *req.Visibility
	}
	if req.CanCreateOrgRepo != nil {
		t.canCreate = t.owners() || *req.CanCreateOrgRepo
	}
	if req.Name != nil && *req.Name != "" {
		if status, msg := s.checkTeamName(o, *req.Name, t.id); status != 0 {
			if strings.HasPrefix(msg, "team already exists") {
				status = http.StatusInternalServerError // the edit has no 422 for it
			}
			c.error(status, msg)
			return
		}
		t.name = *req.Name
	}
	set(&t.description, req.Description)
	if !t.owners() && req.Permission != "" {
		t.mode = accessMode(req.Permission, "none", "admin")
		set(&t.includesAll, req.IncludesAllRepositories)
	}
	switch t.mode {
	case "admin":
		t.units = allUnits("admin")
	case "none":
		attachUnits(t, req)
	}
	c.json(http.StatusOK, s.teamJSON(t, false))
}

// listTeamMembers is GET /teams/{id}/members: by login, X-Total-Count and Link.
func (s *Server) listTeamMembers(c *rc) {
	t, _ := c.team()
	if t == nil {
		return
	}
	var users []*user
	for _, u := range s.users {
		if t.members[u.id] {
			users = append(users, u)
		}
	}
	slices.SortFunc(users, func(a, b *user) int { return cmp.Compare(strings.ToLower(a.login), strings.ToLower(b.login)) })
	servePage(c, users, true, c.userJSON)
}

// member resolves {user}; unknown is 404 as GetUserByName answers.
func (c *rc) member() *user {
	name := c.r.PathValue("user")
	u := c.s.userByLogin(name)
	if u == nil {
		c.error(http.StatusNotFound, "GetUserByName", fmt.Sprintf("user does not exist [uid: 0, name: %s]", strings.ToLower(name)))
	}
	return u
}

// addTeamMember: a user the organization blocks is 403 "user is blocked".
func (s *Server) addTeamMember(c *rc) {
	t, o := c.team()
	if t == nil {
		return
	}
	if u := c.member(); u != nil {
		if o.blocked[u.id] {
			c.error(http.StatusForbidden, "user is blocked")
			return
		}
		t.members[u.id] = true
		c.noContent()
	}
}

// removeTeamMember: the last member of Owners stays (500).
func (s *Server) removeTeamMember(c *rc) {
	t, _ := c.team()
	if t == nil {
		return
	}
	u := c.member()
	if u == nil {
		return
	}
	if t.owners() && t.members[u.id] && len(t.members) == 1 {
		c.error(http.StatusInternalServerError, fmt.Sprintf("user is the last member of owner team [uid: %d]", u.id))
		return
	}
	delete(t.members, u.id)
	c.noContent()
}

// listTeamRepos is GET /teams/{id}/repos: the team's repositories by id.
func (s *Server) listTeamRepos(c *rc) {
	t, _ := c.team()
	if t == nil {
		return
	}
	all := sortedByID(s.st.repos, func(r *repo) bool { return t.repos[r.id] || (t.includesAll && r.orgID == t.owner.id) })
	servePage(c, all, true, c.repoJSON)
}

// teamRepo resolves {org}/{repo} of a team's organization; 404 otherwise.
func (c *rc) teamRepo(t *team) *repo {
	r := c.s.repoByName(c.r.PathValue("org"), c.r.PathValue("repo"))
	if r == nil || r.orgID != t.owner.id {
		c.error(http.StatusNotFound, "not found")
		return nil
	}
	return r
}

func (s *Server) addTeamRepo(c *rc) {
	t, _ := c.team()
	if t == nil {
		return
	}
	if r := c.teamRepo(t); r != nil {
		t.repos[r.id] = true
		c.noContent()
	}
}

func (s *Server) removeTeamRepo(c *rc) {
	t, _ := c.team()
	if t == nil {
		return
	}
	if r := c.teamRepo(t); r != nil {
		delete(t.repos, r.id)
		c.noContent()
	}
}

func (s *Server) teamRoutes(h func(string, func(*rc))) {
	// The forge deletes Owners too.
	teamRes.serve(h, onCollection("POST", s.createTeam), onItem("PATCH", s.editTeam))
	team := "/api/v1" + teamRes.route.Outside
	h("GET "+team+"/members", s.listTeamMembers)
	h("PUT "+team+"/members/{user}", s.addTeamMember)
	h("DELETE "+team+"/members/{user}", s.removeTeamMember)
	h("GET "+team+"/repos", s.listTeamRepos)
	h("PUT "+team+"/repos/{org}/{repo}", s.addTeamRepo)
	h("DELETE "+team+"/repos/{org}/{repo}", s.removeTeamRepo)
}

// Team gives a team of an organization by name (any case).
func (s *Server) Team(orgName, name string) (forge.Team, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orgByName(orgName)
	if o == nil {
		return forge.Team{}, false
	}
	for _, t := range s.st.teams.in(owner{id: o.id}) {
		if strings.EqualFold(t.name, name) {
			return t.toForge(), true
		}
	}
	return forge.Team{}, false
}

// Teams gives the teams of an organization, by name.
func (s *Server) Teams(orgName string) []forge.Team {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orgByName(orgName)
	if o == nil {
		return nil
	}
	var out []forge.Team
	for _, t := range s.st.teams.in(owner{id: o.id}) {
		out = append(out, t.toForge())
	}
	slices.SortFunc(out, func(a, b forge.Team) int { return cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out
}

// TeamMembers gives the logins of a team's members, sorted.
func (s *Server) TeamMembers(orgName, name string) []string {
	return s.teamSet(orgName, name, func(t *team) []string {
		var out []string
		for _, u := range s.users {
			if t.members[u.id] {
				out = append(out, u.login)
			}
		}
		return out
	})
}

// TeamRepos gives the names of a team's repositories, sorted.
func (s *Server) TeamRepos(orgName, name string) []string {
	return s.teamSet(orgName, name, func(t *team) []string {
		var out []string
		for id := range t.repos {
			if r := s.st.repos[id]; r != nil {
				out = append(out, r.name)
			}
		}
		return out
	})
}

func (s *Server) teamSet(orgName, name string, get func(*team) []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orgByName(orgName)
	if o == nil {
		return nil
	}
	for _, t := range s.st.teams.in(owner{id: o.id}) {
		if strings.EqualFold(t.name, name) {
			out := get(t)
			slices.Sort(out)
			return out
		}
	}
	return nil
}

var _ = registerRoutes((*Server).teamRoutes)
