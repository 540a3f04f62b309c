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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// ---- organization and repository hooks ----

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

// ---- labels ----

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

// ---- projects ----

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

// ---- actions runners ----

func runnerJSON(r *runner) map[string]any {
	labels := []map[string]any{}
	for i, n := range r.labels {
		labels = append(labels, map[string]any{"id": i, "name": n, "type": "custom"})
	}
	return map[string]any{
		"id": r.id, "name": r.name, "status": r.status, "busy": r.busy, "disabled": r.disabled,
		"ephemeral": r.ephemeral, "labels": labels,
	}
}

var runnerRes = &resource[*runner]{
	route: forge.RouteOf("runners"), scopes: []string{forge.OrgRoute, forge.RepoRoute},
	table: func(st *state) *table[*runner] { return st.runners },
	may:   (*rc).administers,
	// Unknown and other-scope runners are both 404, with their own messages.
	missing: func(c *rc, _ owner, other *runner) {
		if other == nil {
			if c.fl == flavorGitea127 {
				// GetRunnerByID's error through APIErrorAuto; an id that
				// is no number is read as 0.
				id, _ := c.id("id")
				c.notFoundMsg(fmt.Sprintf("runner with id %d: resource does not exist", id))
				return
			}
			c.notFoundMsg("Runner not found")
			return
		}
		c.notFoundMsg("No permission to access this runner")
	},
	order: func(c *rc, rs []*runner) ([]*runner, bool) {
		q := c.r.URL.Query()
		disabled, valid := parseQueryBool(q, "disabled")
		if !valid {
			c.error(http.StatusBadRequest, "invalid disabled value: "+q.Get("disabled"))
			return nil, false
		}
		return slices.DeleteFunc(rs, func(r *runner) bool { return disabled != nil && r.disabled != *disabled }), true
	},
	// One object with the page and the count, no paging headers.
	page: func(c *rc, rs []*runner) {
		page, limit := paging(c.r.URL.Query())
		from, to := pageOf(len(rs), page, limit)
		out := []map[string]any{}
		for _, r := range rs[from:to] {
			out = append(out, runnerJSON(r))
		}
		c.json(http.StatusOK, map[string]any{"runners": out, "total_count": len(rs)})
	},
	json: func(_ *rc, r *runner) map[string]any { return runnerJSON(r) },
}

// notFoundMsg is a 404 carrying a message, as the runners routes answer.
func (c *rc) notFoundMsg(msg string) {
	if c.fl == flavorForgejo {
		c.error(http.StatusNotFound, "The target couldn't be found.")
		return
	}
	c.error(http.StatusNotFound, msg)
}

