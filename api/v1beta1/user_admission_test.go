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

// User's admission cases, run by the shared tables (registerKind).
var _ = registerKind("User", `
apiVersion: forge.forgeops.dev/v1beta1
kind: User
metadata: {name: ci-bot}
spec:
  forgeRef: {kind: ClusterForge, name: shared}
  username: ci-bot
  email: ci-bot@example.com
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("User: the base object", obj("User")),
			Entry("User: every field", obj("User", set("spec.fullName", "CI Bot"), set("spec.visibility", "private"),
				set("spec.restricted", true), set("spec.admin", false), set("spec.active", true), set("spec.prohibitLogin", false),
				set("spec.passwordSecretRef", map[string]any{"name": "ci-bot", "key": "password"}), set("spec.mustChangePassword", false),
				set("spec.deletionPolicy", "Delete"))),
		},
		rejected: []TableEntry{
			// User: only through a ClusterForge
			Entry("User: through a namespaced Forge", obj("User", set("spec.forgeRef.kind", "Forge")),
				"a User is managed only through a ClusterForge whose tenants entry has siteAdmin: true"),
			Entry("User: forgeRef without a kind (a Forge)", obj("User", unset("spec.forgeRef.kind")),
				"a User is managed only through a ClusterForge"),
			Entry("User: an email without @", obj("User", set("spec.email", "ci-bot")), "spec.email"),
			Entry("User: a username the forge refuses", obj("User", set("spec.username", "ci--bot")), "spec.username"),
		},
	}
})
