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
	"regexp"
	"slices"
	"strings"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Actions secrets and variables as Gitea 1.26.4 serves them (probed): one
// namespace of names per repository or organization, upper-cased; a name
// must match (?i)^[A-Z_][A-Z0-9_]*$ and neither start with GITEA_ or
// GITHUB_ nor be CI (400 "invalid variable or secret name"); an empty
// value is 422. Secret values are never returned.

var (
	actionsName      = regexp.MustCompile(`(?i)^[A-Z_][A-Z0-9_]*$`)
	actionsForbidden = regexp.MustCompile(`(?i)^GIT(EA|HUB)_`)
)

type actionsValue struct {
	value, description string
}

// actionsStore is one scope's secrets or variables by upper-cased name.
type actionsStore map[owner]map[string]actionsValue

func (st actionsStore) of(ow owner) map[string]actionsValue {
	if st[ow] == nil {
		st[ow] = map[string]actionsValue{}
	}
	return st[ow]
}

// actionsTarget resolves the scope and the {name} of an Actions route,
// answering the forge's refusals.
func (c *rc) actionsTarget(write bool) (owner, string, bool) {
	ow, o, r, ok := c.scope()
	if !ok {
		return owner{}, "", false
	}
	if (o != nil && !c.requireOrgOwner(o)) || (r != nil && !c.requireRepoAdmin(r)) {
		return owner{}, "", false
	}
	name := c.r.PathValue("name")
	// Gitea 1.24 checks secret names with its own message and lets CI be one.
	secret1_24 := strings.Contains(c.r.URL.Path, "/actions/secrets/") && c.s.versionIs("1.24.")
	if write && (!actionsName.MatchString(name) || actionsForbidden.MatchString(name) || (strings.EqualFold(name, "CI") && !secret1_24)) {
		msg := "invalid variable or secret name"
		if secret1_24 {
			msg = "invalid secret name"
		}
		c.error(http.StatusBadRequest, msg)
		return owner{}, "", false
	}
	return ow, strings.ToUpper(name), true
}

func sortedNames(m map[string]actionsValue) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.SortFunc(names, cmp.Compare)
	return names
}

func (s *Server) listSecrets(c *rc) {
	ow, _, ok := c.actionsTarget(false)
	if !ok {
		return
	}
	m := s.st.secrets.of(ow)
	servePage(c, sortedNames(m), true, func(n string) map[string]any {
		return map[string]any{"name": n, "description": m[n].description, "created_at": "2026-01-01T00:00:00Z"}
	})
}

// putSecret creates (201) or replaces (204) a secret, description included.
func (s *Server) putSecret(c *rc) {
	ow, name, ok := c.actionsTarget(true)
	if !ok {
		return
	}
	var req struct {
		Data        string `json:"data"`
		Description string `json:"description"`
	}
	if !c.bind(&req) {
		return
	}
	if req.Data == "" {
		c.validation("[Data]: Required")
		return
	}
	m := s.st.secrets.of(ow)
	_, existed := m[name]
	m[name] = actionsValue{value: req.Data, description: req.Description}
	if existed {
		c.noContent()
		return
	}
	c.w.WriteHeader(http.StatusCreated)
}

func (s *Server) deleteSecret(c *rc) {
	ow, name, ok := c.actionsTarget(false)
	if !ok {
		return
	}
	m := s.st.secrets.of(ow)
	if _, found := m[name]; !found {
		c.error(http.StatusNotFound, "secret was not found [name: ]")
		return
	}
	delete(m, name)
	c.noContent()
}

func (s *Server) variableJSON(ow owner, name string, v actionsValue) map[string]any {
	j := map[string]any{"owner_id": ow.id, "repo_id": 0, "name": name, "data": v.value, "description": v.description}
	if ow.repo {
		j["owner_id"], j["repo_id"] = 0, ow.id
	}
	return j
}

func (s *Server) listVariables(c *rc) {
	ow, _, ok := c.actionsTarget(false)
	if !ok {
		return
	}
	m := s.st.variables.of(ow)
	servePage(c, sortedNames(m), true, func(n string) map[string]any { return s.variableJSON(ow, n, m[n]) })
}

func (s *Server) getVariable(c *rc) {
	ow, name, ok := c.actionsTarget(false)
	if !ok {
		return
	}
	v, found := s.st.variables.of(ow)[name]
	if !found {
		c.error(http.StatusNotFound, "variable not found")
		return
	}
	c.json(http.StatusOK, s.variableJSON(ow, name, v))
}

type variableReq struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	Description string `json:"description"`
}

// createVariable is POST: 201, or 409 for a name taken in any case.
func (s *Server) createVariable(c *rc) {
	ow, name, ok := c.actionsTarget(true)
	if !ok {
		return
	}
	var req variableReq
	if !c.bind(&req) {
		return
	}
	if req.Value == "" {
		c.validation("[Value]: Required")
		return
	}
	m := s.st.variables.of(ow)
	if _, found := m[name]; found {
		c.error(http.StatusConflict, fmt.Sprintf("variable name %s already exists", name))
		return
	}
	m[name] = actionsValue{value: req.Value, description: req.Description}
	c.w.WriteHeader(http.StatusCreated)
}

// updateVariable is PUT: 204; an unknown name is 404; "name" renames.
func (s *Server) updateVariable(c *rc) {
	ow, name, ok := c.actionsTarget(true)
	if !ok {
		return
	}
	var req variableReq
	if !c.bind(&req) {
		return
	}
	if req.Value == "" {
		c.validation("[Value]: Required")
		return
	}
	m := s.st.variables.of(ow)
	if _, found := m[name]; !found {
		c.error(http.StatusNotFound, "variable not found")
		return
	}
	delete(m, name)
	if req.Name != "" {
		name = strings.ToUpper(req.Name)
	}
	m[name] = actionsValue{value: req.Value, description: req.Description}
	c.noContent()
}

func (s *Server) deleteVariable(c *rc) {
	ow, name, ok := c.actionsTarget(false)
	if !ok {
		return
	}
	m := s.st.variables.of(ow)
	if _, found := m[name]; !found {
		c.error(http.StatusNotFound, "variable not found")
		return
	}
	delete(m, name)
	c.noContent()
}

func (s *Server) actionsRoutes(h func(string, func(*rc)), prefix string) {
	h("GET "+prefix+"/actions/secrets", s.listSecrets)
	h("PUT "+prefix+"/actions/secrets/{name}", s.putSecret)
	h("DELETE "+prefix+"/actions/secrets/{name}", s.deleteSecret)
	h("GET "+prefix+"/actions/variables", s.listVariables)
	h("GET "+prefix+"/actions/variables/{name}", s.getVariable)
	h("POST "+prefix+"/actions/variables/{name}", s.createVariable)
	h("PUT "+prefix+"/actions/variables/{name}", s.updateVariable)
	h("DELETE "+prefix+"/actions/variables/{name}", s.deleteVariable)
}

// ActionsSecretValue gives a secret's value in a scope (tests only: the
// forge never returns it).
func (s *Server) ActionsSecretValue(scope forge.Scope, name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return "", false
	}
	v, found := s.st.secrets.of(ow)[strings.ToUpper(name)]
	return v.value, found
}

// ActionsVariableValue gives a variable's value in a scope.
func (s *Server) ActionsVariableValue(scope forge.Scope, name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return "", false
	}
	v, found := s.st.variables.of(ow)[strings.ToUpper(name)]
	return v.value, found
}
