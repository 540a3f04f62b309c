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
	"crypto/rand"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Push mirrors, answered as Gitea 1.24.6, 1.25.5 and 1.26.4 do (read in
// routers/api/v1/api.go, routers/api/v1/repo/mirror.go,
// modules/git/remote.go ParseRemoteAddr, services/migrations/migrate.go
// IsMigrateURLAllowed, modules/hostmatcher, modules/setting/mirror.go and
// migrations.go, services/mirror/mirror_push.go, services/convert/mirror.go;
// the same in the three releases) and held to the contract suite
// (internal/forge/contract_pushmirrors_test.go); the full list is atop
// internal/forge/pushmirrors.go. The fake runs with Gitea's defaults and
// the test Gitea's (internal/gitea): [mirror] ENABLED, MIN_INTERVAL 10m;
// [migrations] no allow or block list, ALLOW_LOCALNETWORKS false.
//
// Not modelled: the fake resolves no host names. An IP address is judged
// as Gitea judges it (loopback and private refused, others allowed);
// "localhost" is loopback; a name under .invalid, .test or .local does not
// resolve and is refused as Gitea refuses a name it cannot resolve; any
// other name is taken for an external host. The fake holds no git data:
// a sync fails every mirror with git's "unable to access" line, as a push
// to an address nothing answers does.

type pushMirror struct {
	row
	name, address, interval string
	syncOnCommit            bool
	// user and pass are what the create sent, which the forge keeps in the
	// git remote's URL and never shows.
	user, pass string
	created    time.Time
	lastUpdate *time.Time
	lastError  string
}

// minMirrorInterval is [mirror] MIN_INTERVAL's default.
const minMirrorInterval = 10 * time.Minute

var pushMirrorRes = &resource[*pushMirror]{
	route: forge.RouteOf("push mirrors"), scopes: []string{forge.RepoRoute},
	table: func(st *state) *table[*pushMirror] { return st.pushMirrors },
	may: func(c *rc, o *org, r *repo, verb string) bool {
		// reqAdmin (before reqToken: no token is 403 too), then (POST,
		// DELETE, sync) mustNotBeArchived, then the handler's own check of
		// the setting.
		if c.doer == nil {
			c.error(http.StatusForbidden, "user should be an owner or a collaborator with admin write of a repository")
			return false
		}
		if !c.administers(o, r, verb) || (!reads(verb) && !c.notArchived(r)) {
			return false
		}
		if c.s.st.mirrorsOff {
			c.error(http.StatusBadRequest, "Mirror feature is disabled")
			return false
		}
		return true
	},
	// GetPushMirrorByName answers APIError(404, nil): Gitea before 1.27
	// formats the nil; 1.27 answers APIErrorNotFound ("not found").
	missing: func(c *rc, _ owner, _ *pushMirror) { c.error(http.StatusNotFound, c.nilOr("not found")) },
	named:   func(m *pushMirror, name string) bool { return m.name == name },
	json:    func(c *rc, m *pushMirror) map[string]any { return c.s.pushMirrorJSON(m) },
}

func (s *Server) pushMirrorJSON(m *pushMirror) map[string]any {
	r := s.st.repos[m.owner.id]
	// Never synced is the zero timestamp, not null: 1970-01-01.
	last := time.Unix(0, 0).UTC().Format(time.RFC3339)
	if m.lastUpdate != nil {
		last = m.lastUpdate.Format(time.RFC3339)
	}
	return map[string]any{
		"repo_name": r.name, "remote_name": m.name, "remote_address": m.address,
		"created": m.created.Format(time.RFC3339), "last_update": last, "last_error": m.lastError,
		"interval": m.interval, "sync_on_commit": m.syncOnCommit,
	}
}

// remoteRefusal is ParseRemoteAddr then IsMigrateURLAllowed for an admin
// without [repository] ENABLE_LOCAL_PATHS... (ImportLocalPaths false): the
// status and message HandleRemoteAddressError answers, or 0.
func remoteRefusal(raw, user, pass string, reservedRefused bool) (int, string) {
	addr := raw
	trimmed := strings.TrimSpace(raw)
	if strings.HasPrefix(trimmed, "http://") || strings.HasPrefix(trimmed, "https://") || strings.HasPrefix(trimmed, "git://") {
		u, err := url.Parse(trimmed)
		if err != nil {
			return http.StatusBadRequest, "Invalid Url "
		}
		if len(user)+len(pass) > 0 {
			u.User = url.UserPassword(user, pass)
		}
		addr = u.String()
	}
	u, err := url.Parse(addr)
	switch {
	case err != nil:
		return http.StatusBadRequest, "Invalid Url "
	case u.Scheme == "file" || u.Scheme == "":
		return http.StatusUnauthorized, "Permission denied"
	case u.Opaque != "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "git"):
		// IsProtocolInvalid is checked first.
		return http.StatusBadRequest, "Invalid mirror protocol"
	}
	if !hostAllowed(u.Hostname(), reservedRefused) {
		return http.StatusUnauthorized, "Permission denied"
	}
	return 0, ""
}

// reservedNets are hostmatcher's reservedIPNets (Gitea 1.26): special
// ranges that are no external hosts although net.IP.IsPrivate says so.
var reservedNets = func() []*net.IPNet {
	var out []*net.IPNet
	for _, cidr := range []string{"100.64.0.0/10", "168.63.129.16/32", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
		"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "100::/64", "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32",
		"2001:10::/28", "2001:20::/28", "2001:db8::/32", "2002::/16"} {
		_, n, _ := net.ParseCIDR(cidr)
		out = append(out, n)
	}
	return out
}()

// hostAllowed is the default allow list (external hosts only) applied to
// what host resolves to (see the note atop this file). From Gitea 1.26 an
// address in a reserved range (TEST-NET, CGNAT, ...) is no external host
// (reservedRefused); 1.24 and 1.25 take it for one.
func hostAllowed(host string, reservedRefused bool) bool {
	ip := net.ParseIP(host)
	switch {
	case ip != nil:
	case strings.EqualFold(host, "localhost"):
		return false
	case strings.HasSuffix(host, ".invalid"), strings.HasSuffix(host, ".test"), strings.HasSuffix(host, ".local"):
		return false
	default:
		return true
	}
	if reservedRefused && slices.ContainsFunc(reservedNets, func(n *net.IPNet) bool { return n.Contains(ip) }) {
		return false
	}
	return ip.IsGlobalUnicast() && !ip.IsPrivate()
}

// createPushMirror is POST .../push_mirrors: 200 with the mirror.
func (s *Server) createPushMirror(c *rc) {
	ow, ok := pushMirrorRes.scope(c, "create")
	if !ok {
		return
	}
	var req forge.CreatePushMirrorOption
	if !c.bind(&req) {
		return
	}
	interval, err := time.ParseDuration(req.Interval)
	switch {
	case err != nil:
		c.error(http.StatusBadRequest, err.Error())
		return
	case interval != 0 && interval < minMirrorInterval:
		c.error(http.StatusBadRequest, c.nilOr("interval is shorter than minimum "+minMirrorInterval.String()))
		return
	}
	if status, msg := remoteRefusal(req.RemoteAddress, req.RemoteUsername, req.RemotePassword, !s.versionIs("1.24.") && !s.versionIs("1.25.")); status != 0 {
		c.error(status, msg)
		return
	}
	m := s.st.pushMirrors.add(&pushMirror{row: row{owner: ow}, name: "remote_mirror_" + randomSuffix(),
		address: sanitizedURL(req.RemoteAddress), interval: interval.String(), syncOnCommit: req.SyncOnCommit,
		user: req.RemoteUsername, pass: req.RemotePassword,
		created: time.Now().UTC().Truncate(time.Second)})
	c.json(http.StatusOK, s.pushMirrorJSON(m))
}

// deletePushMirror is DELETE .../push_mirrors/{name}: 204, also for an
// unknown name (DeletePushMirrors deletes what matches, none included).
func (s *Server) deletePushMirror(c *rc) {
	ow, ok := pushMirrorRes.scope(c, "delete")
	if !ok {
		return
	}
	name := c.r.PathValue("name")
	if m, found := s.st.pushMirrors.first(ow, func(m *pushMirror) bool { return m.name == name }); found {
		s.st.pushMirrors.remove(m.id)
	}
	c.noContent()
}

// sanitizedURL is util.SanitizeURL: the address without its user info.
func sanitizedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// randomSuffix is util.CryptoRandomString(10): letters and digits.
func randomSuffix() string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// syncPushMirrors is POST .../push_mirrors-sync: every mirror synced at
// once, 200; the fake's pushes all fail (see the note atop this file),
// which Gitea answers with a 500 naming the first mirror that failed.
func (s *Server) syncPushMirrors(c *rc) {
	ow, ok := pushMirrorRes.scope(c, "sync")
	if !ok {
		return
	}
	all := s.st.pushMirrors.in(ow)
	if len(all) == 0 {
		c.w.WriteHeader(http.StatusOK)
		return
	}
	now := time.Now().UTC().Truncate(time.Second)
	fail := func(m *pushMirror) {
		m.lastUpdate = &now
		m.lastError = "fatal: unable to access '" + strings.TrimSuffix(m.address, "/") + "/': Couldn't connect to server\n"
	}
	if c.fl == flavorGitea127 {
		// 1.27 syncs every mirror and answers 422 naming those that failed.
		names := make([]string, 0, len(all))
		for _, m := range all {
			fail(m)
			names = append(names, m.name)
		}
		c.error(http.StatusUnprocessableEntity, "error occurred when syncing push mirrors: "+strings.Join(names, ", "))
		return
	}
	m := all[0] // the first push fails, and the sync stops there
	fail(m)
	msg := "" // APIErrorInternal: the message for site admins only
	if c.doer != nil && c.doer.admin {
		msg = "error occurred when syncing push mirror " + m.name
	}
	c.error(http.StatusInternalServerError, msg)
}

func (s *Server) pushMirrorRoutes(h func(string, func(*rc))) {
	pushMirrorRes.serve(h, onCollection("POST", s.createPushMirror), onItem("DELETE", s.deletePushMirror))
	h("POST /api/v1"+forge.RepoRoute+"/push_mirrors-sync", s.syncPushMirrors)
}

// SetMirrorsEnabled switches the server's [mirror] ENABLED setting (Reset
// enables them again).
func (s *Server) SetMirrorsEnabled(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.mirrorsOff = !on
}

// mirrorNamed is the mirror of that name in a repository given by name.
func (s *Server) mirrorNamed(ownerName, repoName, name string) (*pushMirror, bool) {
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil, false
	}
	return s.st.pushMirrors.first(owner{repo: true, id: r.id}, func(m *pushMirror) bool { return m.name == name })
}

