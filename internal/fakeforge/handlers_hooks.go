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
	"slices"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

func (s *Server) hookJSON(c *rc, h *hook) map[string]any {
	authHeader := h.authHeader
	if c.fl == flavorGitea127 {
		authHeader = "" // 1.27 no longer returns it
	}
	out := map[string]any{
		"id": h.id, "type": h.typ, "branch_filter": h.branchFilter,
		"config": h.config(), "events": shuffled(h.events), "authorization_header": authHeader,
		"active": h.active, "created_at": h.created.Format(time.RFC3339), "updated_at": h.updated.Format(time.RFC3339),
	}
	if c.fl.hasHookName() {
		out["name"] = h.name
	}
	return out
}

var hookRes = &resource[*hook]{
	route: forge.RouteOf("hooks"), scopes: []string{forge.OrgRoute, forge.RepoRoute},
	table: func(st *state) *table[*hook] { return st.hooks },
	// The organization's owners or the repository's admins only, even to read.
	may: (*rc).administers,
	missing: func(c *rc, ow owner, _ *hook) {
		if ow.repo {
			c.notFound("not found")
			return
		}
		c.notFound("webhook does not exist [id: " + c.r.PathValue("id") + "]")
	},
	// Repository hook lists carry X-Total-Count only, no Link; organization
	// hook lists carry Link too from Gitea 1.26.
	link: func(c *rc, ow owner) bool { return !ow.repo && c.fl.orgHookLink() },
	json: func(c *rc, h *hook) map[string]any { return c.s.hookJSON(c, h) },
}

func (s *Server) validHookType(c *rc, t string) bool {
	return hookTypes[t] || (t == "forgejo" && c.fl == flavorForgejo)
}

func (s *Server) createHook(c *rc) {
	ow, ok := hookRes.scope(c, "create")
	if !ok {
		return
	}
	var req struct {
		Type                string            `json:"type"`
		Config              map[string]string `json:"config"`
		Events              []string          `json:"events"`
		BranchFilter        string            `json:"branch_filter"`
		Active              bool              `json:"active"`
		AuthorizationHeader string            `json:"authorization_header"`
		Name                string            `json:"name"`
	}
	if !c.bind(&req) {
		return
	}
	// Binding, then checkCreateHookOption, in Gitea's order.
	switch {
	case req.Type == "":
		c.validation("[Type]: Required")
		return
	case req.Config == nil:
		// Binding's Required holds for any map sent, also {}: an empty
		// config goes on to the type check and "Missing config option: url".
		c.validation("[Config]: Required")
		return
	case !maxSize(req.Name, 255):
		c.validation("[Name]: MaxSize")
		return
	case !s.validHookType(c, req.Type):
		c.validation("Invalid hook type: " + req.Type)
		return
	}
	for _, key := range []string{"url", "content_type"} {
		if _, ok := req.Config[key]; !ok {
			c.validation("Missing config option: " + key)
			return
		}
	}
	if ct := req.Config["content_type"]; ct != "json" && ct != "form" {
		c.validation("Invalid content type")
		return
	}
	if !isValidURL(req.Config["url"]) {
		c.validation("Invalid url")
		return
	}
	h := &hook{
		row: row{owner: ow}, typ: req.Type, url: req.Config["url"],
		contentType: req.Config["content_type"], secret: req.Config["secret"],
		events: c.expandEvents(req.Events), active: req.Active, branchFilter: req.BranchFilter,
		authHeader: req.AuthorizationHeader,
	}
	if h.typ == "slack" {
		ch, ok := req.Config["channel"]
		if !ok {
			c.validation("Missing config option: channel")
			return
		}
		ch = strings.TrimSpace(ch)
		// 1.27 takes any channel but an empty one.
		if (c.fl == flavorGitea127 && ch == "") || (c.fl != flavorGitea127 && !isValidSlackChannel(ch)) {
			c.error(http.StatusBadRequest, "Invalid slack channel name")
			return
		}
		h.slack = slackMeta{channel: ch, username: req.Config["username"], iconURL: req.Config["icon_url"], color: req.Config["color"]}
	}
	if c.fl.hasHookName() {
		h.name = req.Name
	}
	h.created = time.Now().UTC().Truncate(time.Second)
	h.updated = h.created
	s.st.hooks.add(h)
	c.json(http.StatusCreated, s.hookJSON(c, h))
}

