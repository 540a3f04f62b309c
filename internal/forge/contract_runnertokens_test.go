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
	"net/http"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The runnerToken behaviours are the runner registration token calls a
// RunnerRegistrationToken makes, probed on Gitea 1.27.3, 1.26.4, 1.25.5 and
// 1.24.6 (routers/api/v1/shared/runners.go GetRegistrationToken, the same
// code behind every scope's POST and, before 1.26, GET). TestContract
// appends them.
var _ = registerBehaviours("runnerToken", []behaviour{
	{"runner tokens/every POST answers the scope's current token; it registers runners and stays valid", contractRunnerTokenStable, nil},
	{"runner tokens/the instance's is the site admin's: 403 to others", contractRunnerTokenInstanceAdminOnly, nil},
	{"runner tokens/GET beside POST before 1.26 only", contractRunnerTokenGet, nil},
})

func contractRunnerTokenStable(t *testing.T, tg *target) {
	org := tg.org()
	orgScope, repoScope := forge.OrgScope(org), forge.RepoScope(org, tg.repo(org))
	tokens := map[forge.Scope]string{}
	for _, sc := range []forge.Scope{orgScope, repoScope, forge.InstanceScope} {
		first, err := tg.c.RunnerRegistrationToken(ctx(t), sc)
		if err != nil || first == "" {
			t.Fatalf("token of %s: %q %v", sc, first, err)
		}
		again, err := tg.c.RunnerRegistrationToken(ctx(t), sc)
		if err != nil || again != first {
			t.Fatalf("a second request in %s answered another token (or failed: %v): the API makes a token only when the scope has none", sc, err)
		}
		for other, tok := range tokens {
			if tok == first {
				t.Fatalf("%s and %s share a token", sc, other)
			}
		}
		tokens[sc] = first
	}
	// Registering leaves the token valid: a second runner registers with it.
	for _, name := range []string{"first", "second"} {
		if _, err := tg.c.RegisterRunnerWith(ctx(t), tokens[orgScope], name); err != nil {
			t.Fatalf("register %s with the organization's token: %v", name, err)
		}
	}
	runners, err := tg.c.ListRunners(ctx(t), orgScope)
	if err != nil || len(runners) != 2 {
		t.Fatalf("the organization's runners: %+v %v", runners, err)
	}
	if again, err := tg.c.RunnerRegistrationToken(ctx(t), orgScope); err != nil || again != tokens[orgScope] {
		t.Fatalf("the token changed after runners registered with it (or failed: %v)", err)
	}
	// A missing organization or repository is 404.
	_, err = tg.c.RunnerRegistrationToken(ctx(t), forge.OrgScope(uniqueName("none")))
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.RunnerRegistrationToken(ctx(t), forge.RepoScope(org, uniqueName("none")))
	wantKind(t, err, forge.KindNotFound)
}

func contractRunnerTokenInstanceAdminOnly(t *testing.T, tg *target) {
	_, as := asUser(t, tg)
	status, data := as(http.MethodPost, "/api/v1/admin/actions/runners/registration-token", nil)
	wantAnswer(t, "the instance's token as another user", status, data, http.StatusForbidden, "user should be the site admin")
	if strings.Contains(string(data), "token\":") {
		t.Fatalf("a refusal holds a token: %s", data)
	}
}

func contractRunnerTokenGet(t *testing.T, tg *target) {
	org := tg.org()
	post, err := tg.c.RunnerRegistrationToken(ctx(t), forge.OrgScope(org))
	if err != nil {
		t.Fatal(err)
	}
	instance, err := tg.c.RunnerRegistrationToken(ctx(t), forge.InstanceScope)
	if err != nil {
		t.Fatal(err)
	}
	_, semver := tg.version()
	orgPath := "/api/v1/orgs/" + org + "/actions/runners/registration-token"
	instancePath := "/api/v1/admin/runners/registration-token"
	if !strings.HasPrefix(semver, "1.24.") && !strings.HasPrefix(semver, "1.25.") {
		// 1.26 serves POST only: the GET is read as the runner
		// "registration-token", and the instance's old path is no route.
		status, data := tg.raw(http.MethodGet, orgPath, nil)
		noRunner := "Runner not found"
		if giteaSince(tg, 1, 27) {
			noRunner = "resource does not exist"
		}
		wantAnswer(t, "GET "+orgPath+" on "+semver, status, data, http.StatusNotFound, noRunner)
		status, data = tg.raw(http.MethodGet, instancePath, nil)
		if status != http.StatusNotFound || strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
			t.Fatalf("GET %s on %s: %d %s, want the plain-text 404 of a missing route", instancePath, semver, status, data)
		}
		return
	}
	for path, want := range map[string]string{orgPath: post, instancePath: instance} {
		status, data := tg.raw(http.MethodGet, path, nil)
		var got struct {
			Token string `json:"token"`
		}
		if status != http.StatusOK || json.Unmarshal(data, &got) != nil || got.Token != want {
			t.Fatalf("GET %s on %s: %d, want 200 with the token POST answers", path, semver, status)
		}
	}
}
