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

// Package fakeforge is an in-memory Gitea-compatible forge for tests and
// demos. It serves the endpoints the operator uses with the behaviours real
// servers show (recorded in the project's forge-behaviour.md): it really
// validates, pages, expands hook events, keeps hook secrets write-only and
// applies the PATCH quirks, so a reconciler that passes against it has met
// the real rules. The contract suite in internal/forge holds it to that.
//
// Besides the forge API it offers test controls, in Go and over HTTP under
// /_fake/: the log of requests seen, fault injection, reset, and scene
// setting (organizations, repositories, runners).
package fakeforge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Defaults of a fake built without options.
const (
	DefaultToken   = "fake-token"
	DefaultLogin   = "forge-admin"
	DefaultVersion = "1.26.0"
)

// Option configures a Server.
type Option func(*Server)

// WithToken sets the token the site admin authenticates with (default
// DefaultToken).
func WithToken(tok string) Option { return func(s *Server) { s.admin().token = tok } }

// WithBasicAuth lets the site admin authenticate with HTTP Basic user:pass.
// The admin's login becomes user unless WithLogin says otherwise.
func WithBasicAuth(user, pass string) Option {
	return func(s *Server) { s.basicUser, s.basicPass = user, pass }
}

// WithLogin sets the site admin's login (default DefaultLogin).
func WithLogin(login string) Option {
	return func(s *Server) { s.admin().login = login; s.loginSet = true }
}

// WithUser adds a non-admin account authenticating with token; it owns the
// organizations it creates and nothing else, so it meets 403s.
func WithUser(login, token string) Option {
	return func(s *Server) { s.addAccount(&user{login: login, token: token}) }
}

// WithVersion sets what GET /version reports (default DefaultVersion), and
// the answers follow it: Gitea 1.27 and later hide a hook's
// authorization_header on read, drop "errors" from error bodies, answer
// GET /token (handlers_tokens.go) and ask write:repository too of a
// repository made in an organization; Gitea
// before 1.26 has no hook names and, like Forgejo
// ("15.0.3+gitea-1.22.0"), no runner PATCH (405); Forgejo's branch rules
// have apply_to_admins and no priority, force-push fields or
// block_admin_merge_override (handlers_branchprotections.go).
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// WithCaseInsensitiveCollation makes the issue listing's label filter
// resolve names without case, as Gitea does on MySQL and MSSQL (their
// default collations): "bug" resolves "Bug" too, and the labels resolved
// are ANDed like any duplicate name. SQLite and PostgreSQL compare case.
func WithCaseInsensitiveCollation() Option { return func(s *Server) { s.foldLabelNames = true } }

// WithoutProjects makes the fake answer like a server without the projects
// API: plain-text 404 on every projects route.
func WithoutProjects() Option { return func(s *Server) { s.projectsEnabled = false } }

// WithoutRunnerEdit makes PATCH .../actions/runners/{id} answer 405, like
// Gitea before 1.26 and Forgejo, whatever the version.
func WithoutRunnerEdit() Option { return func(s *Server) { s.runnerEdit = false } }

// Server is the fake forge; it is an http.Handler and safe for concurrent use.
type Server struct {
	// mu guards the forge state and configuration below.
	mu sync.Mutex
	// pushes numbers the pushes from outside (Push, CreateBranch), whose
	// deliveries name a commit id of their own.
	pushes int
	// users are the accounts the forge has now: the configured ones
	// (accounts) and those created through the admin API
	// (handlers_users.go), less those deleted through it.
	users []*user
	// accounts are the configured accounts (options, AddUser), which Reset
	// brings back; accounts[0] is the site admin.
	accounts []*user
	// tokens are the access tokens made through the API
	// (handlers_tokens.go), each with its scopes; Reset drops them.
	tokens          []*accessToken
	lastTokenID     int64
	lastUserID      int64 // ids are never reused, as the forge's are not
	basicUser       string
	basicPass       string
	loginSet        bool
	version         string
	projectsEnabled bool
	runnerEdit      bool
	foldLabelNames  bool
	root            string // last known server root URL, for URLs in Go reads
	st              state

	// ctl guards the request log and the faults, apart from mu so a
	// delayed request does not hold the state.
	ctl      sync.Mutex
	requests []Request
	reqBase  int // serial number of requests[0]
	faults   []*fault

	api     *http.ServeMux
	control *http.ServeMux
}

