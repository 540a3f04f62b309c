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

// BranchProtection's admission and immutability cases, run by the shared
// tables (registerKind).
var _ = registerKind("BranchProtection", `
apiVersion: forge.forgeops.dev/v1beta1
kind: BranchProtection
metadata: {name: web-main}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  ruleName: main
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("BranchProtection: the base object", obj("BranchProtection")),
			Entry("BranchProtection: every list under its switch, a glob rule", obj("BranchProtection", set("spec.ruleName", "release/*"),
				set("spec.enablePush", true), set("spec.enablePushWhitelist", true), set("spec.pushWhitelistUsernames", strs("alice", "bob")),
				set("spec.pushWhitelistTeams", strs("web")), set("spec.pushWhitelistDeployKeys", true),
				set("spec.enableForcePush", true), set("spec.enableForcePushAllowlist", true), set("spec.forcePushAllowlistUsernames", strs("alice")),
				set("spec.enableMergeWhitelist", true), set("spec.mergeWhitelistTeams", strs("web")),
				set("spec.enableStatusCheck", true), set("spec.statusCheckContexts", strs("ci/*")),
				set("spec.requiredApprovals", int64(2)), set("spec.enableApprovalsWhitelist", true), set("spec.approvalsWhitelistUsernames", strs("carol")),
				set("spec.protectedFilePatterns", "*.lock;.gitea/**"), set("spec.priority", int64(0)))),
			Entry("BranchProtection: an empty list without its switch clears it", obj("BranchProtection", set("spec.pushWhitelistUsernames", strs()))),
		},
		rejected: []TableEntry{
			Entry("BranchProtection: negative approvals", obj("BranchProtection", set("spec.requiredApprovals", int64(-1))), "spec.requiredApprovals"),
			Entry("BranchProtection: a push allow-list without enablePushWhitelist", obj("BranchProtection",
				set("spec.enablePush", true), set("spec.pushWhitelistUsernames", strs("alice"))), "pushWhitelistUsernames needs enablePushWhitelist: true"),
			Entry("BranchProtection: enablePushWhitelist without enablePush", obj("BranchProtection",
				set("spec.enablePushWhitelist", true)), "enablePushWhitelist needs enablePush: true"),
			Entry("BranchProtection: status check contexts without enableStatusCheck", obj("BranchProtection",
				set("spec.statusCheckContexts", strs("ci"))), "statusCheckContexts needs enableStatusCheck: true"),
			Entry("BranchProtection: a force-push allow-list without its switch", obj("BranchProtection", set("spec.enablePush", true),
				set("spec.enableForcePush", true), set("spec.forcePushAllowlistTeams", strs("web"))), "forcePushAllowlistTeams needs enableForcePushAllowlist: true"),
			Entry("BranchProtection: a bypass allow-list without its switch", obj("BranchProtection",
				set("spec.bypassAllowlistTeams", strs("release"))), "bypassAllowlistTeams needs enableBypassAllowlist: true"),
			Entry("BranchProtection: a user twice", obj("BranchProtection", set("spec.enablePush", true), set("spec.enablePushWhitelist", true),
				set("spec.pushWhitelistUsernames", strs("alice", "alice"))), "spec.pushWhitelistUsernames"),
			Entry("BranchProtection: no ruleName", obj("BranchProtection", unset("spec.ruleName")), "spec.ruleName"),
			Entry("BranchProtection: a ruleName with a space", obj("BranchProtection", set("spec.ruleName", "main branch")), "spec.ruleName"),
		},
		immutable: []TableEntry{
			Entry("BranchProtection: spec.ruleName changed", obj("BranchProtection"),
				[]edit{set("spec.ruleName", "master")}, "spec.ruleName is immutable"),
			Entry("BranchProtection: spec.repository changed", obj("BranchProtection"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository is immutable"),
		},
	}
})
