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
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Fields that identify the forge object cannot change: the operator would
// otherwise lose track of the object it created, or (templateType) the forge
// applies the value at creation only.
var _ = Describe("immutable fields", func() {
	_, _, immutable, mutable, _ := kindRows()
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx, "immutable")
	})

	// stored creates the object for real: update validation compares with
	// the stored version.
	stored := func(ctx SpecContext, u *unstructured.Unstructured) *unstructured.Unstructured {
		GinkgoHelper()
		u.SetNamespace(ns)
		Expect(k8sClient.Create(ctx, u)).To(Succeed())
		return u
	}

	// update applies edits to the stored object and writes it back.
	update := func(ctx SpecContext, u *unstructured.Unstructured, edits ...edit) error {
		GinkgoHelper()
		current := &unstructured.Unstructured{}
		current.SetGroupVersionKind(u.GroupVersionKind())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), current)).To(Succeed())
		for _, e := range edits {
			e(current.Object)
		}
		return k8sClient.Update(ctx, current)
	}

	DescribeTable("refuses a change", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured, change []edit, field string) {
			o := stored(ctx, u)
			expectRejected(update(ctx, o, change...), field)
		},
		Entry("Organization: spec.name changed", obj("Organization", set("spec.name", "acme")),
			[]edit{set("spec.name", "acme-corp")}, "spec.name"),
		Entry("Organization: spec.name set later", obj("Organization"),
			[]edit{set("spec.name", "acme-corp")}, "spec.name"),
		Entry("Organization: spec.name removed", obj("Organization", set("spec.name", "acme-corp")),
			[]edit{unset("spec.name")}, "spec.name"),
		Entry("ActionsSecret: spec.name changed", obj("ActionsSecret", set("spec.name", "TOKEN")),
			[]edit{set("spec.name", "OTHER")}, "spec.name"),
		Entry("ActionsSecret: spec.repository changed", obj("ActionsSecret"),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		Entry("ActionsVariable: spec.organization changed", obj("ActionsVariable"),
			[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
		Entry("BranchProtection: spec.ruleName changed", obj("BranchProtection"),
			[]edit{set("spec.ruleName", "master")}, "spec.ruleName is immutable"),
		Entry("BranchProtection: spec.repository changed", obj("BranchProtection"),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository is immutable"),
		Entry("RepositoryFile: spec.repository changed", obj("RepositoryFile"),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository is immutable"),
		Entry("DeployKey: spec.repository changed", obj("DeployKey"),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository is immutable"),
		Entry("RunnerRegistrationToken: spec.organization changed", obj("RunnerRegistrationToken"),
			[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
		Entry("RunnerRegistrationToken: moved from the organization to the instance", obj("RunnerRegistrationToken"),
			[]edit{unset("spec.organization")}, "spec.organization"),
		Entry("RunnerRegistrationToken: spec.secretName changed", obj("RunnerRegistrationToken"),
			[]edit{set("spec.secretName", "other")}, "spec.secretName is immutable"),
		Entry("PushMirror: spec.remoteAddress changed", obj("PushMirror"),
			[]edit{set("spec.remoteAddress", "https://github.com/acme/api.git")}, "spec.remoteAddress is immutable"),
		Entry("Repository: spec.owner changed", obj("Repository"),
			[]edit{set("spec.owner", "acme-labs")}, "spec.owner"),
		Entry("Repository: spec.init changed after creation", obj("Repository", set("spec.init.autoInit", true)),
			[]edit{set("spec.init.license", "MIT")}, "spec.init"),
		Entry("Repository: spec.init.template changed after creation", obj("Repository", set("spec.init.template.repository", "acme/go-service")),
			[]edit{set("spec.init.template.repository", "acme/rust-service")}, "spec.init"),
		Entry("Repository: spec.init.template dropped after creation", obj("Repository", set("spec.init.template.repository", "acme/go-service")),
			[]edit{unset("spec.init")}, "spec.init"),
		Entry("Repository: spec.init added after creation", obj("Repository"),
			[]edit{set("spec.init.autoInit", true)}, "spec.init"),
		Entry("OrgHook: spec.organization changed", obj("OrgHook"),
			[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
		Entry("RepoHook: spec.repository changed", obj("RepoHook"),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		Entry("Project: spec.repository changed", obj("Project"),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		Entry("Project: spec.templateType changed", obj("Project", set("spec.templateType", "basic_kanban")),
			[]edit{set("spec.templateType", "bug_triage")}, "spec.templateType"),
		Entry("Project: spec.templateType changed from its default", obj("Project"),
			[]edit{set("spec.templateType", "basic_kanban")}, "spec.templateType"),
		Entry("Label: spec.organization changed", obj("Label"),
			[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
		Entry("Label: spec.repository changed", obj("Label", unset("spec.organization"), set("spec.repository", "acme/web")),
			[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		Entry("Label: moved from the organization to a repository", obj("Label"),
			[]edit{unset("spec.organization"), set("spec.repository", "acme/web")}, "spec.repository"),
		// A rename to or from Owners would rename the
		// forge's Owners team, or another team to Owners.
		Entry("Team: renamed to Owners", obj("Team", set("spec.name", "admins")),
			[]edit{set("spec.name", "Owners"), set("spec.members", strs("alice"))}, "the Owners team is never renamed"),
		Entry("Team: Owners renamed", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice"))),
			[]edit{set("spec.name", "admins")}, "the Owners team is never renamed"),
		Entry("Team: metadata.name owners given another spec.name", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice"))),
			[]edit{set("spec.name", "admins")}, "the Owners team is never renamed"),
	}, immutable...)...)

	// The immutability rules must not freeze the whole object.
	DescribeTable("allows changes to mutable fields", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured, change []edit) {
			o := stored(ctx, u)
			Expect(update(ctx, o, change...)).To(Succeed())
		},
		Entry("Organization with spec.name: description and visibility", obj("Organization", set("spec.name", "acme")),
			[]edit{set("spec.description", "Acme's code"), set("spec.visibility", "private")}),
		Entry("Organization without spec.name: fullName", obj("Organization"),
			[]edit{set("spec.fullName", "Acme Corporation")}),
		Entry("OrgHook: url, type and events", obj("OrgHook"),
			[]edit{set("spec.url", "https://ci2.acme.example.com/hook"), set("spec.type", "gogs"), set("spec.events", strs("push", "release"))}),
		Entry("Project: title, state and cardType", obj("Project", set("spec.templateType", "basic_kanban")),
			[]edit{set("spec.title", "Roadmap 2027"), set("spec.state", "closed"), set("spec.cardType", "images_and_text")}),
		Entry("Label: name, colour and archived", obj("Label"),
			[]edit{set("spec.name", "kind/defect"), set("spec.color", "#ff0000"), set("spec.archived", true)}),
		Entry("RunnerSetting: disabled and runner", obj("RunnerSetting"),
			[]edit{set("spec.disabled", false), set("spec.runner", map[string]any{"id": int64(3)})}),
		Entry("Team: renamed, the old name kept as a previous name", obj("Team"),
			[]edit{set("spec.name", "web-devs"), set("spec.previousNames", strs("platform"))}),
		Entry("Team: owners given spec.name Owners (same name, another case)", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice"))),
			[]edit{set("spec.name", "Owners")}),
	}, mutable...)...)
})
