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
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// newFake starts a fake with an org "acme" and repository "acme/web", and
// a client for it.
func newFake(t *testing.T, opts ...fakeforge.Option) (*fakeforge.Server, *httptest.Server, *forge.Client) {
	t.Helper()
	fake, ts := fakeforge.NewTestServer(t, opts...)
	if _, err := fake.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	if err := fake.CreateRepo("acme", "web"); err != nil {
		t.Fatal(err)
	}
	c, err := forge.New(forge.Config{URL: ts.URL, Token: fakeforge.DefaultToken, QPS: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return fake, ts, c
}

var web = forge.RepoScope("acme", "web")

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in, flavor, semver string
		ok                 bool
	}{
		{"1.27.3", "gitea", "1.27.3", true},
		{"1.26.0", "gitea", "1.26.0", true},
		{"v1.26.1", "gitea", "1.26.1", true},
		{"1.28.0+dev-123-gabcdef0", "gitea", "1.28.0", true},
		{"1.26.0-rc1", "gitea", "1.26.0-rc1", true},
		{"15.0.3+gitea-1.22.0", "forgejo", "15.0.3", true},
		{"8.0.0-dev-1234-abcdef+gitea-1.22.0", "forgejo", "8.0.0-dev-1234-abcdef", true},
		{"1.22", "gitea", "1.22.0", true},
		{"development", "", "", false},
		{"", "", "", false},
		{"main-nightly", "", "", false},
	}
	for _, c := range cases {
		flavor, semver, ok := forge.ParseVersion(c.in)
		if flavor != c.flavor || semver != c.semver || ok != c.ok {
			t.Errorf("ParseVersion(%q) = %q %q %v, want %q %q %v", c.in, flavor, semver, ok, c.flavor, c.semver, c.ok)
		}
	}
}

