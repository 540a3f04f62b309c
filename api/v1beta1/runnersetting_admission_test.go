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

// RunnerSetting's admission, immutability and defaults cases, run by the
// shared tables (registerKind).
var _ = registerKind("RunnerSetting", `
apiVersion: forge.forgeops.dev/v1beta1
kind: RunnerSetting
metadata: {name: acme-runner-1}
spec:
  forgeRef: {name: gitea}
  organization: acme
  runner: {name: acme-runner-1}
  disabled: true
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("RunnerSetting: the base object", obj("RunnerSetting")),
			Entry("RunnerSetting: repository runner by id", obj("RunnerSetting",
				unset("spec.organization"), set("spec.repository", "acme/web"),
				set("spec.runner", map[string]any{"id": int64(1)}))),
		},
		rejected: []TableEntry{
			// Names with surrounding whitespace: the forge trims them, and the
			// loop would patch the difference forever.
			Entry("RunnerSetting: runner name with a trailing space", obj("RunnerSetting", set("spec.runner.name", "acme-runner-1 ")), "spec.runner.name"),

			Entry("RunnerSetting: runner by both id and name", obj("RunnerSetting", set("spec.runner.id", int64(7))), "spec.runner"),
			Entry("RunnerSetting: runner by neither id nor name", obj("RunnerSetting", set("spec.runner", map[string]any{})), "spec.runner"),
			Entry("RunnerSetting: runner id 0", obj("RunnerSetting",
				set("spec.runner", map[string]any{"id": int64(0)})), "spec.runner.id"),
			Entry("RunnerSetting: negative runner id", obj("RunnerSetting",
				set("spec.runner", map[string]any{"id": int64(-3)})), "spec.runner.id"),
			Entry("RunnerSetting: empty runner name", obj("RunnerSetting", set("spec.runner.name", "")), "spec.runner.name"),
			Entry("RunnerSetting: runner missing", obj("RunnerSetting", unset("spec.runner")), "spec.runner"),
			Entry("RunnerSetting: both repository and organization", obj("RunnerSetting", set("spec.repository", "acme/web")), "spec.organization"),
			Entry("RunnerSetting: neither repository nor organization", obj("RunnerSetting", unset("spec.organization")), "spec.repository"),
			Entry("RunnerSetting: disabled missing", obj("RunnerSetting", unset("spec.disabled")), "spec.disabled"),
			Entry("RunnerSetting: disabled as a string", obj("RunnerSetting", set("spec.disabled", "yes")), "spec.disabled"),
			Entry("RunnerSetting: managementPolicy in lower case", obj("RunnerSetting", set("spec.managementPolicy", "observe")), "spec.managementPolicy"),
			Entry("RunnerSetting: syncInterval with a space", obj("RunnerSetting", set("spec.syncInterval", "1h 30m")), "spec.syncInterval"),
		},
		mutable: []TableEntry{
			Entry("RunnerSetting: disabled and runner", obj("RunnerSetting"),
				[]edit{set("spec.disabled", false), set("spec.runner", map[string]any{"id": int64(3)})}),
		},
		defaults: []kindDefault{{
			name: "RunnerSetting: Manage, Orphan",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var r forgev1.RunnerSetting
				storedAs(ctx, obj("RunnerSetting"), &r)
				Expect(r.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
				Expect(r.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyOrphan))
			},
		}},
	}
})
