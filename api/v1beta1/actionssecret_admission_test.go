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

// ActionsSecret's admission and immutability cases, run by the shared tables
// (registerKind).
var _ = registerKind("ActionsSecret", `
apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsSecret
metadata: {name: deploy-token}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  valueFrom: {secretKeyRef: {name: web-deploy-token, key: token}}
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("ActionsSecret: the base object", obj("ActionsSecret")),
			Entry("ActionsSecret: an organization's, named", obj("ActionsSecret", unset("spec.repository"),
				set("spec.organization", "acme"), set("spec.name", "_REGISTRY_PASSWORD_2"), set("spec.description", "d"))),
			Entry("ActionsSecret: metadata.name with dots and dashes", obj("ActionsSecret", set("metadata.name", "registry.pass-word"))),
		},
		rejected: []TableEntry{
			Entry("ActionsSecret: a lower-case name", obj("ActionsSecret", set("spec.name", "deploy_token")), "spec.name"),
			Entry("ActionsSecret: a GITEA_ name", obj("ActionsSecret", set("spec.name", "GITEA_TOKEN")), "spec.name"),
			Entry("ActionsSecret: a GITHUB_ name", obj("ActionsSecret", set("spec.name", "GITHUB_TOKEN")), "spec.name"),
			Entry("ActionsSecret: the name CI", obj("ActionsSecret", set("spec.name", "CI")), "spec.name"),
			Entry("ActionsSecret: a name starting with a digit", obj("ActionsSecret", set("spec.name", "1TOKEN")), "spec.name"),
			Entry("ActionsSecret: metadata.name standing for CI", obj("ActionsSecret", set("metadata.name", "ci")), "metadata.name"),
			Entry("ActionsSecret: metadata.name standing for a GITEA_ name", obj("ActionsSecret", set("metadata.name", "gitea-token")), "metadata.name"),
			Entry("ActionsSecret: both scopes", obj("ActionsSecret", set("spec.organization", "acme")), "exactly one of repository and organization"),
			Entry("ActionsSecret: no scope", obj("ActionsSecret", unset("spec.repository")), "exactly one of repository and organization"),
			Entry("ActionsSecret: no valueFrom", obj("ActionsSecret", unset("spec.valueFrom")), "spec.valueFrom"),
		},
		immutable: []TableEntry{
			Entry("ActionsSecret: spec.name changed", obj("ActionsSecret", set("spec.name", "TOKEN")),
				[]edit{set("spec.name", "OTHER")}, "spec.name"),
			Entry("ActionsSecret: spec.repository changed", obj("ActionsSecret"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		},
	}
})
