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
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// rc is one API request being handled, with Server.mu held.
type rc struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	doer *user
	fl   errFlavor
}

// handle registers fn on the API mux; fn runs with the state locked.
func (s *Server) handle(m *http.ServeMux, pattern string, fn func(*rc)) {
	m.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		doer, _ := r.Context().Value(doerKey{}).(*user)
		c := &rc{s: s, w: w, r: r, doer: doer, fl: flavorOf(s.version)}
		if c.redirectOwner() {
			return
		}
		fn(c)
	})
}

func (c *rc) error(status int, msg string, errs ...string) {
	writeError(c.w, c.r, c.fl, status, msg, errs...)
}

// notFound answers a missing object: JSON, unlike a missing route.
func (c *rc) notFound(detail string) {
	if c.fl == flavorForgejo {
		c.error(http.StatusNotFound, "The target couldn't be found.")
		return
	}
	if detail == "" {
		c.error(http.StatusNotFound, "")
		return
	}
	c.error(http.StatusNotFound, "", detail)
}

// routeNotFound answers like a server without the endpoint.
func (c *rc) routeNotFound() { http.NotFound(c.w, c.r) }

func (c *rc) json(status int, v any) { writeJSON(c.w, status, v) }

func (c *rc) noContent() { c.w.WriteHeader(http.StatusNoContent) }

func (c *rc) validation(msg string) { c.error(http.StatusUnprocessableEntity, msg) }

// requireToken refuses anonymous callers.
func (c *rc) requireToken() bool {
	if c.doer == nil {
		c.error(http.StatusUnauthorized, "token is required")
		return false
	}
	return true
}

// bind decodes the JSON body into v; a body that does not decode is a 422,
// as Gitea's binding reports it.
func (c *rc) bind(v any) bool {
	data, err := io.ReadAll(io.LimitReader(c.r.Body, 1<<20))
	if err != nil {
		c.validation("[]: " + err.Error())
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := json.Unmarshal(data, v); err != nil {
		c.validation("[]: " + err.Error())
		return false
	}
	return true
}

func (c *rc) id(name string) (int64, bool) {
	id, err := strconv.ParseInt(c.r.PathValue(name), 10, 64)
	return id, err == nil
}

func (c *rc) isOrgOwner(o *org) bool {
	return c.doer != nil && (c.doer.admin || o.owners[c.doer.id])
}

// isOrgMember: the site admin, an owner, or a member of any team of the
// organization (Gitea's IsOrganizationMember: its org_user rows are the
// members of its teams).
func (c *rc) isOrgMember(o *org) bool {
	return c.isOrgOwner(o) || (c.doer != nil && c.s.isMemberOf(o, c.doer))
}

// canSeeOrg: a private organization is its members' (and the site
// admin's) to see, a limited one any signed-in user's (Gitea's
// HasOrgOrUserVisible; probed on 1.27.3: a member of a team who is no
// owner reads GET /orgs/{org} of a private organization, 200).
func (c *rc) canSeeOrg(o *org) bool {
	switch o.visibility {
	case "limited":
		return c.doer != nil
	case "private":
		return c.isOrgMember(o)
	}
	return true
}

// requireOrgMember checks the caller is signed in and a member of the
// organization, as Gitea's reqOrgMembership does on the routes of an
// organization's teams: 403 "Must be an organization member", whatever
// the organization's visibility.
func (c *rc) requireOrgMember(o *org) bool {
	if !c.requireToken() {
		return false
	}
	if !c.isOrgMember(o) {
		c.error(http.StatusForbidden, "Must be an organization member")
		return false
	}
	return true
}

// requireOrgOwner checks the caller is signed in and owns the org.
func (c *rc) requireOrgOwner(o *org) bool {
	if !c.requireToken() {
		return false
	}
	if !c.isOrgOwner(o) {
		c.error(http.StatusForbidden, "Must be an organization owner")
		return false
	}
	return true
}

func (c *rc) isRepoAdmin(r *repo) bool {
	if c.doer == nil {
		return false
	}
	if c.doer.admin || (r.orgID == 0 && r.userID == c.doer.id) {
		return true
	}
	if o := c.s.st.orgs[r.orgID]; o != nil && o.owners[c.doer.id] {
		return true
	}
	return false
}

func (c *rc) canSeeRepo(r *repo) bool {
	if c.isRepoAdmin(r) {
		return true
	}
	if r.private {
		return false
	}
	if o := c.s.st.orgs[r.orgID]; o != nil {
		return c.canSeeOrg(o)
	}
	return true
}

// requireRepoWriter checks the caller may write to the repository.
func (c *rc) requireRepoWriter(r *repo) bool {
	if !c.requireToken() {
		return false
	}
	if !c.isRepoAdmin(r) {
		c.error(http.StatusForbidden, "user should have a permission to write to a repo")
		return false
	}
	return true
}

func (c *rc) requireRepoAdmin(r *repo) bool {
	if !c.requireToken() {
		return false
	}
	if !c.isRepoAdmin(r) {
		c.error(http.StatusForbidden, "user should be an owner or a collaborator with admin write of a repository")
		return false
	}
	return true
}

// org resolves {org}; unknown or invisible organizations are 404.
func (c *rc) org() *org {
	o := c.orgUnseen()
	if o != nil && !c.canSeeOrg(o) {
		c.notFound("org does not exist [id: 0, name: " + c.r.PathValue("org") + "]")
		return nil
	}
	return o
}

// orgUnseen resolves {org} whether or not the caller may see it (Gitea's
// orgAssignment, before a route's own checks); unknown ones are 404.
func (c *rc) orgUnseen() *org {
	name := c.r.PathValue("org")
	o := c.s.orgByName(name)
	if o == nil {
		c.notFound("org does not exist [id: 0, name: " + name + "]")
	}
	return o
}

// repo resolves {owner}/{repo}; unknown or invisible repositories are 404.
func (c *rc) repo() *repo {
	ownerName, name := c.r.PathValue("owner"), c.r.PathValue("repo")
	if c.s.orgByName(ownerName) == nil && c.s.userByLogin(ownerName) == nil {
		c.notFound("user redirect does not exist [name: " + strings.ToLower(ownerName) + "]")
		return nil
	}
	r := c.s.repoByName(ownerName, name)
	if r == nil {
		if moved := c.s.repoByOldName(ownerName, name); moved != nil && c.canSeeRepo(moved) {
			c.redirectTo(moved)
			return nil
		}
	}
	if r == nil || !c.canSeeRepo(r) {
		c.notFound("")
		return nil
	}
	return r
}

// setPaging writes X-Total-Count and, where the real server does, Link.
func (c *rc) setPaging(total, page, limit int, link bool) {
	c.w.Header().Set("X-Total-Count", strconv.Itoa(total))
	c.w.Header().Add("Access-Control-Expose-Headers", "X-Total-Count")
	if !link {
		return
	}
	pages := (total + limit - 1) / limit
	if pages < 1 {
		pages = 1
	}
	mk := func(p int, rel string) string {
		u := *c.r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<%s%s>; rel=%q", rootOf(c.r), u.RequestURI(), rel)
	}
	var links []string
	if page < pages {
		links = append(links, mk(page+1, "next"))
		links = append(links, mk(pages, "last"))
	}
	if page > 1 {
		links = append(links, mk(1, "first"))
		links = append(links, mk(page-1, "prev"))
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ","))
		c.w.Header().Add("Access-Control-Expose-Headers", "Link")
	}
}

