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
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
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

// hookOwner resolves {org} or {owner}/{repo} for the hooks routes: the
// organization's owners or the repository's admins only, even to read.
func (c *rc) hookOwner() (owner, bool) {
	ow, o, r, ok := c.scope()
	switch {
	case !ok:
		return owner{}, false
	case o != nil:
		return ow, c.requireOrgOwner(o)
	default:
		return ow, c.requireRepoAdmin(r)
	}
}

func (s *Server) listHooks(c *rc) {
	ow, ok := c.hookOwner()
	if !ok {
		return
	}
	hooks := s.st.hooks.in(ow)
	// Repository hook lists carry X-Total-Count only, no Link; organization
	// hook lists carry Link too from Gitea 1.26.
	servePage(c, hooks, !ow.repo && c.fl.orgHookLink(), func(h *hook) map[string]any { return s.hookJSON(c, h) })
}

// lookupHook finds hook {id} of the owner; another owner's id is 404.
func (c *rc) lookupHook(ow owner) *hook {
	id, ok := c.id("id")
	h, found := c.s.st.hooks.get(ow, id)
	if !ok || !found {
		if ow.repo {
			c.notFound("not found")
		} else {
			c.notFound("webhook does not exist [id: " + c.r.PathValue("id") + "]")
		}
		return nil
	}
	return h
}

func (s *Server) getHook(c *rc) {
	if ow, ok := c.hookOwner(); ok {
		if h := c.lookupHook(ow); h != nil {
			c.json(http.StatusOK, s.hookJSON(c, h))
		}
	}
}

func (s *Server) validHookType(c *rc, t string) bool {
	return hookTypes[t] || (t == "forgejo" && c.fl == flavorForgejo)
}

