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
	"errors"
	"net/http"
	"regexp"
	"time"
)

// Push mirrors of a repository, GET|POST /repos/{o}/{r}/push_mirrors and
// GET|DELETE .../push_mirrors/{name}, POST .../push_mirrors-sync.
//
// What the forge does, read in Gitea 1.24.6, 1.25.5 and 1.26.4
// (routers/api/v1/api.go, routers/api/v1/repo/mirror.go,
// models/repo/pushmirror.go, services/mirror/mirror_push.go,
// services/migrations/migrate.go, modules/git/remote.go,
// modules/setting/mirror.go, services/convert/mirror.go: the same in all
// three) and checked by the contract suite; the fake
// (internal/fakeforge/handlers_pushmirrors.go) answers the same:
//
//   - Access: repository admins only, the listing included (reqToken,
//     reqAdmin on the group). POST, DELETE and the sync are refused in an
//     archived repository (mustNotBeArchived: 423) before anything else.
//   - [mirror] ENABLED = false in app.ini: every push mirror route answers
//     400 "Mirror feature is disabled", the listing included. [mirror]
//     DISABLE_NEW_PUSH only hides the web form: the API creates all the
//     same.
//   - A mirror has no id in the API: it is addressed by its remote_name,
//     "remote_mirror_" and 10 random characters, chosen by the forge.
//     There is no edit: a new interval, sync_on_commit or password means a
//     new mirror. Nothing stops two mirrors of one address in a repository.
//   - POST, in order: interval parsed with time.ParseDuration: unparsable
//     is 400 with Go's message (`time: invalid duration "x"`), non-zero
//     and below [mirror] MIN_INTERVAL (default 10m) 400 "%!s(<nil>)"
//     (Gitea before 1.27 formats a nil error; 1.27: "interval is shorter
//     than minimum 10m0s"); "" is refused as unparsable. Then the
//     address: only http, https and git URLs take the username and
//     password; another scheme is 400 "Invalid mirror protocol", a URL that
//     does not parse 400 "Invalid Url ", a local path or a host the
//     migration allow/block lists refuse ([migrations] ALLOWED_DOMAINS,
//     BLOCKED_DOMAINS, ALLOW_LOCALNETWORKS: loopback and private addresses
//     are refused by default, and so is a host name that does not
//     resolve) 401 "Permission denied": a 401 that is about the address,
//     not the token. 200 (not 201) with the mirror.
//   - remote_address is kept without user info (util.SanitizeURL), so a
//     username and password are never read back; last_error is the last
//     sync's failure, with credentials in URLs removed by the forge
//     (util.SanitizeErrorCredentialURLs), "" after a success.
//   - interval is Go's Duration.String ("8h0m0s", "0s": no periodic sync).
//   - GET of an unknown name is 404; DELETE of an unknown name is 204.
//   - The listing is paged and has X-Total-Count; its Link header counts
//     only the page, so it never names a next page.

// PushMirror mirrors the forge's push mirror.
type PushMirror struct {
	RepoName      string     `json:"repo_name"`
	RemoteName    string     `json:"remote_name"`
	RemoteAddress string     `json:"remote_address"`
	Created       time.Time  `json:"created"`
	LastUpdate    *time.Time `json:"last_update"`
	LastError     string     `json:"last_error"`
	Interval      string     `json:"interval"`
	SyncOnCommit  bool       `json:"sync_on_commit"`
}

// CreatePushMirrorOption is the body of POST .../push_mirrors. interval is
// always sent: the forge refuses an empty one.
type CreatePushMirrorOption struct {
	RemoteAddress  string `json:"remote_address"`
	RemoteUsername string `json:"remote_username,omitempty"`
	RemotePassword string `json:"remote_password,omitempty"`
	Interval       string `json:"interval"`
	SyncOnCommit   bool   `json:"sync_on_commit"`
}

// PushMirrorsClient manages a repository's push mirrors.
type PushMirrorsClient interface {
	// ListPushMirrors: 400 (KindValidation, MirrorsDisabled) where the
	// server has mirrors disabled.
	ListPushMirrors(ctx context.Context, owner, repo string) ([]PushMirror, error)
	GetPushMirror(ctx context.Context, owner, repo, name string) (*PushMirror, error)
	// CreatePushMirror: the password is redacted from any answer. An
	// address the server refuses to reach is 401 (KindUnauthorized)
	// "Permission denied".
	CreatePushMirror(ctx context.Context, owner, repo string, opt CreatePushMirrorOption) (*PushMirror, error)
	// DeletePushMirror succeeds for an unknown name (the forge answers 204).
	DeletePushMirror(ctx context.Context, owner, repo, name string) error
}

