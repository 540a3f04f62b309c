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
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The forge behaviours are covered by the contract suite in internal/forge;
// these tests cover the fake's own controls and helpers.

func setup(t *testing.T, opts ...Option) (*Server, *httptest.Server, *forge.Client) {
	t.Helper()
	s, ts := NewTestServer(t, opts...)
	if _, err := s.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRepo("acme", "web"); err != nil {
		t.Fatal(err)
	}
	c, err := forge.New(forge.Config{URL: ts.URL, Token: DefaultToken, QPS: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, ts, c
}

func bg(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// do sends a raw request with the admin token and returns status and body.
func do(t *testing.T, method, url string, body any, hdr ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(bg(t), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

var web = forge.RepoScope("acme", "web")

func TestNormalizeColor(t *testing.T) {
	cases := map[string]string{"#F00": "ff0000", "f00": "ff0000", " #AbCdEf ": "abcdef", "123456": "123456"}
	for in, want := range cases {
		if got, ok, _ := normalizeColor(in); !ok || got != want {
			t.Errorf("normalizeColor(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for in, msg := range map[string]string{"#12345G": "invalid color: #12345g", "": "invalid color: #", "#ff": "invalid color: #ff", "red": "invalid color: #red"} {
		if _, ok, got := normalizeColor(in); ok || got != msg {
			t.Errorf("normalizeColor(%q) = %v %q, want %q", in, ok, got, msg)
		}
	}
}

func TestExpandEvents(t *testing.T) {
	cases := []struct{ in, want []string }{
		{nil, []string{"push"}},
		{[]string{"Issues"}, []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}},
		{[]string{"issues_only", "pull_request_only"}, []string{"issues", "pull_request"}},
		{[]string{"nope"}, []string{}},
		{[]string{"push", "push", "PUSH"}, []string{"push"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, expandEvents(c.in)); diff != "" {
			t.Errorf("expandEvents(%v) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestUsernames(t *testing.T) {
	for name, want := range map[string]bool{
		"acme": true, "a": true, "a.b-c_d": true, "0day": true,
		"_x": false, "a--b": false, "a._b": false, "x.": false, "a b": false, "ä": false,
	} {
		if got := isValidUsername(name); got != want {
			t.Errorf("isValidUsername(%q) = %v", name, got)
		}
	}
}

func TestHookEventsComeInRandomOrder(t *testing.T) {
	_, _, c := setup(t)
	h, err := c.CreateHook(bg(t), forge.OrgScope("acme"), forge.CreateHookOption{
		Type: "gitea", Config: map[string]string{"url": "https://x.example", "content_type": "json"}, Events: []string{"pull_request"},
	})
	if err != nil {
		t.Fatal(err)
	}
	orders := map[string]bool{strings.Join(h.Events, ","): true}
	for i := 0; i < 30 && len(orders) < 2; i++ {
		got, err := c.GetHook(bg(t), forge.OrgScope("acme"), h.ID)
		if err != nil {
			t.Fatal(err)
		}
		orders[strings.Join(got.Events, ",")] = true
	}
	if len(orders) < 2 {
		t.Fatal("events always come in the same order; the forge shuffles them")
	}
}

func TestFaults(t *testing.T) {
	s, ts, c := setup(t)

	t.Run("status with body and header, count", func(t *testing.T) {
		s.InjectFault(Fault{Method: "get", Path: "/version", Status: 503, Body: "busy", Header: map[string]string{"Retry-After": "2"}, Count: 2})
		for range 2 {
			_, err := c.Version(bg(t))
			if !forge.IsServerError(err) {
				t.Fatalf("want 503, got %v", err)
			}
			if d, _ := forge.RetryAfter(err); d != 2*time.Second {
				t.Fatalf("retry after %s", d)
			}
		}
		if _, err := c.Version(bg(t)); err != nil {
			t.Fatalf("fault outlived its count: %v", err)
		}
	})
	t.Run("method must match", func(t *testing.T) {
		s.InjectFault(Fault{Method: "POST", Path: "/version", Status: 500})
		if _, err := c.Version(bg(t)); err != nil {
			t.Fatal(err)
		}
		s.ClearFaults()
	})
	t.Run("glob and regexp patterns", func(t *testing.T) {
		cases := []struct {
			pattern, path string
			match         bool
		}{
			{"/orgs/*", "/api/v1/orgs/acme", true},
			{"/orgs/*", "/api/v1/orgs/acme/hooks", false},
			{"/orgs/**", "/api/v1/orgs/acme/hooks/1", true},
			{"/api/v1/orgs/*/hooks", "/api/v1/orgs/acme/hooks", true},
			{"/api/v1/orgs/*/hooks", "/orgs/acme/hooks", false},
			{"^/api/v1/repos/[^/]+/web/labels$", "/api/v1/repos/acme/web/labels", true},
			{"", "/anything", true},
			{"/repos/acme/web/labels/?", "/api/v1/repos/acme/web/labels/7", true},
		}
		for _, cs := range cases {
			re, err := compilePattern(cs.pattern)
			if err != nil {
				t.Fatal(err)
			}
			f := &fault{Fault: Fault{Path: cs.pattern}, re: re}
			if got := f.matches("GET", cs.path); got != cs.match {
				t.Errorf("pattern %q on %q: %v", cs.pattern, cs.path, got)
			}
		}
		if err := s.injectFault(Fault{Path: "^(("}); err == nil {
			t.Fatal("bad regexp accepted")
		}
	})
	t.Run("delay", func(t *testing.T) {
		s.InjectFault(Fault{Path: "/version", Delay: 30 * time.Millisecond})
		start := time.Now()
		if _, err := c.Version(bg(t)); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) < 30*time.Millisecond {
			t.Fatal("no delay")
		}
	})
	t.Run("reset before handling", func(t *testing.T) {
		s.ClearRequests()
		s.InjectFault(Fault{Method: "POST", Path: "/repos/acme/web/labels", Reset: true})
		_, err := c.CreateLabel(bg(t), web, forge.CreateLabelOption{Name: "r", Color: "#fff"})
		if !forge.IsNetwork(err) {
			t.Fatalf("want a network error, got %v", err)
		}
		if len(s.Labels(web)) != 0 {
			t.Fatal("a reset request changed state")
		}
		want := []Request{{Method: "POST", Path: "/api/v1/repos/acme/web/labels", Status: 0, Fault: "reset"}}
		if diff := cmp.Diff(want, s.Requests()); diff != "" {
			t.Fatalf("request log (-want +got):\n%s", diff)
		}
	})
	t.Run("lost response", func(t *testing.T) {
		s.ClearRequests()
		s.InjectFault(Fault{Method: "POST", Path: "/repos/acme/web/labels", LostResponse: true})
		_, err := c.CreateLabel(bg(t), web, forge.CreateLabelOption{Name: "lost", Color: "#fff"})
		if !forge.IsNetwork(err) {
			t.Fatalf("want a network error, got %v", err)
		}
		if ls := s.Labels(web); len(ls) != 1 || ls[0].Name != "lost" {
			t.Fatalf("labels after a lost response: %+v", ls)
		}
		want := []Request{{Method: "POST", Path: "/api/v1/repos/acme/web/labels", Status: 201, Fault: "lost_response"}}
		if diff := cmp.Diff(want, s.Requests()); diff != "" {
			t.Fatalf("request log (-want +got):\n%s", diff)
		}
	})
	t.Run("over HTTP", func(t *testing.T) {
		status, body := do(t, "POST", ts.URL+"/_fake/faults", map[string]any{"method": "GET", "path": "/user", "status": 418, "delay": "5ms", "count": 1})
		if status != http.StatusCreated || !strings.Contains(body, `"delay":"5ms"`) {
			t.Fatalf("arm fault: %d %s", status, body)
		}
		if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil); status != 418 {
			t.Fatalf("faulted status %d", status)
		}
		do(t, "POST", ts.URL+"/_fake/faults", map[string]any{"path": "/user", "status": 500, "count": -1})
		do(t, "DELETE", ts.URL+"/_fake/faults", nil)
		if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil); status != 200 {
			t.Fatalf("after clearing faults: %d", status)
		}
		if status, _ := do(t, "POST", ts.URL+"/_fake/faults", map[string]any{"delay": "soon"}); status != 400 {
			t.Fatalf("bad delay accepted: %d", status)
		}
	})
}

func TestRequestLog(t *testing.T) {
	s, ts, c := setup(t)
	s.ClearRequests()
	_, _ = c.GetOrg(bg(t), "acme")
	_, _ = c.CreateLabel(bg(t), web, forge.CreateLabelOption{Name: "a", Color: "#fff"})
	_, _ = c.GetOrg(bg(t), "nope")
	do(t, "GET", ts.URL+"/_fake/requests", nil) // controls are not recorded
	want := []Request{
		{Method: "GET", Path: "/api/v1/orgs/acme", Status: 200},
		{Method: "POST", Path: "/api/v1/repos/acme/web/labels", Status: 201},
		{Method: "GET", Path: "/api/v1/orgs/nope", Status: 404},
	}
	if diff := cmp.Diff(want, s.Requests()); diff != "" {
		t.Fatalf("Requests (-want +got):\n%s", diff)
	}
	if w := s.WriteRequests(); len(w) != 1 || w[0].Method != "POST" {
		t.Fatalf("WriteRequests: %+v", w)
	}
	_, body := do(t, "GET", ts.URL+"/_fake/requests", nil)
	var overHTTP []map[string]any
	if err := json.Unmarshal([]byte(body), &overHTTP); err != nil || len(overHTTP) != 3 ||
		overHTTP[1]["method"] != "POST" || overHTTP[1]["path"] != "/api/v1/repos/acme/web/labels" || overHTTP[1]["status"] != float64(201) {
		t.Fatalf("GET /_fake/requests: %s", body)
	}
	if status, _ := do(t, "DELETE", ts.URL+"/_fake/requests", nil); status != http.StatusNoContent {
		t.Fatal(status)
	}
	if _, body := do(t, "GET", ts.URL+"/_fake/requests", nil); strings.TrimSpace(body) != "[]" {
		t.Fatalf("after clear: %s", body)
	}
}

func TestControlsOverHTTP(t *testing.T) {
	s, ts := NewTestServer(t)
	post := func(path string, body any, want int) string {
		t.Helper()
		status, out := do(t, "POST", ts.URL+path, body)
		if status != want {
			t.Fatalf("POST %s: %d %s", path, status, out)
		}
		return out
	}
	post("/_fake/orgs", map[string]string{"name": "acme"}, 201)
	post("/_fake/orgs", map[string]string{"name": "acme"}, 400)
	post("/_fake/repos", map[string]string{"owner": "acme", "name": "web"}, 201)
	post("/_fake/repos", map[string]string{"owner": "ghost-org", "name": "web"}, 400)
	var rn forge.Runner
	_ = json.Unmarshal([]byte(post("/_fake/runners", map[string]any{"owner": "acme", "repo": "web", "name": "r1", "labels": []string{"linux"}}, 201)), &rn)
	post("/_fake/runners", map[string]any{"owner": "acme", "repo": "nope", "name": "r2"}, 404)
	if status, _ := do(t, "PUT", fmt.Sprintf("%s/_fake/runners/%d/status", ts.URL, rn.ID), map[string]any{"status": "online", "busy": true}); status != 204 {
		t.Fatal(status)
	}
	if rs := s.Runners(web); len(rs) != 1 || rs[0].Status != "online" || !rs[0].Busy || rs[0].Labels[0].Name != "linux" {
		t.Fatalf("runners: %+v", rs)
	}
	do(t, "PUT", ts.URL+"/_fake/version", map[string]string{"version": "1.27.3"})
	if _, body := do(t, "GET", ts.URL+"/api/v1/version", nil); !strings.Contains(body, "1.27.3") {
		t.Fatal(body)
	}
	do(t, "PUT", ts.URL+"/_fake/projects", map[string]bool{"enabled": false})
	if status, body := do(t, "GET", ts.URL+"/api/v1/repos/acme/web/projects", nil); status != 404 || body != "404 page not found\n" {
		t.Fatalf("projects off: %d %q", status, body)
	}
	do(t, "PUT", ts.URL+"/_fake/token", map[string]string{"token": "rotated"})
	if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil); status != 401 {
		t.Fatalf("old token after rotation: %d", status)
	}
	if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil, "Authorization", "token rotated"); status != 200 {
		t.Fatalf("new token: %d", status)
	}
	post("/_fake/reset", nil, 204)
	if len(s.Orgs()) != 0 || len(s.Requests()) != 0 {
		t.Fatal("reset left state")
	}
	if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil, "Authorization", "token rotated"); status != 200 {
		t.Fatal("reset changed the configuration")
	}
}

func TestSceneHelpers(t *testing.T) {
	s, _, c := setup(t)
	if err := s.CreateRepo("acme", "WEB"); err == nil {
		t.Fatal("duplicate repository accepted")
	}
	if err := s.CreateRepo("nobody", "x"); err == nil {
		t.Fatal("repository without an owner accepted")
	}
	if _, err := s.CreateOrg("api"); err == nil {
		t.Fatal("reserved org name accepted")
	}
	if _, err := c.CreateLabel(bg(t), web, forge.CreateLabelOption{Name: "a", Color: "#fff"}); err != nil {
		t.Fatal(err)
	}
	r := s.RegisterRunner(forge.OrgScope("acme"), "org-runner", "x")
	if r.ID != 1 || r.Status != "offline" || len(s.Runners(forge.OrgScope("acme"))) != 1 {
		t.Fatalf("runner: %+v", r)
	}
	s.SetRunnerStatus(r.ID, "online")
	if got, _ := c.GetRunner(bg(t), forge.OrgScope("acme"), r.ID); got.Status != "online" {
		t.Fatalf("status: %+v", got)
	}
	s.DeleteRepo("acme", "web")
	if s.Labels(web) != nil {
		t.Fatal("labels outlived their repository")
	}
	if _, ok := s.Repo("acme", "web"); ok {
		t.Fatal("repository not deleted")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("RegisterRunner on an unknown scope did not panic")
			}
		}()
		s.RegisterRunner(forge.OrgScope("nope"), "x")
	}()
	if o, ok := s.Org("ACME"); !ok || o.Name != "acme" || len(s.Orgs()) != 1 {
		t.Fatalf("Org: %+v %v", o, ok)
	}
}

func TestPermissions(t *testing.T) {
	s, ts, _ := setup(t, WithUser("dev", "dev-token"))
	dev, _ := forge.New(forge.Config{URL: ts.URL, Token: "dev-token", QPS: -1})
	// dev owns what dev creates, and nothing else.
	if _, err := dev.CreateOrg(bg(t), forge.CreateOrgOption{Name: "devs", Visibility: "private"}); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.CreateLabel(bg(t), forge.OrgScope("devs"), forge.CreateLabelOption{Name: "x", Color: "#fff"}); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.CreateLabel(bg(t), web, forge.CreateLabelOption{Name: "x", Color: "#fff"}); !forge.IsForbidden(err) {
		t.Fatalf("label in someone else's repo: %v", err)
	}
	if err := dev.DeleteOrg(bg(t), "acme"); !forge.IsForbidden(err) {
		t.Fatalf("delete someone else's org: %v", err)
	}
	// Repository hooks: the repository's admins only, even to read.
	if _, err := dev.ListHooks(bg(t), web); !forge.IsForbidden(err) || !strings.Contains(err.Error(), "admin write of a repository") {
		t.Fatalf("list hooks of someone else's repo: %v", err)
	}
	if _, err := dev.CreateHook(bg(t), web, forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "https://x.example", "content_type": "json"}}); !forge.IsForbidden(err) {
		t.Fatalf("create a hook in someone else's repo: %v", err)
	}
	if _, err := dev.CreateOrgRepo(bg(t), "devs", forge.CreateRepoOption{Name: "tools"}); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.CreateHook(bg(t), forge.RepoScope("devs", "tools"), forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "https://x.example", "content_type": "json"}}); err != nil {
		t.Fatalf("a hook in the repo of dev's own org: %v", err)
	}
	// Private orgs are invisible to non-members.
	s.mu.Lock()
	s.orgByName("acme").visibility = "private"
	s.mu.Unlock()
	if _, err := dev.GetOrg(bg(t), "acme"); !forge.IsNotFound(err) {
		t.Fatalf("private org seen by a non-member: %v", err)
	}
	// Sudo: admins only.
	if status, body := do(t, "GET", ts.URL+"/api/v1/user?sudo=dev", nil); status != 200 || !strings.Contains(body, `"login":"dev"`) {
		t.Fatalf("admin sudo: %d %s", status, body)
	}
	if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil, "Authorization", "token dev-token", "Sudo", DefaultLogin); status != 403 {
		t.Fatalf("non-admin sudo: %d", status)
	}
}

