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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// RepoHook's admission, immutability and defaults cases, run by the shared
// tables (registerKind).
var _ = registerKind("RepoHook", `
apiVersion: forge.forgeops.dev/v1beta1
kind: RepoHook
metadata: {name: acme-web-ci}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  type: gitea
  url: https://ci.acme.example.com/hooks/web
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("RepoHook: the base object", obj("RepoHook")),
		},
		rejected: []TableEntry{
			// RepoHook shares OrgHook's fields; its own rules are checked once.
			Entry("RepoHook: neither url nor urlSecretRef", obj("RepoHook", unset("spec.url")), "spec.urlSecretRef"),
			Entry("RepoHook: slack without config", obj("RepoHook", set("spec.type", "slack")), "spec.config"),
			Entry("RepoHook: repository without owner", obj("RepoHook", set("spec.repository", "web")), "spec.repository"),
			Entry("RepoHook: unknown event", obj("RepoHook", set("spec.events", strs("push", "pushes"))), "spec.events[1]"),
		},
		immutable: []TableEntry{
			Entry("RepoHook: spec.repository changed", obj("RepoHook"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository"),
		},
		defaults: []kindDefault{{
			name: "RepoHook: OrgHook's defaults",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var h forgev1.RepoHook
				storedAs(ctx, obj("RepoHook"), &h)
				Expect(h.Spec.ContentType).To(Equal("json"))
				Expect(h.Spec.Active).To(HaveValue(BeTrue()))
				Expect(h.Spec.Events).To(Equal([]forgev1.HookEvent{"push"}))
				Expect(h.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
				Expect(h.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
			},
		}},
	}
})