// SetPushMirrorError sets a mirror's last_error as a failed sync would
// (tests only); false when there is no such mirror.
func (s *Server) SetPushMirrorError(ownerName, repoName, name, msg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mirrorNamed(ownerName, repoName, name)
	if ok {
		now := time.Now().UTC().Truncate(time.Second)
		m.lastError, m.lastUpdate = msg, &now
	}
	return ok
}

// PushMirrorCredentials gives the username and password a mirror was
// created with (tests only; the forge never shows them); ok is false when
// there is no such mirror.
func (s *Server) PushMirrorCredentials(ownerName, repoName, name string) (user, pass string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mirrorNamed(ownerName, repoName, name)
	if !ok {
		return "", "", false
	}
	return m.user, m.pass, true
}

// PushMirrors gives a repository's push mirrors as the listing answers them (tests only).
func (s *Server) PushMirrors(ownerName, repoName string) []forge.PushMirror {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	out := []forge.PushMirror{}
	for _, m := range s.st.pushMirrors.in(owner{repo: true, id: r.id}) {
		out = append(out, forge.PushMirror{RepoName: r.name, RemoteName: m.name, RemoteAddress: m.address, Created: m.created,
			LastUpdate: m.lastUpdate, LastError: m.lastError, Interval: m.interval, SyncOnCommit: m.syncOnCommit})
	}
	return out
}

var _ = registerRoutes((*Server).pushMirrorRoutes)