func TestBasicAuthAndSchemes(t *testing.T) {
	_, ts := NewTestServer(t, WithBasicAuth("root", "pw"))
	for _, h := range []string{"token " + DefaultToken, "Bearer " + DefaultToken, "TOKEN " + DefaultToken, "bearer " + DefaultToken} {
		if status, _ := do(t, "GET", ts.URL+"/api/v1/user", nil, "Authorization", h); status != 200 {
			t.Fatalf("%q: %d", h, status)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/user", nil)
	req.SetBasicAuth("root", "pw")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var u struct {
		Login   string `json:"login"`
		IsAdmin bool   `json:"is_admin"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&u)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || u.Login != "root" || !u.IsAdmin {
		t.Fatalf("basic: %d %+v", resp.StatusCode, u)
	}
	// An unknown scheme is anonymous.
	if status, body := do(t, "GET", ts.URL+"/api/v1/user", nil, "Authorization", "Digest xyz"); status != 401 || !strings.Contains(body, "token is required") {
		t.Fatalf("unknown scheme: %d %s", status, body)
	}
}

func TestConcurrentRequests(t *testing.T) {
	s, _, c := setup(t)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				if _, err := c.CreateLabel(bg(t), web, forge.CreateLabelOption{Name: fmt.Sprintf("w%d-%d", w, i), Color: "#abc"}); err != nil {
					t.Error(err)
					return
				}
				// Under six writers a list may change during each of its
				// walks: the client then says so rather than return a
				// partial list. Anything else is a fault of the fake.
				if _, err := c.ListLabels(bg(t), web); err != nil && !strings.Contains(err.Error(), "the list changed during each of") {
					t.Error(err)
					return
				}
				_ = s.Requests()
				_ = s.Labels(web)
			}
		}()
	}
	wg.Wait()
	if n := len(s.Labels(web)); n != 90 {
		t.Fatalf("%d labels, want 90", n)
	}
	ids := map[int64]bool{}
	for _, l := range s.Labels(web) {
		ids[l.ID] = true
	}
	if len(ids) != 90 {
		t.Fatal("ids repeated under concurrency")
	}
}

func TestRunnerRegistration(t *testing.T) {
	_, ts, c := setup(t)
	tok, err := c.RunnerRegistrationToken(bg(t), web)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.RunnerRegistrationToken(bg(t), web)
	if tok == "" || tok != again {
		t.Fatalf("registration token %q then %q", tok, again)
	}
	reg := func(token, ct string) (int, string) {
		b, _ := json.Marshal(map[string]any{"name": "r", "token": token, "labels": []string{"a"}, "version": "v1"})
		req, _ := http.NewRequest("POST", ts.URL+"/api/actions/runner.v1.RunnerService/Register", bytes.NewReader(b))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	if status, body := reg(tok, "application/json"); status != 200 || !strings.Contains(body, `"id":"1"`) {
		t.Fatalf("register: %d %s", status, body)
	}
	if status, _ := reg("wrong", "application/json"); status == 200 {
		t.Fatal("registered with a wrong token")
	}
	if status, _ := reg(tok, "application/proto"); status != http.StatusUnsupportedMediaType {
		t.Fatalf("proto: %d", status)
	}
	rs, err := c.ListRunners(bg(t), web)
	if err != nil || len(rs) != 1 || rs[0].Name != "r" {
		t.Fatalf("runners: %+v %v", rs, err)
	}
	if rs, _ := c.ListRunners(bg(t), forge.OrgScope("acme")); len(rs) != 0 {
		t.Fatalf("repo runner listed in org scope: %+v", rs)
	}
}

// TestRegistrationTokenGetBeforeGitea126: Gitea 1.24 and 1.25 answer the
// token to a GET as to the POST (the instance's at /admin/runners); the
// reset of the web UI makes a new token and the old one no longer registers.
func TestRegistrationTokenGetBeforeGitea126(t *testing.T) {
	s, ts, c := setup(t, WithVersion("1.25.5"))
	tok, err := c.RunnerRegistrationToken(bg(t), forge.OrgScope("acme"))
	if err != nil {
		t.Fatal(err)
	}
	instance, err := c.RunnerRegistrationToken(bg(t), forge.InstanceScope)
	if err != nil || instance == tok {
		t.Fatalf("the instance's token %v, the same as the organization's: %t", err, instance == tok)
	}
	for path, want := range map[string]string{"/api/v1/orgs/acme/actions/runners/registration-token": tok, "/api/v1/admin/runners/registration-token": instance} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Header.Set("Authorization", "token "+DefaultToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Token string `json:"token"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || got.Token != want {
			t.Fatalf("GET %s: %d %v, want the token POST answers", path, resp.StatusCode, err)
		}
	}
	if !s.ResetRegistrationToken(forge.OrgScope("acme")) {
		t.Fatal("reset refused")
	}
	fresh, err := c.RunnerRegistrationToken(bg(t), forge.OrgScope("acme"))
	if err != nil || fresh == tok || fresh != s.RegistrationToken(forge.OrgScope("acme")) {
		t.Fatalf("after a reset: %v, the same token: %t", err, fresh == tok)
	}
	if _, err := c.RegisterRunnerWith(bg(t), tok, "stale"); err == nil || !strings.Contains(err.Error(), "has been invalidated, please use the latest one") {
		t.Fatalf("register with the reset token: %v", err)
	}
	if _, err := c.RegisterRunnerWith(bg(t), fresh, "new"); err != nil {
		t.Fatal(err)
	}
}

func TestPagingHeaders(t *testing.T) {
	s, ts, _ := setup(t)
	for i := range 7 {
		s.RegisterRunner(web, fmt.Sprintf("r%d", i))
	}
	get := func(path string) *http.Response {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "token "+DefaultToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp
	}
	for i := range 5 {
		do(t, "POST", ts.URL+"/api/v1/orgs/acme/hooks", map[string]any{"type": "gitea", "config": map[string]string{"url": fmt.Sprintf("https://x.example/%d", i), "content_type": "json"}})
		do(t, "POST", ts.URL+"/api/v1/repos/acme/web/labels", map[string]any{"name": fmt.Sprint(i), "color": "fff"})
	}
	resp := get("/api/v1/orgs/acme/hooks?page=2&limit=2")
	link := resp.Header.Get("Link")
	for _, want := range []string{`page=3>; rel="next"`, `page=3>; rel="last"`, `page=1>; rel="first"`, `page=1>; rel="prev"`, ts.URL + "/api/v1/orgs/acme/hooks?"} {
		if !strings.Contains(link, want) {
			t.Fatalf("Link %q lacks %q", link, want)
		}
	}
	if resp.Header.Get("X-Total-Count") != "5" {
		t.Fatal(resp.Header)
	}
	resp = get("/api/v1/repos/acme/web/labels?limit=2")
	if resp.Header.Get("Link") != "" || resp.Header.Get("X-Total-Count") != "5" {
		t.Fatalf("labels headers: %v", resp.Header)
	}
	resp = get("/api/v1/repos/acme/web/actions/runners?limit=2")
	if resp.Header.Get("Link") != "" || resp.Header.Get("X-Total-Count") != "" {
		t.Fatalf("runners headers: %v", resp.Header)
	}
	_, body := do(t, "GET", ts.URL+"/api/v1/repos/acme/web/actions/runners?limit=2&page=4", nil)
	if !strings.Contains(body, `"total_count":7`) || !strings.Contains(body, `"runners":[{`) {
		t.Fatalf("runners page 4: %s", body)
	}
	_, body = do(t, "GET", ts.URL+"/api/v1/repos/acme/web/labels?page=9", nil)
	if strings.TrimSpace(body) != "[]" {
		t.Fatalf("past the end: %s", body)
	}
	_, body = do(t, "GET", ts.URL+"/api/v1/repos/acme/web/labels?limit=500&page=-3", nil)
	var labels []map[string]any
	_ = json.Unmarshal([]byte(body), &labels)
	if len(labels) != 5 {
		t.Fatalf("limit 500 page -3: %d labels", len(labels))
	}
}
