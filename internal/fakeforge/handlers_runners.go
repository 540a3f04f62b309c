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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/forgeops/forge-operator/internal/forge"
)

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

type runner struct {
	row
	name      string
	uuid      string
	token     string
	version   string
	status    string
	busy      bool
	disabled  bool
	ephemeral bool
	labels    []string
}

func (r *runner) toForge() forge.Runner {
	labels := make([]forge.RunnerLabel, len(r.labels))
	for i, n := range r.labels {
		labels[i] = forge.RunnerLabel{ID: int64(i), Name: n, Type: "custom"}
	}
	return forge.Runner{
		ID: r.id, Name: r.name, Status: r.status, Busy: r.busy, Disabled: r.disabled,
		Ephemeral: r.ephemeral, Labels: labels,
	}
}

// Runners returns the runners of a scope, by id.
func (s *Server) Runners(scope forge.Scope) []forge.Runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return nil
	}
	var out []forge.Runner
	for _, r := range s.st.runners.in(ow) {
		out = append(out, r.toForge())
	}
	return out
}

// RegisterRunner registers a runner in a scope as a runner process would,
// offline until SetRunnerStatus. It panics if the scope does not exist.
func (s *Server) RegisterRunner(scope forge.Scope, name string, labels ...string) forge.Runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		panic(fmt.Sprintf("fakeforge: RegisterRunner: no scope %s", scope))
	}
	return s.addRunner(ow, name, "", labels, false).toForge()
}

// SetRunnerStatus sets a runner's status ("online", "offline").
func (s *Server) SetRunnerStatus(id int64, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.st.runners.at(id); ok {
		r.status = status
	}
}

// SetRunnerBusy marks a runner as running a job or idle.
func (s *Server) SetRunnerBusy(id int64, busy bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.st.runners.at(id); ok {
		r.busy = busy
	}
}

func (s *Server) addRunner(ow owner, name, version string, labels []string, ephemeral bool) *runner {
	r := &runner{
		row: row{owner: ow}, name: name, version: version, status: "offline",
		uuid: randomUUID(), token: randomHex(20), labels: slices.Clone(labels), ephemeral: ephemeral,
	}
	if r.labels == nil {
		r.labels = []string{}
	}
	return s.st.runners.add(r)
}

var _ = registerRoutes((*Server).runnerRoutes)

// runnerRoutes: Actions runners of an organization or a repository, their
// registration tokens (and the instance's), and the runner protocol's
// registration.
func (s *Server) runnerRoutes(h func(string, func(*rc))) {
	for _, prefix := range []string{"/api/v1" + forge.OrgRoute, "/api/v1" + forge.RepoRoute} {
		h("POST "+prefix+runnerRes.route.Path+"/registration-token", s.registrationToken)
		h("GET "+prefix+runnerRes.route.Path+"/registration-token", s.registrationToken)
	}
	h("POST /api/v1/admin/actions/runners/registration-token", s.instanceRegistrationToken)
	h("GET /api/v1/admin/runners/registration-token", s.instanceRegistrationToken)
	runnerRes.serve(h, onItem("PATCH", s.editRunner))
	h("POST /api/actions/runner.v1.RunnerService/Register", s.registerRunner)
}