func TestRetryAfterParsing(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	defer forge.SetNow(func() time.Time { return at })()
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"7", 7 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, true},
		{"-3", 0, false},
		{"", 0, false},
		{"soon", 0, false},
		{at.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{at.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{at.Add(30 * time.Second).Format(time.RFC850), 30 * time.Second, true},
	}
	for _, c := range cases {
		got, ok := forge.ParseRetryAfter(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseRetryAfter(%q) = %s %v, want %s %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestRetryAfterOnResponses(t *testing.T) {
	fake, _, c := newFake(t)
	fake.InjectFault(fakeforge.Fault{Method: "GET", Path: "/orgs/*", Status: 429, Body: `{"message":"slow down"}`, Header: map[string]string{"Retry-After": "7"}})
	_, err := c.GetOrg(ctx(t), "acme")
	wantKind(t, err, forge.KindRateLimited)
	if d, ok := forge.RetryAfter(err); !ok || d != 7*time.Second {
		t.Fatalf("RetryAfter = %s %v", d, ok)
	}
	if !strings.Contains(err.Error(), "429 slow down (retry after 7s)") {
		t.Fatalf("error string: %v", err)
	}

	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	fake.InjectFault(fakeforge.Fault{Path: "/orgs/*", Status: 503, Header: map[string]string{"Retry-After": date}})
	_, err = c.GetOrg(ctx(t), "acme")
	wantKind(t, err, forge.KindServer)
	if d, ok := forge.RetryAfter(err); !ok || d < 59*time.Minute || d > time.Hour {
		t.Fatalf("RetryAfter from a date = %s %v", d, ok)
	}

	fake.InjectFault(fakeforge.Fault{Path: "/orgs/*", Status: 429})
	_, err = c.GetOrg(ctx(t), "acme")
	wantKind(t, err, forge.KindRateLimited)
	if _, ok := forge.RetryAfter(err); ok {
		t.Fatal("RetryAfter without a header")
	}
	if _, ok := forge.RetryAfter(errors.New("plain")); ok {
		t.Fatal("RetryAfter of a foreign error")
	}
}

func TestErrorClasses(t *testing.T) {
	fake, ts, c := newFake(t, fakeforge.WithUser("dev", "dev-token"))
	dev, err := forge.New(forge.Config{URL: ts.URL, Token: "dev-token", QPS: -1})
	mustNoErr(t, err)
	bad, err := forge.New(forge.Config{URL: ts.URL, Token: "wrong", QPS: -1})
	mustNoErr(t, err)

	t.Run("unauthorized", func(t *testing.T) {
		_, err := bad.CurrentUser(ctx(t))
		wantKind(t, err, forge.KindUnauthorized)
		if !forge.IsUnauthorized(err) {
			t.Fatal("IsUnauthorized")
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		_, err := dev.EditOrg(ctx(t), "acme", forge.EditOrgOption{Description: ptr("x")})
		wantKind(t, err, forge.KindForbidden)
		if !forge.IsForbidden(err) || !strings.Contains(err.Error(), "403 Must be an organization owner") {
			t.Fatalf("forbidden: %v", err)
		}
		_, err = dev.ListHooks(ctx(t), forge.OrgScope("acme")) // owners only, even to read
		wantKind(t, err, forge.KindForbidden)
	})
	t.Run("not found", func(t *testing.T) {
		_, err := c.GetLabel(ctx(t), web, 42)
		wantKind(t, err, forge.KindNotFound)
		if !forge.IsNotFound(err) || forge.IsRouteNotFound(err) {
			t.Fatal("IsNotFound / IsRouteNotFound")
		}
		if got := err.Error(); got != "get label 42 in acme/web: 404 label does not exist [label_id: 42]" {
			t.Fatalf("error string %q", got)
		}
	})
	t.Run("route not found", func(t *testing.T) {
		fake.SetProjectsEnabled(false)
		defer fake.SetProjectsEnabled(true)
		_, err := c.GetProject(ctx(t), forge.RepoScope("acme", "web"), 1)
		wantKind(t, err, forge.KindRouteNotFound)
		if !forge.IsRouteNotFound(err) || forge.IsNotFound(err) {
			t.Fatal("IsRouteNotFound / IsNotFound")
		}
		if !strings.Contains(err.Error(), "get project 1 in acme/web: 404 route not found") {
			t.Fatalf("error string %q", err)
		}
	})
	t.Run("method not allowed is route not found", func(t *testing.T) {
		fake.InjectFault(fakeforge.Fault{Method: "PATCH", Path: "/repos/**", Status: 405, Body: "Method Not Allowed"})
		_, err := c.EditRunner(ctx(t), web, 1, true)
		wantKind(t, err, forge.KindRouteNotFound)
	})
	t.Run("empty 404 is an object", func(t *testing.T) {
		fake.InjectFault(fakeforge.Fault{Path: "/orgs/*", Status: 404})
		_, err := c.GetOrg(ctx(t), "acme")
		wantKind(t, err, forge.KindNotFound)
	})
	t.Run("validation", func(t *testing.T) {
		_, err := c.CreateLabel(ctx(t), forge.RepoScope("acme", "web"), forge.CreateLabelOption{Name: "kind/bug", Color: "#12345G"})
		wantKind(t, err, forge.KindValidation)
		if got := err.Error(); got != `create label "kind/bug" in acme/web: 422 invalid color: #12345g` {
			t.Fatalf("error string %q", got)
		}
		var fe *forge.Error
		if !errors.As(err, &fe) || fe.StatusCode != 422 || fe.Message != "invalid color: #12345g" || fe.Op != `create label "kind/bug" in acme/web` {
			t.Fatalf("error fields: %+v", fe)
		}
		fake.InjectFault(fakeforge.Fault{Path: "/orgs", Status: 400, Body: `{"message":"bad request"}`})
		_, err = c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: "x"})
		if !forge.IsValidation(err) {
			t.Fatalf("400: %v", err)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		_, err := c.CreateOrgRepo(ctx(t), "acme", forge.CreateRepoOption{Name: "web"})
		wantKind(t, err, forge.KindConflict)
		if !forge.IsConflict(err) {
			t.Fatal("IsConflict")
		}
	})
	t.Run("server", func(t *testing.T) {
		for _, code := range []int{500, 502, 503, 504} {
			fake.InjectFault(fakeforge.Fault{Path: "/version", Status: code})
			_, err := c.Version(ctx(t))
			wantKind(t, err, forge.KindServer)
			if !forge.IsServerError(err) {
				t.Fatal("IsServerError")
			}
		}
		// Gitea's message of a 500 comes through when there is one.
		fake.InjectFault(fakeforge.Fault{Path: "/version", Status: 500, Body: `{"message":"","errors":["db locked"]}`})
		_, err := c.Version(ctx(t))
		if !strings.HasSuffix(err.Error(), "500 db locked") {
			t.Fatalf("500 with errors: %v", err)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		fake.InjectFault(fakeforge.Fault{Path: "/version", Status: 418})
		_, err := c.Version(ctx(t))
		wantKind(t, err, forge.KindUnknown)
		fake.InjectFault(fakeforge.Fault{Path: "/version", Status: 200, Body: "<html>proxy</html>"})
		_, err = c.Version(ctx(t))
		wantKind(t, err, forge.KindInvalidResponse)
		if forge.KindOf(nil) != forge.KindUnknown || forge.KindOf(errors.New("x")) != forge.KindUnknown {
			t.Fatal("KindOf of nil / foreign errors")
		}
	})
	t.Run("network reset", func(t *testing.T) {
		// Count 2: Go retries an idempotent request once on a reused connection.
		fake.InjectFault(fakeforge.Fault{Path: "/orgs/acme", Reset: true, Count: 2})
		_, err := c.GetOrg(ctx(t), "acme")
		wantKind(t, err, forge.KindNetwork)
		if !forge.IsNetwork(err) {
			t.Fatal("IsNetwork")
		}
		fake.ClearFaults()
	})
	t.Run("network timeout", func(t *testing.T) {
		short, err := forge.New(forge.Config{URL: ts.URL, Token: fakeforge.DefaultToken, QPS: -1, Timeout: 50 * time.Millisecond})
		mustNoErr(t, err)
		fake.InjectFault(fakeforge.Fault{Path: "/version", Delay: 2 * time.Second})
		start := time.Now()
		_, err = short.Version(ctx(t))
		wantKind(t, err, forge.KindNetwork)
		if time.Since(start) > time.Second {
			t.Fatalf("timeout took %s", time.Since(start))
		}
		fake.ClearFaults()
	})
	t.Run("context deadline", func(t *testing.T) {
		fake.InjectFault(fakeforge.Fault{Path: "/version", Delay: 2 * time.Second})
		cx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err := c.Version(cx)
		wantKind(t, err, forge.KindNetwork)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("errors.Is DeadlineExceeded: %v", err)
		}
		fake.ClearFaults()
	})
	t.Run("connection refused", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		dc, err := forge.New(forge.Config{URL: dead.URL, Token: "t", QPS: -1})
		mustNoErr(t, err)
		_, err = dc.Version(ctx(t))
		wantKind(t, err, forge.KindNetwork)
	})
	t.Run("lost response applies the change", func(t *testing.T) {
		fake.InjectFault(fakeforge.Fault{Method: "POST", Path: "/repos/acme/web/labels", LostResponse: true})
		_, err := c.CreateLabel(ctx(t), web, forge.CreateLabelOption{Name: "lost", Color: "#fff"})
		wantKind(t, err, forge.KindNetwork)
		found := false
		for _, l := range fake.Labels(web) {
			found = found || l.Name == "lost"
		}
		if !found {
			t.Fatal("the change behind a lost response was not applied")
		}
	})
}

func pemOf(ts *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
}

func TestTLS(t *testing.T) {
	ts := httptest.NewUnstartedServer(fakeforge.New())
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted handshake is expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	try := func(cfg forge.Config) error {
		cfg.URL, cfg.Token, cfg.QPS = ts.URL, fakeforge.DefaultToken, -1
		c, err := forge.New(cfg)
		if err != nil {
			return err
		}
		_, err = c.CurrentUser(ctx(t))
		return err
	}
	mustNoErr(t, try(forge.Config{CAData: pemOf(ts)}))
	mustNoErr(t, try(forge.Config{InsecureSkipVerify: true}))
	err := try(forge.Config{})
	wantKind(t, err, forge.KindNetwork)
	if !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate: %v", err)
	}
	if _, err := forge.New(forge.Config{URL: ts.URL, CAData: []byte("not pem")}); err == nil {
		t.Fatal("New accepted CA data without a certificate")
	}
}

func TestBaseURL(t *testing.T) {
	fake := fakeforge.New()
	mux := http.NewServeMux()
	mux.Handle("/", fake)
	mux.Handle("/git/", http.StripPrefix("/git", fake))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	for _, u := range []string{
		ts.URL, ts.URL + "/", ts.URL + "/api/v1", ts.URL + "/api/v1/",
		ts.URL + "/git", ts.URL + "/git/api/v1",
	} {
		c, err := forge.New(forge.Config{URL: u, Token: fakeforge.DefaultToken, QPS: -1})
		mustNoErr(t, err)
		if !strings.HasSuffix(c.BaseURL(), "/api/v1") || strings.Contains(c.BaseURL(), "/api/v1/api") {
			t.Fatalf("%s: base %s", u, c.BaseURL())
		}
		if _, err := c.CurrentUser(ctx(t)); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"", "git.example.com", "ftp://git.example.com", "http://", "https://root:hunter2@git.example.com", "https://git.example.com/?token=x"} {
		_, err := forge.New(forge.Config{URL: u})
		if err == nil {
			t.Fatalf("New accepted URL %q", u)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("New error leaks a password: %v", err)
		}
	}
	if _, err := forge.New(forge.Config{URL: ts.URL, Token: "t", Username: "u", Password: "p"}); err == nil {
		t.Fatal("New accepted a token and basic auth together")
	}
}

func TestRequestHeaders(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		_, _ = w.Write([]byte(`{"version":"1.26.0","id":1,"name":"x"}`))
	}))
	t.Cleanup(ts.Close)
	tok, _ := forge.New(forge.Config{URL: ts.URL, Token: "tok", QPS: -1})
	basic, _ := forge.New(forge.Config{URL: ts.URL, Username: "u", Password: "p", UserAgent: "forge-operator/v1.2.3", QPS: -1})
	_, _ = tok.Version(ctx(t))
	_, _ = basic.CreateOrg(ctx(t), forge.CreateOrgOption{Name: "x"})
	if got[0].Get("Authorization") != "token tok" || got[0].Get("User-Agent") != "forge-operator" || got[0].Get("Accept") != "application/json" {
		t.Fatalf("token request headers: %v", got[0])
	}
	if got[1].Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("u:p")) ||
		got[1].Get("User-Agent") != "forge-operator/v1.2.3" || got[1].Get("Content-Type") != "application/json" {
		t.Fatalf("basic request headers: %v", got[1])
	}
}

