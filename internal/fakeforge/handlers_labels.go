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
	"net/http"
	"slices"

	"github.com/forgeops/forge-operator/internal/forge"
)

func (s *Server) labelJSON(l *label) map[string]any {
	return map[string]any{
		"id": l.id, "name": l.name, "color": l.color, "description": l.description,
		"exclusive": l.exclusive, "is_archived": l.archived, "url": s.labelURL(l),
	}
}

var labelRes = &resource[*label]{
	route: forge.RouteOf("labels"), scopes: []string{forge.OrgRoute, forge.RepoRoute},
	table: func(st *state) *table[*label] { return st.labels },
	// Anyone who sees the scope reads; writes need the organization's
	// owners or the repository's writers.
	may: func(c *rc, o *org, r *repo, verb string) bool {
		switch {
		case reads(verb):
			return true
		case o != nil:
			return c.requireOrgOwner(o)
		}
		return c.requireRepoWriter(r)
	},
	missing: func(c *rc, _ owner, _ *label) {
		c.notFound("label does not exist [label_id: " + c.r.PathValue("id") + "]")
	},
	// A non-numeric {id} is looked up by name.
	named: func(l *label, name string) bool { return l.name == name },
	// Sorted by name like the forge's default; duplicates keep id order.
	order: func(_ *rc, ls []*label) ([]*label, bool) {
		slices.SortStableFunc(ls, func(a, b *label) int { return cmp.Compare(a.name, b.name) })
		return ls, true
	},
	json: func(c *rc, l *label) map[string]any { return c.s.labelJSON(l) },
	// An unknown id is a silent success.
	quietDelete: true,
}

func (s *Server) createLabel(c *rc) {
	ow, ok := labelRes.scope(c, "create")
	if !ok {
		return
	}
	var req struct {
		Name        string `json:"name"`
		Exclusive   bool   `json:"exclusive"`
		Color       string `json:"color"`
		Description string `json:"description"`
		IsArchived  bool   `json:"is_archived"`
	}
	if !c.bind(&req) {
		return
	}
	switch {
	case req.Name == "":
		c.validation("[Name]: Required")
		return
	case req.Color == "":
		c.validation("[Color]: Required")
		return
	}
	color, valid, msg := normalizeColor(req.Color)
	if !valid {
		c.validation(msg)
		return
	}
	// No uniqueness check: the forge allows two labels with one name.
	l := &label{
		row: row{owner: ow}, name: req.Name, color: color,
		description: req.Description, exclusive: req.Exclusive,
		archived: req.IsArchived && ow.repo, // org create ignores is_archived
	}
	s.st.labels.add(l)
	c.json(http.StatusCreated, s.labelJSON(l))
}

func (s *Server) editLabel(c *rc) {
	l, ok := labelRes.find(c, "edit")
	if !ok {
		return
	}
	var req struct {
		Name        *string `json:"name"`
		Exclusive   *bool   `json:"exclusive"`
		Color       *string `json:"color"`
		Description *string `json:"description"`
		IsArchived  *bool   `json:"is_archived"`
	}
	if !c.bind(&req) {
		return
	}
	next := *l
	if req.Name != nil {
		next.name = *req.Name
	}
	if req.Exclusive != nil {
		next.exclusive = *req.Exclusive
	}
	if req.Color != nil {
		color, valid, msg := normalizeColor(*req.Color)
		if !valid {
			c.validation(msg)
			return
		}
		next.color = color
	}
	if req.Description != nil {
		next.description = *req.Description
	}
	// The quirk: an omitted is_archived un-archives.
	next.archived = req.IsArchived != nil && *req.IsArchived
	*l = next
	c.json(http.StatusOK, s.labelJSON(l))
}

type label struct {
	row
	name        string
	color       string // 6 lower-case hex digits
	description string
	exclusive   bool
	archived    bool
}

func (s *Server) labelURL(l *label) string {
	if l.owner.repo {
		r := s.st.repos[l.owner.id]
		if r == nil {
			return ""
		}
		return fmt.Sprintf("%s/api/v1/repos/%s/%s/labels/%d", s.root, s.ownerName(r), r.name, l.id)
	}
	o := s.st.orgs[l.owner.id]
	if o == nil {
		return ""
	}
	return fmt.Sprintf("%s/api/v1/orgs/%s/labels/%d", s.root, o.name, l.id)
}

func (s *Server) labelToForge(l *label) forge.Label {
	return forge.Label{
		ID: l.id, Name: l.name, Color: l.color, Description: l.description, Exclusive: l.exclusive,
		IsArchived: l.archived, URL: s.labelURL(l),
	}
}

// Labels returns the labels of a scope, by id.
func (s *Server) Labels(scope forge.Scope) []forge.Label {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return nil
	}
	var out []forge.Label
	for _, l := range s.st.labels.in(ow) {
		out = append(out, s.labelToForge(l))
	}
	return out
}

var _ = registerRoutes((*Server).labelRoutes)

// labelRoutes: organization and repository labels.
func (s *Server) labelRoutes(h func(string, func(*rc))) {
	labelRes.serve(h, onCollection("POST", s.createLabel), onItem("PATCH", s.editLabel))
}
