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

// Project's admission, immutability and defaults cases, run by the shared
// tables (registerKind).
var _ = registerKind("Project", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Project
metadata: {name: web-roadmap}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  title: Web roadmap
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Project: a title with inner spaces", obj("Project", set("spec.title", "Road map 2026"))),
			Entry("Project: the base object", obj("Project")),
			Entry("Project: closed bug triage board", obj("Project",
				set("spec.templateType", "bug_triage"), set("spec.state", "closed"), set("spec.cardType", "images_and_text"))),
		},
		rejected: []TableEntry{
			// Names with surrounding whitespace: the forge trims them, and the
			// loop would patch the difference forever.
			Entry("Project: title with a trailing space", obj("Project", set("spec.title", "Roadmap ")), "spec.title"),
			Entry("Project: title with a leading tab", obj("Project", set("spec.title", "\tRoadmap")), "spec.title"),

			Entry("Project: unknown cardType", obj("Project", set("spec.cardType", "images")), "spec.cardType"),
			Entry("Project: unknown templateType", obj("Project", set("spec.templateType", "scrum")), "spec.templateType"),
			Entry("Project: unknown state", obj("Project", set("spec.state", "archived")), "spec.state"),
			Entry("Project: empty title", obj("Project", set("spec.title", "")), "spec.title"),
			Entry("Project: title missing", obj("Project", unset("spec.title")), "spec.title"),
			Entry("Project: title over 255 characters", obj("Project", set("spec.title", strings.Repeat("t", 256))), "spec.title"),
			Entry("Project: repository without owner", obj("Project", set("spec.repository", "web")), "spec.repository"),
			Entry("Project: repository missing", obj("Project", unset("spec.repository")), "spec.repository"),
			Entry("Project: deletionPolicy in lower case", obj("Project", set("spec.deletionPolicy", "delete")), "spec.deletionPolicy"),
		},
		immutable: []TableEntry{
			Entry("Project: spec.repository changed", obj("Project"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
			Entry("Project: spec.templateType changed", obj("Project", set("spec.templateType", "basic_kanban")),
				[]edit{set("spec.templateType", "bug_triage")}, "spec.templateType"),
			Entry("Project: spec.templateType changed from its default", obj("Project"),
				[]edit{set("spec.templateType", "basic_kanban")}, "spec.templateType"),
		},
		mutable: []TableEntry{
			Entry("Project: title, state and cardType", obj("Project", set("spec.templateType", "basic_kanban")),
				[]edit{set("spec.title", "Roadmap 2027"), set("spec.state", "closed"), set("spec.cardType", "images_and_text")}),
		},
		defaults: []kindDefault{{
			name: "Project: cardType text_only, templateType none, state open, Manage, Delete",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var p forgev1.Project
				storedAs(ctx, obj("Project"), &p)
				Expect(p.Spec.CardType).To(Equal("text_only"))
				Expect(p.Spec.TemplateType).To(Equal("none"))
				Expect(p.Spec.State).To(Equal("open"))
				Expect(p.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
				Expect(p.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
			},
		}},
	}
})
