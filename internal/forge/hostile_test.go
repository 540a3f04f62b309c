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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Tests against servers that misbehave on purpose: what a tenant pointing
// a Forge at their own server could do to the manager.

// countingServer counts requests and the bytes of the bodies it sent.
type countingServer struct {
	requests, bytes atomic.Int64
	serve           func(w io.Writer, r *http.Request, n int64) // n counts from 1
}

func (s *countingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	w.Header().Set("Content-Type", "application/json")
	cw := &countingWriter{w: w}
	s.serve(cw, r, n)
	s.bytes.Add(cw.n)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func hostileClient(t *testing.T, h http.Handler, mutate ...func(*forge.Config)) (*forge.Client, *httptest.Server) {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	cfg := forge.Config{URL: ts.URL, Token: "tok-0123456789", QPS: -1, Timeout: 20 * time.Second}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := forge.New(cfg)
	mustNoErr(t, err)
	return c, ts
}

// labelsPage writes n labels with ids from first, each name padded to pad bytes.
func labelsPage(w io.Writer, first int64, n, pad int) {
	out := make([]forge.Label, n)
	name := strings.Repeat("x", pad)
	for i := range out {
		out[i] = forge.Label{ID: first + int64(i), Name: name, Color: "abcdef"}
	}
	_ = json.NewEncoder(w).Encode(out)
}

func TestListBounds(t *testing.T) {
	cases := []struct {
		name string
		// serve writes page n of an endless list.
		serve        func(w io.Writer, r *http.Request, n int64)
		wantInErr    string
		maxRequests  int64
		maxBytesRead int64
	}{
		{
			name: "endless pages of fresh ids",
			serve: func(w io.Writer, _ *http.Request, n int64) {
				labelsPage(w, (n-1)*forge.PageSize+1, forge.PageSize, 0)
			},
			wantInErr:   fmt.Sprintf("after %d pages", forge.MaxListPages),
			maxRequests: forge.MaxListPages,
		},
		{
			name: "pages far larger than asked for",
			serve: func(w io.Writer, _ *http.Request, n int64) {
				labelsPage(w, (n-1)*7000+1, 7000, 0)
			},
			wantInErr:   fmt.Sprintf("after %d items", forge.MaxListItems),
			maxRequests: forge.MaxListItems/7000 + 1,
		},
		{
			name: "pages of 4 MiB each",
			serve: func(w io.Writer, _ *http.Request, n int64) {
				labelsPage(w, (n-1)*forge.PageSize+1, forge.PageSize, 4<<20/forge.PageSize)
			},
			wantInErr:    fmt.Sprintf("after %d MiB", forge.MaxListBytes>>20),
			maxRequests:  forge.MaxListBytes/(4<<20) + 1,
			maxBytesRead: forge.MaxListBytes + 5<<20,
		},
		{
			name: "one page larger than a response may be",
			serve: func(w io.Writer, _ *http.Request, n int64) {
				labelsPage(w, (n-1)*forge.PageSize+1, forge.PageSize, 10<<20/forge.PageSize)
			},
			wantInErr:   fmt.Sprintf("larger than %d MiB", forge.MaxResponseBytes>>20),
			maxRequests: 1,
		},
		{
			name: "a total that moves on every page",
			serve: func(w io.Writer, r *http.Request, n int64) {
				w.(*countingWriter).w.(http.ResponseWriter).Header().Set("X-Total-Count", strconv.FormatInt(1000+n, 10))
				page, _ := strconv.Atoi(r.URL.Query().Get("page"))
				labelsPage(w, int64(page-1)*forge.PageSize+1, forge.PageSize, 0)
			},
			wantInErr:   "the list changed during each of 3 walks",
			maxRequests: 3 * 2, // each walk sees the total move on page 2
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &countingServer{serve: tc.serve}
			c, _ := hostileClient(t, srv)
			labels, err := c.ListLabels(ctx(t), web)
			wantKind(t, err, forge.KindInvalidResponse)
			if labels != nil {
				t.Fatalf("a failed listing returned %d labels", len(labels))
			}
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("error %q does not say %q", err, tc.wantInErr)
			}
			if got := srv.requests.Load(); got > tc.maxRequests {
				t.Fatalf("%d requests, want at most %d", got, tc.maxRequests)
			}
			if tc.maxBytesRead > 0 && srv.bytes.Load() > tc.maxBytesRead {
				t.Fatalf("%d bytes served, want at most %d", srv.bytes.Load(), tc.maxBytesRead)
			}
		})
	}
}