var _ http.Handler = (*Server)(nil)

// New builds a fake forge.
func New(opts ...Option) *Server {
	s := &Server{
		version:         DefaultVersion,
		projectsEnabled: true,
		runnerEdit:      true,
	}
	s.addAccount(&user{login: DefaultLogin, token: DefaultToken, admin: true})
	for _, o := range opts {
		o(s)
	}
	if s.basicUser != "" && !s.loginSet {
		s.admin().login = s.basicUser
	}
	s.st = newState()
	s.api = s.routes()
	s.control = s.controlRoutes()
	return s
}

// NewTestServer starts the fake on an httptest server closed at the end of
// the test.
func NewTestServer(t testing.TB, opts ...Option) (*Server, *httptest.Server) {
	t.Helper()
	s := New(opts...)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	s.SetRoot(ts.URL)
	return s, ts
}

// Start runs the fake on an httptest server; the caller closes it.
func (s *Server) Start() *httptest.Server {
	ts := httptest.NewServer(s)
	s.SetRoot(ts.URL)
	return ts
}

// SetRoot tells the fake its public root URL, used for URLs in Go-side
// reads before any request arrived (requests set it from their Host).
func (s *Server) SetRoot(root string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.root = strings.TrimRight(root, "/")
}

// SetToken rotates the site admin's token: the old one is rejected from now on.
func (s *Server) SetToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.admin().token = tok
}

// SetVersion changes what GET /version reports.
func (s *Server) SetVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}

// SetProjectsEnabled turns the projects API on or off.
func (s *Server) SetProjectsEnabled(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projectsEnabled = on
}

// SetRunnerEditEnabled turns PATCH .../actions/runners/{id} on or off.
func (s *Server) SetRunnerEditEnabled(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runnerEdit = on
}

// Login is the site admin's login.
func (s *Server) Login() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.admin().login
}

// Reset empties the forge state, the request log and the faults; the
// configuration (accounts, version, switches) stays: users created through
// the admin API go, configured accounts deleted through it come back.
func (s *Server) Reset() {
	s.mu.Lock()
	s.st = newState()
	s.users = slices.Clone(s.accounts)
	s.tokens = nil
	s.mu.Unlock()
	s.ctl.Lock()
	s.reqBase += len(s.requests)
	s.requests, s.faults = nil, nil
	s.ctl.Unlock()
}

func (s *Server) admin() *user { return s.accounts[0] }

// addAccount configures an account: it outlives Reset.
func (s *Server) addAccount(u *user) {
	s.addUser(u)
	s.accounts = append(s.accounts, u)
}

// addUser gives u the next id and the defaults of an account the forge
// made.
func (s *Server) addUser(u *user) {
	s.lastUserID++
	u.id = s.lastUserID
	if u.visibility == "" {
		u.visibility = "public"
	}
	if u.created.IsZero() {
		u.created = time.Now().UTC().Truncate(time.Second)
	}
	s.users = append(s.users, u)
}

type user struct {
	id    int64
	login string
	token string // "" for an account that never signs in
	admin bool
	// What the admin API sets (handlers_users.go).
	email, fullName, loginName, visibility string
	website, location, description         string
	created                                time.Time
	// password signs in with HTTP Basic ("" never: the configured
	// accounts use their token); otherEmails are addresses the account
	// holds besides its primary one (Gitea 1.24 keeps the old primary
	// when an admin changes it).
	password    string
	otherEmails []string
	restricted  bool
	// inactive, prohibitLogin and mustChangePassword refuse the account's
	// requests once signed in (signInRefusal); prohibitLogin also its
	// password.
	inactive, prohibitLogin, mustChangePassword bool
}

// mail is the user's email; a configured account has none of its own and
// reads login@example.com (whatever its login becomes, see WithLogin).
func (u *user) mail() string {
	if u.email == "" {
		return u.login + "@example.com"
	}
	return u.email
}

