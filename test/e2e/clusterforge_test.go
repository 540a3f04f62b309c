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

package e2e

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// operatorNamespace is the manager's own namespace in this suite: the
// ClusterForges' Secrets live there.
const operatorNamespace = "forge-operator-system"

// One ClusterForge for two teams (DESIGN "ClusterForge"): the platform
// owns the token; team A's namespace is selected by a label, team B's by a
// regular expression, each granted its own organizations by a glob. Each
// manages its own; neither writes under the other's; a namespace no entry
// selects writes nothing; relabelling a namespace stops its writes;
// deleting the ClusterForge waits while it is in use.
var _ = Describe("One ClusterForge for two teams", func() {
	ctx := context.Background()

	It("serves each team its own organizations, and nothing of the other's", func() {
		pa, pb := unique("cfa"), unique("cfb") // owner prefixes of team A and team B
		tenant := func(labels map[string]string) string {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-team-", Labels: labels}}
			Expect(k8s.Create(ctx, ns)).To(Succeed())
			DeferCleanup(func() { removeAll(ns.Name) })
			return ns.Name
		}
		label := unique("team")
		nsA := tenant(map[string]string{"forge.forgeops.dev/tenant": label})
		nsB := tenant(nil)
		nsC := tenant(nil)

		secret := unique("shared-token")
		putSecret(operatorNamespace, secret, "token", token)
		cf := &forgev1.ClusterForge{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "shared-"},
			Spec: forgev1.ClusterForgeSpec{
				ForgeSpec: forgev1.ForgeSpec{URL: forgeURL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: secret}}},
				Tenants: []forgev1.ClusterForgeTenant{
					{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"forge.forgeops.dev/tenant": label}},
						Owners: []forgev1.OwnerGlob{forgev1.OwnerGlob(pa + "-*")}},
					{NamespaceRegexes: []forgev1.NamespaceRegex{forgev1.NamespaceRegex("^" + nsB + "$")},
						Owners: []forgev1.OwnerGlob{forgev1.OwnerGlob(pb + "-*")}},
				},
			},
		}
		Expect(k8s.Create(ctx, cf)).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(k8s.Delete(ctx, cf))).To(Succeed())
		})
		expectReady(cf)

		on := forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}}
		org := func(ns, name string) *forgev1.Organization {
			DeferCleanup(func() { _ = fc.DeleteOrg(ctx, name) })
			return &forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.OrganizationSpec{ManagedSpec: on, Description: ptr("team org")}}
		}
		orgA, orgB := org(nsA, pa+"-web"), org(nsB, pb+"-web")
		Expect(k8s.Create(ctx, orgA)).To(Succeed())
		Expect(k8s.Create(ctx, orgB)).To(Succeed())
		expectReady(orgA)
		expectReady(orgB)
		for _, name := range []string{orgA.Name, orgB.Name} {
			got, err := fc.GetOrg(ctx, name)
			Expect(err).NotTo(HaveOccurred(), name)
			Expect(got.Description).To(Equal("team org"))
		}

		By("naming the other team's owner, or from a namespace no entry selects")
		writesBefore := 0
		if !live {
			writesBefore = len(fake.WriteRequests())
		}
		crossA := org(nsA, pb+"-api")
		crossB := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: nsB, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: on, Owner: forgev1.OwnerName(orgA.Name), DeletionPolicy: "Delete"}}
		outsider := org(nsC, pa+"-outside")
		for _, o := range []client.Object{crossA, crossB, outsider} {
			Expect(k8s.Create(ctx, o)).To(Succeed())
		}
		Expect(expectReason(crossA, metav1.ConditionFalse, forgev1.ReasonNotPermitted)).
			To(ContainSubstring(`does not let namespace ` + nsA + ` manage "` + pb + `-api"`))
		Expect(expectReason(crossB, metav1.ConditionFalse, forgev1.ReasonNotPermitted)).
			To(ContainSubstring(`manage "` + orgA.Name + `"`))
		Expect(expectReason(outsider, metav1.ConditionFalse, forgev1.ReasonNotPermitted)).
			To(ContainSubstring("does not serve namespace " + nsC))
		absent := func(g Gomega) {
			_, err := fc.GetOrg(ctx, crossA.Name)
			g.Expect(forge.IsNotFound(err)).To(BeTrue(), "no organization %s: %v", crossA.Name, err)
			_, err = fc.GetOrg(ctx, outsider.Name)
			g.Expect(forge.IsNotFound(err)).To(BeTrue(), "no organization %s: %v", outsider.Name, err)
			_, err = fc.GetRepo(ctx, orgA.Name, "web")
			g.Expect(forge.IsNotFound(err)).To(BeTrue(), "no repository %s/web: %v", orgA.Name, err)
		}
		Consistently(absent, 2*syncInterval, poll).Should(Succeed())
		if !live {
			Expect(fake.WriteRequests()[writesBefore:]).To(BeEmpty(), "nothing written for them")
		}

		By("removing team A's label: its writes stop at once")
		relabel := func(v string) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsA}}
			update(ns, func(ns *corev1.Namespace) {
				if v == "" {
					delete(ns.Labels, "forge.forgeops.dev/tenant")
					return
				}
				ns.Labels["forge.forgeops.dev/tenant"] = v
			})
		}
		relabel("")
		expectReason(orgA, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		update(orgA, func(o *forgev1.Organization) { o.Spec.Description = ptr("changed while unlabelled") })
		expectReason(orgA, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Consistently(func(g Gomega) string {
			got, err := fc.GetOrg(ctx, orgA.Name)
			g.Expect(err).NotTo(HaveOccurred())
			return got.Description
		}, 2*syncInterval, poll).Should(Equal("team org"))
		relabel(label)
		expectReady(orgA)
		Eventually(func(g Gomega) string {
			got, err := fc.GetOrg(ctx, orgA.Name)
			g.Expect(err).NotTo(HaveOccurred())
			return got.Description
		}, timeout, poll).Should(Equal("changed while unlabelled"))

		By("deleting the ClusterForge while its teams use it")
		Expect(k8s.Delete(ctx, cf)).To(Succeed())
		msg := expectReason(cf, metav1.ConditionFalse, forgev1.ReasonInUse)
		Expect(msg).To(ContainSubstring("resources still use it"))
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cf), cf)).To(Succeed())
		Expect(cf.Status.InUse).To(BeEquivalentTo(2), "its two teams' organizations; the resources it does not permit do not keep it")
		Expect(msg).NotTo(ContainSubstring(orgA.Name), "tenants may read it: its users are counted, not named")
		for _, ns := range []string{nsA, nsB, nsC} {
			removeAll(ns)
		}
		Eventually(func() bool {
			err := k8s.Get(ctx, client.ObjectKeyFromObject(cf), cf)
			return err != nil && strings.Contains(err.Error(), "not found")
		}, timeout, poll).Should(BeTrue(), "the ClusterForge goes once nothing uses it")
	})
})