func (s *Server) createHook(c *rc) {
	ow, ok := c.hookOwner()
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
		if !isValidSlackChannel(ch) {
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
	ow, ok := c.hookOwner()
	if !ok {
		return
	}
	h := c.lookupHook(ow)
	if h == nil {
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

func (s *Server) deleteHook(c *rc) {
	if ow, ok := c.hookOwner(); ok {
		if h := c.lookupHook(ow); h != nil {
			s.st.hooks.remove(h.id)
			c.noContent()
		}
	}
}

// ---- labels ----

func (s *Server) labelJSON(l *label) map[string]any {
	return map[string]any{
		"id": l.id, "name": l.name, "color": l.color, "description": l.description,
		"exclusive": l.exclusive, "is_archived": l.archived, "url": s.labelURL(l),
	}
}

// labelScopeWrite checks write access to a label scope.
func (c *rc) labelScopeWrite(o *org, r *repo) bool {
	if o != nil {
		return c.requireOrgOwner(o)
	}
	return c.requireRepoWriter(r)
}

func (s *Server) listLabels(c *rc) {
	ow, _, _, ok := c.scope()
	if !ok {
		return
	}
	labels := s.st.labels.in(ow)
	// Sorted by name like the forge's default; duplicates keep id order.
	slices.SortStableFunc(labels, func(a, b *label) int { return cmp.Compare(a.name, b.name) })
	servePage(c, labels, false, func(l *label) map[string]any { return s.labelJSON(l) })
}

// lookupLabel finds {id} in the scope; a non-numeric id is looked up by name.
func (c *rc) lookupLabel(ow owner) *label {
	raw := c.r.PathValue("id")
	if id, err := strconv.ParseInt(raw, 10, 64); err == nil {
		if l, ok := c.s.st.labels.get(ow, id); ok {
			return l
		}
	} else {
		for _, l := range c.s.st.labels.in(ow) {
			if l.name == raw {
				return l
			}
		}
	}
	c.notFound("label does not exist [label_id: " + raw + "]")
	return nil
}

func (s *Server) getLabel(c *rc) {
	if ow, _, _, ok := c.scope(); ok {
		if l := c.lookupLabel(ow); l != nil {
			c.json(http.StatusOK, s.labelJSON(l))
		}
	}
}

func (s *Server) createLabel(c *rc) {
	ow, o, r, ok := c.scope()
	if !ok || !c.labelScopeWrite(o, r) {
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
	ow, o, r, ok := c.scope()
	if !ok || !c.labelScopeWrite(o, r) {
		return
	}
	l := c.lookupLabel(ow)
	if l == nil {
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

func (s *Server) deleteLabel(c *rc) {
	ow, o, r, ok := c.scope()
	if !ok || !c.labelScopeWrite(o, r) {
		return
	}
	// An unknown id is a silent success.
	if id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64); err == nil {
		if _, ok := s.st.labels.get(ow, id); ok {
			s.st.labels.remove(id)
		}
	}
	c.noContent()
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

// projectsRepo resolves the repository of a projects route, or answers like
// a server without the API.
func (c *rc) projectsRepo() *repo {
	if !c.s.projectsEnabled {
		c.routeNotFound()
		return nil
	}
	return c.repo()
}

func (s *Server) listProjects(c *rc) {
	r := c.projectsRepo()
	if r == nil {
		return
	}
	q := c.r.URL.Query()
	state := q.Get("state")
	projects := s.st.projects.where(func(p *project) bool {
		if p.owner != (owner{repo: true, id: r.id}) {
			return false
		}
		switch state {
		case "all":
			return true
		case "closed":
			return p.closed
		}
		return !p.closed
	})
	slices.Reverse(projects) // newest first
	servePage(c, projects, true, func(p *project) map[string]any { return s.projectJSON(p) })
}

func (c *rc) lookupProject(r *repo) *project {
	id, ok := c.id("id")
	p, found := c.s.st.projects.get(owner{repo: true, id: r.id}, id)
	if !ok || !found {
		c.notFound("project does not exist [id: " + c.r.PathValue("id") + "]")
		return nil
	}
	return p
}

func (s *Server) getProject(c *rc) {
	if r := c.projectsRepo(); r != nil {
		if p := c.lookupProject(r); p != nil {
			c.json(http.StatusOK, s.projectJSON(p))
		}
	}
}

func validCardType(t string) bool { return t == "text_only" || t == "images_and_text" }

func (s *Server) createProject(c *rc) {
	r := c.projectsRepo()
	if r == nil || !c.requireRepoWriter(r) {
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
		row: row{owner: owner{repo: true, id: r.id}}, title: req.Title, description: req.Description,
		cardType: req.CardType, templateType: req.TemplateType, created: now, updated: now,
	}
	s.st.projects.add(p)
	c.json(http.StatusCreated, s.projectJSON(p))
}

func (s *Server) editProject(c *rc) {
	r := c.projectsRepo()
	if r == nil || !c.requireRepoWriter(r) {
		return
	}
	p := c.lookupProject(r)
	if p == nil {
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

func (s *Server) deleteProject(c *rc) {
	r := c.projectsRepo()
	if r == nil || !c.requireRepoWriter(r) {
		return
	}
	if p := c.lookupProject(r); p != nil {
		s.st.projects.remove(p.id)
		c.noContent()
	}
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

// runnerScope resolves the scope of a runners route and checks the caller
// administers it.
func (c *rc) runnerScope() (owner, bool) {
	ow, o, r, ok := c.scope()
	if !ok {
		return owner{}, false
	}
	if o != nil {
		return ow, c.requireOrgOwner(o)
	}
	return ow, c.requireRepoAdmin(r)
}

func (s *Server) listRunners(c *rc) {
	ow, ok := c.runnerScope()
	if !ok {
		return
	}
	q := c.r.URL.Query()
	disabled, valid := parseQueryBool(q, "disabled")
	if !valid {
		c.error(http.StatusBadRequest, "invalid disabled value: "+q.Get("disabled"))
		return
	}
	runners := s.st.runners.where(func(r *runner) bool {
		return r.owner == ow && (disabled == nil || r.disabled == *disabled)
	})
	page, limit := paging(q)
	from, to := pageOf(len(runners), page, limit)
	out := []map[string]any{}
	for _, r := range runners[from:to] {
		out = append(out, runnerJSON(r))
	}
	c.json(http.StatusOK, map[string]any{"runners": out, "total_count": len(runners)})
}

// lookupRunner finds {id}; unknown and other-scope runners are both 404.
func (c *rc) lookupRunner(ow owner) *runner {
	id, ok := c.id("id")
	r, found := c.s.st.runners.at(id)
	switch {
	case !ok || !found:
		c.notFoundMsg("Runner not found")
		return nil
	case r.owner != ow:
		c.notFoundMsg("No permission to access this runner")
		return nil
	}
	return r
}

// notFoundMsg is a 404 carrying a message, as the runners routes answer.
func (c *rc) notFoundMsg(msg string) {
	if c.fl == flavorForgejo {
		c.error(http.StatusNotFound, "The target couldn't be found.")
		return
	}
	c.error(http.StatusNotFound, msg)
}

func (s *Server) getRunner(c *rc) {
	if ow, ok := c.runnerScope(); ok {
		if r := c.lookupRunner(ow); r != nil {
			c.json(http.StatusOK, runnerJSON(r))
		}
	}
}

func (s *Server) editRunner(c *rc) {
	if !s.runnerEdit || !c.fl.hasRunnerEdit() {
		http.Error(c.w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	ow, ok := c.runnerScope()
	if !ok {
		return
	}
	r := c.lookupRunner(ow)
	if r == nil {
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

func (s *Server) deleteRunner(c *rc) {
	if ow, ok := c.runnerScope(); ok {
		if r := c.lookupRunner(ow); r != nil {
			s.st.runners.remove(r.id)
			c.noContent()
		}
	}
}

// registrationToken returns the scope's current token, creating it once.
func (s *Server) registrationToken(c *rc) {
	ow, ok := c.runnerScope()
	if !ok {
		return
	}
	tok := s.st.regTokens[ow]
	if tok == "" {
		tok = randomHex(20)
		s.st.regTokens[ow] = tok
	}
	c.json(http.StatusOK, map[string]string{"token": tok})
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
	if !found {
		connectErr(http.StatusInternalServerError, "unknown", "runner registration token not found")
		return
	}
	r := s.addRunner(ow, req.Name, req.Version, req.Labels, req.Ephemeral)
	c.json(http.StatusOK, map[string]any{"runner": map[string]any{
		"id": strconv.FormatInt(r.id, 10), "uuid": r.uuid, "token": r.token, "name": r.name,
		"version": r.version, "labels": r.labels, "ephemeral": r.ephemeral,
	}})
}
