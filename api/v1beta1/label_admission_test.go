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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Label's admission, immutability and defaults cases, run by the shared
// tables (registerKind).
var _ = registerKind("Label", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: acme-kind-bug}
spec:
  forgeRef: {name: gitea}
  organization: acme
  name: kind/bug
  color: "#d73a4a"
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Label: a name with inner spaces", obj("Label", set("spec.name", "good first issue"))),
			Entry("Label: the base object", obj("Label")),
			Entry("Label: in a repository", obj("Label", unset("spec.organization"), set("spec.repository", "acme/web.site_v2"))),
			Entry("Label: repository owner and name at their length limits", obj("Label",
				unset("spec.organization"), set("spec.repository", name40+"/"+strings.Repeat("r", 100)))),
			Entry("Label: repository name starting with a dot", obj("Label", unset("spec.organization"), set("spec.repository", "acme/.profile"))),
			Entry("Label: 3-digit colour without #", obj("Label", set("spec.color", "fff"))),
			Entry("Label: upper-case 3-digit colour", obj("Label", set("spec.color", "#FFF"))),
			Entry("Label: mixed-case 6-digit colour without #", obj("Label", set("spec.color", "A1b2C3"))),
		},
		rejected: []TableEntry{
			// Names with surrounding whitespace: the forge trims them, and the
			// loop would patch the difference forever.
			Entry("Label: name with a leading space", obj("Label", set("spec.name", " bug")), "spec.name"),
			Entry("Label: name with a trailing newline", obj("Label", set("spec.name", "bug\n")), "spec.name"),

			Entry("Label: both repository and organization", obj("Label", set("spec.repository", "acme/web")), "spec.organization"),
			Entry("Label: neither repository nor organization", obj("Label", unset("spec.organization")), "spec.repository"),
			Entry("Label: colour with a non-hex digit", obj("Label", set("spec.color", "#12345g")), "spec.color"),
			Entry("Label: colour of 4 digits", obj("Label", set("spec.color", "#1234")), "spec.color"),
			Entry("Label: colour by name", obj("Label", set("spec.color", "red")), "spec.color"),
			Entry("Label: colour with two #", obj("Label", set("spec.color", "##fff")), "spec.color"),
			Entry("Label: colour missing", obj("Label", unset("spec.color")), "spec.color"),
			Entry("Label: repository without owner", obj("Label", unset("spec.organization"), set("spec.repository", "web")), "spec.repository"),
			Entry("Label: repository with two slashes", obj("Label", unset("spec.organization"), set("spec.repository", "acme/web/docs")), "spec.repository"),
			Entry("Label: repository ..", obj("Label", unset("spec.organization"), set("spec.repository", "acme/..")), "spec.repository"),
			Entry("Label: repository owner ending in -", obj("Label", unset("spec.organization"), set("spec.repository", "acme-/web")), "spec.repository"),
			Entry("Label: repository owner with --", obj("Label", unset("spec.organization"), set("spec.repository", "acme--corp/web")), "spec.repository"),
			Entry("Label: repository owner of 41 characters", obj("Label",
				unset("spec.organization"), set("spec.repository", name41+"/web")), "spec.repository"),
			Entry("Label: repository name of 101 characters", obj("Label",
				unset("spec.organization"), set("spec.repository", "acme/"+strings.Repeat("r", 101))), "spec.repository"),
			Entry("Label: organization with -.", obj("Label", set("spec.organization", "acme-.corp")), "spec.organization"),
			Entry("Label: empty name", obj("Label", set("spec.name", "")), "spec.name"),
			Entry("Label: name over 255 characters", obj("Label", set("spec.name", strings.Repeat("n", 256))), "spec.name"),
			Entry("Label: description over 255 characters", obj("Label", set("spec.description", strings.Repeat("d", 256))), "spec.description"),
			Entry("Label: negative syncInterval", obj("Label", set("spec.syncInterval", "-1m")), "spec.syncInterval"),
		},
		immutable: []TableEntry{
			Entry("Label: spec.organization changed", obj("Label"),
				[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
			Entry("Label: spec.repository changed", obj("Label", unset("spec.organization"), set("spec.repository", "acme/web")),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
			Entry("Label: moved from the organization to a repository", obj("Label"),
				[]edit{unset("spec.organization"), set("spec.repository", "acme/web")}, "spec.repository"),
		},
		mutable: []TableEntry{
			Entry("Label: name, colour and archived", obj("Label"),
				[]edit{set("spec.name", "kind/defect"), set("spec.color", "#ff0000"), set("spec.archived", true)}),
		},
		defaults: []kindDefault{{
			name: "Label: Manage, Delete",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var l forgev1.Label
				storedAs(ctx, obj("Label"), &l)
				Expect(l.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
				Expect(l.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
				Expect(l.Spec.Exclusive).To(BeNil())
				Expect(l.Spec.Archived).To(BeNil())
			},
		}},
	}
})
