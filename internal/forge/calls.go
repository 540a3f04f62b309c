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
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
)

// fetch makes call cl and decodes its JSON answer into a new T.
func fetch[T any](ctx context.Context, c *Client, cl call) (*T, error) {
	out := new(T)
	if _, err := c.doJSON(ctx, cl, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- server ----

// Version implements ServerClient.
func (c *Client) Version(ctx context.Context) (string, error) {
	out, err := fetch[struct {
		Version string `json:"version"`
	}](ctx, c, call{op: "get server version", method: http.MethodGet, route: "/version"})
	if err != nil {
		return "", err
	}
	return truncate(out.Version, maxVersionLen), nil
}

// CurrentUser implements ServerClient.
func (c *Client) CurrentUser(ctx context.Context) (*User, error) {
	out, err := fetch[User](ctx, c, call{op: "get current user", method: http.MethodGet, route: "/user"})
	if err != nil {
		return nil, err
	}
	out.Login = truncate(out.Login, maxLoginLen)
	return out, nil
}

// ---- organizations ----

// GetOrg implements OrgsClient.
func (c *Client) GetOrg(ctx context.Context, name string) (*Organization, error) {
	cl := call{op: fmt.Sprintf("get organization %q", name), method: http.MethodGet, route: "/orgs/{org}", args: []any{name}}
	return fetch[Organization](ctx, c, cl)
}

// ListMyOrgs implements OrgsClient.
func (c *Client) ListMyOrgs(ctx context.Context) ([]Organization, error) {
	cl := call{op: "list the user's organizations", method: http.MethodGet, route: "/user/orgs"}
	return listAll(ctx, c, cl, decodeArray[Organization], func(o Organization) int64 { return o.ID })
}

// CreateOrg implements OrgsClient.
func (c *Client) CreateOrg(ctx context.Context, opt CreateOrgOption) (*Organization, error) {
	cl := call{op: fmt.Sprintf("create organization %q", opt.Name), method: http.MethodPost, route: "/orgs", body: opt}
	return fetch[Organization](ctx, c, cl)
}

// EditOrg implements OrgsClient.
func (c *Client) EditOrg(ctx context.Context, name string, opt EditOrgOption) (*Organization, error) {
	cl := call{op: fmt.Sprintf("edit organization %q", name), method: http.MethodPatch, route: "/orgs/{org}", args: []any{name}, body: opt}
	return fetch[Organization](ctx, c, cl)
}

// DeleteOrg implements OrgsClient.
func (c *Client) DeleteOrg(ctx context.Context, name string) error {
	_, err := c.do(ctx, call{op: fmt.Sprintf("delete organization %q", name), method: http.MethodDelete, route: "/orgs/{org}", args: []any{name}})
	return err
}

// ---- organization and repository hooks ----

// scopedCall is a call on a route under an organization or a repository.
func scopedCall(scope Scope, op, method, suffix string, extra ...any) call {
	route, args := scope.routePrefix()
	return call{op: op, method: method, route: route + suffix, args: append(args, extra...)}
}

// ListHooks implements HooksClient. A repository's list has X-Total-Count
// only, no Link: listAll pages by count and short pages.
func (c *Client) ListHooks(ctx context.Context, scope Scope) ([]Hook, error) {
	cl := scopedCall(scope, "list hooks of "+scope.describe(), http.MethodGet, "/hooks")
	return listAll(ctx, c, cl, decodeArray[Hook], func(h Hook) int64 { return h.ID })
}

// GetHook implements HooksClient.
func (c *Client) GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error) {
	return fetch[Hook](ctx, c, scopedCall(scope, fmt.Sprintf("get hook %d of %s", id, scope.describe()), http.MethodGet, "/hooks/{id}", id))
}

// CreateHook implements HooksClient. The op names the hook by type only:
// chat webhook URLs are secrets.
func (c *Client) CreateHook(ctx context.Context, scope Scope, opt CreateHookOption) (*Hook, error) {
	cl := scopedCall(scope, fmt.Sprintf("create %s hook in %s", opt.Type, scope.describe()), http.MethodPost, "/hooks")
	cl.body, cl.secrets = opt, hookSecrets(opt.Config, opt.AuthorizationHeader)
	return fetch[Hook](ctx, c, cl)
}

// EditHook implements HooksClient.
func (c *Client) EditHook(ctx context.Context, scope Scope, id int64, opt EditHookOption) (*Hook, error) {
	cl := scopedCall(scope, fmt.Sprintf("edit hook %d of %s", id, scope.describe()), http.MethodPatch, "/hooks/{id}", id)
	cl.body, cl.secrets = opt, hookSecrets(opt.Config, opt.AuthorizationHeader)
	return fetch[Hook](ctx, c, cl)
}

// DeleteHook implements HooksClient.
func (c *Client) DeleteHook(ctx context.Context, scope Scope, id int64) error {
	_, err := c.do(ctx, scopedCall(scope, fmt.Sprintf("delete hook %d of %s", id, scope.describe()), http.MethodDelete, "/hooks/{id}", id))
	return err
}

// ---- labels ----

// ListLabels implements LabelsClient.
func (c *Client) ListLabels(ctx context.Context, scope Scope) ([]Label, error) {
	cl := scopedCall(scope, "list labels in "+scope.String(), http.MethodGet, "/labels")
	return listAll(ctx, c, cl, decodeArray[Label], func(l Label) int64 { return l.ID })
}

// GetLabel implements LabelsClient.
func (c *Client) GetLabel(ctx context.Context, scope Scope, id int64) (*Label, error) {
	cl := scopedCall(scope, fmt.Sprintf("get label %d in %s", id, scope), http.MethodGet, "/labels/{id}", id)
	return fetch[Label](ctx, c, cl)
}

// CreateLabel implements LabelsClient.
func (c *Client) CreateLabel(ctx context.Context, scope Scope, opt CreateLabelOption) (*Label, error) {
	cl := scopedCall(scope, fmt.Sprintf("create label %q in %s", opt.Name, scope), http.MethodPost, "/labels")
	cl.body = opt
	return fetch[Label](ctx, c, cl)
}

// EditLabel implements LabelsClient.
func (c *Client) EditLabel(ctx context.Context, scope Scope, id int64, opt EditLabelOption) (*Label, error) {
	cl := scopedCall(scope, fmt.Sprintf("edit label %d in %s", id, scope), http.MethodPatch, "/labels/{id}", id)
	cl.body = opt
	return fetch[Label](ctx, c, cl)
}

// DeleteLabel implements LabelsClient.
func (c *Client) DeleteLabel(ctx context.Context, scope Scope, id int64) error {
	_, err := c.do(ctx, scopedCall(scope, fmt.Sprintf("delete label %d in %s", id, scope), http.MethodDelete, "/labels/{id}", id))
	return err
}

// ---- projects ----

// ListProjects implements ProjectsClient.
func (c *Client) ListProjects(ctx context.Context, scope Scope, state string) ([]Project, error) {
	if state == "" {
		state = "open"
	}
	cl := scopedCall(scope, fmt.Sprintf("list %s projects in %s", state, scope), http.MethodGet, "/projects")
	cl.query = url.Values{"state": {state}}
	return listAll(ctx, c, cl, decodeArray[Project], func(p Project) int64 { return p.ID })
}

// GetProject implements ProjectsClient.
func (c *Client) GetProject(ctx context.Context, scope Scope, id int64) (*Project, error) {
	cl := scopedCall(scope, fmt.Sprintf("get project %d in %s", id, scope), http.MethodGet, "/projects/{id}", id)
	return fetch[Project](ctx, c, cl)
}

// CreateProject implements ProjectsClient.
func (c *Client) CreateProject(ctx context.Context, scope Scope, opt CreateProjectOption) (*Project, error) {
	cl := scopedCall(scope, fmt.Sprintf("create project %q in %s", opt.Title, scope), http.MethodPost, "/projects")
	cl.body = opt
	return fetch[Project](ctx, c, cl)
}

// EditProject implements ProjectsClient.
func (c *Client) EditProject(ctx context.Context, scope Scope, id int64, opt EditProjectOption) (*Project, error) {
	cl := scopedCall(scope, fmt.Sprintf("edit project %d in %s", id, scope), http.MethodPatch, "/projects/{id}", id)
	cl.body = opt
	return fetch[Project](ctx, c, cl)
}

// DeleteProject implements ProjectsClient.
func (c *Client) DeleteProject(ctx context.Context, scope Scope, id int64) error {
	_, err := c.do(ctx, scopedCall(scope, fmt.Sprintf("delete project %d in %s", id, scope), http.MethodDelete, "/projects/{id}", id))
	return err
}

// ---- runners ----

// ListRunners implements RunnersClient. The list comes as
// {"runners": [...], "total_count": N}.
func (c *Client) ListRunners(ctx context.Context, scope Scope) ([]Runner, error) {
	cl := scopedCall(scope, "list runners in "+scope.String(), http.MethodGet, "/actions/runners")
	decode := func(resp *response) (pageResult[Runner], error) {
		var body struct {
			Runners    []Runner `json:"runners"`
			TotalCount *int     `json:"total_count"`
		}
		if err := json.Unmarshal(resp.body, &body); err != nil {
			return pageResult[Runner]{}, err
		}
		total := -1
		if body.TotalCount != nil {
			total = *body.TotalCount
		}
		return pageResult[Runner]{items: body.Runners, total: total}, nil
	}
	return listAll(ctx, c, cl, decode, func(r Runner) int64 { return r.ID })
}

// GetRunner implements RunnersClient.
func (c *Client) GetRunner(ctx context.Context, scope Scope, id int64) (*Runner, error) {
	cl := scopedCall(scope, fmt.Sprintf("get runner %d in %s", id, scope), http.MethodGet, "/actions/runners/{id}", id)
	return fetch[Runner](ctx, c, cl)
}

// EditRunner implements RunnersClient.
func (c *Client) EditRunner(ctx context.Context, scope Scope, id int64, disabled bool) (*Runner, error) {
	verb := "enable"
	if disabled {
		verb = "disable"
	}
	cl := scopedCall(scope, fmt.Sprintf("%s runner %d in %s", verb, id, scope), http.MethodPatch, "/actions/runners/{id}", id)
	cl.body = map[string]bool{"disabled": disabled}
	return fetch[Runner](ctx, c, cl)
}

// ---- repositories ----

// GetRepo implements ReposClient.
func (c *Client) GetRepo(ctx context.Context, owner, repo string) (*Repository, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("get repository %s/%s", owner, repo), http.MethodGet, "")
	return fetch[Repository](ctx, c, cl)
}