func TestPayloadQuirks(t *testing.T) {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		mustNoErr(t, err)
		return string(b)
	}
	cases := []struct {
		in   any
		want string
	}{
		{forge.EditHookOption{}, `{"events":[],"branch_filter":"","authorization_header":""}`},
		{forge.EditHookOption{Events: []string{"push"}, Active: ptr(false), Name: ptr("")},
			`{"events":["push"],"branch_filter":"","authorization_header":"","active":false,"name":""}`},
		{forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "u"}}, `{"type":"gitea","config":{"url":"u"},"active":false}`},
		{forge.EditLabelOption{}, `{"is_archived":false}`},
		{forge.EditLabelOption{Description: ptr(""), IsArchived: true}, `{"description":"","is_archived":true}`},
		{forge.EditOrgOption{Email: ptr("")}, `{"email":""}`},
		{forge.EditProjectOption{State: ptr("closed")}, `{"state":"closed"}`},
		{forge.CreateOrgOption{Name: "acme"}, `{"username":"acme"}`},
	}
	for _, c := range cases {
		if got := enc(c.in); got != c.want {
			t.Errorf("%T: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestNoCredentialInErrorsOrLogs(t *testing.T) {
	const token, user, password = "tok-SECRET-123", "alice", "pw-SECRET-456"
	basicRaw := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	secrets := []string{token, password, basicRaw}

	// A hostile proxy that echoes the Authorization header in its errors.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "upstream rejected " + r.Header.Get("Authorization")})
	}))
	t.Cleanup(echo.Close)
	fake, ts := fakeforge.NewTestServer(t, fakeforge.WithToken(token+"-other"), fakeforge.WithBasicAuth(user, password+"-other"))
	fake.InjectFault(fakeforge.Fault{Path: "/version", Reset: true, Count: -1})
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()

	var logs []string
	var logMu sync.Mutex
	logger := funcr.New(func(prefix, args string) {
		logMu.Lock()
		logs = append(logs, prefix+" "+args)
		logMu.Unlock()
	}, funcr.Options{Verbosity: 10})
	lctx := logr.NewContext(ctx(t), logger)

	var errs []string
	for _, base := range []string{echo.URL, ts.URL, dead.URL} {
		for _, cfg := range []forge.Config{{Token: token}, {Username: user, Password: password}} {
			cfg.URL, cfg.QPS, cfg.Name = base, -1, "leak-test"
			c, err := forge.New(cfg)
			mustNoErr(t, err)
			for _, call := range []func() error{
				func() error { _, err := c.Version(lctx); return err },
				func() error { _, err := c.CurrentUser(lctx); return err },
				func() error { _, err := c.ListLabels(lctx, web); return err },
				func() error { return c.DeleteOrg(lctx, "acme") },
			} {
				err := call()
				if err == nil {
					t.Fatalf("%s: call unexpectedly succeeded", base)
				}
				errs = append(errs, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
			}
			logger.Info("config", "config", cfg)
			errs = append(errs, fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg))
		}
	}
	if len(logs) == 0 {
		t.Fatal("no log lines captured")
	}
	echoed := false
	for _, s := range append(errs, logs...) {
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				t.Fatalf("credential in %q", s)
			}
		}
		echoed = echoed || strings.Contains(s, "upstream rejected")
	}
	if !echoed {
		t.Fatal("the echoing proxy's message never came through")
	}
}

