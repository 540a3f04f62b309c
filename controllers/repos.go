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

import forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"

// selectedRepos is the RepoRefs of a set (LabelSet, BranchProtectionSet):
// the repositories it names, or every repository of the organization it
// selects from. (Archived members are skipped by the set itself.)
func selectedRepos(sel forgev1.RepositorySelector) []string {
	if sel.Organization != nil {
		return []string{string(*sel.Organization) + "/*"}
	}
	out := make([]string, 0, len(sel.Names))
	for _, n := range sel.Names {
		out = append(out, string(n))
	}
	return out
}

func (labelSetKind) RepoRefs(s *forgev1.LabelSet) []string { return selectedRepos(s.Spec.Repositories) }

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it, by organization and globs or by name. Its topics are
// not at hand here: a set selecting by topics is re-run on organization and
// globs, and its pass reads the topics afresh from the listing.
func (labelSetKind) SelectsRepository(s *forgev1.LabelSet, owner, name string) bool {
	return setMatches(s.Spec.Repositories)(repo{owner: owner, name: name})
}

func (branchProtectionSetKind) SelectsRepository(s *forgev1.BranchProtectionSet, owner, name string) bool {
	return setMatches(s.Spec.Repositories)(repo{owner: owner, name: name})
}

func (branchProtectionSetKind) RepoRefs(s *forgev1.BranchProtectionSet) []string {
	return selectedRepos(s.Spec.Repositories)
}
