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
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
)

// Teams of an organization, GET|POST /orgs/{org}/teams and, by id outside
// it, GET|PATCH|DELETE /teams/{id}, their members and repositories; the
// contract suite (contract_teams_test.go) holds their behaviour on the fake
// and the live releases.

// Team is an organization's team. A non-admin team's access is per unit
// (UnitsMap, keys "repo.code", "repo.issues", ...; a unit left out has
// none) and Permission reads "none"; an admin team has every unit at
// "admin"; the Owners team "owner" (verified on Gitea 1.24 to 1.26).
type Team struct {
	ID                      int64             `json:"id"`
	Name                    string            `json:"name"`
	Description             string            `json:"description"`
	Permission              string            `json:"permission"`
	IncludesAllRepositories bool              `json:"includes_all_repositories"`
	CanCreateOrgRepo        bool              `json:"can_create_org_repo"`
	UnitsMap                map[string]string `json:"units_map"`
	// Visibility came with Gitea 1.27: public, limited or private (the
	// default); older releases answer none ("") and ignore it on writes.
	Visibility string `json:"visibility"`
	// Organization is the team's organization, in the answer of GET
	// /teams/{id} and of the create (not in an organization's listing nor
	// in the answer of an edit).
	Organization *TeamOrganization `json:"organization,omitempty"`
}

// TeamOrganization is what a team's answer says of its organization.
type TeamOrganization struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// CreateTeamOption is the body of POST /orgs/{org}/teams. A non-admin team
// needs units: without them the forge answers 500 "units permission should
// not be empty".
type CreateTeamOption struct {
	Name                    string            `json:"name"`
	Description             string            `json:"description,omitempty"`
	Permission              string            `json:"permission,omitempty"`
	IncludesAllRepositories bool              `json:"includes_all_repositories"`
	CanCreateOrgRepo        bool              `json:"can_create_org_repo"`
	UnitsMap                map[string]string `json:"units_map,omitempty"`
	Visibility              string            `json:"visibility,omitempty"`
}

// EditTeamOption is the body of PATCH /teams/{id}: only what is sent
// changes, and name may be left out. includes_all_repositories is ignored
// unless permission is sent too; units_map replaces the whole map of a
// non-admin team (a unit left out becomes none).
type EditTeamOption struct {
	Name                    string            `json:"name,omitempty"`
	Description             *string           `json:"description,omitempty"`
	Permission              string            `json:"permission,omitempty"`
	IncludesAllRepositories *bool             `json:"includes_all_repositories,omitempty"`
	CanCreateOrgRepo        *bool             `json:"can_create_org_repo,omitempty"`
	UnitsMap                map[string]string `json:"units_map,omitempty"`
	// Visibility is left as it is when not sent; the Owners team's is
	// never changed (Gitea 1.27 ignores it there).
	Visibility *string `json:"visibility,omitempty"`
}

// TeamsClient manages an organization's teams, their members and
// repositories. Teams are addressed by id outside the organization
// (/teams/{id}); org names the organization for the listing cache only.
type TeamsClient interface {
	// ListTeams lists the organization's teams, by name, Owners included;
	// to a user who is no member it is KindForbidden (ErrNotOrgMember),
	// even where GET of the organization answers 404.
	ListTeams(ctx context.Context, org string) ([]Team, error)
	GetTeam(ctx context.Context, org string, id int64) (*Team, error)
	// CreateTeam answers a taken name (any case) with 422.
	CreateTeam(ctx context.Context, org string, opt CreateTeamOption) (*Team, error)
	EditTeam(ctx context.Context, org string, id int64, opt EditTeamOption) (*Team, error)
	// DeleteTeam deletes any team, Owners included (Gitea 1.26.4 answers
	// 204): the operator never deletes Owners.
	DeleteTeam(ctx context.Context, org string, id int64) error
	ListTeamMembers(ctx context.Context, id int64) ([]User, error)
	// AddTeamMember makes the user a member of the organization too; an
	// unknown user is 404.
	AddTeamMember(ctx context.Context, id int64, user string) error
	// RemoveTeamMember: removing the last member of Owners is a 500 ("user
	// is the last member of owner team"); a user not in the team is 204.
	RemoveTeamMember(ctx context.Context, id int64, user string) error
	ListTeamRepos(ctx context.Context, id int64) ([]Repository, error)
	// AddTeamRepo: an unknown repository is 404.
	AddTeamRepo(ctx context.Context, id int64, org, repo string) error
	RemoveTeamRepo(ctx context.Context, id int64, org, repo string) error
}

var _ TeamsClient = (*Client)(nil)

var teams = declare(&resource[Team]{noun: "team", plural: "teams", path: "/teams", outside: "/teams/{id}", of: true,
	key: func(t Team) int64 { return t.ID }, clone: cloneTeam})

func cloneTeam(t Team) Team {
	t.UnitsMap = maps.Clone(t.UnitsMap)
	if t.Organization != nil {
		o := *t.Organization
		t.Organization = &o
	}
	return t
}

func (o *Team) forgeID() int64 { return o.ID }

// teamCall is a call on /teams/{id}...
func teamCall(id int64, op, method, suffix string, extra ...any) call {
	return call{op: op, method: method, route: teams.outside + suffix, args: append([]any{id}, extra...)}
}

// ListTeams implements TeamsClient. A user who is no member of org is
// refused its teams (KindForbidden, with ErrNotOrgMember), whatever org's
// visibility, not told org is missing.
func (c *Client) ListTeams(ctx context.Context, org string) ([]Team, error) {
	ts, err := teams.list(ctx, c, OrgScope(org))
	return ts, notOrgMember(err)
}

