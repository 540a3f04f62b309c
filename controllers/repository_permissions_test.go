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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
)

// A tenant whose token belongs to a plain user reads the platform's public
// repository acme/web (the forge answers it permissions {pull} only): its
// Repository for acme/web manages nothing there, however well its spec
// matches.
var _ = Describe("Repository whose token may only read its repository", func() {
	ctx := context.Background()
	var platform, tenant string

	BeforeEach(func() {
		platform = newNamespace(fakeforge.WithUser("mallory", "mallory-token"))
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
		Expect(k8s.Create(ctx, other)).To(Succeed())
		tenant = other.Name
		DeferCleanup(func() { removeAll(tenant) })
		tokenForge(tenant, "gitea", "mallory-token")
	})

	It("stalls Unauthorized before any write, records the id, and holds nothing: the platform's Repository and RepositorySet govern the repository", func() {
		web, ok := fake.Repo("acme", "web")
		Expect(ok).To(BeTrue())
		Expect(web.Private).To(BeFalse())
		fake.ClearRequests()

		theirs := acmeRepository(tenant, "web")
		theirs.Spec.Private = ptr(false) // as the forge has it: nothing differs
		Expect(k8s.Create(ctx, theirs)).To(Succeed())
		msg := expectReason(theirs, metav1.ConditionFalse, forgev1.ReasonUnauthorized)
		Expect(msg).To(And(ContainSubstring(`Forge "gitea" may not administer acme/web`), ContainSubstring("grants it read")))
		Eventually(func(g Gomega) int64 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(theirs), theirs)).To(Succeed())
			return theirs.Status.ID
		}, timeout, poll).Should(Equal(web.ID), "the identity it read is recorded")
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty(),
			"the tenant writes nothing")

		By("the platform's own Repository for the same repository, through a token that administers it, is Ready: the tenant's record holds nothing")
		ours := acmeRepository(platform, "web")
		Expect(k8s.Create(ctx, ours)).To(Succeed())
		expectReady(ours)
		Expect(ours.Status.ID).To(Equal(web.ID))

		By("the platform's RepositorySet makes it private: the tenant's private: false holds no field")
		set := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: platform, Name: "private"},
			Spec: forgev1.RepositorySetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Settings:     &forgev1.RepositorySettings{Private: ptr(true)},
			}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		Eventually(func() bool { r, _ := fake.Repo("acme", "web"); return r.Private }, timeout, poll).Should(BeTrue())
		Expect(set.Status.InSync).To(BeEquivalentTo(1))
		Consistently(readyCondition(theirs), 2*syncInterval, poll).Should(HaveField("Status", Not(Equal(metav1.ConditionTrue))),
			"the tenant's Repository never becomes Ready")
	})
})