// TestOrgRepoListingBounded: the organization's repository listing, which
// walks pages by Link, is held to the same bounds as every listing: a forge
// serving endless large pages gets an error, not the manager's memory.
func TestOrgRepoListingBounded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		n, pad      int
		wantInErr   string
		maxRequests int64
	}{
		{"endless pages of 4 MiB", forge.PageSize, 4 << 20 / forge.PageSize, fmt.Sprintf("after %d MiB", forge.MaxListBytes>>20), forge.MaxListBytes/(4<<20) + 1},
		{"endless small pages", forge.PageSize, 0, fmt.Sprintf("after %d pages", forge.MaxListPages), forge.MaxListPages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &countingServer{serve: func(w io.Writer, r *http.Request, n int64) {
				w.(*countingWriter).w.(http.ResponseWriter).Header().Set("Link", `<`+r.URL.Path+`?page=next>; rel="next"`)
				repos := make([]forge.Repository, tc.n)
				for i := range repos {
					repos[i] = forge.Repository{ID: (n-1)*int64(tc.n) + int64(i) + 1, Name: fmt.Sprintf("r%d", i), FullName: strings.Repeat("x", tc.pad)}
				}
				_ = json.NewEncoder(w).Encode(repos)
			}}
			c, _ := hostileClient(t, srv)
			repos, err := c.ListOrgRepos(ctx(t), "acme")
			wantKind(t, err, forge.KindInvalidResponse)
			if repos != nil || !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("%d repositories, error %v; want none and %q", len(repos), err, tc.wantInErr)
			}
			if got := srv.requests.Load(); got > tc.maxRequests {
				t.Fatalf("%d requests, want at most %d", got, tc.maxRequests)
			}
		})
	}
}

// TestListBoundsAllowLargeLists: a big but finite list is not cut.
func TestListBoundsAllowLargeLists(t *testing.T) {
	const n = 20000
	srv := &countingServer{serve: func(w io.Writer, r *http.Request, _ int64) {
		w.(*countingWriter).w.(http.ResponseWriter).Header().Set("X-Total-Count", strconv.Itoa(n))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		first := (page-1)*forge.PageSize + 1
		labelsPage(w, int64(first), max(min(forge.PageSize, n-first+1), 0), 0)
	}}
	c, _ := hostileClient(t, srv)
	labels, err := c.ListLabels(ctx(t), web)
	mustNoErr(t, err)
	if len(labels) != n {
		t.Fatalf("%d labels, want %d", len(labels), n)
	}
}

func TestSecretsNeverEchoed(t *testing.T) {
	const (
		token      = "tok-SECRET-0123456789"
		hookSecret = `hs<SECRET>&"q`
		hookURL    = "https://chat.example/hooks/T0KEN-SECRET?sig=a&b=c"
		authHeader = "Bearer HEADER-SECRET"
	)
	// A forge that quotes the whole request back in a 422: headers and body.
	echo := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		msg := fmt.Sprintf("invalid request %s %s authorization=%s body=%s", r.Method, r.URL, r.Header.Get("Authorization"), body)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
	}

	var logs []string
	var logMu sync.Mutex
	logger := funcr.New(func(prefix, args string) {
		logMu.Lock()
		logs = append(logs, prefix+" "+args)
		logMu.Unlock()
	}, funcr.Options{Verbosity: 10})
	lctx := logr.NewContext(ctx(t), logger)

	c, _ := hostileClient(t, http.HandlerFunc(echo), func(cfg *forge.Config) { cfg.Token = token })
	create := forge.CreateHookOption{Type: "slack", Active: true, AuthorizationHeader: authHeader,
		Config: map[string]string{"url": hookURL, "secret": hookSecret, "content_type": "json"}}
	_, createErr := c.CreateHook(lctx, forge.OrgScope("acme"), create)
	wantKind(t, createErr, forge.KindValidation)
	_, editErr := c.EditHook(lctx, forge.OrgScope("acme"), 7, forge.EditHookOption{AuthorizationHeader: authHeader,
		Config: map[string]string{"url": hookURL}})
	wantKind(t, editErr, forge.KindValidation)

	secretForms := []string{token, hookSecret, hookURL, authHeader, "T0KEN-SECRET", "HEADER-SECRET",
		`hs\u003cSECRET\u003e\u0026\"q`, url.QueryEscape(hookURL)}
	for _, err := range []error{createErr, editErr} {
		msg := err.Error()
		if !strings.Contains(msg, "invalid request POST") && !strings.Contains(msg, "invalid request PATCH") {
			t.Fatalf("the forge's message did not come through: %q", msg)
		}
		if !strings.Contains(msg, "[redacted]") {
			t.Fatalf("nothing redacted in %q", msg)
		}
		for _, s := range append([]string{msg, fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)}, logs...) {
			for _, secret := range secretForms {
				if strings.Contains(s, secret) {
					t.Fatalf("secret %q in %q", secret, s)
				}
			}
		}
	}
}

