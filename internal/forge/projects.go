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
	"net/url"
)

// Projects of a repository, GET|POST /repos/{o}/{r}/projects and
// GET|PATCH|DELETE .../projects/{id}; the contract suite
// (contract_projects_test.go) holds their behaviour on the fake and the
// live releases.

// Project mirrors the forge's repository Project object.
type Project struct {
	ID           int64  `json:"id"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	CardType     string `json:"card_type"`
	TemplateType string `json:"template_type"`
	State        string `json:"state"`
	HTMLURL      string `json:"html_url"`
}

// CreateProjectOption is the body of POST /repos/{o}/{r}/projects.
// CardType is text_only|images_and_text, TemplateType none|basic_kanban|bug_triage.
type CreateProjectOption struct {
	Title        string `json:"title"`
	Description  string `json:"description,omitempty"`
	CardType     string `json:"card_type,omitempty"`
	TemplateType string `json:"template_type,omitempty"`
}

// EditProjectOption is the body of PATCH /repos/{o}/{r}/projects/{id}; only
// non-nil fields are sent. State is open|closed.
type EditProjectOption struct {
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	CardType    *string `json:"card_type,omitempty"`
	State       *string `json:"state,omitempty"`
}

// ProjectsClient manages repository projects. Servers without the projects
// API answer every call with KindRouteNotFound.
type ProjectsClient interface {
	// ListProjects lists projects in state "open" (when state is ""),
	// "closed" or "all".
	ListProjects(ctx context.Context, scope Scope, state string) ([]Project, error)
	GetProject(ctx context.Context, scope Scope, id int64) (*Project, error)
	CreateProject(ctx context.Context, scope Scope, opt CreateProjectOption) (*Project, error)
	EditProject(ctx context.Context, scope Scope, id int64, opt EditProjectOption) (*Project, error)
	DeleteProject(ctx context.Context, scope Scope, id int64) error
}

var _ ProjectsClient = (*Client)(nil)

var projects = declare(&resource[Project]{noun: "project", plural: "projects", path: "/projects", item: "/{id}",
	key: func(p Project) int64 { return p.ID }})

func (o *Project) forgeID() int64 { return o.ID }

// ListProjects implements ProjectsClient.
func (c *Client) ListProjects(ctx context.Context, scope Scope, state string) ([]Project, error) {
	if state == "" {
		state = "open"
	}
	cl := projects.call(scope, http.MethodGet, "list", state+" projects")
	cl.query = url.Values{"state": {state}}
	return projects.listing(ctx, c, cl)
}

// GetProject implements ProjectsClient.
func (c *Client) GetProject(ctx context.Context, scope Scope, id int64) (*Project, error) {
	return projects.get(ctx, c, scope, id)
}

// CreateProject implements ProjectsClient.
func (c *Client) CreateProject(ctx context.Context, scope Scope, opt CreateProjectOption) (*Project, error) {
	return projects.create(ctx, c, scope, projects.one(opt.Title), opt)
}

// EditProject implements ProjectsClient.
func (c *Client) EditProject(ctx context.Context, scope Scope, id int64, opt EditProjectOption) (*Project, error) {
	return projects.edit(ctx, c, scope, id, opt)
}

// DeleteProject implements ProjectsClient.
func (c *Client) DeleteProject(ctx context.Context, scope Scope, id int64) error {
	return projects.delete(ctx, c, scope, id)
}

// ---- cached through Snapshots: the listing of state "all" serves every read ----

func (s *Snapshots) ListProjects(ctx context.Context, scope Scope, state string) ([]Project, error) {
	if state != "all" {
		if err := s.turn(ctx); err != nil {
			return nil, err
		}
		return s.Interface.ListProjects(ctx, scope, state)
	}
	return listIn(ctx, s, projects, scope, func(ctx context.Context, sc Scope) ([]Project, error) {
		return s.Interface.ListProjects(ctx, sc, "all")
	})
}

func (s *Snapshots) GetProject(ctx context.Context, scope Scope, id int64) (*Project, error) {
	return getIn(ctx, s, projects, scope, id, s.Interface.GetProject, func(ctx context.Context, sc Scope) ([]Project, error) {
		return s.ListProjects(ctx, sc, "all")
	})
}

func (s *Snapshots) CreateProject(ctx context.Context, scope Scope, opt CreateProjectOption) (*Project, error) {
	return projects.cache(s).answer(scope)(s.Interface.CreateProject(ctx, scope, opt))
}

func (s *Snapshots) EditProject(ctx context.Context, scope Scope, id int64, opt EditProjectOption) (*Project, error) {
	return projects.cache(s).answer(scope)(s.Interface.EditProject(ctx, scope, id, opt))
}

func (s *Snapshots) DeleteProject(ctx context.Context, scope Scope, id int64) error {
	return projects.cache(s).deleted(scope, id)(s.Interface.DeleteProject(ctx, scope, id))
}
