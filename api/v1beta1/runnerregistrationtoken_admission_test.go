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

// RunnerRegistrationToken's admission and immutability cases, run by the
// shared tables (registerKind).
var _ = registerKind("RunnerRegistrationToken", `
apiVersion: forge.forgeops.dev/v1beta1
kind: RunnerRegistrationToken
metadata: {name: acme-runner}
spec:
  forgeRef: {name: gitea}
  organization: acme
  secretName: acme-runner
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("RunnerRegistrationToken: an organization's", obj("RunnerRegistrationToken")),
			Entry("RunnerRegistrationToken: a repository's", obj("RunnerRegistrationToken", unset("spec.organization"), set("spec.repository", "acme/web"))),
			Entry("RunnerRegistrationToken: the instance's", obj("RunnerRegistrationToken", unset("spec.organization"), set("spec.forgeRef.kind", "ClusterForge"))),
		},
		rejected: []TableEntry{
			// RunnerRegistrationToken: one scope at most, a Secret to write to
			Entry("RunnerRegistrationToken: a repository and an organization", obj("RunnerRegistrationToken", set("spec.repository", "acme/web")),
				"at most one of spec.repository and spec.organization may be set"),
			Entry("RunnerRegistrationToken: no secretName", obj("RunnerRegistrationToken", unset("spec.secretName")), "spec.secretName"),
			Entry("RunnerRegistrationToken: a secretName no Secret can have", obj("RunnerRegistrationToken", set("spec.secretName", "Acme_Runner")), "spec.secretName"),
		},
		immutable: []TableEntry{
			Entry("RunnerRegistrationToken: spec.organization changed", obj("RunnerRegistrationToken"),
				[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
			Entry("RunnerRegistrationToken: moved from the organization to the instance", obj("RunnerRegistrationToken"),
				[]edit{unset("spec.organization")}, "spec.organization"),
			Entry("RunnerRegistrationToken: spec.secretName changed", obj("RunnerRegistrationToken"),
				[]edit{set("spec.secretName", "other")}, "spec.secretName is immutable"),
		},
	}
})