func (s *Server) editRunner(c *rc) {
	if !s.runnerEdit || !c.fl.hasRunnerEdit() {
		http.Error(c.w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	r, ok := runnerRes.find(c, "edit")
	if !ok {
		return
	}
	var req struct {
		Disabled *bool `json:"disabled"`
	}
	if !c.bind(&req) {
		return
	}
	if req.Disabled == nil {
		c.validation("[Disabled]: Required")
		return
	}
	r.disabled = *req.Disabled
	c.json(http.StatusOK, runnerJSON(r))
}

// Runner registration tokens as Gitea 1.24 to 1.26 serve them (read in
// routers/api/v1/shared/runners.go GetRegistrationToken and
// models/actions/runner_token.go; the contract suite's runner token
// behaviours hold it on the real server):
//   - POST .../actions/runners/registration-token on a repository, an
//     organization, and for the instance /admin/actions/runners/
//     registration-token (site admins only: 403 "user should be the site
//     admin"). Every call answers the scope's current token, the same one
//     again and again; a token is made only when the scope has none (or
//     its latest is inactive). There is no reset in the API.
//   - GET on the same routes (the instance's: GET /admin/runners/
//     registration-token) answers the same, in 1.24 and 1.25 only. 1.26
//     dropped it: the path is then read as the runner "registration-token"
//     of GET .../actions/runners/{runner_id}, 404 "Runner not found", and
//     the instance's old path is no route (plain-text 404).
//   - The web UI's "Reset registration token" (ResetRunnerRegistrationToken)
//     makes a new token and invalidates the scope's older ones: a runner
//     registering with one is told "runner registration token has been
//     invalidated, please use the latest one". Registering leaves a token
//     valid (Register sets is_active true again). Server.ResetRegistrationToken
//     is that button.

// registrationToken returns the scope's current token, creating it once.
func (s *Server) registrationToken(c *rc) {
	if c.r.Method == http.MethodGet && c.fl != flavorGiteaOld {
		runnerRes.find(c, "get") // no runner has that id
		return
	}
	ow, ok := runnerRes.scope(c, "create")
	if !ok {
		return
	}
	c.json(http.StatusOK, map[string]string{"token": s.currentRegToken(ow)})
}

// instanceRegistrationToken is the site admin's token for runners of the
// whole instance (owner{}).
func (s *Server) instanceRegistrationToken(c *rc) {
	if c.r.Method == http.MethodGet && c.fl != flavorGiteaOld {
		c.routeNotFound()
		return
	}
	if !c.requireSiteAdmin() {
		return
	}
	c.json(http.StatusOK, map[string]string{"token": s.currentRegToken(owner{})})
}

// currentRegToken is ow's token, made when it has none.
func (s *Server) currentRegToken(ow owner) string {
	tok := s.st.regTokens[ow]
	if tok == "" {
		tok = randomHex(20)
		s.st.regTokens[ow] = tok
	}
	return tok
}

// ResetRegistrationToken is the web UI's "Reset registration token" of
// scope (forge.InstanceScope for the instance): a new token, the old one
// invalidated. It reports false for an unknown scope.
func (s *Server) ResetRegistrationToken(scope forge.Scope) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := owner{}, scope.IsInstance()
	if !ok {
		ow, ok = s.scopeOwner(scope)
	}
	if !ok {
		return false
	}
	if old := s.st.regTokens[ow]; old != "" {
		s.st.oldRegTokens[old] = true
	}
	s.st.regTokens[ow] = randomHex(20)
	return true
}

// RegistrationToken is scope's current token, "" when none was made.
func (s *Server) RegistrationToken(scope forge.Scope) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if scope.IsInstance() {
		return s.st.regTokens[owner{}]
	}
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return ""
	}
	return s.st.regTokens[ow]
}

// registerRunner is the runner's own Register call (Connect protocol, JSON).
func (s *Server) registerRunner(c *rc) {
	connectErr := func(status int, code, msg string) {
		writeJSON(c.w, status, map[string]string{"code": code, "message": msg})
	}
	if ct := c.r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		c.w.Header().Set("Accept-Post", "application/json, application/proto")
		c.w.WriteHeader(http.StatusUnsupportedMediaType)
		return
	}
	var req struct {
		Name      string   `json:"name"`
		Token     string   `json:"token"`
		Version   string   `json:"version"`
		Labels    []string `json:"labels"`
		Ephemeral bool     `json:"ephemeral"`
	}
	data, err := io.ReadAll(io.LimitReader(c.r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	if err != nil {
		connectErr(http.StatusBadRequest, "invalid_argument", "unmarshal message: "+err.Error())
		return
	}
	var ow owner
	found := false
	for o, tok := range s.st.regTokens {
		if req.Token != "" && tok == req.Token {
			ow, found = o, true
			break
		}
	}
	switch {
	case !found && s.st.oldRegTokens[req.Token]:
		connectErr(http.StatusInternalServerError, "unknown", "runner registration token has been invalidated, please use the latest one")
		return
	case !found:
		connectErr(http.StatusInternalServerError, "unknown", "runner registration token not found")
		return
	}
	r := s.addRunner(ow, req.Name, req.Version, req.Labels, req.Ephemeral)
	c.json(http.StatusOK, map[string]any{"runner": map[string]any{
		"id": strconv.FormatInt(r.id, 10), "uuid": r.uuid, "token": r.token, "name": r.name,
		"version": r.version, "labels": r.labels, "ephemeral": r.ephemeral,
	}})
}