func (s *Server) routes() *http.ServeMux {
	m := http.NewServeMux()
	h := func(p string, fn func(*rc)) { s.handle(m, p, fn) }

	h("GET /api/v1/version", func(c *rc) { c.json(http.StatusOK, map[string]string{"version": c.s.version}) })
	h("GET /api/v1/settings/api", func(c *rc) {
		c.json(http.StatusOK, map[string]int{
			"max_response_items": 50, "default_paging_num": 30,
			"default_git_trees_per_page": 1000, "default_max_blob_size": 10485760,
		})
	})

	for _, kind := range kindRoutes {
		kind(s, h)
	}
	return m
}

// kindRoutes serve the routes each area's handlers_<area>.go registers
// from its own file (registerRoutes), one registration a file, so a new
// area adds no line here.
var kindRoutes []func(s *Server, h func(string, func(*rc)))

// registerRoutes adds an area's routes to every server; call it only from a
// package-level var.
func registerRoutes(serve func(s *Server, h func(string, func(*rc)))) bool {
	kindRoutes = append(kindRoutes, serve)
	return true
}

// ---- repositories ----

// checkNewRepo gives the status and message refusing a new repository.
func (s *Server) checkNewRepo(r *repo) (int, string) {
	switch {
	case r.name == "":
		return http.StatusUnprocessableEntity, "[Name]: Required"
	case !alphaDashDot.MatchString(r.name):
		return http.StatusUnprocessableEntity, "[Name]: AlphaDashDot"
	case !maxSize(r.name, 100):
		return http.StatusUnprocessableEntity, "[Name]: MaxSize"
	}
	if msg := nameReserved(r.name, reservedRepoNames, reservedRepoPatterns); msg != "" {
		return http.StatusUnprocessableEntity, msg
	}
	for _, other := range s.st.repos {
		if other.orgID == r.orgID && other.userID == r.userID && strings.EqualFold(other.name, r.name) {
			return http.StatusConflict, "The repository with the same name already exists."
		}
	}
	return 0, ""
}

func (s *Server) createOrgRepo(c *rc) {
	o := c.org()
	if o == nil || !c.requireToken() {
		return
	}
	if !c.isOrgOwner(o) {
		c.error(http.StatusForbidden, "Given user is not allowed to create repository in organization "+o.name+".")
		return
	}
	s.createRepoFor(c, &repo{orgID: o.id})
}

func (s *Server) createUserRepo(c *rc) {
	if c.requireToken() {
		s.createRepoFor(c, &repo{userID: c.doer.id})
	}
}

func (s *Server) getRepo(c *rc) {
	if r := c.repo(); r != nil {
		c.json(http.StatusOK, c.repoJSON(r))
	}
}

func (s *Server) deleteRepo(c *rc) {
	r := c.repo()
	if r == nil || !c.requireRepoAdmin(r) {
		return
	}
	s.removeRepo(r)
	c.noContent()
}

// scope resolves the org (through org: c.org, or c.orgUnseen) or repo a
// scoped route names.
func (c *rc) scope(org func() *org) (owner, *org, *repo, bool) {
	if c.r.PathValue("org") != "" {
		o := org()
		if o == nil {
			return owner{}, nil, nil, false
		}
		return owner{id: o.id}, o, nil, true
	}
	r := c.repo()
	if r == nil {
		return owner{}, nil, nil, false
	}
	return owner{repo: true, id: r.id}, nil, r, true
}

// parseQueryBool reads an optional boolean query parameter.
func parseQueryBool(q url.Values, name string) (*bool, bool) {
	v := q.Get(name)
	if v == "" {
		return nil, true
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, false
	}
	return &b, true
}
