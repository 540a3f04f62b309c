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

// ActionsVariable's admission and immutability cases, run by the shared
// tables (registerKind).
var _ = registerKind("ActionsVariable", `
apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsVariable
metadata: {name: go-version}
spec:
  forgeRef: {name: gitea}
  organization: acme
  value: "1.26"
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("ActionsVariable: the base object", obj("ActionsVariable")),
			Entry("ActionsVariable: from a Secret", obj("ActionsVariable", unset("spec.value"),
				set("spec.valueFrom", map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}))),
		},
		rejected: []TableEntry{
			Entry("ActionsVariable: value and valueFrom", obj("ActionsVariable",
				set("spec.valueFrom", map[string]any{"configMapKeyRef": map[string]any{"name": "ci", "key": "k"}})), "exactly one of value and valueFrom"),
			Entry("ActionsVariable: neither value nor valueFrom", obj("ActionsVariable", unset("spec.value")), "exactly one of value and valueFrom"),
			Entry("ActionsVariable: an empty value", obj("ActionsVariable", set("spec.value", "")), "spec.value"),
			Entry("ActionsVariable: valueFrom a ConfigMap and a Secret", obj("ActionsVariable", unset("spec.value"),
				set("spec.valueFrom", map[string]any{"configMapKeyRef": map[string]any{"name": "ci", "key": "k"},
					"secretKeyRef": map[string]any{"name": "s", "key": "k"}})), "spec.valueFrom"),
		},
		immutable: []TableEntry{
			Entry("ActionsVariable: spec.organization changed", obj("ActionsVariable"),
				[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
		},
	}
})
