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
)

// BranchProtectionSet's admission cases, run by the shared tables
// (registerKind).
var _ = registerKind("BranchProtectionSet", `
apiVersion: forge.forgeops.dev/v1beta1
kind: BranchProtectionSet
metadata: {name: protect-main}
spec:
  forgeRef: {name: gitea}
  repositories: {organization: acme}
  rules:
  - ruleName: main
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("BranchProtectionSet: the base object", obj("BranchProtectionSet")),
			Entry("BranchProtectionSet: Authoritative over names", obj("BranchProtectionSet", unset("spec.repositories.organization"),
				set("spec.repositories.names", strs("acme/web", "acme/api")), set("spec.mode", "Authoritative"), set("spec.maxDeletionsPerRepository", int64(0)))),
			Entry("BranchProtectionSet: by topics", obj("BranchProtectionSet", set("spec.repositories.topics", strs("service", "go")))),
			Entry("BranchProtectionSet: Authoritative, removals reported", obj("BranchProtectionSet",
				set("spec.mode", "Authoritative"), set("spec.removals", "Report"))),
		},
		rejected: []TableEntry{
			Entry("BranchProtectionSet: a rule's bypass users without the switch", obj("BranchProtectionSet", set("spec.rules", []any{
				map[string]any{"ruleName": "main", "enableBypassAllowlist": false, "bypassAllowlistUsernames": strs("alice")}})),
				"bypassAllowlistUsernames needs enableBypassAllowlist: true"),
			Entry("BranchProtectionSet: a rule twice", obj("BranchProtectionSet", set("spec.rules", []any{
				map[string]any{"ruleName": "main"}, map[string]any{"ruleName": "main"}})), "spec.rules"),
			Entry("BranchProtectionSet: a rule's list without its switch", obj("BranchProtectionSet", set("spec.rules", []any{
				map[string]any{"ruleName": "main", "mergeWhitelistUsernames": strs("alice")}})), "mergeWhitelistUsernames needs enableMergeWhitelist: true"),
			Entry("BranchProtectionSet: negative maxDeletionsPerRepository", obj("BranchProtectionSet", set("spec.maxDeletionsPerRepository", int64(-1))), "spec.maxDeletionsPerRepository"),
			Entry("BranchProtectionSet: names and organization", obj("BranchProtectionSet", set("spec.repositories.names", strs("acme/web"))),
				"exactly one of names and organization"),
			Entry("BranchProtectionSet: topics with names", obj("BranchProtectionSet", unset("spec.repositories.organization"),
				set("spec.repositories.names", strs("acme/web")), set("spec.repositories.topics", strs("go"))), "topics apply only with organization"),
			Entry("BranchProtectionSet: an upper-case topic", obj("BranchProtectionSet", set("spec.repositories.topics", strs("Go"))),
				"spec.repositories.topics[0]"),
			Entry("BranchProtectionSet: unknown removals", obj("BranchProtectionSet", set("spec.removals", "report")), "spec.removals"),
		},
	}
})