// GetRepoByID implements ReposClient.
func (c *Client) GetRepoByID(ctx context.Context, id int64) (*Repository, error) {
	cl := call{op: fmt.Sprintf("get repository %d", id), method: http.MethodGet, route: "/repositories/{id}", args: []any{id}}
	return fetch[Repository](ctx, c, cl)
}

// ListUserRepos implements ReposClient.
func (c *Client) ListUserRepos(ctx context.Context, user string) ([]Repository, error) {
	cl := call{op: "list repositories of user " + user, method: http.MethodGet, route: "/users/{user}/repos", args: []any{user}}
	return listAll(ctx, c, cl, decodeArray[Repository], func(r Repository) int64 { return r.ID })
}

// CreateOrgRepo implements ReposClient.
func (c *Client) CreateOrgRepo(ctx context.Context, org string, opt CreateRepoOption) (*Repository, error) {
	cl := call{op: fmt.Sprintf("create repository %q in organization %s", opt.Name, org), method: http.MethodPost, route: "/orgs/{org}/repos", args: []any{org}, body: opt}
	return fetch[Repository](ctx, c, cl)
}

// CreateUserRepo implements ReposClient.
func (c *Client) CreateUserRepo(ctx context.Context, opt CreateRepoOption) (*Repository, error) {
	cl := call{op: fmt.Sprintf("create repository %q for the current user", opt.Name), method: http.MethodPost, route: "/user/repos", body: opt}
	return fetch[Repository](ctx, c, cl)
}

