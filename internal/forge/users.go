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

package forge

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Users: the site's accounts, through the admin API (verified on Gitea
// 1.24.6, 1.25.5 and 1.26.4; the fake forge's handlers_users.go records
// what each call checks, in order).

// UsersClient manages user accounts as the site admin. Every /admin/users
// call answers 403 to anyone else; {username} resolves without case, to
// organizations too (GET /users/{username} serves one as a user, so the
// admin listing, which holds users only, is what tells a user).
type UsersClient interface {
	// ListUsers lists every user account, organizations left out (GET
	// /admin/users, paged with X-Total-Count and Link), each with what
	// only the site admin reads (is_admin, active, prohibit_login,
	// login_name, source_id).
	ListUsers(ctx context.Context) ([]User, error)
	// GetUser reads an account by name (GET /users/{username}): an
	// organization is answered as a user; an unknown name is 404.
	GetUser(ctx context.Context, name string) (*User, error)
	// CreateUser makes a local account (POST /admin/users), active. A
	// taken name (users and organizations, any case) or email is 422; a
	// password under the forge's minimum length (8 by default) is 400
	// "PasswordIsRequired". The password never shows in an error.
	CreateUser(ctx context.Context, opt CreateUserOption) (*User, error)
	// EditUser changes what opt sends (PATCH /admin/users/{username}). A
	// short password, an invalid email or one another account uses, and
	// demoting the last site admin are 400. The forge writes the password
	// and must_change_password, prohibit_login and login_name before it
	// checks the email: an edit refused for its email has changed those.
	EditUser(ctx context.Context, name string, opt EditUserOption) (*User, error)
	// DeleteUser deletes an account (DELETE /admin/users/{username},
	// never ?purge): the forge refuses with 422 a user who owns
	// repositories or belongs to an organization, the caller, and an
	// organization.
	DeleteUser(ctx context.Context, name string) error
}

var _ UsersClient = (*Client)(nil)

// CreateUserOption is the body of POST /admin/users for a local account.
// MustChangePassword is always sent: the forge makes an account that must
// change its password when it is left out. The forge cannot make an admin,
// an inactive account or one that may not sign in: an edit after the
// create sets those.
type CreateUserOption struct {
	Username           string `json:"username"`
	Email              string `json:"email"`
	Password           string `json:"password"`
	MustChangePassword bool   `json:"must_change_password"`
	FullName           string `json:"full_name,omitempty"`
	Restricted         *bool  `json:"restricted,omitempty"`
	Visibility         string `json:"visibility,omitempty"`
}

// EditUserOption is the body of PATCH /admin/users/{username}: only the
// non-nil fields, a non-empty Password and a non-empty Visibility change.
// LoginName is required by the forge before 1.27 (optional from 1.27.3)
// and always written to the account when sent (send what it has, the
// username for a local account that has none);
// SourceID 0 keeps the account's authentication source.
type EditUserOption struct {
	SourceID           int64   `json:"source_id"`
	LoginName          string  `json:"login_name"`
	Email              *string `json:"email,omitempty"`
	FullName           *string `json:"full_name,omitempty"`
	Password           string  `json:"password,omitempty"`
	MustChangePassword *bool   `json:"must_change_password,omitempty"`
	Active             *bool   `json:"active,omitempty"`
	Admin              *bool   `json:"admin,omitempty"`
	ProhibitLogin      *bool   `json:"prohibit_login,omitempty"`
	Restricted         *bool   `json:"restricted,omitempty"`
	Visibility         string  `json:"visibility,omitempty"`
}

// LoginNameOf is the login_name an edit of u sends: the account's own,
// else its name (a local account made without one).
func LoginNameOf(u *User) string {
	if u.LoginName != "" {
		return u.LoginName
	}
	return u.Login
}

// users are declared for the listing cache of Snapshots: the admin API
// lists them site-wide, outside any scope.
var users = &resource[User]{noun: "user", plural: "users", key: func(u User) int64 { return u.ID }}

// adminUsers is the key of the one listing of users.
const adminUsers = "admin"

// ListUsers implements UsersClient.
func (c *Client) ListUsers(ctx context.Context) ([]User, error) {
	return users.listing(ctx, c, call{op: "list users", method: http.MethodGet, route: "/admin/users"})
}

// GetUser implements UsersClient.
func (c *Client) GetUser(ctx context.Context, name string) (*User, error) {
	return fetch[User](ctx, c, call{op: fmt.Sprintf("get user %q", name), method: http.MethodGet,
		route: "/users/{username}", args: []any{name}})
}

// CreateUser implements UsersClient.
func (c *Client) CreateUser(ctx context.Context, opt CreateUserOption) (*User, error) {
	return fetch[User](ctx, c, call{op: fmt.Sprintf("create user %q", opt.Username), method: http.MethodPost,
		route: "/admin/users", body: opt, secrets: []string{opt.Password}})
}

// EditUser implements UsersClient.
func (c *Client) EditUser(ctx context.Context, name string, opt EditUserOption) (*User, error) {
	return fetch[User](ctx, c, call{op: fmt.Sprintf("edit user %q", name), method: http.MethodPatch,
		route: "/admin/users/{username}", args: []any{name}, body: opt, secrets: []string{opt.Password}})
}

// DeleteUser implements UsersClient.
func (c *Client) DeleteUser(ctx context.Context, name string) error {
	_, err := c.do(ctx, call{op: fmt.Sprintf("delete user %q", name), method: http.MethodDelete,
		route: "/admin/users/{username}", args: []any{name}})
	return err
}

// ---- cached: one listing of every user ----

// ListUsers serves the admin listing of users.
func (s *Snapshots) ListUsers(ctx context.Context) ([]User, error) {
	return users.cache(s).list(ctx, s, adminUsers, s.Interface.ListUsers)
}

// GetUser reads a user out of the admin listing when the policy allows
// one; a name the listing lacks (or names an organization) is asked of
// the forge.
func (s *Snapshots) GetUser(ctx context.Context, name string) (*User, error) {
	if s.pol().MaxAge > 0 {
		all, err := s.ListUsers(ctx)
		if err != nil && KindOf(err) != KindForbidden {
			return nil, err
		}
		for i := range all {
			if strings.EqualFold(all[i].Login, name) {
				return &all[i], nil
			}
		}
	}
	if err := s.turn(ctx); err != nil {
		return nil, err
	}
	return s.Interface.GetUser(ctx, name)
}

// CreateUser records the new user in the listing.
func (s *Snapshots) CreateUser(ctx context.Context, opt CreateUserOption) (*User, error) {
	u, err := s.Interface.CreateUser(ctx, opt)
	users.cache(s).wrote(adminUsers, u, 0, err)
	return u, err
}

// EditUser records the user as the edit answered it.
func (s *Snapshots) EditUser(ctx context.Context, name string, opt EditUserOption) (*User, error) {
	u, err := s.Interface.EditUser(ctx, name, opt)
	users.cache(s).wrote(adminUsers, u, 0, err)
	return u, err
}

// DeleteUser drops the listing: the id of the name deleted is not at hand.
func (s *Snapshots) DeleteUser(ctx context.Context, name string) error {
	err := s.Interface.DeleteUser(ctx, name)
	users.cache(s).drop(adminUsers)
	return err
}
