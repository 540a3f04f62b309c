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

// Milestone's admission, immutability and defaults cases, run by the shared
// tables (registerKind).
var _ = registerKind("Milestone", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Milestone
metadata: {name: web-v1}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  title: v1.0
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Milestone: the base object", obj("Milestone")),
			Entry("Milestone: closed, described, due", obj("Milestone",
				set("spec.state", "closed"), set("spec.description", "The first release"), set("spec.dueOn", "2030-06-15T00:00:00Z"))),
		},
		rejected: []TableEntry{
			Entry("Milestone: title with a trailing space", obj("Milestone", set("spec.title", "v1.0 ")), "spec.title"),
			Entry("Milestone: unknown state", obj("Milestone", set("spec.state", "archived")), "spec.state"),
			Entry("Milestone: empty title", obj("Milestone", set("spec.title", "")), "spec.title"),
			Entry("Milestone: title missing", obj("Milestone", unset("spec.title")), "spec.title"),
			Entry("Milestone: title over 255 characters", obj("Milestone", set("spec.title", strings.Repeat("t", 256))), "spec.title"),
			Entry("Milestone: a date without a time", obj("Milestone", set("spec.dueOn", "2030-06-15")), "spec.dueOn"),
			Entry("Milestone: repository without owner", obj("Milestone", set("spec.repository", "web")), "spec.repository"),
		},
		immutable: []TableEntry{
			Entry("Milestone: spec.repository changed", obj("Milestone"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		},
		mutable: []TableEntry{
			Entry("Milestone: title, description, due date and state", obj("Milestone"),
				[]edit{set("spec.title", "v1.1"), set("spec.description", "later"), set("spec.dueOn", "2030-07-01T00:00:00Z"), set("spec.state", "closed")}),
		},
		defaults: []kindDefault{{
			name: "Milestone: Manage, Delete; description and state unmanaged, no due date",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var m forgev1.Milestone
				storedAs(ctx, obj("Milestone"), &m)
				Expect(m.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
				Expect(m.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
				Expect(m.Spec.Description).To(BeNil())
				Expect(m.Spec.DueOn).To(BeNil())
				Expect(m.Spec.State).To(BeNil())
			},
		}},
	}
})