// TestRedactionInOnePass: a short password that occurs in the placeholder
// itself must not mangle it (sequential replacing once gave "[r[redacted]dact...").
func TestRedactionInOnePass(t *testing.T) {
	srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "rejected " + r.Header.Get("Authorization") + " end"})
	})
	for _, password := range []string{"e", "red", "dacted]", "[redacted]"} {
		c, _ := hostileClient(t, srv, func(cfg *forge.Config) { cfg.Token, cfg.Username, cfg.Password = "", "bob", password })
		_, err := c.Version(ctx(t))
		wantKind(t, err, forge.KindServer)
		msg := err.Error()
		if !strings.Contains(msg, "[redacted]") {
			t.Fatalf("password %q: nothing redacted in %q", password, msg)
		}
		if rest := strings.ReplaceAll(msg, "[redacted]", ""); strings.ContainsAny(rest, "[]") {
			t.Fatalf("password %q: placeholder mangled in %q", password, msg)
		}
		if strings.Contains(msg, "Basic") {
			t.Fatalf("password %q: the authorization header is not redacted as a whole: %q", password, err)
		}
	}
}

func TestForgeMessagesBounded(t *testing.T) {
	huge := strings.Repeat("é", 20000) // 40 KB, two bytes a rune
	c, _ := hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnprocessableEntity)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": huge})
	}))
	_, err := c.CreateLabel(ctx(t), web, forge.CreateLabelOption{Name: "a", Color: "#abcdef"})
	wantKind(t, err, forge.KindValidation)
	var fe *forge.Error
	if !errors.As(err, &fe) || len(fe.Message) > forge.MaxMessage {
		t.Fatalf("message of %d bytes, want at most %d", len(fe.Message), forge.MaxMessage)
	}
	if len(err.Error()) > forge.MaxMessage+200 {
		t.Fatalf("error of %d bytes", len(err.Error()))
	}
	if !strings.HasSuffix(fe.Message, "(truncated)") || !strings.Contains(fe.Message, "éé") {
		t.Fatalf("message %q", fe.Message[max(len(fe.Message)-40, 0):])
	}

	// serverVersion and login end up in status: bounded too.
	c, _ = hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		long := strings.Repeat("v", 50000)
		if strings.HasSuffix(r.URL.Path, "/version") {
			_ = json.NewEncoder(w).Encode(map[string]string{"version": long})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": 1, "login": long})
	}))
	v, err := c.Version(ctx(t))
	mustNoErr(t, err)
	u, err := c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	if len(v) > 128 || len(u.Login) > 255 {
		t.Fatalf("version of %d bytes, login of %d bytes", len(v), len(u.Login))
	}
}

