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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// The defaults are part of the contract: the controllers read them from the
// stored object, so they must be there after a create that omits them.
var _ = Describe("defaults", func() {
	_, _, _, _, defaults := kindRows()
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx, "defaults")
	})

	// storedAs creates u and reads the stored object back into out.
	storedAs := func(ctx SpecContext, u *unstructured.Unstructured, out client.Object) {
		GinkgoHelper()
		u.SetNamespace(ns)
		Expect(k8sClient.Create(ctx, u)).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), out)).To(Succeed())
	}

	It("Forge: timeout 30s, token key token, CA key ca.crt, rateLimit 10/20 when rateLimit is given", func(ctx SpecContext) {
		var f forgev1.Forge
		storedAs(ctx, obj("Forge", set("spec.rateLimit", map[string]any{}), set("spec.tls.caSecretRef.name", "gitea-ca")), &f)
		Expect(f.Spec.Timeout).NotTo(BeNil())
		Expect(f.Spec.Timeout.Duration).To(Equal(30 * time.Second))
		Expect(f.Spec.Auth.TokenSecretRef.Key).To(Equal("token"))
		Expect(f.Spec.TLS.CASecretRef.Key).To(Equal("ca.crt"))
		Expect(f.Spec.RateLimit).To(Equal(&forgev1.RateLimit{QPS: 10, Burst: 20}))
	})

	It("Forge: no rateLimit when none is given, explicit values kept", func(ctx SpecContext) {
		var f forgev1.Forge
		storedAs(ctx, obj("Forge",
			set("spec.timeout", "5s"),
			set("spec.auth.tokenSecretRef.key", "access-token"),
			set("spec.tls.caSecretRef", map[string]any{"name": "gitea-ca", "key": "bundle.pem"})), &f)
		Expect(f.Spec.RateLimit).To(BeNil())
		Expect(f.Spec.Timeout.Duration).To(Equal(5 * time.Second))
		Expect(f.Spec.Auth.TokenSecretRef.Key).To(Equal("access-token"))
		Expect(f.Spec.TLS.CASecretRef.Key).To(Equal("bundle.pem"))
	})

	It("Forge: a rateLimit with only qps gets burst 20", func(ctx SpecContext) {
		var f forgev1.Forge
		storedAs(ctx, obj("Forge", set("spec.rateLimit.qps", 2.5)), &f)
		Expect(f.Spec.RateLimit).To(Equal(&forgev1.RateLimit{QPS: 2.5, Burst: 20}))
	})

	// The API review (docs/api.md): every kind stores the deletionPolicy it
	// acts on, these four included, which defaulted in code alone before.
	It("ActionsSecret, ActionsVariable, Team and RunnerRegistrationToken store deletionPolicy Delete", func(ctx SpecContext) {
		for _, kind := range []string{"ActionsSecret", "ActionsVariable", "Team", "RunnerRegistrationToken"} {
			u := obj(kind)
			stored := &unstructured.Unstructured{}
			stored.SetGroupVersionKind(u.GroupVersionKind())
			storedAs(ctx, u, stored)
			Expect(stored.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("deletionPolicy", "Delete")), kind)
		}
	})

	It("Organization: Manage, Orphan, and no other field filled in", func(ctx SpecContext) {
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
	})

	It("OrgHook: contentType json, active true, events [push], Manage, Delete", func(ctx SpecContext) {
		var h forgev1.OrgHook
		storedAs(ctx, obj("OrgHook"), &h)
		Expect(h.Spec.ContentType).To(Equal("json"))
		Expect(h.Spec.Active).To(HaveValue(BeTrue()))
		Expect(h.Spec.Events).To(Equal([]forgev1.HookEvent{"push"}))
		Expect(h.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
		Expect(h.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
	})

	It("OrgHook: an explicit active: false stays false (the forge's own default is false, ours true)", func(ctx SpecContext) {
		var h forgev1.OrgHook
		storedAs(ctx, obj("OrgHook", set("spec.active", false), set("spec.events", strs("release"))), &h)
		Expect(h.Spec.Active).To(HaveValue(BeFalse()))
		Expect(h.Spec.Events).To(Equal([]forgev1.HookEvent{"release"}))
	})

	It("RepoHook: OrgHook's defaults", func(ctx SpecContext) {
		var h forgev1.RepoHook
		storedAs(ctx, obj("RepoHook"), &h)
		Expect(h.Spec.ContentType).To(Equal("json"))
		Expect(h.Spec.Active).To(HaveValue(BeTrue()))
		Expect(h.Spec.Events).To(Equal([]forgev1.HookEvent{"push"}))
		Expect(h.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
		Expect(h.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
	})

	It("Label: Manage, Delete", func(ctx SpecContext) {
		var l forgev1.Label
		storedAs(ctx, obj("Label"), &l)
		Expect(l.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
		Expect(l.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
		Expect(l.Spec.Exclusive).To(BeNil())
		Expect(l.Spec.Archived).To(BeNil())
	})

	It("Project: cardType text_only, templateType none, state open, Manage, Delete", func(ctx SpecContext) {
		var p forgev1.Project
		storedAs(ctx, obj("Project"), &p)
		Expect(p.Spec.CardType).To(Equal("text_only"))
		Expect(p.Spec.TemplateType).To(Equal("none"))
		Expect(p.Spec.State).To(Equal("open"))
		Expect(p.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
		Expect(p.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete))
	})

	It("RunnerSetting: Manage, Orphan", func(ctx SpecContext) {
		var r forgev1.RunnerSetting
		storedAs(ctx, obj("RunnerSetting"), &r)
		Expect(r.Spec.ManagementPolicy).To(Equal(forgev1.ManagementPolicyManage))
		Expect(r.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyOrphan))
	})

	It("Repository: a template copies the git content unless told not to, and nothing else", func(ctx SpecContext) {
		var r forgev1.Repository
		storedAs(ctx, obj("Repository", set("spec.init.template.repository", "acme/go-service")), &r)
		Expect(r.Spec.Init.Template).To(Equal(&forgev1.RepositoryTemplate{Repository: "acme/go-service", GitContent: new(true)}))
	})

	// The kinds that keep their cases in their own file (registerKind).
	for _, d := range defaults {
		It(d.name, func(ctx SpecContext) { d.check(ctx, storedAs) })
	}
})
