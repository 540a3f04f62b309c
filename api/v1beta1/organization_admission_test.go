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

// Organization's admission, immutability and defaults cases, run by the
// shared tables (registerKind).
var _ = registerKind("Organization", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: acme}
spec:
  forgeRef: {name: gitea}
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Organization: the base object", obj("Organization")),
			Entry("Organization: through a ClusterForge", obj("Organization", set("spec.forgeRef.kind", "ClusterForge"))),
			Entry("Organization: a 40-character name", obj("Organization", set("spec.name", name40))),
			Entry("Organization: a 40-character metadata.name standing in for spec.name", obj("Organization", set("metadata.name", name40))),
			Entry("Organization: a long metadata.name with a valid spec.name", obj("Organization",
				set("metadata.name", name41), set("spec.name", "acme"))),
			Entry("Organization: single separators, capitals and digits", obj("Organization", set("spec.name", "Acme_Corp.2-eu"))),
			Entry("Organization: empty website and e-mail clear them", obj("Organization",
				set("spec.website", ""), set("spec.email", ""))),
			Entry("Organization: syncInterval of exactly 1s", obj("Organization", set("spec.syncInterval", "1s"))),
			Entry("Organization: blocked users, and an empty list that unblocks everyone", obj("Organization",
				set("spec.blockedUsers", []any{"spammer", "Bot_2"}))),
			Entry("Organization: blockedUsers empty", obj("Organization", set("spec.blockedUsers", []any{}))),
		},
		rejected: []TableEntry{
			Entry("Organization: a forgeRef kind that is none", obj("Organization", set("spec.forgeRef.kind", "Cluster")), "spec.forgeRef.kind"),

			// Names with surrounding whitespace: the forge trims them, and the
			// loop would patch the difference forever.
			Entry("Organization: name with a leading space", obj("Organization", set("spec.name", " acme")), "spec.name"),
			Entry("Organization: fullName with a trailing space", obj("Organization", set("spec.fullName", "Acme Corp ")), "spec.fullName"),

			Entry("Organization: unknown visibility", obj("Organization", set("spec.visibility", "internal")), "spec.visibility"),
			Entry("Organization: a blocked user named twice, in another case", obj("Organization",
				set("spec.blockedUsers", []any{"spammer", "Spammer"})), "blockedUsers must not name a user twice"),
			Entry("Organization: a blocked user that is no forge name", obj("Organization",
				set("spec.blockedUsers", []any{"bad--name"})), "spec.blockedUsers[0]"),
			Entry("Organization: name with --", obj("Organization", set("spec.name", "acme--corp")), "spec.name"),
			Entry("Organization: name with ..", obj("Organization", set("spec.name", "acme..corp")), "spec.name"),
			Entry("Organization: name with __", obj("Organization", set("spec.name", "acme__corp")), "spec.name"),
			Entry("Organization: name with -.", obj("Organization", set("spec.name", "acme-.corp")), "spec.name"),
			Entry("Organization: name ending in -", obj("Organization", set("spec.name", "acme-")), "spec.name"),
			Entry("Organization: name ending in _", obj("Organization", set("spec.name", "acme_")), "spec.name"),
			Entry("Organization: name starting with -", obj("Organization", set("spec.name", "-acme")), "spec.name"),
			Entry("Organization: name with a space", obj("Organization", set("spec.name", "acme corp")), "spec.name"),
			Entry("Organization: name of 41 characters", obj("Organization", set("spec.name", name41)), "spec.name"),
			Entry("Organization: metadata.name of 41 characters standing in for spec.name", obj("Organization",
				set("metadata.name", name41)), "metadata.name"),
			Entry("Organization: metadata.name with -- standing in for spec.name", obj("Organization",
				set("metadata.name", "acme--corp")), "metadata.name"),
			Entry("Organization: ftp website", obj("Organization", set("spec.website", "ftp://acme.example.com")), "spec.website"),
			Entry("Organization: website without a scheme", obj("Organization", set("spec.website", "acme.example.com")), "spec.website"),
			Entry("Organization: e-mail without @", obj("Organization", set("spec.email", "platform")), "spec.email"),
			Entry("Organization: fullName over 100 characters", obj("Organization", set("spec.fullName", strings.Repeat("A", 101))), "spec.fullName"),
			Entry("Organization: location over 50 characters", obj("Organization", set("spec.location", strings.Repeat("B", 51))), "spec.location"),
			Entry("Organization: description over 255 characters", obj("Organization", set("spec.description", strings.Repeat("d", 256))), "spec.description"),
			Entry("Organization: unknown deletionPolicy", obj("Organization", set("spec.deletionPolicy", "Retain")), "spec.deletionPolicy"),
			Entry("Organization: unknown managementPolicy", obj("Organization", set("spec.managementPolicy", "ReadOnly")), "spec.managementPolicy"),
			Entry("Organization: syncInterval in words", obj("Organization", set("spec.syncInterval", "10 minutes")), "spec.syncInterval"),
			Entry("Organization: syncInterval in days", obj("Organization", set("spec.syncInterval", "1d")), "spec.syncInterval"),
			Entry("Organization: syncInterval under 1s", obj("Organization", set("spec.syncInterval", "500ms")), "spec.syncInterval"),
			Entry("Organization: forgeRef missing", obj("Organization", unset("spec.forgeRef")), "spec.forgeRef"),
		},
		immutable: []TableEntry{
			Entry("Organization: spec.name changed", obj("Organization", set("spec.name", "acme")),
				[]edit{set("spec.name", "acme-corp")}, "spec.name"),
			Entry("Organization: spec.name set later", obj("Organization"),
				[]edit{set("spec.name", "acme-corp")}, "spec.name"),
			Entry("Organization: spec.name removed", obj("Organization", set("spec.name", "acme-corp")),
				[]edit{unset("spec.name")}, "spec.name"),
		},
		mutable: []TableEntry{
			Entry("Organization with spec.name: description and visibility", obj("Organization", set("spec.name", "acme")),
				[]edit{set("spec.description", "Acme's code"), set("spec.visibility", "private")}),
			Entry("Organization without spec.name: fullName", obj("Organization"),
				[]edit{set("spec.fullName", "Acme Corporation")}),
		},
		defaults: []kindDefault{{
			name: "Organization: Manage, Orphan, and no other field filled in",
			check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
				var o forgev1.Organization
				storedAs(ctx, obj("Organization"), &o)
				Expect(o.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
				Expect(o.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyOrphan))
				// Unset fields are not managed: a default here would overwrite the forge's value.
				Expect(o.Spec.Name).To(BeNil())
				Expect(o.Spec.Visibility).To(BeNil())
				Expect(o.Spec.Website).To(BeNil())
				Expect(o.Spec.Email).To(BeNil())
				Expect(o.Spec.RepoAdminChangeTeamAccess).To(BeNil())
				Expect(o.Spec.SyncInterval).To(BeNil())
				Expect(o.Spec.Suspend).To(BeFalse())
			},
		}},
	}
})