func TestRedirects(t *testing.T) {
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"version": "1.26.0"})
	}))
	t.Cleanup(other.Close)
	otherURL, _ := url.Parse(other.URL)

	t.Run("to another port is refused", func(t *testing.T) {
		c, _ := hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/api/v1/version?token=LEAKY", http.StatusTemporaryRedirect)
		}))
		_, err := c.Version(ctx(t))
		wantKind(t, err, forge.KindInvalidResponse)
		if !strings.Contains(err.Error(), "refused a redirect to http://"+otherURL.Host) {
			t.Fatalf("error does not name the target: %q", err)
		}
		if strings.Contains(err.Error(), "LEAKY") || strings.Contains(err.Error(), "/api/v1/version?") {
			t.Fatalf("error names more than the target host: %q", err)
		}
		var re *forge.RedirectError
		if !errors.As(err, &re) || re.Host != otherURL.Host {
			t.Fatalf("no RedirectError for %s in %v", otherURL.Host, err)
		}
		if otherHits.Load() != 0 {
			t.Fatal("the redirect was followed")
		}
	})
	t.Run("https to http on the same host and port is refused", func(t *testing.T) {
		var tlsURL string
		tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, strings.Replace(tlsURL, "https://", "http://", 1)+r.URL.Path, http.StatusFound)
		}))
		t.Cleanup(tlsSrv.Close)
		tlsURL = tlsSrv.URL
		c, err := forge.New(forge.Config{URL: tlsSrv.URL, Token: "tok-0123456789", QPS: -1, CAData: pemOf(tlsSrv), Timeout: 5 * time.Second})
		mustNoErr(t, err)
		_, err = c.Version(ctx(t))
		wantKind(t, err, forge.KindInvalidResponse)
		if !strings.Contains(err.Error(), "refused a redirect to http://"+strings.TrimPrefix(tlsURL, "https://")) {
			t.Fatalf("error %q", err)
		}
	})
	t.Run("same origin is not followed: the call is Moved", func(t *testing.T) {
		var followed atomic.Int64
		c, _ := hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/v1/orgs/old" {
				http.Redirect(w, r, "/api/v1/orgs/new?limit=50", http.StatusTemporaryRedirect)
				return
			}
			followed.Add(1)
			_ = json.NewEncoder(w).Encode(map[string]any{"id": 7, "name": "new"})
		}))
		_, err := c.GetOrg(ctx(t), "old")
		wantKind(t, err, forge.KindMoved)
		var moved *forge.MovedError
		if !errors.As(err, &moved) || moved.To != "/api/v1/orgs/new" || moved.StatusCode != http.StatusTemporaryRedirect || moved.Method != http.MethodGet {
			t.Fatalf("no MovedError to /api/v1/orgs/new in %#v", err)
		}
		if !strings.Contains(err.Error(), "nothing is read or written through a redirect") {
			t.Fatalf("error %q", err)
		}
		if followed.Load() != 0 {
			t.Fatal("the redirect was followed")
		}
	})
}

func TestDenyCIDRs(t *testing.T) {
	deny, err := forge.ParseCIDRs("127.0.0.0/8, ::1/128")
	mustNoErr(t, err)
	var hits atomic.Int64
	srv := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"version": "1.26.0"})
	})
	_, ts := hostileClient(t, srv)
	u, _ := url.Parse(ts.URL)
	// The unspecified addresses reach this host too: denied as loopback.
	for _, base := range []string{ts.URL, "http://localhost:" + u.Port(), "http://0.0.0.0:" + u.Port(), "http://[::]:" + u.Port()} {
		c, err := forge.New(forge.Config{URL: base, Token: "tok-0123456789", QPS: -1, Timeout: 5 * time.Second, DenyCIDRs: deny})
		mustNoErr(t, err)
		_, err = c.Version(ctx(t))
		wantKind(t, err, forge.KindNetwork)
		var de *forge.DeniedAddressError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "is denied by the operator's address policy") {
			t.Fatalf("%s: error %q", base, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("%d requests reached a denied address", hits.Load())
	}

	// Other addresses are unaffected.
	allowed, err := forge.ParseCIDRs(forge.DefaultDenyCIDRs)
	mustNoErr(t, err)
	c, err := forge.New(forge.Config{URL: ts.URL, Token: "tok-0123456789", QPS: -1, Timeout: 5 * time.Second, DenyCIDRs: allowed})
	mustNoErr(t, err)
	_, err = c.Version(ctx(t))
	mustNoErr(t, err)
	if want := []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")}; fmt.Sprint(allowed) != fmt.Sprint(want) {
		t.Fatalf("default deny list %v", allowed)
	}
	if _, err := forge.ParseCIDRs("10.0.0.0/8,not-a-cidr"); err == nil {
		t.Fatal("a bad CIDR parsed")
	}
}