// EditRepo implements ReposClient.
func (c *Client) EditRepo(ctx context.Context, owner, repo string, opt EditRepoOption) (*Repository, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("edit repository %s/%s", owner, repo), http.MethodPatch, "")
	cl.body = opt
	return fetch[Repository](ctx, c, cl)
}

// DeleteRepo implements ReposClient.
func (c *Client) DeleteRepo(ctx context.Context, owner, repo string) error {
	_, err := c.do(ctx, scopedCall(RepoScope(owner, repo), fmt.Sprintf("delete repository %s/%s", owner, repo), http.MethodDelete, ""))
	return err
}

// SetRepoTopics implements ReposClient.
func (c *Client) SetRepoTopics(ctx context.Context, owner, repo string, topics []string) error {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("set topics of %s/%s", owner, repo), http.MethodPut, "/topics")
	if topics == nil {
		topics = []string{}
	}
	cl.body = map[string][]string{"topics": topics}
	_, err := c.do(ctx, cl)
	return err
}

// ListCollaborators implements ReposClient.
func (c *Client) ListCollaborators(ctx context.Context, owner, repo string) ([]User, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("list collaborators of %s/%s", owner, repo), http.MethodGet, "/collaborators")
	return listAll(ctx, c, cl, decodeArray[User], func(u User) int64 { return u.ID })
}