func TestMetricsUseRouteTemplates(t *testing.T) {
	fake, ts := fakeforge.NewTestServer(t)
	_, _ = fake.CreateOrg("acme")
	name := "metrics/" + t.Name()
	c, err := forge.New(forge.Config{Name: name, URL: ts.URL, Token: fakeforge.DefaultToken, QPS: -1})
	mustNoErr(t, err)
	_, _ = c.GetHook(ctx(t), forge.OrgScope("acme"), 7)
	_, _ = c.GetHook(ctx(t), forge.OrgScope("acme"), 8)
	_, _ = c.ListLabels(ctx(t), forge.OrgScope("acme"))
	_, _ = c.GetLabel(ctx(t), web, 3)

	if got := testutil.ToFloat64(forge.RequestsTotal.WithLabelValues(name, "GET", "/orgs/{org}/hooks/{id}", "404")); got != 2 {
		t.Fatalf("hook 404 count %v, want 2", got)
	}
	if got := testutil.ToFloat64(forge.RequestsTotal.WithLabelValues(name, "GET", "/repos/{owner}/{repo}/labels/{id}", "404")); got != 1 {
		t.Fatalf("label 404 count %v, want 1", got)
	}
	families, err := ctrlmetrics.Registry.Gather()
	mustNoErr(t, err)
	seen := map[string]bool{}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), "forge_request") {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if labels["forge"] != name {
				continue
			}
			seen[mf.GetName()] = true
			if strings.Contains(labels["route"], "acme") || strings.Contains(labels["route"], "web") || !strings.HasPrefix(labels["route"], "/") {
				t.Fatalf("%s carries a concrete route %q", mf.GetName(), labels["route"])
			}
		}
	}
	if !seen["forge_requests_total"] || !seen["forge_request_duration_seconds"] {
		t.Fatalf("metrics registered with controller-runtime: %v", seen)
	}
	forge.Forget(name)
	families, err = ctrlmetrics.Registry.Gather()
	mustNoErr(t, err)
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "forge" && lp.GetValue() == name {
					t.Fatal("Forget left series behind")
				}
			}
		}
	}
}

