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
	"net/mail"
	"slices"
	"strings"
)

// The admin's edit of a user, PATCH /api/v1/admin/users/{user}, as the
// notes at the head of handlers_users.go say Gitea answers it.

// editUserReq is EditUserOption.
type editUserReq struct {
	SourceID                int64   `json:"source_id"`
	LoginName               *string `json:"login_name"`
	Email                   *string `json:"email"`
	FullName                *string `json:"full_name"`
	Password                string  `json:"password"`
	MustChangePassword      *bool   `json:"must_change_password"`
	Website                 *string `json:"website"`
	Location                *string `json:"location"`
	Description             *string `json:"description"`
	Active                  *bool   `json:"active"`
	Admin                   *bool   `json:"admin"`
	AllowGitHook            *bool   `json:"allow_git_hook"`
	AllowImportLocal        *bool   `json:"allow_import_local"`
	MaxRepoCreation         *int    `json:"max_repo_creation"`
	ProhibitLogin           *bool   `json:"prohibit_login"`
	AllowCreateOrganization *bool   `json:"allow_create_organization"`
	Restricted              *bool   `json:"restricted"`
	Visibility              string  `json:"visibility"`
}

// check is the binding of EditUserOption, fields in order; a nil pointer
// is checked as its zero value. 1.27 has login_name optional.
func (req *editUserReq) check(fl errFlavor) string {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch website := str(req.Website); {
	case fl != flavorGitea127 && str(req.LoginName) == "":
		return "[LoginName]: Required"
	case !maxSize(str(req.Email), 254):
		return "[Email]: MaxSize"
	case !maxSize(str(req.FullName), 100):
		return "[FullName]: MaxSize"
	case !maxSize(req.Password, 255):
		return "[Password]: MaxSize"
	case website != "" && !isValidURL(website):
		return "[Website]: Url"
	case !maxSize(website, 255):
		return "[Website]: MaxSize"
	case !maxSize(str(req.Location), 50):
		return "[Location]: MaxSize"
	case !maxSize(str(req.Description), 255):
		return "[Description]: MaxSize"
	}
	switch req.Visibility {
	case "", "public", "limited", "private":
		return ""
	}
	return "[Visibility]: In"
}

// adminEditUser is PATCH /admin/users/{username}: see the file's comment.
func (s *Server) adminEditUser(c *rc) {
	if !c.requireSiteAdmin() {
		return
	}
	u, o := c.account()
	if u == nil && o == nil {
		return
	}
	var req editUserReq
	if !c.bind(&req) {
		return
	}
	if msg := req.check(c.fl); msg != "" {
		c.validation(msg)
		return
	}
	if o != nil {
		c.editOrgAsUser(o, &req)
		return
	}
	// 1. UpdateAuth.
	if req.SourceID != 0 {
		c.error(http.StatusInternalServerError, fmt.Sprintf("login source does not exist [id: %d]", req.SourceID))
		return
	}
	if req.Password != "" && len(req.Password) < minPasswordLength {
		c.error(http.StatusBadRequest, fmt.Sprintf("password must be at least %d characters", minPasswordLength))
		return
	}
	if req.LoginName != nil {
		u.loginName = *req.LoginName
	}
	if req.Password != "" {
		u.password = req.Password
	}
	setIf(&u.mustChangePassword, req.MustChangePassword)
	setIf(&u.prohibitLogin, req.ProhibitLogin)
	// 2. The primary email.
	if req.Email != nil {
		if status, msg := c.replaceEmail(u, *req.Email); status != 0 {
			c.error(status, msg)
			return
		}
	}
	// 3. UpdateUser: nothing of it is saved when the demotion is refused.
	if req.Admin != nil && !*req.Admin && u.admin && s.admins() <= 1 {
		c.error(http.StatusBadRequest, fmt.Sprintf("can not delete the last admin user [uid: %d]", u.id))
		return
	}
	setIf(&u.fullName, req.FullName)
	setIf(&u.website, req.Website)
	setIf(&u.location, req.Location)
	setIf(&u.description, req.Description)
	if req.Active != nil {
		u.inactive = !*req.Active
	}
	setIf(&u.restricted, req.Restricted)
	setIf(&u.admin, req.Admin)
	if req.Visibility != "" {
		u.visibility = req.Visibility
	}
	c.json(http.StatusOK, c.userJSON(u))
}

// replaceEmail sets u's primary email as the release does (step 2); the
// status and message of a refusal, 0 when done.
func (c *rc) replaceEmail(u *user, email string) (int, string) {
	if strings.EqualFold(u.mail(), email) {
		return 0, ""
	}
	if msg := checkEmail(email); msg != "" {
		return http.StatusBadRequest, msg
	}
	if h := c.s.emailHolder(email); h != nil && h != u {
		return http.StatusBadRequest, "e-mail already in use [email: " + email + "]"
	}
	same := func(e string) bool { return strings.EqualFold(e, email) }
	if c.giteaBefore(25) {
		// The old primary stays the user's; one of theirs becomes primary.
		u.otherEmails = append(slices.DeleteFunc(u.otherEmails, same), u.mail())
	} else if slices.ContainsFunc(u.otherEmails, same) {
		// 1.25 on: an address the user holds already, not as primary.
		return http.StatusBadRequest, "e-mail already in use [email: " + email + "]"
	}
	u.email = email
	return 0, ""
}

// checkEmail is validateEmailBasic: "" when email is acceptable.
func checkEmail(email string) string {
	if email == "" {
		return "e-mail invalid [email: ]"
	}
	if !emailChars.MatchString(email) {
		return "e-mail address contains unsupported character [email: " + email + "]"
	}
	if _, err := mail.ParseAddress(email); err != nil || email[0] == '-' {
		return "e-mail invalid [email: " + email + "]"
	}
	return ""
}

// editOrgAsUser is PATCH /admin/users/{org}: the organization's own fields
// change; its email as the release has it (see the file's comment).
func (c *rc) editOrgAsUser(o *org, req *editUserReq) {
	if req.SourceID != 0 {
		c.error(http.StatusInternalServerError, fmt.Sprintf("login source does not exist [id: %d]", req.SourceID))
		return
	}
	if req.Password != "" && len(req.Password) < minPasswordLength {
		c.error(http.StatusBadRequest, fmt.Sprintf("password must be at least %d characters", minPasswordLength))
		return
	}
	if e := req.Email; e != nil && !strings.EqualFold(o.email, *e) {
		msg := checkEmail(*e)
		status := http.StatusBadRequest
		switch {
		case msg != "":
		case c.giteaBefore(25) && c.s.emailHolder(*e) != nil:
			msg = "e-mail already in use [email: " + *e + "]"
		case c.giteaBefore(25):
			status, msg = http.StatusInternalServerError, "Email address does not exist [email: ]"
		case !c.giteaBefore(26):
			status, msg = http.StatusInternalServerError, "user "+o.name+" is an organization"
		}
		if msg != "" {
			c.error(status, msg)
			return
		}
		o.email = *e
	}
	setIf(&o.fullName, req.FullName)
	setIf(&o.website, req.Website)
	setIf(&o.location, req.Location)
	setIf(&o.description, req.Description)
	if req.Visibility != "" {
		o.visibility = req.Visibility
	}
	c.json(http.StatusOK, c.userJSON(o.asUser()))
}

// admins counts the site admins (IsLastAdminUser counts individual
// accounts only).
func (s *Server) admins() int {
	n := 0
	for _, u := range s.users {
		if u.admin {
			n++
		}
	}
	return n
}
