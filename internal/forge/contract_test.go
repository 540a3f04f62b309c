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
	"net/http"
	"sort"
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

// The core behaviours are the server, authentication and routing behaviours and
// the kinds whose cases have not moved to a group of their own; they run
// first (group "").
var _ = registerBehaviours("", []behaviour{
	{"server/version parses", contractVersion, nil},
	{"server/current user", contractCurrentUser, nil},
	{"auth/bad token is 401 everywhere", contractBadToken, nil},
	{"auth/no token where needed is 401 token is required", contractNoToken, nil},
	{"auth/basic", contractBasicAuth, nil},
	{"routes/unknown route is a plain-text 404", contractRouteNotFound, nil},
	{"orgs/create get edit delete", contractOrgLifecycle, nil},
	{"orgs/the user's list holds private ones as GET answers them", contractOrgListMine, nil},
	{"orgs/name rules", contractOrgNameRules, nil},
	{"orgs/duplicate name is 422, case-insensitive", contractOrgDuplicate, nil},
	{"orgs/visibility and website rules", contractOrgFieldRules, nil},
	{"orgs/edit changes only what is sent", contractOrgEditPartial, nil},
	{"orgs/delete refused while repositories remain", contractOrgDeleteWithRepos, nil},
	{"hooks/create checks in order", contractHookCreateChecks, nil},
	{"hooks/active defaults to false", contractHookActiveDefault, nil},
	{"hooks/events default, groups, case, unknown", contractHookEvents, nil},
	{"hooks/secret never returned, PATCH cannot change it", contractHookSecret, nil},
	{"hooks/PATCH replaces events, branch filter, authorization header", contractHookPatchQuirks, nil},
	{"hooks/authorization header read-back by version", contractHookAuthHeader, nil},
	{"hooks/slack channel", contractHookSlack, nil},
	{"hooks/unknown or foreign id is 404", contractHookNotFound, nil},
	{"hooks/list pages past 50", contractHookPaging, nil},
	{"repo hooks/create, read, PATCH quirks, delete as org hooks", contractRepoHookLifecycle, nil},
	{"repo hooks/one id sequence with org hooks; another scope's id is 404", contractRepoHookScopes, nil},
	{"repo hooks/list pages past 50 by count, no Link", contractRepoHookPaging, nil},
	{"labels/colour normalisation and 422", contractLabelColour, nil},
	{"labels/required fields", contractLabelRequired, nil},
	{"labels/duplicate names allowed", contractLabelDuplicates, nil},
	{"labels/PATCH without is_archived un-archives", contractLabelArchiveQuirk, nil},
	{"labels/org create ignores is_archived", contractOrgLabelArchived, nil},
	{"labels/delete unknown id is 204", contractLabelDeleteUnknown, nil},
	{"labels/unknown scope is 404", contractLabelScopeNotFound, nil},
	{"labels/list pages past 50", contractLabelPaging, nil},
	{"projects/lifecycle", contractProjects, needProjects},
	{"projects/validation", contractProjectValidation, needProjects},
	{"projects/missing API is route-not-found", contractProjectsMissing, needNoProjects},
	{"runners/register list get edit", contractRunners, nil},
	{"runners/edit needs disabled; 404 outside scope", contractRunnerEditErrors, nil},
	{"runners/missing edit endpoint is route-not-found", contractRunnerEditMissing, needFake},
	{"repos/create get conflict delete", contractRepos, nil},
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

// fake127 is the release the fake is checked at besides its default.
const fake127 = "1.27.3"

// notOnFake127: behaviours not run on the fake at 1.27.3, and why.
var notOnFake127 = map[string]string{
	"server/version parses": "checks the fake's default version",
}

// needProjects: the lifecycle checks need a server with the projects API
// (the fake; no released Gitea has it yet).
func needProjects(tg *target) string {
	if !tg.hasProjects() {
		return "the server has no projects API"
	}
	return ""
}

// needNoProjects: a live server with the projects API has no missing route
// to check; the fake is switched to answer as Gitea 1.26 does.
func needNoProjects(tg *target) string {
	if tg.live && tg.hasProjects() {
		return "the server has the projects API"
	}
	return ""
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

// hasRunnerEdit: PATCH .../actions/runners/{id} exists from Gitea 1.26
// (Forgejo has none).
func hasRunnerEdit(tg *target) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, 1, 26)
}

// atLeast compares the major.minor of a semver.
func atLeast(semver string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(semver, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

func ptr[T any](v T) *T { return &v }
