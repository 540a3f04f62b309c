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

// Repository's admission, immutability and defaults cases, run by the shared
// tables (registerKind).
var _ = registerKind("Repository", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Repository
metadata: {name: web}
spec:
  forgeRef: {name: gitea}
  owner: acme
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Repository: the base object", obj("Repository")),
			Entry("Repository: removals reported", obj("Repository",
				set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "read"}}), set("spec.removals", "Report"))),
			Entry("Repository: every setting, 25 topics and collaborators", obj("Repository",
				set("spec.name", "web.site_v2"), set("spec.previousNames", strs("website")),
				set("spec.deletionPolicy", "Archive"), set("spec.defaultMergeStyle", "fast-forward-only"),
				set("spec.topics", topics(25)), set("spec.website", ""), set("spec.archived", true),
				set("spec.init", map[string]any{"autoInit": true, "license": "MIT", "objectFormat": "sha256", "trustModel": "committer"}),
				set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "admin"}, map[string]any{"user": "bob", "permission": "read"}}))),
			Entry("Repository: from a template, git content by default", obj("Repository",
				set("spec.init.template.repository", "acme/go-service"))),
			Entry("Repository: from a template, labels and topics only, with settings", obj("Repository",
				set("spec.init.template", map[string]any{"repository": "templates/go-service", "gitContent": false, "labels": true, "topics": true}),
				set("spec.topics", strs("go")), set("spec.defaultBranch", "trunk"), set("spec.private", true))),
			Entry("Repository: from a template, every part", obj("Repository",
				set("spec.init.template", map[string]any{"repository": "acme/go-service", "gitContent": true, "topics": true, "labels": true,
					"webhooks": true, "gitHooks": true, "avatar": true, "protectedBranches": true}))),
		},
		rejected: []TableEntry{
			Entry("Repository: an unknown update style", obj("Repository", set("spec.defaultUpdateStyle", "squash")), "spec.defaultUpdateStyle"),
			Entry("Repository: a name with a space", obj("Repository", set("spec.name", "my web")), "spec.name"),
			Entry("Repository: the name ..", obj("Repository", set("spec.name", "..")), "spec.name"),
			Entry("Repository: a 101-character name", obj("Repository", set("spec.name", strings.Repeat("r", 101))), "spec.name"),
			Entry("Repository: an owner ending in a dash", obj("Repository", set("spec.owner", "acme-")), "spec.owner"),
			Entry("Repository: an upper-case topic", obj("Repository", set("spec.topics", strs("Go"))), "spec.topics[0]"),
			Entry("Repository: a topic with an underscore", obj("Repository", set("spec.topics", strs("a_b"))), "spec.topics[0]"),
			Entry("Repository: a 36-character topic", obj("Repository", set("spec.topics", strs(strings.Repeat("t", 36)))), "spec.topics[0]"),
			Entry("Repository: 26 topics", obj("Repository", set("spec.topics", topics(26))), "spec.topics"),
			Entry("Repository: a topic twice", obj("Repository", set("spec.topics", strs("go", "go"))), "spec.topics[1]"),
			Entry("Repository: an unknown merge style", obj("Repository", set("spec.defaultMergeStyle", "bogus")), "spec.defaultMergeStyle"),
			Entry("Repository: an unknown deletion policy", obj("Repository", set("spec.deletionPolicy", "Destroy")), "spec.deletionPolicy"),
			Entry("Repository: an unknown collaborator permission", obj("Repository",
				set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "owner"}})), "spec.collaborators[0].permission"),
			Entry("Repository: a collaborator twice", obj("Repository",
				set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "read"}, map[string]any{"user": "alice", "permission": "write"}})), "spec.collaborators[1]"),
			Entry("Repository: a collaborator twice in another case", obj("Repository",
				set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "read"}, map[string]any{"user": "Alice", "permission": "write"}})), "spec.collaborators"),
			Entry("Repository: a negative removal limit", obj("Repository", set("spec.maxCollaboratorRemovals", int64(-1))), "spec.maxCollaboratorRemovals"),
			Entry("Repository: unknown removals", obj("Repository", set("spec.removals", "Skip")), "spec.removals"),
			Entry("Repository: an unknown object format", obj("Repository", set("spec.init.objectFormat", "md5")), "spec.init.objectFormat"),
			Entry("Repository: a template with autoInit", obj("Repository",
				set("spec.init", map[string]any{"autoInit": true, "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
			Entry("Repository: a template with a license", obj("Repository",
				set("spec.init", map[string]any{"license": "MIT", "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
			Entry("Repository: a template with an object format", obj("Repository",
				set("spec.init", map[string]any{"objectFormat": "sha256", "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
			Entry("Repository: a template with a trust model", obj("Repository",
				set("spec.init", map[string]any{"trustModel": "committer", "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
			Entry("Repository: a template copying nothing", obj("Repository",
				set("spec.init.template", map[string]any{"repository": "acme/go-service", "gitContent": false, "labels": false})), "at least one part"),
			Entry("Repository: a template without its owner", obj("Repository",
				set("spec.init.template.repository", "go-service")), "spec.init.template.repository"),
			Entry("Repository: a template naming no repository", obj("Repository",
				set("spec.init.template", map[string]any{"labels": true})), "spec.init.template.repository"),
			Entry("Repository: its own name among the previous names", obj("Repository",
				set("spec.name", "web"), set("spec.previousNames", strs("Web"))), "spec.previousNames"),
		},
		immutable: []TableEntry{
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
		},
		defaults: []kindDefault{{
			name: "Repository: a template copies the git content unless told not to, and nothing else",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var r forgev1.Repository
				storedAs(ctx, obj("Repository", set("spec.init.template.repository", "acme/go-service")), &r)
				Expect(r.Spec.Init.Template).To(Equal(&forgev1.RepositoryTemplate{Repository: "acme/go-service", GitContent: new(true)}))
			},
		}},
	}
})