func (s *Server) editHook(c *rc) {
	h, ok := hookRes.find(c, "edit")
	if !ok {
		return
	}
	var req struct {
		Config              map[string]string `json:"config"`
		Events              []string          `json:"events"`
		BranchFilter        string            `json:"branch_filter"`
		AuthorizationHeader string            `json:"authorization_header"`
		Active              *bool             `json:"active"`
		Name                *string           `json:"name"`
	}
	if !c.bind(&req) {
		return
	}
	if req.Name != nil && !maxSize(*req.Name, 255) {
		c.validation("[Name]: MaxSize")
		return
	}
	next := *h
	if req.Config != nil {
		if u, ok := req.Config["url"]; ok {
			if !isValidURL(u) {
				c.validation("Invalid url")
				return
			}
			next.url = u
		}
		if ct, ok := req.Config["content_type"]; ok {
			if ct != "json" && ct != "form" {
				c.validation("Invalid content type")
				return
			}
			next.contentType = ct
		}
		if h.typ == "slack" {
			if ch, ok := req.Config["channel"]; ok {
				next.slack = slackMeta{channel: ch, username: req.Config["username"], iconURL: req.Config["icon_url"], color: req.Config["color"]}
			}
		}
		// config.secret is ignored here: a PATCH cannot change it.
	}
	// The quirk: these three are replaced whether sent or not.
	next.events = c.expandEvents(req.Events)
	next.branchFilter = req.BranchFilter
	next.authHeader = req.AuthorizationHeader
	if req.Active != nil {
		next.active = *req.Active
	}
	if req.Name != nil && c.fl.hasHookName() {
		next.name = *req.Name
	}
	next.updated = time.Now().UTC().Truncate(time.Second)
	*h = next
	c.json(http.StatusOK, s.hookJSON(c, h))
}

type hook struct {
	row          // the organization or repository; ids are one sequence for both
	typ          string
	name         string
	url          string
	contentType  string
	secret       string
	events       []string
	active       bool
	branchFilter string
	authHeader   string
	slack        slackMeta
	created      time.Time
	updated      time.Time
}

type slackMeta struct {
	channel, username, iconURL, color string
}

func (h *hook) config() map[string]string {
	cfg := map[string]string{"url": h.url, "content_type": h.contentType}
	if h.typ == "slack" {
		cfg["channel"] = h.slack.channel
		cfg["username"] = h.slack.username
		cfg["icon_url"] = h.slack.iconURL
		cfg["color"] = h.slack.color
	}
	return cfg
}

func (h *hook) toForge() forge.Hook {
	events := slices.Clone(h.events)
	slices.Sort(events)
	return forge.Hook{
		ID: h.id, Type: h.typ, Name: h.name, Config: h.config(), Events: events, Active: h.active,
		BranchFilter: h.branchFilter, AuthorizationHeader: h.authHeader,
	}
}

// OrgHooks returns the hooks of an organization, by id, events sorted;
// config never holds the secret (see HookSecret).
func (s *Server) OrgHooks(orgName string) []forge.Hook { return s.Hooks(forge.OrgScope(orgName)) }

// Hooks returns the hooks of an organization or repository, by id.
func (s *Server) Hooks(scope forge.Scope) []forge.Hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return nil
	}
	var out []forge.Hook
	for _, h := range s.st.hooks.in(ow) {
		out = append(out, h.toForge())
	}
	return out
}

// HookSecret returns the secret stored with a hook of scope, "acme" (an
// organization) or "acme/web" (a repository); "" if none or unknown.
func (s *Server) HookSecret(scope string, id int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, err := forge.ParseScope(scope)
	if err != nil {
		return ""
	}
	ow, ok := s.scopeOwner(sc)
	if h, found := s.st.hooks.get(ow, id); found && ok {
		return h.secret
	}
	return ""
}

var _ = registerRoutes((*Server).hookRoutes)

// hookRoutes: organization and repository hooks.
func (s *Server) hookRoutes(h func(string, func(*rc))) {
	hookRes.serve(h, onCollection("POST", s.createHook), onItem("PATCH", s.editHook))
}
