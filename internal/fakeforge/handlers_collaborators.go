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
)

// A repository's direct collaborators as Gitea serves them: listed as
// users without their permission (X-Total-Count only), each one's
// effective permission read on its own route, PUT adding one or changing
// their permission in place (write by default), DELETE removing one (204
// also for a user who is none); a write naming an unknown user is 422,
// one the owning organization blocks 403 "user is blocked".

func (s *Server) collaboratorRoutes(h func(string, func(*rc))) {
	h("GET /api/v1/repos/{owner}/{repo}/collaborators", s.listCollaborators)
	h("PUT /api/v1/repos/{owner}/{repo}/collaborators/{user}", s.putCollaborator)
	h("GET /api/v1/repos/{owner}/{repo}/collaborators/{user}/permission", s.collaboratorPermission)
	h("DELETE /api/v1/repos/{owner}/{repo}/collaborators/{user}", s.deleteCollaborator)
}

// listCollaborators is GET /repos/{o}/{r}/collaborators: the direct
// collaborators as users, without permission, X-Total-Count only.
func (s *Server) listCollaborators(c *rc) {
	r := c.repo()
	if r == nil {
		return
	}
	var users []*user
	for _, u := range s.users {
		if _, ok := r.collaborators[u.id]; ok {
			users = append(users, u)
		}
	}
	servePage(c, users, false, c.userJSON)
}

// collaborator resolves {user} for a collaborator write; an unknown user is 422.
func (c *rc) collaborator() *user {
	name := c.r.PathValue("user")
	u := c.s.userByLogin(name)
	if u == nil {
		c.validation(fmt.Sprintf("user does not exist [uid: 0, name: %s]", strings.ToLower(name)))
	}
	return u
}

// putCollaborator is PUT /repos/{o}/{r}/collaborators/{user}: adds the user
// or changes their permission in place (default write); 204.
func (s *Server) putCollaborator(c *rc) {
	r := c.repo()
	if r == nil || !c.requireRepoAdmin(r) {
		return
	}
	var req struct {
		Permission *string `json:"permission"`
	}
	if !c.bind(&req) {
		return
	}
	u := c.collaborator()
	if u == nil {
		return
	}
	if o := s.st.orgs[r.orgID]; o != nil && o.blocked[u.id] {
		c.error(http.StatusForbidden, "user is blocked")
		return
	}
	p := "write"
	if req.Permission != nil && slices.Contains([]string{"read", "write", "admin"}, *req.Permission) {
		p = *req.Permission
	}
	r.collaborators[u.id] = p
	c.noContent()
}

// collaboratorPermission is GET .../collaborators/{user}/permission: the
// effective permission; the fake has no teams, so an organization owner or
// the site admin is "admin" (Gitea says "owner" for an organization owner),
// a direct collaborator their own, anyone else "read" on a public
// repository and "none" on a private one. An unknown user is 404.
func (s *Server) collaboratorPermission(c *rc) {
	r := c.repo()
	if r == nil {
		return
	}
	u := s.userByLogin(c.r.PathValue("user"))
	if u == nil {
		c.notFound("user redirect does not exist [name: " + strings.ToLower(c.r.PathValue("user")) + "]")
		return
	}
	p := "read"
	if r.private {
		p = "none"
	}
	if cp, ok := r.collaborators[u.id]; ok {
		p = cp
	}
	if o := s.st.orgs[r.orgID]; u.admin || (o != nil && o.owners[u.id]) || r.userID == u.id {
		p = "admin"
	}
	c.json(http.StatusOK, map[string]any{"permission": p, "role_name": p, "user": c.userJSON(u)})
}

// deleteCollaborator is DELETE /repos/{o}/{r}/collaborators/{user}: 204,
// also for a user who is not a collaborator.
func (s *Server) deleteCollaborator(c *rc) {
	r := c.repo()
	if r == nil || !c.requireRepoAdmin(r) {
		return
	}
	if u := c.collaborator(); u != nil {
		delete(r.collaborators, u.id)
		c.noContent()
	}
}

// Collaborators gives a repository's direct collaborators: login -> permission.
func (s *Server) Collaborators(ownerName, name string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	r := s.repoByName(ownerName, name)
	if r == nil {
		return out
	}
	for _, u := range s.users {
		if p, ok := r.collaborators[u.id]; ok {
			out[u.login] = p
		}
	}
	return out
}

var _ = registerRoutes((*Server).collaboratorRoutes)
