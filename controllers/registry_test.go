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
	"slices"
	"testing"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// TestRegistryHoldsEveryKind: every kind of the API but Forge is in the
// registry, once, so the manager runs it and plan plans it; a kind added to
// the API and forgotten here fails.
func TestRegistryHoldsEveryKind(t *testing.T) {
	var got []string
	for _, k := range registry(nil) {
		if k.setup == nil || k.planner == nil {
			t.Errorf("%s: registered without a controller or a planner", k.kind)
		}
		got = append(got, k.kind)
	}
	slices.Sort(got)
	want := slices.DeleteFunc(slices.Sorted(slices.Values(testenv.Kinds())), func(k string) bool { return k == "Forge" })
	if !slices.Equal(got, want) {
		t.Errorf("registry holds %v, the API's managed kinds are %v", got, want)
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
	unguarded := map[string]bool{"LabelSet": true, "BranchProtectionSet": true, "Team": true, "RunnerSetting": true}
	for _, k := range registry(nil) {
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
