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
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Users as Gitea 1.24 to 1.26 serve them (read in routers/api/v1/admin/
// user.go, routers/api/v1/user/user.go, services/user/delete.go and
// services/convert/user.go of 1.24.6, 1.25.5 and 1.26.4; the handlers are
// the same but for the admin listing's filters, which come with 1.26):
//
//   - /admin/users is for the site admin: 401 "token is required" without a
//     token, then 403 "user should be the site admin" (reqSiteAdmin), before
//     the body is read or {username} resolved.
//   - {username} resolves case-insensitively to any account, organizations
//     included; unknown is 404 "user redirect does not exist [name: lower]"
//     (UserAssignmentAPI), its detail in "message". GET /users/{username}
//     serves an organization as a user; DELETE refuses it.
//   - POST checks the binding (first failing field: "[Username]: Required"),
//     then the password's length (400 "PasswordIsRequired": under 8 bytes,
//     MIN_PASSWORD_LENGTH's default), then the name (reserved), the email,
//     and last the taken name (422 "user already exists [name: X]", users
//     and organizations) and email (422 "e-mail already in use [email: X]",
//     users only: an organization's email is no email address of the
//     forge's).
//   - DELETE refuses (422) an organization, the caller, and without
//     ?purge=true a user who owns repositories or belongs to an
//     organization (an owner, or a member of any team); with purge those
//     repositories go, the user leaves every organization, and one the
//     user was the last owner of is deleted with its repositories. Deleting
//     also drops the user's collaborations, team memberships and the
//     entries of branch protection allow-lists.
//   - PATCH (EditUser; services/user/update.go and email.go) checks the site
//     admin, resolves {username} (404), then binds the body: a body that
//     does not decode is 422, then the rules in field order, the first
//     failing one reported: "[LoginName]: Required" (login_name is
//     required before 1.27; from 1.27 unsent leaves it alone), MaxSize of email (254), full_name (100), password (255),
//     website (OmitEmpty;ValidUrl: "[Website]: Url"; 255), location (50),
//     description (255), visibility In(,public,limited,private). Then, in
//     three steps each saved on its own:
//     1. UpdateAuth: a source_id other than 0 must name an authentication
//     source (the fake has none: 500 "login source does not exist [id:
//     N]"); login_name is written as sent (when sent, from 1.27); a non-empty password is
//     checked (under 8 bytes: 400 "password must be at least 8
//     characters") and set; must_change_password and prohibit_login change
//     when sent. A password changed signs the account in with it.
//     2. The email when sent: the same address in another case changes
//     nothing; else its characters (400 "e-mail address contains
//     unsupported character [email: X]") and form (400 "e-mail invalid
//     [email: X]"), then an address another user holds, primary or not, is
//     400 "e-mail already in use [email: X]". 1.24 keeps the old primary
//     address as another of the user's (so it stays in use, and the user
//     may take it back); 1.25 and 1.26 replace it. Step 1 stays saved
//     when this fails.
//     3. UpdateUser: full_name, website, location, description, active,
//     restricted and visibility when sent ("" leaves it); admin when sent,
//     but demoting the last site admin is 400 "can not delete the last
//     admin user [uid: N]" and saves nothing of this step.
//     200 with the user as the admin reads it. An organization is edited
//     too (its name, full_name, website, location, description and
//     visibility as an organization's; its email: 1.24 answers 500 "Email
//     address does not exist [email: ]" unless another user holds the
//     address, 1.25 sets it unchecked, 1.26 answers 500 "user X is an
//     organization"); the account flags it is sent are not kept here,
//     nothing reads them on an organization.
//   - A signed-in account (token or password) that is inactive or
//     prohibited from signing in, or that must change its password, is
//     refused on every route (server.go, signInRefusal); a password of an
//     account prohibited from signing in is a 401 like a wrong one.

// userRoutes serves the admin user API, a user's profile and the search.
func (s *Server) userRoutes(h func(string, func(*rc))) {
	h("GET /api/v1/user", func(c *rc) {
		if c.requireToken() {
			c.json(http.StatusOK, c.userJSON(c.doer))
		}
	})
	h("GET /api/v1/admin/users", s.adminListUsers)
	h("POST /api/v1/admin/users", s.adminCreateUser)
	h("PATCH /api/v1/admin/users/{user}", s.adminEditUser)
	h("DELETE /api/v1/admin/users/{user}", s.adminDeleteUser)
	h("POST /api/v1/admin/users/{user}/rename", s.adminRenameUser)
	h("GET /api/v1/users/search", s.searchUsers)
	h("GET /api/v1/users/{user}", s.getUser)
}

// emailPattern is the binding's Email rule (gitea.com/go-chi/binding).
var emailPattern = regexp.MustCompile("\\A[\\w!#$%&'*+/=?^_`{|}~-]+(?:\\.[\\w!#$%&'*+/=?^_`{|}~-]+)*@(?:[\\w](?:[\\w-]*[\\w])?\\.)+[a-zA-Z0-9](?:[\\w-]*[\\w])?\\z")

// emailChars is the model's check of the characters of an email
// (validateEmailBasic's emailRegexp).
var emailChars = regexp.MustCompile("^[a-zA-Z0-9.!#$%&'*+-/=?^_`{|}~]*@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$")

// minPasswordLength is the forge's MIN_PASSWORD_LENGTH default.
const minPasswordLength = 8

// requireSiteAdmin is the admin routes' reqToken then reqSiteAdmin.
func (c *rc) requireSiteAdmin() bool {
	if !c.requireToken() {
		return false
	}
	if !c.doer.admin {
		c.error(http.StatusForbidden, "user should be the site admin")
		return false
	}
	return true
}

// account resolves {user} as UserAssignmentAPI does: the caller, a user or
// an organization (one namespace); nil after writing the 404.
func (c *rc) account() (*user, *org) {
	name := c.r.PathValue("user")
	if u := c.s.userByLogin(name); u != nil {
		return u, nil
	}
	if o := c.s.orgByName(name); o != nil {
		return nil, o
	}
	c.error(http.StatusNotFound, "user redirect does not exist [name: "+strings.ToLower(name)+"]")
	return nil, nil
}

// userJSON is convert.ToUser as the caller sees u: the email only to a
// signed-in caller (no one keeps theirs private by default), what only
// the site admin and the user themselves read (is_admin, login_name,
// active, ...) zero to others.
func (c *rc) userJSON(u *user) map[string]any {
	authed := c.doer != nil && (c.doer.admin || c.doer.id == u.id)
	email := strings.ToLower(u.login) + "@noreply." + hostOf(c.s.root)
	if c.doer != nil {
		email = u.mail()
	}
	j := map[string]any{
		"id": u.id, "login": u.login, "login_name": "", "source_id": 0, "full_name": u.fullName,
		"email": email, "avatar_url": c.s.root + "/avatars/" + strconv.FormatInt(u.id, 10),
		"html_url": c.s.root + "/" + url.PathEscape(u.login), "language": "", "is_admin": false,
		"last_login": time.Time{}, "created": u.created, "restricted": u.restricted, "active": false,
		"prohibit_login": false, "location": u.location, "website": u.website, "description": u.description,
		"visibility": u.visibility, "followers_count": 0, "following_count": 0, "starred_repos_count": 0,
		"username": u.login, // api.User.MarshalJSON's compatibility field
	}
	if authed {
		j["is_admin"], j["login_name"], j["active"], j["prohibit_login"] = u.admin, u.loginName, !u.inactive, u.prohibitLogin
	}
	return j
}

func hostOf(root string) string {
	if u, err := url.Parse(root); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

// asUser is an organization as /users/{username} serves it.
func (o *org) asUser() *user {
	return &user{id: o.id, login: o.name, fullName: o.fullName, email: o.email, visibility: o.visibility,
		website: o.website, location: o.location, description: o.description}
}

// getUser is GET /users/{username}. A user the caller may not see is 404
// "Visit Project" (individualPermsChecker: limited needs a signed-in
// caller, private the admin or the user); an organization, 404
// "GetUserByName" (GetInfo's IsUserVisibleToViewer).
func (s *Server) getUser(c *rc) {
	u, o := c.account()
	switch {
	case o != nil:
		if !c.canSeeOrg(o) {
			c.error(http.StatusNotFound, "GetUserByName",
				fmt.Sprintf("user does not exist [uid: 0, name: %s]", c.r.PathValue("user")))
			return
		}
		c.json(http.StatusOK, c.userJSON(o.asUser()))
	case u != nil:
		if !c.canSeeUser(u) {
			msg := "Visit Project"
			if c.fl == flavorGitea127 {
				msg = "not found" // APIErrorNotFound
			}
			c.error(http.StatusNotFound, msg)
			return
		}
		c.json(http.StatusOK, c.userJSON(u))
	}
}

func (c *rc) canSeeUser(u *user) bool {
	switch u.visibility {
	case "limited":
		return c.doer != nil
	case "private":
		return c.doer != nil && (c.doer.admin || c.doer.id == u.id)
	}
	return true
}

// adminListUsers is GET /admin/users: the users (no organizations) by name
// in bytes (SQLite's order), X-Total-Count and Link. From 1.26 it filters
// by q (login, full name, email; no case), visibility and is_admin, and
// sorts by sort/order; before, those parameters are ignored.
func (s *Server) adminListUsers(c *rc) {
	if !c.requireSiteAdmin() {
		return
	}
	q := c.r.URL.Query()
	users := slices.Clone(s.users)
	slices.SortFunc(users, func(a, b *user) int { return strings.Compare(a.login, b.login) })
	if c.fl == flavorGitea126 || c.fl == flavorGitea127 {
		var ok bool
		if users, ok = c.filterUsers(users, q); !ok {
			return
		}
	}
	servePage(c, c.byLoginSource(users, q), true, c.userJSON)
}

// byLoginSource applies the listing's login_name (exact) and source_id
// filters, which every release reads: the fake has no authentication
// sources, so a source_id above 0 selects no one.
func (c *rc) byLoginSource(users []*user, q url.Values) []*user {
	if name := strings.TrimSpace(q.Get("login_name")); name != "" {
		users = slices.DeleteFunc(users, func(u *user) bool { return u.loginName != name })
	}
	if id, _ := strconv.ParseInt(q.Get("source_id"), 10, 64); id > 0 {
		users = nil
	}
	return users
}

// filterUsers applies the 1.26 admin listing's parameters; false after a 422.
func (c *rc) filterUsers(users []*user, q url.Values) ([]*user, bool) {
	if sort := q.Get("sort"); sort != "" {
		order := cmp.Or(q.Get("order"), "asc")
		if order != "asc" && order != "desc" {
			c.validation(fmt.Sprintf("Invalid sort order: %q", order))
			return nil, false
		}
		var by func(a, b *user) int
		switch sort {
		case "name":
			by = func(a, b *user) int { return strings.Compare(a.login, b.login) }
		case "created", "updated", "id":
			by = func(a, b *user) int { return cmp.Compare(a.id, b.id) }
		default:
			c.validation(fmt.Sprintf("Invalid sort mode: %q", sort))
			return nil, false
		}
		slices.SortStableFunc(users, by)
		if order == "desc" {
			slices.Reverse(users)
		}
	}
	if v := q.Get("visibility"); v != "" {
		if v != "public" && v != "limited" && v != "private" {
			c.validation(fmt.Sprintf("Invalid visibility: %q", v))
			return nil, false
		}
		users = slices.DeleteFunc(users, func(u *user) bool { return u.visibility != v })
	}
	for param, has := range map[string]func(*user) bool{
		"is_admin":          func(u *user) bool { return u.admin },
		"is_active":         func(u *user) bool { return !u.inactive },
		"is_restricted":     func(u *user) bool { return u.restricted },
		"is_prohibit_login": func(u *user) bool { return u.prohibitLogin },
	} {
		if v := q.Get(param); v != "" {
			want, _ := strconv.ParseBool(v)
			users = slices.DeleteFunc(users, func(u *user) bool { return has(u) != want })
		}
	}
	if kw := strings.ToLower(strings.TrimSpace(q.Get("q"))); kw != "" {
		users = slices.DeleteFunc(users, func(u *user) bool { return !u.matches(kw) })
	}
	return users, true
}

// matches is the search's keyword test: a substring of the login, full
// name or email, without case.
func (u *user) matches(lowerKeyword string) bool {
	return strings.Contains(strings.ToLower(u.login), lowerKeyword) ||
		strings.Contains(strings.ToLower(u.fullName), lowerKeyword) ||
		strings.Contains(strings.ToLower(u.mail()), lowerKeyword)
}

// searchUsers is GET /users/search: {"ok": true, "data": [...]} of the
// users (no organizations) the caller may see, matching q, by name,
// X-Total-Count and Link; uid picks one.
func (s *Server) searchUsers(c *rc) {
	q := c.r.URL.Query()
	kw := strings.ToLower(strings.TrimSpace(q.Get("q")))
	uid, _ := strconv.ParseInt(q.Get("uid"), 10, 64)
	var found []*user
	for _, u := range s.users {
		if c.canSeeUser(u) && (kw == "" || u.matches(kw)) && (uid <= 0 || u.id == uid) {
			found = append(found, u)
		}
	}
	slices.SortFunc(found, func(a, b *user) int { return strings.Compare(a.login, b.login) })
	page, limit := paging(q)
	from, to := pageOf(len(found), page, limit)
	data := []map[string]any{}
	for _, u := range found[from:to] {
		data = append(data, c.userJSON(u))
	}
	c.setPaging(len(found), page, limit, true)
	c.json(http.StatusOK, map[string]any{"ok": true, "data": data})
}

// createUserReq is CreateUserOption.
type createUserReq struct {
	SourceID           int64      `json:"source_id"`
	LoginName          string     `json:"login_name"`
	Username           string     `json:"username"`
	FullName           string     `json:"full_name"`
	Email              string     `json:"email"`
	Password           string     `json:"password"`
	MustChangePassword *bool      `json:"must_change_password"`
	SendNotify         bool       `json:"send_notify"`
	Restricted         *bool      `json:"restricted"`
	Visibility         string     `json:"visibility"`
	Created            *time.Time `json:"created_at"`
}

// check is the binding of CreateUserOption, fields in order.
func (req *createUserReq) check() string {
	switch {
	case req.Username == "":
		return "[Username]: Required"
	case !isValidUsername(req.Username):
		return "[Username]: invalid username"
	case !maxSize(req.Username, 40):
		return "[Username]: MaxSize"
	case !maxSize(req.FullName, 100):
		return "[FullName]: MaxSize"
	case req.Email == "":
		return "[Email]: Required"
	case !emailPattern.MatchString(req.Email):
		return "[Email]: Email"
	case !maxSize(req.Email, 254):
		return "[Email]: MaxSize"
	case !maxSize(req.Password, 255):
		return "[Password]: MaxSize"
	}
	switch req.Visibility {
	case "", "public", "limited", "private":
		return ""
	}
	return "[Visibility]: In"
}

// adminCreateUser is POST /admin/users: 201 with the user, active, as the
// admin sees it.
func (s *Server) adminCreateUser(c *rc) {
	if !c.requireSiteAdmin() {
		return
	}
	var req createUserReq
	if !c.bind(&req) {
		return
	}
	if msg := req.check(); msg != "" {
		c.validation(msg)
		return
	}
	if req.SourceID != 0 {
		// The fake has no authentication sources.
		c.validation(fmt.Sprintf("login source does not exist [id: %d]", req.SourceID))
		return
	}
	if len(req.Password) < minPasswordLength {
		c.error(http.StatusBadRequest, "PasswordIsRequired")
		return
	}
	if msg := s.checkNewUser(req.Username, req.Email); msg != "" {
		c.validation(msg)
		return
	}
	u := &user{login: req.Username, email: req.Email, fullName: req.FullName, loginName: req.LoginName,
		visibility: req.Visibility, password: req.Password, mustChangePassword: true}
	if req.MustChangePassword != nil {
		u.mustChangePassword = *req.MustChangePassword
	}
	if req.Restricted != nil {
		u.restricted = *req.Restricted
	}
	if req.Created != nil {
		u.created = req.Created.UTC().Truncate(time.Second)
	}
	s.takeName(u.login)
	s.addUser(u)
	c.json(http.StatusCreated, c.userJSON(u))
}

// checkNewUser is the model's checks of a new user in their order: the
// name's reserved words and patterns, the email's characters and form,
// then the name taken by a user or an organization, then the email taken
// by a user.
func (s *Server) checkNewUser(name, email string) string {
	if msg := nameReserved(name, reservedUsernames, reservedUserPatterns); msg != "" {
		return msg
	}
	if msg := checkEmail(email); msg != "" {
		return msg
	}
	if s.userByLogin(name) != nil || s.orgByName(name) != nil {
		return "user already exists [name: " + name + "]"
	}
	if s.emailHolder(email) != nil {
		return "e-mail already in use [email: " + email + "]"
	}
	return ""
}

// emailHolder is the user who holds email (without case) as their
// primary address or another one; nil when no one does. Organizations'
// addresses are no email addresses of the forge's.
func (s *Server) emailHolder(email string) *user {
	for _, u := range s.users {
		if strings.EqualFold(u.mail(), email) || slices.ContainsFunc(u.otherEmails, func(e string) bool { return strings.EqualFold(e, email) }) {
			return u
		}
	}
	return nil
}

// adminDeleteUser is DELETE /admin/users/{username}[?purge=true]: 204.
func (s *Server) adminDeleteUser(c *rc) {
	if !c.requireSiteAdmin() {
		return
	}
	u, o := c.account()
	switch {
	case o != nil:
		c.validation(c.orgNotUser(o))
		return
	case u == nil:
		return
	case u.id == c.doer.id:
		c.validation("you cannot delete yourself")
		return
	}
	// The last admin cannot go either, but the caller is another admin.
	purge, _ := strconv.ParseBool(c.r.URL.Query().Get("purge"))
	if purge {
		s.purgeUser(u)
	}
	if s.ownsRepos(u) {
		c.validation(fmt.Sprintf("user still has ownership of repositories [uid: %d]", u.id))
		return
	}
	if len(s.orgsOf(u)) > 0 {
		c.validation(fmt.Sprintf("user still has membership of organizations [uid: %d]", u.id))
		return
	}
	s.removeUser(u)
	c.noContent()
}

func (s *Server) ownsRepos(u *user) bool {
	for _, r := range s.st.repos {
		if r.orgID == 0 && r.userID == u.id {
			return true
		}
	}
	return false
}

// orgsOf gives the organizations u belongs to: an owner or a member of
// one of its teams (the forge keeps an org_user row while either holds).
func (s *Server) orgsOf(u *user) []*org {
	var out []*org
	for _, o := range sortedByID(s.st.orgs, nil) {
		if o.owners[u.id] || slices.ContainsFunc(s.st.teams.in(owner{id: o.id}), func(t *team) bool { return t.members[u.id] }) {
			out = append(out, o)
		}
	}
	return out
}

// purgeUser is the purge before a delete: the user's repositories go, and
// the user leaves every organization; one they were the last owner of is
// deleted, repositories and all (RemoveOrgUser's ErrLastOrgOwner, then
// DeleteOrganization with purge).
func (s *Server) purgeUser(u *user) {
	for _, r := range sortedByID(s.st.repos, func(r *repo) bool { return r.orgID == 0 && r.userID == u.id }) {
		s.removeRepo(r)
	}
	for _, o := range s.orgsOf(u) {
		if o.owners[u.id] && len(o.owners) == 1 {
			for _, r := range sortedByID(s.st.repos, func(r *repo) bool { return r.orgID == o.id }) {
				s.removeRepo(r)
			}
			s.deleteOwned(owner{id: o.id})
			delete(s.st.orgs, o.id)
			continue
		}
		for _, t := range s.st.teams.in(owner{id: o.id}) {
			delete(t.members, u.id) // the Owners team's map is o.owners
		}
	}
}

// removeUser deletes the account and what refers to it (deleteUser): its
// collaborations, team memberships and branch protection allow-list
// entries (RemoveUserIDFromProtectedBranch).
func (s *Server) removeUser(u *user) {
	for _, r := range s.st.repos {
		delete(r.collaborators, u.id)
	}
	for _, t := range s.st.teams.where(nil) {
		delete(t.members, u.id)
	}
	drop := func(ids []int64) []int64 { return slices.DeleteFunc(ids, func(id int64) bool { return id == u.id }) }
	for _, b := range s.st.branchRules.where(nil) {
		b.whitelistUsers, b.forcePushUsers = drop(b.whitelistUsers), drop(b.forcePushUsers)
		b.mergeUsers, b.approvalsUsers = drop(b.mergeUsers), drop(b.approvalsUsers)
	}
	s.users = slices.DeleteFunc(s.users, func(x *user) bool { return x == u })
}

// giteaBefore reports whether the fake answers as Gitea 1.x for an x
// below minor; false for Forgejo and an unstamped version (which answer
// as the newest Gitea).
func (c *rc) giteaBefore(minor int) bool {
	flavor, semver, ok := forge.ParseVersion(c.s.version)
	if !ok || flavor != forge.FlavorGitea {
		return false
	}
	var major, m int
	_, _ = fmt.Sscanf(semver, "%d.%d", &major, &m)
	return major == 1 && m < minor
}

// setIf copies *src into *dst when src is set.
func setIf[V any](dst *V, src *V) {
	if src != nil {
		*dst = *src
	}
}

// User gives an account as the site admin reads it; false when there is
// none of that name (any case).
func (s *Server) User(login string) (forge.User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userByLogin(login)
	if u == nil {
		return forge.User{}, false
	}
	return forge.User{ID: u.id, Login: u.login, FullName: u.fullName, Email: u.mail(), IsAdmin: u.admin,
		Restricted: u.restricted, Active: !u.inactive, ProhibitLogin: u.prohibitLogin, Visibility: u.visibility,
		LoginName: u.loginName}, true
}

// orgNotUser is the 422 of an admin user route given an organization;
// 1.27 names none.
func (c *rc) orgNotUser(o *org) string {
	if c.fl == flavorGitea127 {
		return "target is an organization but not user"
	}
	return o.name + " is an organization not a user"
}

var _ = registerRoutes((*Server).userRoutes)