// ServeHTTP records the request, applies any matching fault, then serves
// the forge API (or a /_fake/ control, which is neither recorded nor faulted).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_fake/") {
		s.control.ServeHTTP(w, r)
		return
	}
	s.serveWithFaults(w, r)
}

// serveForge authenticates and routes one forge request.
func (s *Server) serveForge(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.root = rootOf(r)
	s.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/api/v1/") || r.URL.Path == "/api/v1" {
		doer, how, status, msg := s.authenticate(r)
		switch {
		case status == http.StatusForbidden && msg == "":
			// verifyAuthWithOptions answers with a message alone, no url.
			writeJSON(w, status, map[string]string{"message": s.signInRefusal(doer, rootOf(r))})
			return
		case status != 0:
			writeError(w, r, s.currentFlavor(), status, msg)
			return
		}
		if msg := how.token.refuses(s.currentFlavor(), r.Method, strings.TrimPrefix(r.URL.Path, "/api/v1")); msg != "" {
			writeError(w, r, s.currentFlavor(), http.StatusForbidden, msg)
			return
		}
		ctx := context.WithValue(r.Context(), doerKey{}, doer)
		r = r.WithContext(context.WithValue(ctx, authKey{}, how))
	}
	s.api.ServeHTTP(w, r)
}

type doerKey struct{}

// authKey holds how the caller signed in (an authMethod).
type authKey struct{}

// authMethod is how a request signed in: with HTTP Basic (name and
// password), or with a token made through the API (token; nil for the
// configured accounts' tokens, which have every scope, and for Basic).
type authMethod struct {
	basic bool
	token *accessToken
}

// authenticate resolves the caller. Credentials that do not match give 401
// on every route; no credentials give an anonymous caller (nil), which the
// handlers refuse where a token is required.
func (s *Server) authenticate(r *http.Request) (*user, authMethod, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var doer *user
	var how authMethod
	scheme, cred, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	cred = strings.TrimSpace(cred)
	switch strings.ToLower(scheme) {
	case "token", "bearer":
		doer, how.token = s.userByToken(cred), s.tokenByValue(cred)
		if doer == nil {
			return nil, how, http.StatusUnauthorized, "invalid username, password or token"
		}
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return nil, how, http.StatusUnauthorized, "invalid username, password or token"
		}
		name, pass, _ := strings.Cut(string(raw), ":")
		switch {
		case s.basicUser != "" && strings.EqualFold(name, s.basicUser) && pass == s.basicPass:
			doer, how.basic = s.admin(), true
		case s.userByToken(pass) != nil:
			// A token stands in for the password, with its scopes.
			doer, how.token = s.userByToken(pass), s.tokenByValue(pass)
		case s.userByToken(name) != nil && (pass == "" || pass == "x-oauth-basic"):
			doer, how.token = s.userByToken(name), s.tokenByValue(name)
		case s.signIn(name, pass) != nil:
			doer, how.basic = s.signIn(name, pass), true
		default:
			return nil, how, http.StatusUnauthorized, "invalid username, password or token"
		}
	}
	if doer.refused() {
		return doer, how, http.StatusForbidden, "" // signInRefusal says why
	}
	sudo := r.URL.Query().Get("sudo")
	if sudo == "" {
		sudo = r.Header.Get("Sudo")
	}
	if sudo != "" && doer != nil {
		if !doer.admin {
			return nil, how, http.StatusForbidden, "Only administrators allowed to sudo."
		}
		target := s.userByLogin(sudo)
		if target == nil {
			return nil, how, http.StatusNotFound, "user does not exist [name: " + sudo + "]"
		}
		doer = target
	}
	return doer, how, 0, ""
}

// signIn is UserSignIn for a local account: its name or primary email
// (without case) and its password; an account that may not sign in
// (prohibit_login) is refused like a wrong password.
func (s *Server) signIn(name, pass string) *user {
	if pass == "" {
		return nil
	}
	for _, u := range s.users {
		if u.password == pass && !u.prohibitLogin && (strings.EqualFold(u.login, name) || strings.EqualFold(u.mail(), name)) {
			return u
		}
	}
	return nil
}

