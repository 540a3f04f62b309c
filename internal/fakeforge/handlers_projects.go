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
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

func (s *Server) projectJSON(p *project) map[string]any {
	out := map[string]any{
		"id": p.id, "title": p.title, "description": p.description, "card_type": p.cardType,
		"template_type": p.templateType, "state": p.state(), "is_closed": p.closed,
		"repo_id": p.owner.id, "type": "repository", "html_url": s.projectURL(p),
		"created_at": p.created.Format(time.RFC3339), "updated_at": p.updated.Format(time.RFC3339),
		"num_issues": 0, "num_open_issues": 0, "num_closed_issues": 0,
	}
	if p.closed {
		out["closed_at"] = p.closedAt.Format(time.RFC3339)
	}
	return out
}

var projectRes = &resource[*project]{
	route: forge.RouteOf("projects"), scopes: []string{forge.RepoRoute},
	table: func(st *state) *table[*project] { return st.projects },
	// Without the API the routes answer like a server without them.
	served: func(s *Server) bool { return s.projectsEnabled },
	may: func(c *rc, _ *org, r *repo, verb string) bool {
		return reads(verb) || c.requireRepoWriter(r)
	},
	missing: func(c *rc, _ owner, _ *project) {
		c.notFound("project does not exist [id: " + c.r.PathValue("id") + "]")
	},
	// ?state= all, closed, or else open; newest first.
	order: func(c *rc, ps []*project) ([]*project, bool) {
		state := c.r.URL.Query().Get("state")
		ps = slices.DeleteFunc(ps, func(p *project) bool {
			switch state {
			case "all":
				return false
			case "closed":
				return !p.closed
			}
			return p.closed
		})
		slices.Reverse(ps)
		return ps, true
	},
	link: withLink,
	json: func(c *rc, p *project) map[string]any { return c.s.projectJSON(p) },
}

func validCardType(t string) bool { return t == "text_only" || t == "images_and_text" }

func (s *Server) createProject(c *rc) {
	ow, ok := projectRes.scope(c, "create")
	if !ok {
		return
	}
	var req struct {
		Title        string `json:"title"`
		Description  string `json:"description"`
		TemplateType string `json:"template_type"`
		CardType     string `json:"card_type"`
	}
	if !c.bind(&req) {
		return
	}
	switch {
	case strings.TrimSpace(req.Title) == "":
		c.validation("[Title]: Required")
		return
	case !maxSize(req.Title, 255):
		c.validation("[Title]: MaxSize")
		return
	}
	if req.TemplateType == "" {
		req.TemplateType = "none"
	}
	if req.CardType == "" {
		req.CardType = "text_only"
	}
	switch req.TemplateType {
	case "none", "basic_kanban", "bug_triage":
	default:
		c.validation("invalid template_type: " + req.TemplateType)
		return
	}
	if !validCardType(req.CardType) {
		c.validation("invalid card_type: " + req.CardType)
		return
	}
	now := time.Now().UTC().Truncate(time.Second)
	p := &project{
		row: row{owner: ow}, title: req.Title, description: req.Description,
		cardType: req.CardType, templateType: req.TemplateType, created: now, updated: now,
	}
	s.st.projects.add(p)
	c.json(http.StatusCreated, s.projectJSON(p))
}

func (s *Server) editProject(c *rc) {
	p, ok := projectRes.find(c, "edit")
	if !ok {
		return
	}
	var req struct {
		Title       *string `json:"title"`
		Description *string `json:"description"`
		CardType    *string `json:"card_type"`
		State       *string `json:"state"`
	}
	if !c.bind(&req) {
		return
	}
	next := *p
	if req.Title != nil {
		if strings.TrimSpace(*req.Title) == "" {
			c.validation("[Title]: Required")
			return
		}
		next.title = strings.TrimSpace(*req.Title)
	}
	if req.Description != nil {
		next.description = *req.Description
	}
	if req.CardType != nil {
		if !validCardType(*req.CardType) {
			c.validation("invalid card_type: " + *req.CardType)
			return
		}
		next.cardType = *req.CardType
	}
	now := time.Now().UTC().Truncate(time.Second)
	if req.State != nil {
		switch *req.State {
		case "open":
			next.closed = false
		case "closed":
			if !next.closed {
				next.closedAt = now
			}
			next.closed = true
		default:
			c.validation("invalid state: " + *req.State)
			return
		}
	}
	next.updated = now
	*p = next
	c.json(http.StatusOK, s.projectJSON(p))
}

type project struct {
	row          // a repository's
	title        string
	description  string
	cardType     string
	templateType string
	closed       bool
	created      time.Time
	updated      time.Time
	closedAt     time.Time
}

func (p *project) state() string {
	if p.closed {
		return "closed"
	}
	return "open"
}

func (s *Server) projectURL(p *project) string {
	r := s.st.repos[p.owner.id]
	if r == nil {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/projects/%d", s.root, s.ownerName(r), r.name, p.id)
}

func (s *Server) projectToForge(p *project) forge.Project {
	return forge.Project{
		ID: p.id, Title: p.title, Description: p.description, CardType: p.cardType,
		TemplateType: p.templateType, State: p.state(), HTMLURL: s.projectURL(p),
	}
}

// Projects returns the projects of a repository, open and closed, by id.
func (s *Server) Projects(ownerName, repoName string) []forge.Project {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	var out []forge.Project
	for _, p := range s.st.projects.in(owner{repo: true, id: r.id}) {
		out = append(out, s.projectToForge(p))
	}
	return out
}

var _ = registerRoutes((*Server).projectRoutes)

// projectRoutes: a repository's projects.
func (s *Server) projectRoutes(h func(string, func(*rc))) {
	projectRes.serve(h, onCollection("POST", s.createProject), onItem("PATCH", s.editProject))
}
