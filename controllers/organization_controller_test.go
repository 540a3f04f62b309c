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

package controllers_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Organization", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() { ns = newNamespace() })

	newOrg := func(name string) *forgev1.Organization {
		return &forgev1.Organization{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.OrganizationSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				FullName:    ptr("Acme Corporation"),
				Description: ptr("Everything Acme builds"),
				Visibility:  ptr("limited"),
			},
		}
	}

	It("creates the organization, reports its id and makes no writes at rest", func() {
		org := newOrg("acme")
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)

		got, ok := fake.Org("acme")
		Expect(ok).To(BeTrue())
		Expect(org.Status.ID).To(Equal(got.ID))
		Expect(got.FullName).To(Equal("Acme Corporation"))
		Expect(got.Description).To(Equal("Everything Acme builds"))
		Expect(got.Visibility).To(Equal("limited"))
		Expect(org.Finalizers).To(ContainElement(forgev1.Finalizer))
		eventWithReason(org, forgev1.ReasonCreated)

		// At rest: several sync intervals pass with reads only.
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		Expect(len(fake.Requests())).To(BeNumerically(">", 0), "the drift check reads the forge")
	})

	It("adopts an existing organization instead of creating a second one", func() {
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		before, _ := fake.Org("acme")

		org := newOrg("acme")
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)
		Expect(org.Status.ID).To(Equal(before.ID))
		Expect(fake.Orgs()).To(HaveLen(1))
		got, _ := fake.Org("acme")
		Expect(got.FullName).To(Equal("Acme Corporation"))
		eventWithReason(org, forgev1.ReasonAdopted)
	})

	It("applies spec changes and corrects drift made on the forge", func() {
		org := newOrg("acme")
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)

		change(org, func(o *forgev1.Organization) { o.Spec.Description = ptr("New description") })
		Eventually(func() string { o, _ := fake.Org("acme"); return o.Description }, timeout, poll).Should(Equal("New description"))
		expectReady(org)

		// Someone edits the organization in the web UI.
		fc := forgeClient()
		_, err := fc.EditOrg(ctx, "acme", forge.EditOrgOption{FullName: ptr("Hijacked")})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string { o, _ := fake.Org("acme"); return o.FullName }, timeout, poll).Should(Equal("Acme Corporation"))
		eventWithReason(org, forgev1.ReasonDriftCorrected)
	})

	It("deletes the organization with deletionPolicy Delete and keeps it with Orphan", func() {
		del := newOrg("gone")
		del.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		kept := newOrg("kept")
		Expect(k8s.Create(ctx, del)).To(Succeed())
		Expect(k8s.Create(ctx, kept)).To(Succeed())
		expectReady(del)
		expectReady(kept)
		Expect(kept.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyOrphan), "Orphan is the Organization default")

		Expect(k8s.Delete(ctx, del)).To(Succeed())
		Expect(k8s.Delete(ctx, kept)).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, "gone"), del)) }, timeout, poll).Should(BeTrue())
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, "kept"), kept)) }, timeout, poll).Should(BeTrue())
		_, ok := fake.Org("gone")
		Expect(ok).To(BeFalse())
		_, ok = fake.Org("kept")
		Expect(ok).To(BeTrue())
	})

	It("reports DeleteBlocked while the organization owns a repository, and finishes once it is gone", func() {
		org := newOrg("busy")
		org.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)
		Expect(fake.CreateRepo("busy", "web")).To(Succeed())

		Expect(k8s.Delete(ctx, org)).To(Succeed())
		msg := expectReason(org, metav1.ConditionFalse, forgev1.ReasonDeleteBlocked)
		Expect(msg).To(ContainSubstring("deletionPolicy"))
		Expect(org.Finalizers).To(ContainElement(forgev1.Finalizer))
		eventWithReason(org, forgev1.ReasonDeleteBlocked)

		fake.DeleteRepo("busy", "web")
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, "busy"), org)) }, timeout, poll).Should(BeTrue())
		_, ok := fake.Org("busy")
		Expect(ok).To(BeFalse())
	})

	It("only reads with managementPolicy Observe, and reports drift", func() {
		_, err := fake.CreateOrg("watched")
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
		org := newOrg("watched")
		org.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, org)).To(Succeed())
		msg := expectReason(org, metav1.ConditionFalse, forgev1.ReasonDriftDetected)
		Expect(msg).To(ContainSubstring("fullName"))
		Expect(org.Status.ID).NotTo(BeZero())

		missing := newOrg("nowhere")
		missing.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, missing)).To(Succeed())
		expectReason(missing, metav1.ConditionFalse, forgev1.ReasonNotFound)

		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(k8s.Delete(ctx, org)).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, "watched"), org)) }, timeout, poll).Should(BeTrue())
		_, ok := fake.Org("watched")
		Expect(ok).To(BeTrue(), "Observe never deletes")
	})

	It("stalls the younger of two resources for one organization with Conflict", func() {
		first := newOrg("first")
		first.Spec.Name = ptr(forgev1.OwnerName("shared"))
		Expect(k8s.Create(ctx, first)).To(Succeed())
		expectReady(first)
		second := newOrg("second")
		second.Spec.Name = ptr(forgev1.OwnerName("Shared"))
		Expect(k8s.Create(ctx, second)).To(Succeed())
		msg := expectReason(second, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(ContainSubstring(ns + "/first"))
		Expect(fake.Orgs()).To(HaveLen(1))
		expectReady(first)
	})

	It("reports Rejected with the forge's message for input it refuses", func() {
		org := newOrg("api") // a reserved name: the forge answers 422
		Expect(k8s.Create(ctx, org)).To(Succeed())
		msg := expectReason(org, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("422"))
		Expect(fake.Orgs()).To(BeEmpty())
		stalled := findCondition(org, forgev1.ConditionStalled)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
	})

	It("creates exactly one organization when the create response is lost", func() {
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/api/v1/orgs", Count: 1, LostResponse: true})
		org := newOrg("once")
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)
		Expect(fake.Orgs()).To(HaveLen(1))
		got, _ := fake.Org("once")
		Expect(org.Status.ID).To(Equal(got.ID))
		expectSettled(org)
	})

	It("recovers from server errors and connection resets", func() {
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/api/v1/orgs/*", Count: 3, Status: http.StatusInternalServerError})
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/api/v1/orgs", Count: 2, Reset: true})
		org := newOrg("flaky")
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)
		Expect(fake.Orgs()).To(HaveLen(1))
	})

	It("blocks exactly spec.blockedUsers, unblocks the others by hand or not, and names the users it cannot block", func() {
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, u := range []string{"bob", "carol", "dave", "erin"} {
			fake.AddUser(u)
		}
		fc := forgeClient()
		// erin was blocked by hand before the resource existed.
		Expect(fc.BlockOrgUser(ctx, "acme", "erin")).To(Succeed())
		blocks := func() []string { return fake.OrgBlocks("acme") }

		org := newOrg("acme")
		org.Spec.BlockedUsers = []forgev1.OwnerName{"bob", "Carol"}
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)
		Eventually(blocks, timeout, poll).Should(Equal([]string{"bob", "carol"}))

		// Someone lifts bob's block in the web UI: the drift check puts it back.
		Expect(fc.UnblockOrgUser(ctx, "acme", "bob")).To(Succeed())
		Eventually(blocks, timeout, poll).Should(Equal([]string{"bob", "carol"}))
		eventWithReason(org, forgev1.ReasonDriftCorrected)

		// dave is a member (the forge refuses to block one), nosuch is no
		// user: both are named, and the rest of the list still applies.
		teams, err := fc.ListTeams(ctx, "acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(teams).NotTo(BeEmpty())
		Expect(fc.AddTeamMember(ctx, teams[0].ID, "dave")).To(Succeed())
		change(org, func(o *forgev1.Organization) {
			o.Spec.BlockedUsers = []forgev1.OwnerName{"carol", "dave", "nosuch", "erin"}
		})
		msg := expectReason(org, metav1.ConditionFalse, forgev1.ReasonUserNotFound)
		Expect(msg).To(ContainSubstring("nosuch"))
		Eventually(blocks, timeout, poll).Should(Equal([]string{"carol", "erin"}))

		change(org, func(o *forgev1.Organization) { o.Spec.BlockedUsers = []forgev1.OwnerName{"carol", "dave"} })
		msg = expectReason(org, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("dave"))
		Expect(msg).To(ContainSubstring("cannot block the user"))
		Eventually(blocks, timeout, poll).Should(Equal([]string{"carol"}))

		// An empty list unblocks everyone; unset leaves blocks alone.
		change(org, func(o *forgev1.Organization) { o.Spec.BlockedUsers = []forgev1.OwnerName{} })
		expectReady(org)
		Eventually(blocks, timeout, poll).Should(BeEmpty())
		Expect(fc.BlockOrgUser(ctx, "acme", "bob")).To(Succeed())
		change(org, func(o *forgev1.Organization) { o.Spec.BlockedUsers = nil })
		expectReady(org)
		fake.ClearRequests()
		Consistently(blocks, 2*syncInterval, poll).Should(Equal([]string{"bob"}))
		Expect(fake.WriteRequests()).To(BeEmpty())
	})
})

func findCondition(obj forgev1.ConditionsAccessor, typ string) *metav1.Condition {
	for i, c := range obj.GetConditions() {
		if c.Type == typ {
			return &obj.GetConditions()[i]
		}
	}
	return nil
}

// forgeClient talks to the fake forge as a person would, through the API.
func forgeClient() forge.Interface {
	GinkgoHelper()
	c, err := forge.New(forge.Config{URL: fakeURL, Token: token})
	Expect(err).NotTo(HaveOccurred())
	return c
}
