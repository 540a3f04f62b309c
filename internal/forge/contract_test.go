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
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// behaviour is one forge behaviour the operator relies on, run by TestContract.
type behaviour struct {
	name string
	run  func(t *testing.T, tg *target)
	// needs says why the behaviour does not apply to the target, "" when it does.
	needs func(tg *target) string
}

// behaviourGroups holds each contract file's behaviours under its group
// name: a file registers its own (registerBehaviours in a package-level
// var), so a new kind's contract cases touch only its own file.
var behaviourGroups = map[string][]behaviour{}

// registerBehaviours adds a file's behaviours under group, once, and
// returns them.
func registerBehaviours(group string, bs []behaviour) []behaviour {
	if _, dup := behaviourGroups[group]; dup {
		panic("contract behaviours registered twice under " + group)
	}
	behaviourGroups[group] = bs
	return bs
}

// registeredBehaviours is every registered behaviour, the groups in name
// order and each group in its file's order, so runs list them alike.
func registeredBehaviours() []behaviour {
	groups := make([]string, 0, len(behaviourGroups))
	for g := range behaviourGroups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var all []behaviour
	for _, g := range groups {
		all = append(all, behaviourGroups[g]...)
	}
	return all
}

// The core behaviours are the server, authentication and routing ones; they
// run first (group ""). Every kind's behaviours register under a group of
// their own, in that kind's contract file.
var _ = registerBehaviours("", []behaviour{
	{"server/version parses", contractVersion, nil},
	{"server/current user", contractCurrentUser, nil},
	{"auth/bad token is 401 everywhere", contractBadToken, nil},
	{"auth/no token where needed is 401 token is required", contractNoToken, nil},
	{"auth/basic", contractBasicAuth, nil},
	{"routes/unknown route is a plain-text 404", contractRouteNotFound, nil},
})

// TestContract runs every forge behaviour the operator relies on
// (forge-behaviour.md) through the real client, against the fake or a
// live server. A behaviour the target lacks is skipped with the reason.
func TestContract(t *testing.T) {
	behaviours := registeredBehaviours()
	probe := newTarget(t)
	for _, b := range behaviours {
		if b.needs != nil {
			if why := b.needs(probe); why != "" {
				// Not a skip: the behaviour is not one this server has.
				t.Logf("not applicable to %s: %s: %s", probe.describe(), b.name, why)
				continue
			}
		}
		t.Run(b.name, func(t *testing.T) {
			b.run(t, newTarget(t))
		})
	}
	if probe.live {
		return
	}
	// The fake again as Gitea 1.27.3, so its 1.27 answers are checked
	// against the same expectations real 1.27.3 meets.
	t.Run("fake@1.27.3", func(t *testing.T) {
		p127 := newTarget(t, fakeforge.WithVersion(fake127))
		for _, b := range behaviours {
			if why := notOnFake127[b.name]; why != "" {
				t.Logf("not run on the fake at %s: %s: %s", fake127, b.name, why)
				continue
			}
			if b.needs != nil && b.needs(p127) != "" {
				continue
			}
			t.Run(b.name, func(t *testing.T) {
				b.run(t, newTarget(t, fakeforge.WithVersion(fake127)))
			})
		}
	})
}

// coreAreas are the behaviour areas (the name before "/") the core group
// holds; every kind's behaviours register under a group of their own.
var coreAreas = []string{"server", "auth", "routes"}

// TestContractGroupsRegisterThemselves holds the contract cases to their
// own files: the core group, registered from contract_test.go, holds only
// the server, authentication and routing behaviours, and every other group
// is registered from one contract_<area>_test.go, one group a file, so a
// kind's cases never gather centrally again.
func TestContractGroupsRegisterThemselves(t *testing.T) {
	for _, b := range behaviourGroups[""] {
		area, _, _ := strings.Cut(b.name, "/")
		if !slices.Contains(coreAreas, area) {
			t.Errorf("core group holds %q: register it from its area's contract_<area>_test.go", b.name)
		}
	}

	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	groupFile := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var groups []string
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "registerBehaviours" || len(call.Args) != 2 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: registerBehaviours with a group that is no string literal", fset.Position(call.Pos()))
				return true
			}
			g, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			groups = append(groups, g)
			return true
		})
		if len(groups) > 1 {
			t.Errorf("%s registers groups %q: one group a file", name, groups)
		}
		for _, g := range groups {
			groupFile[g] = name
			switch {
			case g == "" && name != "contract_test.go":
				t.Errorf("%s registers the core group: it is contract_test.go's", name)
			case g != "" && (name == "contract_test.go" || !strings.HasPrefix(name, "contract_")):
				t.Errorf("%s registers group %q: it belongs in its area's contract_<area>_test.go", name, g)
			}
		}
	}
	for g := range behaviourGroups {
		if _, ok := groupFile[g]; !ok {
			t.Errorf("group %q is registered by no registerBehaviours call with a literal group", g)
		}
	}
	if _, ok := groupFile[""]; !ok {
		t.Error("contract_test.go registers no core group")
	}
}

// fake127 is the release the fake is checked at besides its default.
const fake127 = "1.27.3"

