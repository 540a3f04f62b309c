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
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The contract suite runs against the fake by default and against a live
// Gitea/Forgejo when FORGE_URL and FORGE_TOKEN are set (the token's user
// should be a site admin; the suite creates and deletes its own uniquely
// named organizations). FORGE_USER/FORGE_PASSWORD add the basic-auth check.
var (
	liveURL      = os.Getenv("FORGE_URL")
	liveToken    = os.Getenv("FORGE_TOKEN")
	liveUser     = os.Getenv("FORGE_USER")
	livePassword = os.Getenv("FORGE_PASSWORD")
)

func isLive() bool { return liveURL != "" && liveToken != "" }

func TestMain(m *testing.M) {
	if isLive() {
		fmt.Printf("contract target: live %s\n", liveURL)
	} else {
		fmt.Println("contract target: fake")
	}
	os.Exit(m.Run())
}

// target is the server one contract test talks to.
type target struct {
	t     *testing.T
	c     *forge.Client
	fake  *fakeforge.Server // nil when live
	root  string            // server root URL
	token string
	live  bool
	opts  []fakeforge.Option // the fake's, so a sibling fake answers as the same release
}

// newTarget gives a fresh fake (with opts) or the live server.
func newTarget(t *testing.T, opts ...fakeforge.Option) *target {
	t.Helper()
	tg := &target{t: t, opts: opts}
	if isLive() {
		tg.live = true
		tg.root = strings.TrimSuffix(strings.TrimRight(liveURL, "/"), "/api/v1")
		tg.token = liveToken
	} else {
		fake, ts := fakeforge.NewTestServer(t, opts...)
		tg.fake, tg.root, tg.token = fake, ts.URL, fakeforge.DefaultToken
	}
	tg.c = tg.client(forge.Config{Token: tg.token})
	return tg
}

// client builds a client for the target; URL and QPS are filled in.
func (tg *target) client(cfg forge.Config) *forge.Client {
	tg.t.Helper()
	if cfg.URL == "" {
		cfg.URL = tg.root
	}
	if cfg.QPS == 0 {
		cfg.QPS = -1
		if tg.live {
			cfg.QPS, cfg.Burst = 20, 20
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	c, err := forge.New(cfg)
	if err != nil {
		tg.t.Fatalf("forge.New: %v", err)
	}
	return c
}

// describe names the target for the log: "fake gitea 1.26.0", "live gitea 1.26.0 at URL".
func (tg *target) describe() string {
	flavor, semver := tg.version()
	if tg.live {
		return fmt.Sprintf("live %s %s at %s", flavor, semver, tg.root)
	}
	return fmt.Sprintf("fake %s %s", flavor, semver)
}

// hasProjects reports whether the server has the projects API: a
// repository's project list answers, not the route-missing 404.
func (tg *target) hasProjects() bool {
	tg.t.Helper()
	org := tg.org()
	_, err := tg.c.ListProjects(ctx(tg.t), forge.RepoScope(org, tg.repo(org)), "")
	if err != nil && !forge.IsRouteNotFound(err) {
		tg.t.Fatalf("probe the projects API: %v", err)
	}
	return err == nil
}

func uniqueName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// org creates a uniquely named organization, removed after the test with
// everything in it.
func (tg *target) org() string {
	tg.t.Helper()
	name := uniqueName("ct")
	if _, err := tg.c.CreateOrg(ctx(tg.t), forge.CreateOrgOption{Name: name}); err != nil {
		tg.t.Fatalf("create org: %v", err)
	}
	tg.t.Cleanup(func() {
		c := context.Background()
		_ = tg.c.DeleteOrg(c, name)
	})
	return name
}

// repo creates a repository in org, removed after the test.
func (tg *target) repo(org string) string {
	tg.t.Helper()
	name := uniqueName("repo")
	if _, err := tg.c.CreateOrgRepo(ctx(tg.t), org, forge.CreateRepoOption{Name: name}); err != nil {
		tg.t.Fatalf("create repo: %v", err)
	}
	// Cleanups run last-in first-out: the repository goes before its org.
	tg.t.Cleanup(func() { _ = tg.c.DeleteRepo(context.Background(), org, name) })
	return name
}

// raw sends a request the typed client would never send (to observe a
// server quirk) and returns status and body.
func (tg *target) raw(method, path string, body any) (int, []byte) {
	tg.t.Helper()
	return tg.rawWith(func(req *http.Request) { req.Header.Set("Authorization", "token "+tg.token) }, method, path, body)
}

// rawWith is raw with the credentials auth sets (nil: anonymous).
func (tg *target) rawWith(auth func(*http.Request), method, path string, body any) (int, []byte) {
	tg.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			tg.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx(tg.t), method, tg.root+path, rd)
	if err != nil {
		tg.t.Fatal(err)
	}
	if auth != nil {
		auth(req)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tg.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// rawJSON is raw decoding a 2xx body into out.
func (tg *target) rawJSON(method, path string, body, out any) {
	tg.t.Helper()
	status, data := tg.raw(method, path, body)
	if status/100 != 2 {
		tg.t.Fatalf("%s %s: %d %s", method, path, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			tg.t.Fatalf("%s %s: decode: %v", method, path, err)
		}
	}
}

// version gives the flavor and semver of the target.
func (tg *target) version() (string, string) {
	tg.t.Helper()
	v, err := tg.c.Version(ctx(tg.t))
	if err != nil {
		tg.t.Fatalf("version: %v", err)
	}
	flavor, semver, _ := forge.ParseVersion(v)
	return flavor, semver
}

func wantKind(t *testing.T, err error, kind forge.ErrorKind) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %s error, got none", kind)
	}
	if got := forge.KindOf(err); got != kind {
		t.Fatalf("want a %s error, got %s: %v", kind, got, err)
	}
}

// wantRejected checks a 422/400 whose message contains msg.
func wantRejected(t *testing.T, err error, msg string) {
	t.Helper()
	wantKind(t, err, forge.KindValidation)
	var fe *forge.Error
	if !asError(err, &fe) || !strings.Contains(fe.Message, msg) {
		t.Fatalf("want message containing %q, got %v", msg, err)
	}
}

func asError(err error, target **forge.Error) bool {
	fe, ok := err.(*forge.Error)
	if ok {
		*target = fe
	}
	return ok
}

func mustNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// sibling gives another fresh fake like tg's (same release), with more
// options; on a live server, the live server.
func (tg *target) sibling(t *testing.T, more ...fakeforge.Option) *target {
	t.Helper()
	return newTarget(t, append(append([]fakeforge.Option{}, tg.opts...), more...)...)
}
