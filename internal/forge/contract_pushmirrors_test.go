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

package forge_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The pushMirror behaviours are what the PushMirror kind relies on, read in
// Gitea's source (pushmirrors.go) and probed on 1.26.4 and 1.24.6.
// TestContract runs them.
var _ = registerBehaviours("pushMirror", []behaviour{
	{"pushmirrors/create (200), list, get, delete by remote name; no user info kept; one address twice", contractMirrorLifecycle, nil},
	{"pushmirrors/refusals: interval before address; protocols, URLs, local paths, loopback, private and unresolvable hosts", contractMirrorRefusals, nil},
	{"pushmirrors/archived repository: POST, DELETE and sync 423; reads allowed", contractMirrorArchived, nil},
	{"pushmirrors/repository admins only, the listing included", contractMirrorAccess, nil},
	{"pushmirrors/a failed sync sets last_error and last_update, without the password", contractMirrorSyncError, nil},
	{"pushmirrors/the fake with [mirror] ENABLED = false answers 400 on every route", contractMirrorDisabled, needFake},
	{"pushmirrors/the fake as Gitea 1.24 and 1.25 takes reserved ranges for external hosts", contractMirrorReservedOld, needFake},
})

// mirrorAddress is an address Gitea's default migration policy allows on
// every release (an IP address in 240.0.0.0/4: global unicast, neither
// private nor in Gitea 1.26's reserved ranges, and routed nowhere) without
// a name to resolve: a push to it fails at once.
const mirrorAddress = "http://240.0.0.1:9/acme/web.git"

func contractMirrorLifecycle(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	all, err := tg.c.ListPushMirrors(ctx(t), org, repo)
	mustNoErr(t, err)
	if all == nil || len(all) != 0 {
		t.Fatalf("a new repository's push mirrors: %#v", all)
	}
	m, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{
		RemoteAddress: mirrorAddress, RemoteUsername: "git", RemotePassword: "s3cr3t-pw", Interval: "8h", SyncOnCommit: true})
	mustNoErr(t, err)
	if !strings.HasPrefix(m.RemoteName, "remote_mirror_") || len(m.RemoteName) != len("remote_mirror_")+10 ||
		m.RemoteAddress != mirrorAddress || m.Interval != "8h0m0s" || !m.SyncOnCommit || m.RepoName != repo ||
		m.Created.IsZero() || m.LastUpdate == nil || m.LastUpdate.Unix() != 0 || m.LastError != "" {
		t.Fatalf("created: %#v", m)
	}
	// The same address again is another mirror; user info in the address
	// is dropped from what is kept; "0s" turns periodic sync off.
	again, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{
		RemoteAddress: "http://user:pw-in-url@240.0.0.1:9/acme/web.git", Interval: "0s"})
	mustNoErr(t, err)
	if again.RemoteName == m.RemoteName || again.RemoteAddress != mirrorAddress || again.Interval != "0s" || again.SyncOnCommit {
		t.Fatalf("second mirror of one address: %#v", again)
	}
	long, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: "https://240.0.0.2/x.git", Interval: "90m"})
	mustNoErr(t, err)
	if long.Interval != "1h30m0s" {
		t.Fatalf("interval as Go prints it: %#v", long)
	}
	all, err = tg.c.ListPushMirrors(ctx(t), org, repo)
	mustNoErr(t, err)
	var names []string
	for _, x := range all {
		names = append(names, x.RemoteName)
	}
	if strings.Join(names, ",") != strings.Join([]string{m.RemoteName, again.RemoteName, long.RemoteName}, ",") {
		t.Fatalf("listed in creation order: %v", names)
	}
	got, err := tg.c.GetPushMirror(ctx(t), org, repo, m.RemoteName)
	mustNoErr(t, err)
	if got.RemoteAddress != mirrorAddress || got.Interval != "8h0m0s" || !got.SyncOnCommit {
		t.Fatalf("got: %#v", got)
	}
	mustNoErr(t, tg.c.DeletePushMirror(ctx(t), org, repo, m.RemoteName))
	_, err = tg.c.GetPushMirror(ctx(t), org, repo, m.RemoteName)
	wantKind(t, err, forge.KindNotFound)
	wantStatus(t, err, http.StatusNotFound, nilOr(tg, "not found"))
	// Never synced: last_update is the zero timestamp (1970), not null.
	// Deleting what is gone, or never was, is 204.
	mustNoErr(t, tg.c.DeletePushMirror(ctx(t), org, repo, m.RemoteName))
	mustNoErr(t, tg.c.DeletePushMirror(ctx(t), org, repo, "remote_mirror_nothere123"))
	all, err = tg.c.ListPushMirrors(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 2 {
		t.Fatalf("after a delete: %#v", all)
	}
}