// GetCollaboratorPermission implements ReposClient.
func (c *Client) GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("get the permission of %s in %s/%s", user, owner, repo), http.MethodGet, "/collaborators/{user}/permission", user)
	out, err := fetch[struct {
		Permission string `json:"permission"`
	}](ctx, c, cl)
	if err != nil {
		return "", err
	}
	return out.Permission, nil
}

// SetCollaborator implements ReposClient.
func (c *Client) SetCollaborator(ctx context.Context, owner, repo, user, permission string) error {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("set collaborator %s of %s/%s to %s", user, owner, repo, permission), http.MethodPut, "/collaborators/{user}", user)
	cl.body = map[string]string{"permission": permission}
	_, err := c.do(ctx, cl)
	return err
}

// RemoveCollaborator implements ReposClient.
func (c *Client) RemoveCollaborator(ctx context.Context, owner, repo, user string) error {
	_, err := c.do(ctx, scopedCall(RepoScope(owner, repo), fmt.Sprintf("remove collaborator %s of %s/%s", user, owner, repo), http.MethodDelete, "/collaborators/{user}", user))
	return err
}

// ---- teams ----

// teamCall is a call on /teams/{id}...
func teamCall(id int64, op, method, suffix string, extra ...any) call {
	return call{op: op, method: method, route: "/teams/{id}" + suffix, args: append([]any{id}, extra...)}
}

// ListTeams implements TeamsClient.
func (c *Client) ListTeams(ctx context.Context, org string) ([]Team, error) {
	cl := call{op: "list teams of organization " + org, method: http.MethodGet, route: "/orgs/{org}/teams", args: []any{org}}
	return listAll(ctx, c, cl, decodeArray[Team], func(t Team) int64 { return t.ID })
}

// GetTeam implements TeamsClient.
func (c *Client) GetTeam(ctx context.Context, _ string, id int64) (*Team, error) {
	return fetch[Team](ctx, c, teamCall(id, fmt.Sprintf("get team %d", id), http.MethodGet, ""))
}

// CreateTeam implements TeamsClient.
func (c *Client) CreateTeam(ctx context.Context, org string, opt CreateTeamOption) (*Team, error) {
	cl := call{op: fmt.Sprintf("create team %q in organization %s", opt.Name, org), method: http.MethodPost, route: "/orgs/{org}/teams", args: []any{org}, body: opt}
	return fetch[Team](ctx, c, cl)
}

// EditTeam implements TeamsClient.
func (c *Client) EditTeam(ctx context.Context, _ string, id int64, opt EditTeamOption) (*Team, error) {
	cl := teamCall(id, fmt.Sprintf("edit team %d", id), http.MethodPatch, "")
	cl.body = opt
	return fetch[Team](ctx, c, cl)
}