// notOnFake127: behaviours not run on the fake at 1.27.3, and why.
var notOnFake127 = map[string]string{
	"server/version parses": "checks the fake's default version",
}

// needFake: the check switches the fake to other server versions.
func needFake(tg *target) string {
	if tg.live {
		return "needs the fake forge's version switch"
	}
	return ""
}

// ---- server and auth ----

func contractVersion(t *testing.T, tg *target) {
	v, err := tg.c.Version(ctx(t))
	mustNoErr(t, err)
	if _, _, ok := forge.ParseVersion(v); !ok {
		t.Logf("server reports an unstamped version %q", v)
	}
	if !tg.live {
		flavor, semver, ok := forge.ParseVersion(v)
		if !ok || flavor != "gitea" || semver != "1.26.0" {
			t.Fatalf("fake version %q parsed as %q %q %v", v, flavor, semver, ok)
		}
	}
}

func contractCurrentUser(t *testing.T, tg *target) {
	u, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	if u.Login == "" || u.ID == 0 {
		t.Fatalf("current user: %+v", u)
	}
	if !tg.live && (u.Login != fakeforge.DefaultLogin || !u.IsAdmin) {
		t.Fatalf("fake user: %+v", u)
	}
}

func contractBadToken(t *testing.T, tg *target) {
	bad := tg.client(forge.Config{Token: "not-the-token"})
	_, err := bad.Version(ctx(t))
	wantKind(t, err, forge.KindUnauthorized)
	// Gitea 1.24 words it "user does not exist [uid: 0, name: ]"; the
	// operator reads the status, never the wording.
	want := "invalid username, password or token"
	if before(tg, 1, 25) {
		want = "user does not exist"
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("401 message: %v", err)
	}
	_, err = bad.GetOrg(ctx(t), "whatever")
	wantKind(t, err, forge.KindUnauthorized)
}

func contractNoToken(t *testing.T, tg *target) {
	anon := tg.client(forge.Config{})
	_, err := anon.CurrentUser(ctx(t))
	wantKind(t, err, forge.KindUnauthorized)
	if !strings.Contains(err.Error(), "token is required") {
		t.Fatalf("401 message: %v", err)
	}
	// /version needs no credentials.
	_, err = anon.Version(ctx(t))
	mustNoErr(t, err)
}

func contractBasicAuth(t *testing.T, tg *target) {
	user, pass := liveUser, livePassword
	if !tg.live {
		tg = tg.sibling(t, fakeforge.WithBasicAuth("root", "s3cret"))
		user, pass = "root", "s3cret"
	} else if user == "" {
		t.Fatal("live server: set FORGE_USER and FORGE_PASSWORD (an admin's) to check basic auth")
	}
	u, err := tg.client(forge.Config{Username: user, Password: pass}).CurrentUser(ctx(t))
	mustNoErr(t, err)
	if !strings.EqualFold(u.Login, user) {
		t.Fatalf("basic auth user %q, want %q", u.Login, user)
	}
	_, err = tg.client(forge.Config{Username: user, Password: "wrong"}).CurrentUser(ctx(t))
	wantKind(t, err, forge.KindUnauthorized)
	// A token stands in for the password.
	_, err = tg.client(forge.Config{Username: user, Password: tg.token}).CurrentUser(ctx(t))
	mustNoErr(t, err)
}

func contractRouteNotFound(t *testing.T, tg *target) {
	status, body := tg.raw(http.MethodGet, "/api/v1/no/such/route", nil)
	if status != http.StatusNotFound || strings.TrimSpace(string(body)) != "404 page not found" {
		t.Fatalf("unknown route: %d %q", status, body)
	}
	// The client tells it from a missing object.
	_, err := tg.client(forge.Config{URL: tg.root + "/no-such-prefix", Token: tg.token}).GetOrg(ctx(t), "acme")
	wantKind(t, err, forge.KindRouteNotFound)
	_, err = tg.c.GetOrg(ctx(t), uniqueName("missing"))
	wantKind(t, err, forge.KindNotFound)
}

// before: the server is a Gitea release older than major.minor (the fake
// reports 1.26 unless told otherwise).
func before(tg *target, major, minor int) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && !atLeast(semver, major, minor)
}

// giteaSince: the server is Gitea major.minor or newer.
func giteaSince(tg *target, major, minor int) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, major, minor)
}

// archivedMessage is how a release refuses a write to an archived
// repository (423): "<owner>/<repo> is archived"; 1.24 names the repository
// by its Go value ("<Repository 30:acme/web> is archived"); from 1.27 the
// message names none ("repo is archived", probed on 1.27.3).
func archivedMessage(tg *target, org, repo string) string {
	switch {
	case before(tg, 1, 25):
		return org + "/" + repo + "> is archived"
	case giteaSince(tg, 1, 27):
		return "repo is archived"
	}
	return org + "/" + repo + " is archived"
}

// editsOnlySent: PATCH /orgs/{org} leaves unsent fields alone and organization
// hook lists carry Link from Gitea 1.26 (the fake treats Forgejo the same).
func editsOnlySent(tg *target) bool { return !before(tg, 1, 26) }

// atLeast compares the major.minor of a semver.
func atLeast(semver string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(semver, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

func ptr[T any](v T) *T { return &v }