// nilOr is a refusal's message where releases before 1.27 format a nil
// error ("%!s(<nil>)") and 1.27 says msg.
func nilOr(tg *target, msg string) string {
	if giteaSince(tg, 1, 27) {
		return msg
	}
	return "%!s(<nil>)"
}

func contractMirrorRefusals(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	short := nilOr(tg, "interval is shorter than minimum 10m0s")
	for _, c := range []struct {
		address, interval string
		status            int
		msg               string
	}{
		{mirrorAddress, "", http.StatusBadRequest, `time: invalid duration ""`},
		{mirrorAddress, "often", http.StatusBadRequest, `time: invalid duration "often"`},
		// Below [mirror] MIN_INTERVAL (10m): Gitea before 1.27 formats a nil error.
		{mirrorAddress, "9m59s", http.StatusBadRequest, short},
		{"ssh://240.0.0.1/x.git", "5m", http.StatusBadRequest, short},
		{"ssh://240.0.0.1/x.git", "10m", http.StatusBadRequest, "Invalid mirror protocol"},
		{"git@240.0.0.1:acme/x.git", "10m", http.StatusBadRequest, "Invalid Url"},
		{"/srv/git/x.git", "10m", http.StatusUnauthorized, "Permission denied"},
		{"http://127.0.0.1:3000/x.git", "10m", http.StatusUnauthorized, "Permission denied"},
		{"http://localhost/x.git", "10m", http.StatusUnauthorized, "Permission denied"},
		{"https://10.1.2.3/x.git", "10m", http.StatusUnauthorized, "Permission denied"},
		{"https://no-such-host.invalid/x.git", "10m", http.StatusUnauthorized, "Permission denied"},
	} {
		t.Logf("%s every %q", c.address, c.interval)
		_, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{
			RemoteAddress: c.address, RemoteUsername: "git", RemotePassword: "pw-never-shown", Interval: c.interval})
		wantStatus(t, err, c.status, c.msg)
		if strings.Contains(err.Error(), "pw-never-shown") {
			t.Fatalf("the password in an error: %v", err)
		}
	}
	// Gitea 1.26 takes the reserved ranges (TEST-NET, CGNAT, ...) for no
	// external hosts (modules/hostmatcher reservedIPNets); 1.24 and 1.25 do.
	_, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: "http://192.0.2.1/x.git", Interval: "10m"})
	if before(tg, 1, 26) {
		mustNoErr(t, err)
	} else {
		wantStatus(t, err, http.StatusUnauthorized, "Permission denied")
	}
	all, err := tg.c.ListPushMirrors(ctx(t), org, repo)
	mustNoErr(t, err)
	if (len(all) != 0) != before(tg, 1, 26) {
		t.Fatalf("refused creates left mirrors: %#v", all)
	}
}

func contractMirrorArchived(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	m, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: mirrorAddress, Interval: "8h"})
	mustNoErr(t, err)
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(true)})
	mustNoErr(t, err)
	locked := archivedMessage(tg, org, repo)
	_, err = tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: mirrorAddress, Interval: "8h"})
	wantStatus(t, err, http.StatusLocked, locked)
	wantStatus(t, tg.c.DeletePushMirror(ctx(t), org, repo, m.RemoteName), http.StatusLocked, locked)
	if status, body := tg.raw(http.MethodPost, "/api/v1/repos/"+org+"/"+repo+"/push_mirrors-sync", nil); status != http.StatusLocked {
		t.Fatalf("sync of an archived repository: %d %s", status, body)
	}
	all, err := tg.c.ListPushMirrors(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 1 || all[0].RemoteName != m.RemoteName {
		t.Fatalf("an archived repository's mirrors: %#v", all)
	}
	_, err = tg.c.GetPushMirror(ctx(t), org, repo, m.RemoteName)
	mustNoErr(t, err)
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(false)})
	mustNoErr(t, err)
	mustNoErr(t, tg.c.DeletePushMirror(ctx(t), org, repo, m.RemoteName))
}