func TestAnswersChecked(t *testing.T) {
	cases := []struct {
		name, body string
		call       func(c *forge.Client) error
		wantInErr  string
	}{
		{"create answering id 0", `{"id":0,"name":"a"}`, func(c *forge.Client) error {
			_, err := c.CreateHook(ctx(t), forge.OrgScope("acme"), forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "https://h.example"}})
			return err
		}, "with id 0"},
		{"get answering a negative id", `{"id":-3}`, func(c *forge.Client) error {
			_, err := c.GetLabel(ctx(t), web, 3)
			return err
		}, "with id -3"},
		{"create answering null", "null", func(c *forge.Client) error {
			_, err := c.CreateLabel(ctx(t), web, forge.CreateLabelOption{Name: "a", Color: "#abcdef"})
			return err
		}, "with null"},
		{"user answering null", " null\n", func(c *forge.Client) error {
			_, err := c.CurrentUser(ctx(t))
			return err
		}, "with null"},
		{"list holding id 0", `[{"id":1},{"id":0}]`, func(c *forge.Client) error {
			_, err := c.ListLabels(ctx(t), web)
			return err
		}, "an item with id 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, tc.body)
			}))
			err := tc.call(c)
			wantKind(t, err, forge.KindInvalidResponse)
			if !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("error %q does not say %q", err, tc.wantInErr)
			}
		})
	}
}

// TestSecretsOfThePassRedacted: the forge knows a hook's URL and secret and
// may quote them in the answer to a call that did not send them.
func TestSecretsOfThePassRedacted(t *testing.T) {
	const hookURL, hookSecret = "https://chat.example/hooks/T0KEN-SECRET", "hook-SECRET-value"
	c, _ := hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "hook " + hookURL + " with secret " + hookSecret + " is corrupt"})
	}))
	_, plain := c.GetHook(ctx(t), forge.OrgScope("acme"), 7)
	if !strings.Contains(plain.Error(), hookSecret) {
		t.Fatalf("the server did not quote the secret: %q", plain)
	}
	hooks := forge.RedactingHooks(c, hookURL, hookSecret)
	_, getErr := hooks.GetHook(ctx(t), forge.OrgScope("acme"), 7)
	_, listErr := hooks.ListHooks(ctx(t), forge.RepoScope("acme", "web"))
	delErr := hooks.DeleteHook(ctx(t), forge.OrgScope("acme"), 7)
	for _, err := range []error{getErr, listErr, delErr} {
		wantKind(t, err, forge.KindServer)
		if msg := err.Error(); strings.Contains(msg, hookSecret) || strings.Contains(msg, "T0KEN-SECRET") ||
			!strings.Contains(msg, "hook [redacted] with secret [redacted] is corrupt") {
			t.Fatalf("error %q", msg)
		}
	}
}

