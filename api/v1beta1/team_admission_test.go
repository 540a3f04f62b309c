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

// Team's admission and immutability cases, run by the shared tables
// (registerKind).
var _ = registerKind("Team", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Team
metadata: {name: platform}
spec:
  forgeRef: {name: gitea}
  organization: acme
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Team: removals reported", obj("Team", set("spec.members", strs("alice")), set("spec.removals", "Report"))),
			Entry("Team: removals applied", obj("Team", set("spec.members", strs("alice")), set("spec.removals", "Apply"))),
			Entry("Team: the base object", obj("Team")),
			Entry("Team: every field", obj("Team", set("spec.name", "web.devs_2"), set("spec.previousNames", strs("web")),
				set("spec.description", "d"), set("spec.permission", "write"), set("spec.canCreateOrgRepo", true),
				set("spec.units", map[string]any{"code": "write", "ext_issues": "none", "actions": "read"}),
				set("spec.members", strs("alice", "bob")), set("spec.repositories", strs("web", "api")), set("spec.maxRemovals", int64(0)))),
			Entry("Team: an admin team", obj("Team", set("spec.permission", "admin"), set("spec.includesAllRepositories", true))),
			Entry("Team: Owners with members only", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
				set("spec.description", "the owners"))),
		},
		rejected: []TableEntry{
			Entry("Team: a unit at admin", obj("Team", set("spec.units", map[string]any{"code": "admin"})), "spec.units.code"),
			Entry("Team: an unknown permission", obj("Team", set("spec.permission", "owner")), "spec.permission"),
			Entry("Team: admin with units", obj("Team", set("spec.permission", "admin"), set("spec.units", map[string]any{"code": "write"})), "spec.units"),
			Entry("Team: repositories with includesAllRepositories", obj("Team",
				set("spec.includesAllRepositories", true), set("spec.repositories", strs("web"))), "spec.repositories"),
			Entry("Team: a member twice", obj("Team", set("spec.members", strs("alice", "alice"))), "spec.members[1]"),
			Entry("Team: a member twice in another case", obj("Team", set("spec.members", strs("alice", "Alice"))), "spec.members"),
			Entry("Team: a repository twice in another case", obj("Team", set("spec.repositories", strs("web", "WEB"))), "spec.repositories"),
			Entry("Team: a name the forge refuses", obj("Team", set("spec.name", "web team")), "spec.name"),
			Entry("Team: a member name the forge refuses", obj("Team", set("spec.members", strs("al ice"))), "spec.members[0]"),
			Entry("Team: a negative removal limit", obj("Team", set("spec.maxRemovals", int64(-1))), "spec.maxRemovals"),
			Entry("Team: unknown removals", obj("Team", set("spec.removals", "DryRun")), "spec.removals"),
			Entry("Team: Owners with a permission", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
				set("spec.permission", "write")), "the Owners team"),
			Entry("Team: owners (metadata.name) with units", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice")),
				set("spec.units", map[string]any{"code": "read"})), "the Owners team"),
			Entry("Team: an unknown visibility", obj("Team", set("spec.visibility", "secret")), "spec.visibility"),
			Entry("Team: Owners with a visibility", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
				set("spec.visibility", "private")), "the Owners team"),
			Entry("Team: Owners with includesAllRepositories", obj("Team", set("spec.name", "OWNERS"), set("spec.members", strs("alice")),
				set("spec.includesAllRepositories", false)), "the Owners team"),
			Entry("Team: Owners with canCreateOrgRepo", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
				set("spec.canCreateOrgRepo", true)), "the Owners team"),
			Entry("Team: Owners without members", obj("Team", set("spec.name", "Owners")), "the Owners team"),
			Entry("Team: Owners with an empty members list", obj("Team", set("spec.name", "Owners"), set("spec.members", strs())), "the Owners team"),

			// The Owners team is adopted only by a Team named
			// Owners, and never renamed, in either direction.
			Entry("Team: Owners among the previous names", obj("Team", set("spec.name", "admins"),
				set("spec.previousNames", strs("infra", "Owners"))), "spec.previousNames"),
			Entry("Team: owners among the previous names in another case", obj("Team",
				set("spec.previousNames", strs("OWNERS"))), "spec.previousNames"),
			Entry("Team: Owners with previous names", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
				set("spec.previousNames", strs("admins"))), "the Owners team is never renamed"),
			Entry("Team: owners (metadata.name) with previous names", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice")),
				set("spec.previousNames", strs("admins"))), "the Owners team is never renamed"),
		},
		immutable: []TableEntry{
			// A rename to or from Owners would rename the
			// forge's Owners team, or another team to Owners.
			Entry("Team: renamed to Owners", obj("Team", set("spec.name", "admins")),
				[]edit{set("spec.name", "Owners"), set("spec.members", strs("alice"))}, "the Owners team is never renamed"),
			Entry("Team: Owners renamed", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice"))),
				[]edit{set("spec.name", "admins")}, "the Owners team is never renamed"),
			Entry("Team: metadata.name owners given another spec.name", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice"))),
				[]edit{set("spec.name", "admins")}, "the Owners team is never renamed"),
		},
		mutable: []TableEntry{
			Entry("Team: renamed, the old name kept as a previous name", obj("Team"),
				[]edit{set("spec.name", "web-devs"), set("spec.previousNames", strs("platform"))}),
			Entry("Team: owners given spec.name Owners (same name, another case)", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice"))),
				[]edit{set("spec.name", "Owners")}),
		},
	}
})

// Team's admission specs besides the table rows.
var _ = Describe("admission", func() {
	It("refuses a Team unit the forge does not have, naming it", func(ctx SpecContext) {
		err := dryRunCreate(ctx, obj("Team", set("spec.units", map[string]any{"code": "write", "deploy": "read"})))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(`unknown field "spec.units.deploy"`))
	})
})