// contractMirrorAccess: reqAdmin comes before reqToken, so without a
// token it is the same 403.
func contractMirrorAccess(t *testing.T, tg *target) {
	wantAdminsOnly(t, tg, "push_mirrors", http.StatusForbidden)
}

func contractMirrorSyncError(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.initRepo(org)
	m, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{
		RemoteAddress: mirrorAddress, RemoteUsername: "git", RemotePassword: "sync-pw-never-shown", Interval: "8h"})
	mustNoErr(t, err)
	// The push fails (nothing answers): 500 naming the mirror; from 1.27 a
	// 422 listing the mirrors that failed (routers/api/v1/repo/mirror.go).
	wantSync, wantMsg := http.StatusInternalServerError, "error occurred when syncing push mirror "+m.RemoteName
	if giteaSince(tg, 1, 27) {
		wantSync, wantMsg = http.StatusUnprocessableEntity, "error occurred when syncing push mirrors: "+m.RemoteName
	}
	status, body := tg.raw(http.MethodPost, "/api/v1/repos/"+org+"/"+repo+"/push_mirrors-sync", nil)
	if status != wantSync || !strings.Contains(string(body), wantMsg) {
		t.Fatalf("sync to an address nothing answers: %d %s", status, body)
	}
	got, err := tg.c.GetPushMirror(ctx(t), org, repo, m.RemoteName)
	mustNoErr(t, err)
	t.Logf("last_error: %q", got.LastError)
	if got.LastError == "" || got.LastUpdate == nil || got.LastUpdate.Unix() == 0 || !strings.Contains(got.LastError, "240.0.0.1") ||
		strings.Contains(got.LastError, "sync-pw-never-shown") {
		t.Fatalf("after a failed sync: %#v", got)
	}
	// What status shows: also a password in a URL the forge had left is removed.
	shown := forge.MirrorError(got.LastError+" http://git:sync-pw-never-shown@240.0.0.1:9/", "sync-pw-never-shown")
	if strings.Contains(shown, "sync-pw-never-shown") || !strings.Contains(shown, "http://[redacted]@240.0.0.1:9/") {
		t.Fatalf("MirrorError: %q", shown)
	}
}

func contractMirrorDisabled(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	m, err := tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: mirrorAddress, Interval: "8h"})
	mustNoErr(t, err)
	tg.fake.SetMirrorsEnabled(false)
	const off = "Mirror feature is disabled"
	_, err = tg.c.ListPushMirrors(ctx(t), org, repo)
	wantStatus(t, err, http.StatusBadRequest, off)
	if !forge.MirrorsDisabled(err) {
		t.Fatalf("MirrorsDisabled(%v) = false", err)
	}
	_, err = tg.c.GetPushMirror(ctx(t), org, repo, m.RemoteName)
	wantStatus(t, err, http.StatusBadRequest, off)
	_, err = tg.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: mirrorAddress, Interval: "8h"})
	wantStatus(t, err, http.StatusBadRequest, off)
	wantStatus(t, tg.c.DeletePushMirror(ctx(t), org, repo, m.RemoteName), http.StatusBadRequest, off)
	tg.fake.SetMirrorsEnabled(true)
	_, err = tg.c.GetPushMirror(ctx(t), org, repo, m.RemoteName)
	mustNoErr(t, err)
}

func contractMirrorReservedOld(t *testing.T, tg *target) {
	for _, v := range []string{"1.24.6", "1.25.5"} {
		t.Run(v, func(t *testing.T) {
			old := newTarget(t)
			org := old.org()
			repo := old.repo(org)
			old.fake.SetVersion(v)
			m, err := old.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: "http://192.0.2.1/x.git", Interval: "10m"})
			mustNoErr(t, err)
			if m.RemoteAddress != "http://192.0.2.1/x.git" {
				t.Fatalf("created: %#v", m)
			}
			_, err = old.c.CreatePushMirror(ctx(t), org, repo, forge.CreatePushMirrorOption{RemoteAddress: "http://10.0.0.1/x.git", Interval: "10m"})
			wantStatus(t, err, http.StatusUnauthorized, "Permission denied")
		})
	}
}