// signInRefusal is what verifyAuthWithOptions answers (403) an account
// that signed in but may not act: inactive or prohibited from signing in,
// then one that must change its password first (setting.AppURL ends in a
// slash; the message adds another). "" for anyone else.
func (s *Server) signInRefusal(doer *user, root string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !doer.refused():
		return ""
	case doer.inactive || doer.prohibitLogin:
		return "This account is prohibited from signing in, please contact your site administrator."
	case doer.mustChangePassword:
		return "You must change your password. Change it at: " + root + "//user/change_password"
	}
	return ""
}

// refused reports whether a signed-in account may not act (signInRefusal);
// the real caller is asked, before any sudo.
func (u *user) refused() bool {
	return u != nil && (u.inactive || u.prohibitLogin || u.mustChangePassword)
}

func (s *Server) userByToken(tok string) *user {
	if tok == "" {
		return nil
	}
	for _, u := range s.users {
		if u.token == tok {
			return u
		}
	}
	if t := s.tokenByValue(tok); t != nil && slices.Contains(s.users, t.owner) {
		return t.owner
	}
	return nil
}

func (s *Server) userByLogin(login string) *user {
	for _, u := range s.users {
		if strings.EqualFold(u.login, login) {
			return u
		}
	}
	return nil
}

func rootOf(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// flavorLocked tells how error bodies look: Forgejo, Gitea 1.26 (with
// "errors"), or later Gitea.
func (s *Server) currentFlavor() errFlavor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return flavorOf(s.version)
}

type errFlavor int

// What the reported version changes in the fake's answers.
const (
	flavorGiteaOld errFlavor = iota // before 1.26: no hook name, no runner PATCH
	flavorGitea126                  // error bodies carry "errors"
	flavorGitea127                  // no "errors"; authorization_header hidden on read
	flavorForgejo                   // 404 "The target couldn't be found."; no runner PATCH
)

// flavorOf reads the version the fake reports; an unstamped version
// ("development") behaves like the default 1.26.
func flavorOf(version string) errFlavor {
	flavor, semver, ok := forge.ParseVersion(version)
	switch {
	case !ok:
		return flavorGitea126
	case flavor == forge.FlavorForgejo:
		return flavorForgejo
	}
	var major, minor int
	parts := strings.SplitN(semver, ".", 3)
	if len(parts) >= 2 {
		major, minor = atoiDefault(parts[0]), atoiDefault(parts[1])
	}
	switch {
	case major > 1 || (major == 1 && minor >= 27):
		return flavorGitea127
	case major == 1 && minor == 26:
		return flavorGitea126
	}
	return flavorGiteaOld
}

// nilOr is a refusal's message where Gitea before 1.27 formats a nil
// error ("%!s(<nil>)") and 1.27 says msg.
func (c *rc) nilOr(msg string) string {
	if c.fl == flavorGitea127 {
		return msg
	}
	return "%!s(<nil>)"
}

// hasHookName: hook names exist from Gitea 1.26.
func (f errFlavor) hasHookName() bool { return f == flavorGitea126 || f == flavorGitea127 }

// hasRunnerEdit: PATCH .../actions/runners/{id} exists from Gitea 1.26.
func (f errFlavor) hasRunnerEdit() bool { return f == flavorGitea126 || f == flavorGitea127 }

// editsOnlySent: PATCH /orgs/{org} leaves unsent fields alone (Gitea from
// 1.26, Forgejo); Gitea 1.24 and 1.25 write them empty.
func (f errFlavor) editsOnlySent() bool { return f != flavorGiteaOld }

// orgHookLink: organization hook lists carry a Link header from Gitea 1.26;
// before it, X-Total-Count only (as repository hook lists always do).
func (f errFlavor) orgHookLink() bool { return f != flavorGiteaOld }

func atoiDefault(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// writeError writes the forge's JSON error body.
func writeError(w http.ResponseWriter, r *http.Request, fl errFlavor, status int, msg string, errs ...string) {
	body := map[string]any{"message": msg, "url": rootOf(r) + "/api/swagger"}
	switch fl {
	case flavorGiteaOld, flavorGitea126:
		if len(errs) > 0 {
			body["errors"] = errs
		} else {
			body["errors"] = nil
		}
	case flavorGitea127:
		if len(errs) > 0 {
			body["errors"] = errs
		}
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