// TestKeptListingsBoundedUnderAHostileForge: a forge whose labels are huge
// (a description of a MiB each) cannot make the listings the manager keeps
// grow past MaxKeptBytes per Forge, however many scopes its resources
// read; listings past the budget serve their readers and are dropped. The
// heap after each listing is printed (the figure docs/operations.md gives), the
// bytes kept asserted.
func TestKeptListingsBoundedUnderAHostileForge(t *testing.T) {
	const perPage, pages, mib = 6, 2, 1 << 20 // 12 MiB a scope
	srv := &countingServer{serve: func(w io.Writer, r *http.Request, _ int64) {
		w.(*countingWriter).w.(http.ResponseWriter).Header().Set("X-Total-Count", strconv.Itoa(perPage*pages))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		out := make([]forge.Label, 0, perPage)
		for i := range perPage {
			if page <= pages {
				out = append(out, forge.Label{ID: int64((page-1)*perPage + i + 1), Name: fmt.Sprint(i), Color: "ededed",
					Description: strings.Repeat("x", mib)})
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	}}
	c, _ := hostileClient(t, srv)
	s := forge.NewSnapshots(c).Within(forge.NewBudget(forge.MaxManagerKeptBytes))
	kept := s.Reading(&forge.ReadPolicy{MaxAge: time.Hour})
	var peak uint64
	for i := range 6 {
		// The reader's copy is dropped at once: what stays is what is kept.
		if n := listedLabels(t, kept, ctx(t), forge.RepoScope("acme", fmt.Sprint(i))); n != perPage*pages {
			t.Fatalf("scope %d: %d labels", i, n)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
		if got := s.KeptBytes(); got > forge.MaxKeptBytes {
			t.Fatalf("after scope %d: %d bytes kept, more than MaxKeptBytes %d", i, got, forge.MaxKeptBytes)
		}
	}
	if s.KeptBytes() == 0 {
		t.Fatal("nothing kept: the budget should hold the scopes that fit")
	}
	t.Logf("hostile forge, 6 scopes of 12 MiB: %d MiB kept (bound %d MiB), heap in use after GC at most %d MiB",
		s.KeptBytes()>>20, forge.MaxKeptBytes>>20, peak>>20)
	s.Close()
}

// listedLabels lists scope's labels through s and counts them.
func listedLabels(t *testing.T, s *forge.Snapshots, c context.Context, scope forge.Scope) int {
	t.Helper()
	labels, err := s.ListLabels(c, scope)
	mustNoErr(t, err)
	return len(labels)
}

// TestRefusedAnswersRedactedBeforeCut: a 2xx answer the client refuses (id
// <= 0, or a body that does not decode) is quoted in the error, cut to a
// few hundred bytes. It was cut and quoted before the
// secrets were removed, so a hook URL straddling the cut lost its tail and
// was no longer recognised, and a URL the forge JSON-escaped (& as \u0026)
// had its backslash doubled by the quoting. Neither may reach the error in
// any form, nor may a prefix of one longer than 8 bytes.
func TestRefusedAnswersRedactedBeforeCut(t *testing.T) {
	const hookURL = "https://chat.example/hooks/T0KEN-SECRET-0123456789abcdef?sig=a&b=c<d>"
	escaped := strings.NewReplacer("&", `\u0026`, "<", `\u003c`, ">", `\u003e`).Replace(hookURL)
	// answer puts url into a hook whose name pads it to start at byte at.
	answer := func(id int, url string, at int, tail string) string {
		head := fmt.Sprintf(`{"id":%d,"type":"slack","name":"`, id)
		pad := strings.Repeat("n", max(at-len(head)-len(`","config":{"url":"`), 0))
		return head + pad + `","config":{"url":"` + url + tail
	}
	cases := []struct{ name, body string }{
		{"id 0, the URL straddling the cut", answer(0, hookURL, 215, `"}}`)},
		{"id 0, the URL JSON-escaped", answer(0, escaped, 60, `"}}`)},
		{"id 0, the URL JSON-escaped and straddling the cut", answer(0, escaped, 230, `"}}`)},
		{"undecodable, the URL straddling the cut", answer(1, hookURL, 222, `"`)},
		{"undecodable, the URL JSON-escaped", answer(1, escaped, 40, `"}, "events": [}`)},
	}
	var forms []string
	for _, v := range []string{hookURL, escaped, url.QueryEscape(hookURL), url.PathEscape(hookURL)} {
		forms = append(forms, v, strconv.Quote(v)[1:len(strconv.Quote(v))-1])
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := hostileClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusCreated)
				_, _ = io.WriteString(w, tc.body)
			}))
			_, err := c.CreateHook(ctx(t), forge.OrgScope("acme"), forge.CreateHookOption{Type: "slack", Active: true,
				Config: map[string]string{"url": hookURL, "content_type": "json"}})
			wantKind(t, err, forge.KindInvalidResponse)
			for _, msg := range []string{err.Error(), fmt.Sprintf("%+v", err)} {
				if !strings.Contains(msg, `\"id\":`) {
					t.Fatalf("the answer is not quoted in %q", msg)
				}
				if strings.Contains(msg, "T0KEN-SECRET") {
					t.Fatalf("the token in %q", msg)
				}
				for _, f := range forms {
					if strings.Contains(msg, f[:9]) {
						t.Fatalf("%q (a prefix of %q) in %q", f[:9], f, msg)
					}
				}
			}
		})
	}
}
