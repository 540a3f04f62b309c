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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
)

// A tenant knows its own Receiver's secret and can sign any delivery with
// it: what a delivery wakes is decided by what the Receiver holds and the
// connection it goes through, never by what its spec names.
var _ = Describe("Receiver deliveries wake only what the Receiver may wake", func() {
	const url = "https://receiver.example.com"
	ctx := context.Background()
	var platform string
	var set *forgev1.RepositorySet

	BeforeEach(func() {
		platform = newNamespace(fakeforge.WithUser("dev", "dev-token"))
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		// The platform's policy over acme, checked every 10 minutes: only a
		// delivery brings it to a new repository within seconds.
		set = &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: platform, Name: "policy"}, Spec: forgev1.RepositorySetSpec{
			ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(10 * time.Minute)},
			Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
			Settings:     &forgev1.RepositorySettings{HasWiki: ptr(false)},
		}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
	})

	otherNamespace := func() string {
		GinkgoHelper()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
		Expect(k8s.Create(ctx, ns)).To(Succeed())
		DeferCleanup(func() { removeAll(ns.Name) })
		return ns.Name
	}
	newReceiver := func(ns string, ref forgev1.ForgeReference) *forgev1.Receiver {
		GinkgoHelper()
		r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "events"}, Spec: forgev1.ReceiverSpec{
			ManagedSpec:   forgev1.ManagedSpec{ForgeRef: ref, SyncInterval: every(syncInterval)},
			Organizations: []forgev1.OwnerName{"acme"}, URL: url}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		return r
	}
	secretOf := func(r *forgev1.Receiver) string {
		GinkgoHelper()
		var s corev1.Secret
		Expect(k8s.Get(ctx, key(r.Namespace, r.GeneratedSecretName()), &s)).To(Succeed())
		return string(s.Data[forgev1.ReceiverSecretKey])
	}
	// deliver posts, signed with r's secret, that acme/web was created.
	deliver := func(r *forgev1.Receiver, delivery string) int {
		GinkgoHelper()
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
		Expect(r.Status.Path).NotTo(BeEmpty())
		addr, err := receiverEndpoint.BoundAddr(ctx)
		Expect(err).NotTo(HaveOccurred())
		body := fmt.Appendf(nil, `{"action":"created","repository":{"id":7,"name":"web","full_name":"acme/web","owner":{"id":2,"login":"acme","username":"acme"}},"organization":{"id":2,"username":"acme"},"delivery":%q}`, delivery)
		req, err := http.NewRequest(http.MethodPost, "http://"+addr.String()+r.Status.Path, bytes.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("X-Gitea-Event", "repository")
		req.Header.Set("X-Gitea-Delivery", delivery)
		req.Header.Set("X-Gitea-Signature", receiver.Signature([]byte(secretOf(r)), body))
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		return resp.StatusCode
	}
	wiki := func() bool {
		repo, ok := fake.Repo("acme", "web")
		Expect(ok).To(BeTrue())
		return repo.HasWiki
	}
	// untouched checks, for a while, that the platform's set had no pass
	// and wrote nothing to acme/web.
	untouched := func(why string) {
		GinkgoHelper()
		before := passesOf("RepositorySet")
		Consistently(func(g Gomega) {
			g.Expect(passesOf("RepositorySet")).To(Equal(before), why)
			g.Expect(wiki()).To(BeTrue(), why)
		}, 3*time.Second, poll).Should(Succeed())
	}
	// woken checks that the platform's set came to acme/web at once.
	woken := func() {
		GinkgoHelper()
		Eventually(wiki, 5*time.Second, poll).Should(BeFalse(), "the platform's set was woken and wrote acme/web")
	}

	It("a tenant's Receiver whose hook on the platform's organization was refused is not served for it: its signed delivery for acme wakes nothing; the platform's own Receiver's delivery wakes the platform's set", func() {
		tenant := otherNamespace()
		tokenForge(tenant, "mine", "dev-token")
		theirs := newReceiver(tenant, forgev1.ForgeReference{Name: "mine"})
		msg := expectReason(theirs, metav1.ConditionFalse, forgev1.ReasonUnauthorized)
		Expect(msg).To(ContainSubstring("acme"))
		Expect(theirs.Status.Hooks).To(BeEmpty())
		Expect(fake.OrgHooks("acme")).To(BeEmpty(), "the forge refused the tenant's hook")

		Expect(deliver(theirs, "tenant-1")).To(Equal(http.StatusOK))
		untouched("a delivery of a Receiver that holds no hook on acme woke the platform's set")
		who := client.ObjectKeyFromObject(theirs).String()
		Expect(deliveriesOf(who, receiver.ResultAccepted)).To(BeZero(), "the Receiver is served for an organization where it holds no hook")
		Expect(deliveriesOf(who, receiver.ResultForeign)).To(Equal(1.0))

		By("control: the platform's own Receiver, holding its hook, wakes its set")
		ours := newReceiver(platform, forgev1.ForgeReference{Name: "gitea"})
		expectReady(ours)
		Expect(deliver(ours, "platform-1")).To(Equal(http.StatusOK))
		woken()
	})

	It("a tenant's Receiver holding its hook on acme through a Forge of its own wakes its own namespace only; one through a ClusterForge granting its namespace acme wakes every namespace", func() {
		tenant := otherNamespace()
		// A token that can make hooks on acme, in a Forge of the tenant's own.
		tokenForge(tenant, "mine", token)
		labels := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "std"}, Spec: forgev1.LabelSetSpec{
			ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "mine"}, SyncInterval: every(10 * time.Minute)},
			Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
			Labels:       []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}},
		}}
		Expect(k8s.Create(ctx, labels)).To(Succeed())
		expectReady(labels)
		theirs := newReceiver(tenant, forgev1.ForgeReference{Name: "mine"})
		expectReady(theirs)
		Expect(theirs.Status.Hooks).To(HaveLen(1))

		Expect(deliver(theirs, "tenant-1")).To(Equal(http.StatusOK))
		By("control: the delivery wakes the tenant's own set")
		Eventually(func() []forge.Label { return fake.Labels(forge.RepoScope("acme", "web")) }, 5*time.Second, poll).Should(
			ContainElement(HaveField("Name", "kind/bug")))
		untouched("a delivery of a Receiver on a Forge of the tenant's own woke a set of another namespace")

		By("a Receiver through a ClusterForge whose tenants entry grants its namespace acme wakes every namespace")
		shared := newTenant(nil)
		cf := newClusterForge(forgev1.ClusterForgeTenant{Namespaces: []string{shared}, Owners: []forgev1.OwnerGlob{"acme"}})
		onPlatform := newReceiver(shared, forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name})
		expectReady(onPlatform)
		Expect(deliver(onPlatform, "shared-1")).To(Equal(http.StatusOK))
		woken()
	})
})

// deliveriesOf is forge_receiver_deliveries_total of Receiver who
// (namespace/name) with result, every event.
func deliveriesOf(who, result string) float64 {
	GinkgoHelper()
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for _, f := range families {
		if f.GetName() != "forge_receiver_deliveries_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			n := 0
			for _, l := range m.GetLabel() {
				if l.GetName() == "receiver" && l.GetValue() == who || l.GetName() == "result" && l.GetValue() == result {
					n++
				}
			}
			if n == 2 {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}
