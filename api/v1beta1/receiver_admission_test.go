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

// Receiver's admission cases, run by the shared tables (registerKind).
var _ = registerKind("Receiver", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Receiver
metadata: {name: acme-events}
spec:
  forgeRef: {name: gitea}
  organizations: [acme]
  url: https://forge-operator.example.com
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Receiver: the base object", obj("Receiver")),
			Entry("Receiver: two organizations, a secret, one event, a port and a trailing slash", obj("Receiver",
				set("spec.organizations", strs("acme", "acme-labs")), set("spec.url", "http://receiver.forge-system:9443/"),
				set("spec.secretRef", map[string]any{"name": "acme-events", "key": "secret"}), set("spec.events", strs("repository")))),
		},
		rejected: []TableEntry{
			Entry("Receiver: no organization", obj("Receiver", set("spec.organizations", strs())), "spec.organizations"),
			Entry("Receiver: organizations missing", obj("Receiver", unset("spec.organizations")), "spec.organizations"),
			Entry("Receiver: an organization twice", obj("Receiver", set("spec.organizations", strs("acme", "acme"))), "spec.organizations"),
			Entry("Receiver: an organization ending in -", obj("Receiver", set("spec.organizations", strs("acme-"))), "spec.organizations"),
			Entry("Receiver: url with a path", obj("Receiver", set("spec.url", "https://ops.example.com/hooks")), "spec.url"),
			Entry("Receiver: url without a scheme", obj("Receiver", set("spec.url", "ops.example.com")), "spec.url"),
			Entry("Receiver: url missing", obj("Receiver", unset("spec.url")), "spec.url"),
			Entry("Receiver: unknown event", obj("Receiver", set("spec.events", strs("issues"))), "spec.events"),
			Entry("Receiver: no event", obj("Receiver", set("spec.events", strs())), "spec.events"),
		},
	}
})