var _ PushMirrorsClient = (*Client)(nil)

var pushMirrors = declare(&resource[PushMirror]{noun: "push mirror", plural: "push mirrors", path: "/push_mirrors", item: "/{name}", of: true,
	key: nameID[PushMirror](func(m PushMirror) string { return m.RemoteName }), clone: clonePushMirror})

func clonePushMirror(m PushMirror) PushMirror {
	if m.LastUpdate != nil {
		t := *m.LastUpdate
		m.LastUpdate = &t
	}
	return m
}

// mirrorsDisabled is the forge's answer on a server with [mirror] ENABLED = false.
const mirrorsDisabled = "Mirror feature is disabled"

// MirrorsDisabled reports whether err is the forge saying that the server
// has mirrors disabled ([mirror] ENABLED = false).
func MirrorsDisabled(err error) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.StatusCode == http.StatusBadRequest && fe.Message == mirrorsDisabled
}

// ListPushMirrors implements PushMirrorsClient.
func (c *Client) ListPushMirrors(ctx context.Context, owner, repo string) ([]PushMirror, error) {
	return pushMirrors.list(ctx, c, RepoScope(owner, repo))
}

// GetPushMirror implements PushMirrorsClient.
func (c *Client) GetPushMirror(ctx context.Context, owner, repo, name string) (*PushMirror, error) {
	return pushMirrors.get(ctx, c, RepoScope(owner, repo), name)
}

// CreatePushMirror implements PushMirrorsClient.
func (c *Client) CreatePushMirror(ctx context.Context, owner, repo string, opt CreatePushMirrorOption) (*PushMirror, error) {
	return pushMirrors.create(ctx, c, RepoScope(owner, repo), pushMirrors.one(opt.RemoteAddress), opt, opt.RemotePassword)
}

// DeletePushMirror implements PushMirrorsClient.
func (c *Client) DeletePushMirror(ctx context.Context, owner, repo, name string) error {
	return pushMirrors.delete(ctx, c, RepoScope(owner, repo), name)
}

// ---- through Snapshots: one listing per repository ----

func (s *Snapshots) ListPushMirrors(ctx context.Context, owner, repo string) ([]PushMirror, error) {
	return listIn(ctx, s, pushMirrors, RepoScope(owner, repo), func(ctx context.Context, sc Scope) ([]PushMirror, error) {
		return s.Interface.ListPushMirrors(ctx, sc.Owner, sc.Repo)
	})
}

func (s *Snapshots) GetPushMirror(ctx context.Context, owner, repo, name string) (*PushMirror, error) {
	return byID(s, pushMirrors.cache(s), pushMirrors.key(PushMirror{RemoteName: name}),
		func() (*PushMirror, error) { return s.Interface.GetPushMirror(ctx, owner, repo, name) },
		func() ([]PushMirror, error) { return s.ListPushMirrors(ctx, owner, repo) })
}

func (s *Snapshots) CreatePushMirror(ctx context.Context, owner, repo string, opt CreatePushMirrorOption) (*PushMirror, error) {
	return pushMirrors.cache(s).answer(RepoScope(owner, repo))(s.Interface.CreatePushMirror(ctx, owner, repo, opt))
}

func (s *Snapshots) DeletePushMirror(ctx context.Context, owner, repo, name string) error {
	return pushMirrors.cache(s).deleted(RepoScope(owner, repo), pushMirrors.key(PushMirror{RemoteName: name}))(
		s.Interface.DeletePushMirror(ctx, owner, repo, name))
}

// urlUserInfo is the user info of a URL in free text: scheme://user[:pass]@.
var urlUserInfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@`)

// MirrorError is a push mirror's last_error as status may show it: the
// user info of any URL in it and the given secrets (the password sent,
// in every form the forge may quote it) removed, bounded to MaxMessage.
// The forge removes credentials from URLs itself; this does not rely on it.
func MirrorError(msg string, secrets ...string) string {
	msg = redactWith(newRedactor(secrets...), msg)
	msg = urlUserInfo.ReplaceAllString(msg, "${1}"+redacted+"@")
	return truncate(msg, MaxMessage)
}
