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

// OrgHook's admission, immutability and defaults cases, run by the shared
// tables (registerKind).
var _ = registerKind("OrgHook", `
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: acme-ci}
spec:
  forgeRef: {name: gitea}
  organization: acme
  type: gitea
  url: https://ci.acme.example.com/hooks/gitea
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("OrgHook: the base object", obj("OrgHook")),
			Entry("OrgHook: url from a Secret", obj("OrgHook",
				unset("spec.url"), set("spec.urlSecretRef", map[string]any{"name": "ci-hook", "key": "url"}))),
			Entry("OrgHook: slack with a channel", obj("OrgHook",
				set("spec.type", "slack"), set("spec.config", map[string]any{"channel": "#dev", "username": "gitea"}))),
			Entry("OrgHook: every group event once", obj("OrgHook",
				set("spec.events", strs("issues", "issues_only", "pull_request", "pull_request_only", "workflow_run")))),
		},
		rejected: []TableEntry{
			// Names with surrounding whitespace: the forge trims them, and the
			// loop would patch the difference forever.
			Entry("OrgHook: name with a trailing space", obj("OrgHook", set("spec.name", "ci ")), "spec.name"),

			Entry("OrgHook: unknown type", obj("OrgHook", set("spec.type", "jenkins")), "spec.type"),
			Entry("OrgHook: type missing", obj("OrgHook", unset("spec.type")), "spec.type"),
			Entry("OrgHook: unknown contentType", obj("OrgHook", set("spec.contentType", "xml")), "spec.contentType"),
			Entry("OrgHook: unknown event", obj("OrgHook", set("spec.events", strs("push", "pushes"))), "spec.events[1]"),
			Entry("OrgHook: event in the wrong case", obj("OrgHook", set("spec.events", strs("Push"))), "spec.events[0]"),
			Entry("OrgHook: duplicate event", obj("OrgHook", set("spec.events", strs("push", "push"))), "spec.events[1]"),
			Entry("OrgHook: duplicate group event further down", obj("OrgHook",
				set("spec.events", strs("issues", "push", "issues"))), "spec.events[2]"),
			Entry("OrgHook: both url and urlSecretRef", obj("OrgHook",
				set("spec.urlSecretRef", map[string]any{"name": "ci-hook", "key": "url"})), "spec.urlSecretRef"),
			Entry("OrgHook: neither url nor urlSecretRef", obj("OrgHook", unset("spec.url")), "spec.urlSecretRef"),
			Entry("OrgHook: ftp url", obj("OrgHook", set("spec.url", "ftp://ci.acme.example.com/hook")), "spec.url"),
			Entry("OrgHook: urlSecretRef without a key", obj("OrgHook",
				unset("spec.url"), set("spec.urlSecretRef", map[string]any{"name": "ci-hook"})), "spec.urlSecretRef.key"),
			Entry("OrgHook: secretRef key with a space", obj("OrgHook",
				set("spec.secretRef", map[string]any{"name": "acme-webhook", "key": "web hook"})), "spec.secretRef.key"),
			Entry("OrgHook: slack without config", obj("OrgHook", set("spec.type", "slack")), "spec.config"),
			Entry("OrgHook: slack config without channel", obj("OrgHook",
				set("spec.type", "slack"), set("spec.config", map[string]any{"username": "gitea"})), "spec.config"),
			Entry("OrgHook: slack with an empty channel", obj("OrgHook",
				set("spec.type", "slack"), set("spec.config", map[string]any{"channel": ""})), "spec.config"),
			Entry("OrgHook: config holds url", obj("OrgHook", set("spec.config.url", "https://evil.example.com")), "spec.config"),
			Entry("OrgHook: config holds content_type", obj("OrgHook", set("spec.config.content_type", "form")), "spec.config"),
			Entry("OrgHook: config holds secret", obj("OrgHook", set("spec.config.secret", "s3cr3t")), "spec.config"),
			Entry("OrgHook: organization with __", obj("OrgHook", set("spec.organization", "acme__corp")), "spec.organization"),
			Entry("OrgHook: organization ending in .", obj("OrgHook", set("spec.organization", "acme.")), "spec.organization"),
			Entry("OrgHook: branchFilter over 255 characters", obj("OrgHook", set("spec.branchFilter", strings.Repeat("b", 256))), "spec.branchFilter"),
			Entry("OrgHook: active as a string", obj("OrgHook", set("spec.active", "yes")), "spec.active"),
			Entry("OrgHook: unknown deletionPolicy", obj("OrgHook", set("spec.deletionPolicy", "Purge")), "spec.deletionPolicy"),
		},
		immutable: []TableEntry{
			Entry("OrgHook: spec.organization changed", obj("OrgHook"),
				[]edit{set("spec.organization", "acme-labs")}, "spec.organization"),
		},
		mutable: []TableEntry{
			Entry("OrgHook: url, type and events", obj("OrgHook"),
				[]edit{set("spec.url", "https://ci2.acme.example.com/hook"), set("spec.type", "gogs"), set("spec.events", strs("push", "release"))}),
		},
		defaults: []kindDefault{
			{
				name: "OrgHook: contentType json, active true, events [push], Manage, Delete",
				check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
					var h forgev1.OrgHook
					storedAs(ctx, obj("OrgHook"), &h)
					Expect(h.Spec.ContentType).To(Equal("json"))
					Expect(h.Spec.Active).To(HaveValue(BeTrue()))
					Expect(h.Spec.Events).To(Equal([]forgev1.HookEvent{"push"}))
					Expect(h.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
					Expect(h.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
				},
			},
			{
				name: "OrgHook: an explicit active: false stays false (the forge's own default is false, ours true)",
				check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
					var h forgev1.OrgHook
					storedAs(ctx, obj("OrgHook", set("spec.active", false), set("spec.events", strs("release"))), &h)
					Expect(h.Spec.Active).To(HaveValue(BeFalse()))
					Expect(h.Spec.Events).To(Equal([]forgev1.HookEvent{"release"}))
				},
			},
		},
	}
})
