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

package controllers

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// TestRegistryHoldsEveryKind: every kind of the API but Forge and
// ClusterForge (the connections, with controllers of their own) is in the
// registry, once, with a controller and a planner, so the manager runs it
// and plan plans it; a kind added to the API and forgotten here fails (and
// one without its export writer fails TestExportWritesEveryKind).
func TestRegistryHoldsEveryKind(t *testing.T) {
	var got []string
	for _, k := range registry(nil, nil) {
		if k.setup == nil || k.planner == nil || k.object == nil || k.list == nil || k.users == nil {
			t.Errorf("%s: registered without a controller, a planner or its objects", k.kind)
		}
		got = append(got, k.kind)
	}
	slices.Sort(got)
	want := slices.DeleteFunc(slices.Sorted(slices.Values(testenv.Kinds())), func(k string) bool {
		return k == forgev1.ForgeKind || k == forgev1.ClusterForgeKind
	})
	if !slices.Equal(got, want) {
		t.Errorf("registry holds %v, the API's managed kinds are %v", got, want)
	}
}

// TestSetListsAreTheSetsOverRepositories: report reads every kind whose
// status embeds SetStatus, and only those (a Receiver is a set of
// organizations, with no repositories to report).
func TestSetListsAreTheSetsOverRepositories(t *testing.T) {
	var got []string
	for _, l := range SetLists() {
		got = append(got, strings.TrimSuffix(reflect.TypeOf(l).Elem().Name(), "List"))
	}
	want := []string{"LabelSet", "BranchProtectionSet", "RepositorySet", "FileSet"}
	if !slices.Equal(got, want) {
		t.Errorf("SetLists holds %v, want %v", got, want)
	}
}

// TestEveryKindDeclaresItsScopes: on a server that tells a token's scopes,
// a kind stalls before a write its token may not make only if it says
// which scopes its writes need (reconciler.Scoped, an optional interface
// the loop finds by type, so a kind that leaves it out would build and
// meet the forge's 403 instead).
func TestEveryKindDeclaresItsScopes(t *testing.T) {
	for _, k := range registry(nil, nil) {
		if !k.scoped {
			t.Errorf("%s does not declare the token scopes its writes need (WriteScopes: a repository child takes those of where it lives, another kind writes them in its file)", k.kind)
		}
	}
}

// TestRepositoryKindsWaitForTheirRepositories: a kind whose spec names or
// selects repositories waits for them (RepoRefs) and, but for a set (which
// skips archived members itself), stalls before writing into an archived
// one (BeforeWrite); both are optional interfaces the loop finds by type,
// so a kind that leaves them out would build and run without either.
func TestRepositoryKindsWaitForTheirRepositories(t *testing.T) {
	// A RunnerSetting's repository holds the runner it selects, which
	// act_runner registers once the repository exists: it waits for the
	// runner (RunnerNotFound), not the repository, and its write is to the
	// runner. A Team's repositories are what it grants, not where it writes.
	notInRepo := map[string]bool{"RunnerSetting": true}
	unguarded := map[string]bool{"LabelSet": true, "BranchProtectionSet": true, "RepositorySet": true, "FileSet": true, "Team": true}
	for _, k := range registry(nil, nil) {
		if !k.inRepos || notInRepo[k.kind] {
			continue
		}
		if !k.repoScoped {
			t.Errorf("%s names repositories but has no RepoRefs (reconciler.RepoScoped): it would not wait for them", k.kind)
		}
		if !k.guarded && !unguarded[k.kind] {
			t.Errorf("%s names a repository but has no BeforeWrite (reconciler.WriteGuard): it would write into an archived one", k.kind)
		}
	}
}

// Both set kinds wait for the repositories they select: those they name,
// or every repository of the organization they select from.
func TestSetsWaitForTheRepositoriesTheySelect(t *testing.T) {
	acme := forgev1.OwnerName("acme")
	byOrg := forgev1.RepositorySelector{Organization: &acme}
	byName := forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web", "acme/api"}}
	for _, tc := range []struct {
		sel  forgev1.RepositorySelector
		want []string
	}{{byOrg, []string{"acme/*"}}, {byName, []string{"acme/web", "acme/api"}}} {
		labels := (labelSetKind{}).RepoRefs(&forgev1.LabelSet{Spec: forgev1.LabelSetSpec{Repositories: tc.sel}})
		rules := (branchProtectionSetKind{}).RepoRefs(&forgev1.BranchProtectionSet{Spec: forgev1.BranchProtectionSetSpec{Repositories: tc.sel}})
		if !slices.Equal(labels, tc.want) || !slices.Equal(rules, tc.want) {
			t.Errorf("%+v: LabelSet waits for %v, BranchProtectionSet for %v; want %v", tc.sel, labels, rules, tc.want)
		}
	}
}
