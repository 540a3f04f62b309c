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

// DeployKey's admission and immutability cases, run by the shared tables
// (registerKind).
var _ = registerKind("DeployKey", `
apiVersion: forge.forgeops.dev/v1beta1
kind: DeployKey
metadata: {name: acme-web-flux}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  generate: {secretName: acme-web-deploy-key}
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("DeployKey: generated", obj("DeployKey")),
			Entry("DeployKey: a public key given, writable", obj("DeployKey", unset("spec.generate"),
				set("spec.publicKey", "ssh-ed25519 AAAA flux"), set("spec.readOnly", false))),
			Entry("DeployKey: a public key from a Secret", obj("DeployKey", unset("spec.generate"),
				set("spec.publicKeyFrom", map[string]any{"secretKeyRef": map[string]any{"name": "k", "key": "identity.pub"}}))),
		},
		rejected: []TableEntry{
			// DeployKey: exactly one source of the key
			Entry("DeployKey: no key at all", obj("DeployKey", unset("spec.generate")),
				"exactly one of spec.publicKey, spec.publicKeyFrom and spec.generate must be set"),
			Entry("DeployKey: a publicKey and generate", obj("DeployKey", set("spec.publicKey", "ssh-ed25519 AAAA")),
				"exactly one of spec.publicKey, spec.publicKeyFrom and spec.generate must be set"),
			Entry("DeployKey: a key type the operator does not make", obj("DeployKey", set("spec.generate.type", "dsa")), "spec.generate.type"),
		},
		immutable: []TableEntry{
			Entry("DeployKey: spec.repository changed", obj("DeployKey"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository is immutable"),
		},
	}
})