// GetTeam implements TeamsClient. Teams are read by id outside their
// organization: a team whose answer names another organization than org
// (the one the caller's spec names: the organization was renamed, or the
// id is another organization's team) is KindMoved, and the caller writes
// nothing to it.
func (c *Client) GetTeam(ctx context.Context, org string, id int64) (*Team, error) {
	t, err := teams.get(ctx, c, Scope{}, id)
	if err != nil {
		return nil, err
	}
	if o := t.Organization; o != nil && org != "" && !strings.EqualFold(o.Name, org) {
		return nil, &Error{Op: fmt.Sprintf("get team %d", id), Kind: KindMoved,
			Err: fmt.Errorf("team %q (id %d) belongs to organization %s, not %s: nothing is written to it", t.Name, id, o.Name, org)}
	}
	return t, nil
}

// CreateTeam implements TeamsClient.
func (c *Client) CreateTeam(ctx context.Context, org string, opt CreateTeamOption) (*Team, error) {
	return teams.create(ctx, c, OrgScope(org), teams.one(opt.Name), opt)
}

// EditTeam implements TeamsClient.
func (c *Client) EditTeam(ctx context.Context, _ string, id int64, opt EditTeamOption) (*Team, error) {
	return teams.edit(ctx, c, Scope{}, id, opt)
}

// DeleteTeam implements TeamsClient.
func (c *Client) DeleteTeam(ctx context.Context, _ string, id int64) error {
	return teams.delete(ctx, c, Scope{}, id)
}

// ListTeamMembers implements TeamsClient.
func (c *Client) ListTeamMembers(ctx context.Context, id int64) ([]User, error) {
	cl := teamCall(id, fmt.Sprintf("list members of team %d", id), http.MethodGet, "/members")
	return listAll(ctx, c, cl, decodeArray[User], func(u User) int64 { return u.ID })
}

// AddTeamMember implements TeamsClient.
func (c *Client) AddTeamMember(ctx context.Context, id int64, user string) error {
	_, err := c.do(ctx, teamCall(id, fmt.Sprintf("add %s to team %d", user, id), http.MethodPut, "/members/{user}", user))
	return err
}

// RemoveTeamMember implements TeamsClient.
func (c *Client) RemoveTeamMember(ctx context.Context, id int64, user string) error {
	_, err := c.do(ctx, teamCall(id, fmt.Sprintf("remove %s from team %d", user, id), http.MethodDelete, "/members/{user}", user))
	return err
}

// ListTeamRepos implements TeamsClient.
func (c *Client) ListTeamRepos(ctx context.Context, id int64) ([]Repository, error) {
	cl := teamCall(id, fmt.Sprintf("list repositories of team %d", id), http.MethodGet, "/repos")
	return listAll(ctx, c, cl, decodeArray[Repository], func(r Repository) int64 { return r.ID })
}

// AddTeamRepo implements TeamsClient.
func (c *Client) AddTeamRepo(ctx context.Context, id int64, org, repo string) error {
	_, err := c.do(ctx, teamCall(id, fmt.Sprintf("add repository %s/%s to team %d", org, repo, id), http.MethodPut, "/repos/{org}/{repo}", org, repo))
	return err
}

// RemoveTeamRepo implements TeamsClient.
func (c *Client) RemoveTeamRepo(ctx context.Context, id int64, org, repo string) error {
	_, err := c.do(ctx, teamCall(id, fmt.Sprintf("remove repository %s/%s from team %d", org, repo, id), http.MethodDelete, "/repos/{org}/{repo}", org, repo))
	return err
}

// ---- cached through Snapshots: one listing per organization; a team's
// members and repositories are read afresh (afresh.go) ----

func (s *Snapshots) ListTeams(ctx context.Context, org string) ([]Team, error) {
	return listIn(ctx, s, teams, OrgScope(org), func(ctx context.Context, sc Scope) ([]Team, error) {
		return s.Interface.ListTeams(ctx, sc.Owner)
	})
}

func (s *Snapshots) GetTeam(ctx context.Context, org string, id int64) (*Team, error) {
	return byID(s, teams.cache(s), id,
		func() (*Team, error) { return s.Interface.GetTeam(ctx, org, id) },
		func() ([]Team, error) { return s.ListTeams(ctx, org) })
}

func (s *Snapshots) CreateTeam(ctx context.Context, org string, opt CreateTeamOption) (*Team, error) {
	return teams.cache(s).answer(OrgScope(org))(s.Interface.CreateTeam(ctx, org, opt))
}

func (s *Snapshots) EditTeam(ctx context.Context, org string, id int64, opt EditTeamOption) (*Team, error) {
	return teams.cache(s).answer(OrgScope(org))(s.Interface.EditTeam(ctx, org, id, opt))
}

func (s *Snapshots) DeleteTeam(ctx context.Context, org string, id int64) error {
	return teams.cache(s).deleted(OrgScope(org), id)(s.Interface.DeleteTeam(ctx, org, id))
}

func (s *Snapshots) ListTeamMembers(ctx context.Context, id int64) ([]User, error) {
	return afresh(ctx, s, "team members", strconv.FormatInt(id, 10), func(ctx context.Context) ([]User, error) {
		return s.Interface.ListTeamMembers(ctx, id)
	})
}

func (s *Snapshots) ListTeamRepos(ctx context.Context, id int64) ([]Repository, error) {
	return afresh(ctx, s, "team repositories", strconv.FormatInt(id, 10), func(ctx context.Context) ([]Repository, error) {
		return s.Interface.ListTeamRepos(ctx, id)
	})
}
