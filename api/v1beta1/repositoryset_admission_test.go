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

package v1beta1_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// RepositorySet's admission cases, run by the shared tables (registerKind).
var _ = registerKind("RepositorySet", `
apiVersion: forge.forgeops.dev/v1beta1
kind: RepositorySet
metadata: {name: acme-policy}
spec:
  forgeRef: {name: gitea}
  repositories: {organization: acme}
  settings: {hasWiki: false}
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("RepositorySet: the base object", obj("RepositorySet")),
			Entry("RepositorySet: topics and teams alone, over names, removals reported, access taken back on deletion", obj("RepositorySet",
				unset("spec.settings"), unset("spec.repositories.organization"), set("spec.repositories.names", strs("acme/web", "acme/api")),
				set("spec.topics", strs("managed")), set("spec.teams", strs("developers", "release-managers")),
				set("spec.removals", "Report"), set("spec.deletionPolicy", "Delete"))),
			Entry("RepositorySet: every setting, by topics", obj("RepositorySet", set("spec.repositories.topics", strs("service")),
				set("spec.settings", map[string]any{"description": "d", "website": "https://acme.example.com", "private": true, "template": false,
					"defaultBranch": "main", "hasIssues": true, "hasWiki": false, "hasPullRequests": true, "hasProjects": false,
					"hasReleases": true, "hasPackages": false, "hasActions": true, "hasCode": true, "allowMergeCommits": false,
					"allowRebase": false, "allowRebaseExplicit": false, "allowSquashMerge": true, "allowFastForwardOnlyMerge": false,
					"allowManualMerge": false, "autodetectManualMerge": false, "allowRebaseUpdate": true, "allowMergeUpdate": true,
					"defaultUpdateStyle": "rebase", "defaultMergeStyle": "squash", "defaultDeleteBranchAfterMerge": true,
					"defaultAllowMaintainerEdit": true, "ignoreWhitespaceConflicts": false}))),
		},
		rejected: []TableEntry{
			Entry("RepositorySet: nothing to apply", obj("RepositorySet", unset("spec.settings")), "at least one of settings, topics and teams"),
			Entry("RepositorySet: an unknown merge style", obj("RepositorySet", set("spec.settings.defaultMergeStyle", "bogus")), "spec.settings.defaultMergeStyle"),
			Entry("RepositorySet: an upper-case topic", obj("RepositorySet", set("spec.topics", strs("Managed"))), "spec.topics[0]"),
			Entry("RepositorySet: 26 topics", obj("RepositorySet", set("spec.topics", topics(26))), "spec.topics"),
			Entry("RepositorySet: a team twice in another case", obj("RepositorySet", set("spec.teams", strs("developers", "Developers"))),
				"teams must not name a team twice"),
			Entry("RepositorySet: a team name the forge refuses", obj("RepositorySet", set("spec.teams", strs("web team"))), "spec.teams[0]"),
			Entry("RepositorySet: an unknown removals", obj("RepositorySet", set("spec.removals", "Ignore")), "spec.removals"),
			Entry("RepositorySet: deletionPolicy Archive", obj("RepositorySet", set("spec.deletionPolicy", "Archive")), "spec.deletionPolicy"),
			Entry("RepositorySet: no repositories", obj("RepositorySet", unset("spec.repositories")), "spec.repositories"),
		},
	}
})

// RepositorySet's admission specs besides the table rows.
var _ = Describe("admission", func() {
	It("refuses a RepositorySet setting no set writes (a repository's name, its archive, its collaborators), naming it", func(ctx SpecContext) {
		for path, v := range map[string]any{"spec.settings.name": "web", "spec.settings.archived": true, "spec.settings.owner": "acme",
			"spec.collaborators": []any{}, "spec.settings.init": map[string]any{}} {
			err := dryRunCreate(ctx, obj("RepositorySet", set(path, v)))
			Expect(err).To(HaveOccurred(), path)
			Expect(err.Error()).To(ContainSubstring(`unknown field "%s"`, path))
		}
	})
})
