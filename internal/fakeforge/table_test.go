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
	"slices"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Deleting a repository or an organization deletes what it holds, in every
// table, and nothing of another owner's.
func TestOwnerDeletionDropsWhatItHolds(t *testing.T) {
	s, _, c := setup(t)
	ctx := bg(t)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	org := forge.OrgScope("acme")
	for _, sc := range []forge.Scope{org, web} {
		must(c.CreateLabel(ctx, sc, forge.CreateLabelOption{Name: "a", Color: "#fff"}))
		must(c.CreateHook(ctx, sc, forge.CreateHookOption{Type: "gitea", Config: map[string]string{"url": "http://x/y", "content_type": "json"}}))
		s.RegisterRunner(sc, "r")
		must(nil, c.PutActionsSecret(ctx, sc, "S", "d", ""))
		must(nil, c.CreateActionsVariable(ctx, sc, "V", "v", ""))
	}
	must(c.CreateProject(ctx, web, forge.CreateProjectOption{Title: "p"}))
	must(c.CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: "main"}))
	must(c.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "core", Permission: "admin"}))

	// counts gives how many objects of each kind sc holds.
	counts := func(sc forge.Scope) []int {
		t.Helper()
		labels, err1 := c.ListLabels(ctx, sc)
		hooks, err2 := c.ListHooks(ctx, sc)
		runners, err3 := c.ListRunners(ctx, sc)
		secrets, err4 := c.ListActionsSecrets(ctx, sc)
		variables, err5 := c.ListActionsVariables(ctx, sc)
		for _, err := range []error{err1, err2, err3, err4, err5} {
			must(nil, err)
		}
		return []int{len(labels), len(hooks), len(runners), len(secrets), len(variables)}
	}
	s.DeleteRepo("acme", "web")
	must(nil, s.CreateRepo("acme", "web"))
	if got := counts(web); !slices.Equal(got, []int{0, 0, 0, 0, 0}) {
		t.Fatalf("a new repository of the same name holds %v", got)
	}
	projects, err := c.ListProjects(ctx, web, "all")
	must(nil, err)
	rules, err := c.ListBranchProtections(ctx, "acme", "web")
	must(nil, err)
	if len(projects) != 0 || len(rules) != 0 {
		t.Fatalf("a new repository of the same name holds %v and %v", projects, rules)
	}
	if got := counts(org); !slices.Equal(got, []int{1, 1, 1, 1, 1}) {
		t.Fatalf("the organization lost what it holds with its repository: %v", got)
	}

	s.DeleteRepo("acme", "web")
	must(nil, c.DeleteOrg(ctx, "acme"))
	must(s.CreateOrg("acme"))
	if got := counts(org); !slices.Equal(got, []int{0, 0, 0, 0, 0}) {
		t.Fatalf("a new organization of the same name holds %v", got)
	}
	if teams := s.Teams("acme"); len(teams) != 1 || teams[0].Name != "Owners" {
		t.Fatalf("a new organization of the same name has teams %v", teams)
	}
}
