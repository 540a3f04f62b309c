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
//
// A variable's value is stored with its line ends normalised (storedValue);
// a secret's, written through the API, as sent (only the web form
// normalises it).

var (
	actionsName      = regexp.MustCompile(`(?i)^[A-Z_][A-Z0-9_]*$`)
	actionsForbidden = regexp.MustCompile(`(?i)^GIT(EA|HUB)_`)
)

// actionsValue is a secret or a variable of a scope, by its upper-cased name.
type actionsValue struct {
	row
	name, value, description string
}

// is says whether v is named name, in any case.
func (v *actionsValue) is(name string) bool { return v.name == strings.ToUpper(name) }

// actionsRes serves secrets or variables: the scope's admins only, listed
// by name with X-Total-Count and Link; an unknown name is 404 with missing.
func actionsRes(route forge.Route, tab func(*state) *table[*actionsValue], missing string,
	json func(*actionsValue) map[string]any) *resource[*actionsValue] {
	return &resource[*actionsValue]{
		route: route, scopes: []string{forge.OrgRoute, forge.RepoRoute}, table: tab,
		may:     (*rc).administers,
		missing: func(c *rc, _ owner, _ *actionsValue) { c.error(http.StatusNotFound, missing) },
		named:   (*actionsValue).is,
		order: func(_ *rc, vs []*actionsValue) ([]*actionsValue, bool) {
			slices.SortFunc(vs, func(a, b *actionsValue) int { return cmp.Compare(a.name, b.name) })
			return vs, true
		},
		link: withLink,
		json: func(_ *rc, v *actionsValue) map[string]any { return json(v) },
	}
}

var (
	secretRes = actionsRes(forge.RouteOf("Actions secrets"), func(st *state) *table[*actionsValue] { return st.secrets },
		"secret was not found [name: ]", func(v *actionsValue) map[string]any {
			return map[string]any{"name": v.name, "description": v.description, "created_at": "2026-01-01T00:00:00Z"}
		})
	variableRes = actionsRes(forge.RouteOf("Actions variables"), func(st *state) *table[*actionsValue] { return st.variables },
		"variable not found", variableJSON)
)

// actionsName reads the {name} of a write, upper-cased, answering the
// forge's refusal of a name it does not take.
func (c *rc) actionsName() (string, bool) {
	name := c.r.PathValue("name")
	// Gitea 1.24 checks secret names with its own message and lets CI be one.
	secret1_24 := strings.Contains(c.r.URL.Path, "/actions/secrets/") && c.s.versionIs("1.24.")
	if !actionsName.MatchString(name) || actionsForbidden.MatchString(name) || (strings.EqualFold(name, "CI") && !secret1_24) {
		msg := "invalid variable or secret name"
		if secret1_24 {
			msg = "invalid secret name"
		}
		c.error(http.StatusBadRequest, msg)
		return "", false
	}
	return strings.ToUpper(name), true
}

// actionsWrite resolves the scope and the name of a write.
func (c *rc) actionsWrite(k *resource[*actionsValue]) (owner, string, bool) {
	ow, ok := k.scope(c, "create")
	if !ok {
		return owner{}, "", false
	}
	name, ok := c.actionsName()
	return ow, name, ok
}

// putSecret creates (201) or replaces (204) a secret, description included.
func (s *Server) putSecret(c *rc) {
	ow, name, ok := c.actionsWrite(secretRes)
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
	if v, found := s.st.secrets.first(ow, func(v *actionsValue) bool { return v.is(name) }); found {
		v.value, v.description = req.Data, req.Description
		c.noContent()
		return
	}
	s.st.secrets.add(&actionsValue{row: row{owner: ow}, name: name, value: req.Data, description: req.Description})
	c.w.WriteHeader(http.StatusCreated)
}

// storedValue is a variable's value as the forge stores it, on create and on
// update (Gitea's services/actions/variables.go): CRLF becomes LF, in Gitea
// 1.24 and 1.25 (util.ReserveLineBreakForTextarea) and Forgejo alone; Gitea
// 1.26 and later (util.NormalizeStringEOL) turn a lone CR into LF as well.
// Nothing is trimmed. A value written with CRLF thus reads back otherwise.
func storedValue(fl errFlavor, v string) string {
	v = strings.ReplaceAll(v, "\r\n", "\n")
	if fl == flavorGitea126 || fl == flavorGitea127 {
		v = strings.ReplaceAll(v, "\r", "\n")
	}
	return v
}

func variableJSON(v *actionsValue) map[string]any {
	j := map[string]any{"owner_id": v.owner.id, "repo_id": 0, "name": v.name, "data": v.value, "description": v.description}
	if v.owner.repo {
		j["owner_id"], j["repo_id"] = 0, v.owner.id
	}
	return j
}

type variableReq struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	Description string `json:"description"`
}

// variableWrite resolves the scope, the name and the body of a variable write.
func (s *Server) variableWrite(c *rc) (owner, string, variableReq, bool) {
	var req variableReq
	ow, name, ok := c.actionsWrite(variableRes)
	if !ok || !c.bind(&req) {
		return ow, name, req, false
	}
	if req.Value == "" {
		c.validation("[Value]: Required")
		return ow, name, req, false
	}
	req.Value = storedValue(c.fl, req.Value)
	return ow, name, req, true
}

// createVariable is POST: 201, or 409 for a name taken in any case.
func (s *Server) createVariable(c *rc) {
	ow, name, req, ok := s.variableWrite(c)
	if !ok {
		return
	}
	if _, found := s.st.variables.first(ow, func(v *actionsValue) bool { return v.is(name) }); found {
		c.error(http.StatusConflict, fmt.Sprintf("variable name %s already exists", name))
		return
	}
	s.st.variables.add(&actionsValue{row: row{owner: ow}, name: name, value: req.Value, description: req.Description})
	c.w.WriteHeader(http.StatusCreated)
}

// updateVariable is PUT: 204; an unknown name is 404; "name" renames, over
// a variable of that name if there is one.
func (s *Server) updateVariable(c *rc) {
	ow, name, req, ok := s.variableWrite(c)
	if !ok {
		return
	}
	v, found := s.st.variables.first(ow, func(v *actionsValue) bool { return v.is(name) })
	if !found {
		c.error(http.StatusNotFound, "variable not found")
		return
	}
	if req.Name != "" {
		v.name = strings.ToUpper(req.Name)
	}
	if other, taken := s.st.variables.first(ow, func(o *actionsValue) bool { return o != v && o.name == v.name }); taken {
		s.st.variables.remove(other.id)
	}
	v.value, v.description = req.Value, req.Description
	c.noContent()
}

func (s *Server) actionsRoutes(h func(string, func(*rc))) {
	// Secrets are written by PUT and never read one by one.
	secretRes.serve(h, onItem("GET", nil), onItem("PUT", s.putSecret))
	variableRes.serve(h, onItem("POST", s.createVariable), onItem("PUT", s.updateVariable))
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
	return valueOf(s.st.secrets, ow, name)
}

// ActionsVariableValue gives a variable's value in a scope.
func (s *Server) ActionsVariableValue(scope forge.Scope, name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ow, ok := s.scopeOwner(scope)
	if !ok {
		return "", false
	}
	return valueOf(s.st.variables, ow, name)
}

func valueOf(t *table[*actionsValue], ow owner, name string) (string, bool) {
	if v, found := t.first(ow, func(v *actionsValue) bool { return v.is(name) }); found {
		return v.value, true
	}
	return "", false
}

var _ = registerRoutes((*Server).actionsRoutes)
