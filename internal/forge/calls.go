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
	"net/http"
	"strings"
)

// fetch makes call cl and decodes its JSON answer into a new T.
func fetch[T any](ctx context.Context, c *Client, cl call) (*T, error) {
	out := new(T)
	if _, err := c.doJSON(ctx, cl, out); err != nil {
		return nil, err
	}
	return out, nil
}

// scopedCall is a call on a route under an organization or a repository.
func scopedCall(scope Scope, op, method, suffix string, extra ...any) call {
	route, args := scope.routePrefix()
	return call{op: op, method: method, route: route + suffix, args: append(args, extra...)}
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

// GenerateRepo implements ReposClient.
func (c *Client) GenerateRepo(ctx context.Context, template string, opt GenerateRepoOption) (*Repository, error) {
	owner, name, _ := strings.Cut(template, "/")
	cl := scopedCall(RepoScope(owner, name), fmt.Sprintf("create repository %s/%s from template %s", opt.Owner, opt.Name, template), http.MethodPost, "/generate")
	cl.body = opt
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