// DeleteTeam implements TeamsClient.
func (c *Client) DeleteTeam(ctx context.Context, _ string, id int64) error {
	_, err := c.do(ctx, teamCall(id, fmt.Sprintf("delete team %d", id), http.MethodDelete, ""))
	return err
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

// ---- Actions secrets and variables ----

// ListActionsSecrets implements ActionsClient.
func (c *Client) ListActionsSecrets(ctx context.Context, scope Scope) ([]ActionsSecret, error) {
	cl := scopedCall(scope, "list Actions secrets of "+scope.describe(), http.MethodGet, "/actions/secrets")
	return listAll(ctx, c, cl, decodeArray[ActionsSecret], nameID[ActionsSecret](func(s ActionsSecret) string { return s.Name }))
}

// PutActionsSecret implements ActionsClient. The value is redacted from
// any answer the forge gives.
func (c *Client) PutActionsSecret(ctx context.Context, scope Scope, name, data, description string) error {
	cl := scopedCall(scope, fmt.Sprintf("set Actions secret %s of %s", name, scope.describe()), http.MethodPut, "/actions/secrets/{name}", name)
	cl.body = map[string]string{"data": data, "description": description}
	_, err := c.do(WithSecrets(ctx, data), cl)
	return err
}

// DeleteActionsSecret implements ActionsClient.
func (c *Client) DeleteActionsSecret(ctx context.Context, scope Scope, name string) error {
	_, err := c.do(ctx, scopedCall(scope, fmt.Sprintf("delete Actions secret %s of %s", name, scope.describe()), http.MethodDelete, "/actions/secrets/{name}", name))
	return err
}

// ListActionsVariables implements ActionsClient.
func (c *Client) ListActionsVariables(ctx context.Context, scope Scope) ([]ActionsVariable, error) {
	cl := scopedCall(scope, "list Actions variables of "+scope.describe(), http.MethodGet, "/actions/variables")
	return listAll(ctx, c, cl, decodeArray[ActionsVariable], nameID[ActionsVariable](func(v ActionsVariable) string { return v.Name }))
}

// CreateActionsVariable implements ActionsClient.
func (c *Client) CreateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	cl := scopedCall(scope, fmt.Sprintf("create Actions variable %s of %s", name, scope.describe()), http.MethodPost, "/actions/variables/{name}", name)
	cl.body = map[string]string{"value": value, "description": description}
	_, err := c.do(ctx, cl)
	return err
}

// UpdateActionsVariable implements ActionsClient.
func (c *Client) UpdateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	cl := scopedCall(scope, fmt.Sprintf("update Actions variable %s of %s", name, scope.describe()), http.MethodPut, "/actions/variables/{name}", name)
	cl.body = map[string]string{"value": value, "description": description}
	_, err := c.do(ctx, cl)
	return err
}

// DeleteActionsVariable implements ActionsClient.
func (c *Client) DeleteActionsVariable(ctx context.Context, scope Scope, name string) error {
	_, err := c.do(ctx, scopedCall(scope, fmt.Sprintf("delete Actions variable %s of %s", name, scope.describe()), http.MethodDelete, "/actions/variables/{name}", name))
	return err
}

// nameID gives listAll a number per name (an FNV hash), for objects the
// forge keys by name: a name seen twice in one walk is one object.
func nameID[T any](name func(T) string) func(T) int64 {
	return func(v T) int64 {
		h := fnv.New64a()
		_, _ = h.Write([]byte(name(v)))
		return int64(h.Sum64() >> 1)
	}
}

// RunnerRegistrationToken implements FixturesClient.
func (c *Client) RunnerRegistrationToken(ctx context.Context, scope Scope) (string, error) {
	cl := scopedCall(scope, "get runner registration token in "+scope.String(), http.MethodPost, "/actions/runners/registration-token")
	out, err := fetch[struct {
		Token string `json:"token"`
	}](ctx, c, cl)
	if err != nil {
		return "", err
	}
	return out.Token, nil
}