func TestRateLimit(t *testing.T) {
	_, ts := fakeforge.NewTestServer(t)
	cfg := forge.Config{Name: "ratelimit/" + t.Name(), URL: ts.URL, Token: fakeforge.DefaultToken, QPS: 0.001, Burst: 1}
	t.Cleanup(func() { forge.Forget("ratelimit/" + t.Name()) }) // a repeated run starts with a full bucket
	c1, err := forge.New(cfg)
	mustNoErr(t, err)
	_, err = c1.Version(ctx(t))
	mustNoErr(t, err) // the one token of the bucket
	// A second client of the same forge shares the empty bucket: the wait
	// would outlast the deadline, so the call fails at once.
	c2, err := forge.New(cfg)
	mustNoErr(t, err)
	cx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err = c2.Version(cx)
	wantKind(t, err, forge.KindNetwork)
	if time.Since(start) > 500*time.Millisecond {
		t.Fatalf("rate-limited call waited %s", time.Since(start))
	}
	// Another forge has its own bucket.
	cfg.Name += "-other"
	c3, err := forge.New(cfg)
	mustNoErr(t, err)
	_, err = c3.Version(ctx(t))
	mustNoErr(t, err)
	forge.Forget(cfg.Name)
}

func TestScope(t *testing.T) {
	if s := forge.RepoScope("acme", "web").String(); s != "acme/web" {
		t.Fatal(s)
	}
	if s := forge.OrgScope("acme"); s.String() != "acme" || !s.IsOrg() {
		t.Fatal(s)
	}
	for in, want := range map[string]forge.Scope{"acme": forge.OrgScope("acme"), "acme/web": web} {
		got, err := forge.ParseScope(in)
		if err != nil || got != want {
			t.Fatalf("ParseScope(%q) = %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "/web", "acme/", "a/b/c"} {
		if _, err := forge.ParseScope(bad); err == nil {
			t.Fatalf("ParseScope(%q) accepted", bad)
		}
	}
}
