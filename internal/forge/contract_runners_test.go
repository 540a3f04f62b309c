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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The runner behaviours are what the RunnerSetting kind relies on: listing,
// reading and disabling registered runners. TestContract runs them.
var _ = registerBehaviours("runner", []behaviour{
	{"runners/register list get edit", contractRunners, nil},
	{"runners/edit needs disabled; 404 outside scope", contractRunnerEditErrors, nil},
	{"runners/missing edit endpoint is route-not-found", contractRunnerEditMissing, needFake},
})

// hasRunnerEdit: PATCH .../actions/runners/{id} exists from Gitea 1.26
// (Forgejo has none).
func hasRunnerEdit(tg *target) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, 1, 26)
}

// register registers a runner the way act_runner does and returns its id.
func register(t *testing.T, tg *target, sc forge.Scope, name string, labels ...string) int64 {
	t.Helper()
	id, err := tg.c.RegisterRunner(ctx(t), sc, name, labels...)
	if forge.IsRouteNotFound(err) || (tg.live && forge.IsNotFound(err)) {
		t.Fatalf("server cannot register runners (enable [actions] ENABLED=true): %v", err)
	}
	mustNoErr(t, err)
	return id
}

func contractRunners(t *testing.T, tg *target) {
	org := tg.org()
	repo := forge.RepoScope(org, tg.repo(org))
	orgScope := forge.OrgScope(org)
	rid := register(t, tg, repo, "repo-runner", "ubuntu-latest", "docker")
	oid := register(t, tg, orgScope, "org-runner")

	list, err := tg.c.ListRunners(ctx(t), repo)
	mustNoErr(t, err)
	if len(list) != 1 || list[0].ID != rid || list[0].Name != "repo-runner" || list[0].Disabled {
		t.Fatalf("repo runners: %+v", list)
	}
	var names []string
	for _, l := range list[0].Labels {
		names = append(names, l.Name)
	}
	if !cmp.Equal(sorted(names), []string{"docker", "ubuntu-latest"}) {
		t.Fatalf("runner labels: %+v", list[0].Labels)
	}
	list, err = tg.c.ListRunners(ctx(t), orgScope)
	mustNoErr(t, err)
	if len(list) != 1 || list[0].ID != oid {
		t.Fatalf("org runners: %+v", list)
	}
	r, err := tg.c.GetRunner(ctx(t), repo, rid)
	mustNoErr(t, err)
	if r.Status != "offline" && r.Status != "online" {
		t.Fatalf("runner status %q", r.Status)
	}

	if !hasRunnerEdit(tg) {
		// Gitea 1.24 and 1.25 list and show runners but have no PATCH:
		// the operator reports RunnerSetting Unsupported there.
		_, err = tg.c.EditRunner(ctx(t), repo, rid, true)
		wantKind(t, err, forge.KindRouteNotFound)
		return
	}
	r, err = tg.c.EditRunner(ctx(t), repo, rid, true)
	mustNoErr(t, err)
	if !r.Disabled {
		t.Fatal("runner not disabled")
	}
	r, err = tg.c.EditRunner(ctx(t), repo, rid, true) // idempotent
	mustNoErr(t, err)
	if !r.Disabled {
		t.Fatal("runner re-enabled by a repeated disable")
	}
	r, err = tg.c.GetRunner(ctx(t), repo, rid)
	mustNoErr(t, err)
	if !r.Disabled {
		t.Fatal("disable not stored")
	}
	r, err = tg.c.EditRunner(ctx(t), repo, rid, false)
	mustNoErr(t, err)
	if r.Disabled {
		t.Fatal("runner not enabled")
	}
}

func contractRunnerEditErrors(t *testing.T, tg *target) {
	org := tg.org()
	repo := forge.RepoScope(org, tg.repo(org))
	rid := register(t, tg, repo, "r1")
	// Before 1.26 there is no PATCH at all: every edit is route-not-found,
	// whatever the runner.
	editMissing := forge.KindNotFound
	if hasRunnerEdit(tg) {
		status, body := tg.raw(http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/%s/actions/runners/%d", repo.Owner, repo.Repo, rid), map[string]any{})
		if status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "[Disabled]: Required") {
			t.Fatalf("PATCH without disabled: %d %s", status, body)
		}
	} else {
		editMissing = forge.KindRouteNotFound
	}
	_, err := tg.c.EditRunner(ctx(t), repo, 987654, true)
	wantKind(t, err, editMissing)
	_, err = tg.c.GetRunner(ctx(t), repo, 987654)
	wantKind(t, err, forge.KindNotFound)
	// A repository's runner is not reachable through its organization.
	_, err = tg.c.GetRunner(ctx(t), forge.OrgScope(org), rid)
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.EditRunner(ctx(t), forge.OrgScope(org), rid, true)
	wantKind(t, err, editMissing)
	_, err = tg.c.ListRunners(ctx(t), forge.RepoScope(org, "no-such-repo"))
	wantKind(t, err, forge.KindNotFound)
}

func contractRunnerEditMissing(t *testing.T, tg *target) {
	for _, opt := range []fakeforge.Option{
		fakeforge.WithoutRunnerEdit(), fakeforge.WithVersion("1.25.3"), fakeforge.WithVersion("15.0.3+gitea-1.22.0"),
	} {
		tg := newTarget(t, opt)
		org := tg.org()
		rid := register(t, tg, forge.OrgScope(org), "r")
		_, err := tg.c.EditRunner(ctx(t), forge.OrgScope(org), rid, true)
		wantKind(t, err, forge.KindRouteNotFound)
		_, err = tg.c.GetRunner(ctx(t), forge.OrgScope(org), rid)
		mustNoErr(t, err)
	}
}
