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
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
)

// The webhook deliveries a Receiver reads: the fake sends what Gitea
// sends (headers, signature, the payload fields the receiver reads).
var _ = registerBehaviours("delivery", []behaviour{
	{"deliveries/an organization hook gets repository created, create and push of a branch, push of a commit through the contents API, repository deleted, signed with its secret", contractDeliveries, needLoopback},
})

// needLoopback: the test's listener is on loopback, which only a server on
// this machine reaches (the test servers allow delivery to it: [webhook]
// ALLOWED_HOST_LIST).
func needLoopback(tg *target) string {
	if !tg.live {
		return ""
	}
	u, err := url.Parse(tg.root)
	if err != nil {
		return "the server's URL does not parse"
	}
	if ip := net.ParseIP(u.Hostname()); (ip == nil || !ip.IsLoopback()) && u.Hostname() != "localhost" {
		return "the server is not on this machine: it cannot deliver to the test's loopback listener"
	}
	return ""
}

type received struct {
	header http.Header
	body   []byte
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func contractDeliveries(t *testing.T, tg *target) {
	const secret = "contract-s3cret"
	got := make(chan received, 16)
	ln := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{header: r.Header.Clone(), body: b}
	}))
	defer ln.Close()
	org := tg.org()
	_, err := tg.c.CreateHook(ctx(t), forge.OrgScope(org), forge.CreateHookOption{Type: "gitea",
		Config: map[string]string{"url": ln.URL + "/hook/contract", "content_type": "json", "secret": secret},
		Events: []string{"repository", "create", "push"}, BranchFilter: "*", Active: true})
	mustNoErr(t, err)

	// Deliveries come in any order (the forge's hook queue sends them
	// concurrently): next takes the first of event, keeping the others.
	var early []received
	take := func(event string) (received, bool) {
		for i, d := range early {
			if d.header.Get("X-Gitea-Event") == event {
				early = append(early[:i], early[i+1:]...)
				return d, true
			}
		}
		deadline := time.After(20 * time.Second)
		for {
			select {
			case d := <-got:
				if d.header.Get("X-Gitea-Event") == event {
					return d, true
				}
				early = append(early, d)
			case <-deadline:
				return received{}, false
			}
		}
	}
	next := func(event string) map[string]any {
		t.Helper()
		d, ok := take(event)
		if !ok {
			t.Fatalf("no %s delivery within 20s", event)
		}
		{
			h := d.header
			if h.Get("X-Gitea-Event") != event || h.Get("X-Gitea-Event-Type") != event {
				t.Fatalf("delivery of event %q (type %q), want %q", h.Get("X-Gitea-Event"), h.Get("X-Gitea-Event-Type"), event)
			}
			if !uuidPattern.MatchString(h.Get("X-Gitea-Delivery")) {
				t.Errorf("%s: X-Gitea-Delivery %q is no UUID", event, h.Get("X-Gitea-Delivery"))
			}
			sig := receiver.Signature([]byte(secret), d.body)
			if h.Get("X-Gitea-Signature") != sig || h.Get("X-Hub-Signature-256") != "sha256="+sig {
				t.Errorf("%s: signatures %q and %q, want the hex HMAC-SHA256 of the body %q", event, h.Get("X-Gitea-Signature"), h.Get("X-Hub-Signature-256"), sig)
			}
			if !receiver.Signed(h, d.body, []byte(secret)) {
				t.Errorf("%s: the receiver refuses the delivery's signature", event)
			}
			if h.Get("X-Gitea-Hook-Installation-Target-Type") != "organization" || h.Get("Content-Type") != "application/json" {
				t.Errorf("%s: target type %q, content type %q", event, h.Get("X-Gitea-Hook-Installation-Target-Type"), h.Get("Content-Type"))
			}
			var p map[string]any
			mustNoErr(t, json.Unmarshal(d.body, &p))
			var rp receiver.Payload
			mustNoErr(t, json.Unmarshal(d.body, &rp))
			p["receiver.owner"], p["receiver.repo"] = rp.Repo()
			return p
		}
	}
	field := func(p map[string]any, keys ...string) any {
		var v any = p
		for _, k := range keys {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		}
		return v
	}
	want := func(event string, p map[string]any, keys []string, w any) {
		t.Helper()
		if g := field(p, keys...); g != w {
			t.Errorf("%s: %v = %#v, want %#v", event, keys, g, w)
		}
	}

	repo := uniqueName("repo")
	_, err = tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: repo, AutoInit: true, DefaultBranch: "main"})
	mustNoErr(t, err)
	p := next("repository")
	want("repository", p, []string{"action"}, "created")
	want("repository", p, []string{"repository", "full_name"}, org+"/"+repo)
	want("repository", p, []string{"repository", "name"}, repo)
	want("repository", p, []string{"repository", "owner", "login"}, org)
	want("repository", p, []string{"repository", "owner", "username"}, org)
	want("repository", p, []string{"organization", "username"}, org)
	want("repository", p, []string{"receiver.owner"}, org)
	want("repository", p, []string{"receiver.repo"}, repo)

	// A branch: by the API on Gitea; the fake keeps no git content and
	// makes one as a push of it would.
	if tg.live {
		status, body := tg.raw(http.MethodPost, "/api/v1/repos/"+org+"/"+repo+"/branches", map[string]string{"new_branch_name": "feature"})
		if status != http.StatusCreated {
			t.Fatalf("create branch: %d %s", status, body)
		}
	} else {
		mustNoErr(t, tg.fake.CreateBranch(org, repo, "feature"))
	}
	p = next("create")
	want("create", p, []string{"ref"}, "feature")
	want("create", p, []string{"ref_type"}, "branch")
	want("create", p, []string{"repository", "full_name"}, org+"/"+repo)
	p = next("push")
	want("push", p, []string{"ref"}, "refs/heads/feature")
	want("push", p, []string{"repository", "full_name"}, org+"/"+repo)
	want("push", p, []string{"repository", "default_branch"}, "main")

	// A commit through the contents API is a push to its branch; the
	// repository tells its default branch (which a FileSet without one
	// keeps its files on).
	_, err = tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Message: "by the API", Files: []forge.ChangeFileOperation{
		{Operation: forge.FileCreate, Path: "notes.txt", Content: forge.FileContent([]byte("hello\n"))}}})
	mustNoErr(t, err)
	p = next("push")
	want("push", p, []string{"ref"}, "refs/heads/main")
	want("push", p, []string{"repository", "full_name"}, org+"/"+repo)
	want("push", p, []string{"repository", "default_branch"}, "main")

	mustNoErr(t, tg.c.DeleteRepo(ctx(t), org, repo))
	p = next("repository")
	want("repository", p, []string{"action"}, "deleted")
	want("repository", p, []string{"repository", "full_name"}, org+"/"+repo)
	want("repository", p, []string{"organization", "username"}, org)
}
