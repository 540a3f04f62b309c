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
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Grants bind objects, not names (DESIGN "Reconciliation semantics"): a
// tenant granted pa-* keeps its grant of the name pa-tools after the
// platform renames that organization to one the tenant was never given;
// Gitea answers the old name with a redirect to the new one, and nothing
// the tenant writes under the old name reaches it.
var _ = Describe("An organization renamed away from a tenant", func() {
	ctx := context.Background()

	It("is Moved under its old name: the tenant's Organization and Team write nothing to it", func() {
		pa := unique("mva")
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-moved-"}}
		Expect(k8s.Create(ctx, ns)).To(Succeed())
		DeferCleanup(func() { removeAll(ns.Name) })
		secret := unique("moved-token")
		putSecret(operatorNamespace, secret, "token", token)
		cf := &forgev1.ClusterForge{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "moved-"},
			Spec: forgev1.ClusterForgeSpec{
				ForgeSpec: forgev1.ForgeSpec{URL: forgeURL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: secret}}},
				Tenants:   []forgev1.ClusterForgeTenant{{Namespaces: []string{ns.Name}, Owners: []forgev1.OwnerGlob{forgev1.OwnerGlob(pa + "-*")}}},
			},
		}
		Expect(k8s.Create(ctx, cf)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, cf))).To(Succeed()) })
		expectReady(cf)
		on := forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}}
		tenantUser := newUser()

		By("the tenant makes its organization " + pa + "-tools")
		old, renamed := pa+"-tools", unique("shared-tools")
		DeferCleanup(func() {
			_ = fc.DeleteOrg(ctx, renamed)
			_ = fc.DeleteOrg(ctx, old)
		})
		org := &forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: old},
			Spec: forgev1.OrganizationSpec{ManagedSpec: on, Description: ptr("team org")}}
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)

		By("the platform renames it to " + renamed + ", which the tenant was never given")
		status, body := rawCall(http.MethodPost, "/api/v1/orgs/"+old+"/rename", map[string]string{"new_name": renamed})
		Expect(status).To(Equal(http.StatusNoContent), string(body))
		writesBefore := 0
		if !live {
			writesBefore = len(fake.WriteRequests())
		}

		By("the tenant writes under the old name: its Organization and a Team making itself an owner")
		update(org, func(o *forgev1.Organization) { o.Spec.Description = ptr("written through the old name") })
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "owners"},
			Spec: forgev1.TeamSpec{ManagedSpec: on, Organization: forgev1.OwnerName(old), Name: ptr(forgev1.TeamName("Owners")),
				Members: []forgev1.OwnerName{forgev1.OwnerName(tenantUser)}}}
		Expect(k8s.Create(ctx, team)).To(Succeed())
		for _, obj := range []client.Object{org, team} {
			Expect(expectReason(obj, metav1.ConditionFalse, forgev1.ReasonMoved)).
				To(ContainSubstring("/orgs/" + renamed))
		}
		untouched := func(g Gomega) {
			got, err := fc.GetOrg(ctx, renamed)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Description).To(Equal("team org"))
			teams, err := fc.ListTeams(ctx, renamed)
			g.Expect(err).NotTo(HaveOccurred())
			i := slices.IndexFunc(teams, func(t forge.Team) bool { return t.Name == "Owners" })
			g.Expect(i).To(BeNumerically(">=", 0))
			members, err := fc.ListTeamMembers(ctx, teams[i].ID)
			g.Expect(err).NotTo(HaveOccurred())
			for _, m := range members {
				g.Expect(strings.EqualFold(m.Login, tenantUser)).To(BeFalse(), "the tenant is an owner of %s", renamed)
			}
		}
		Consistently(untouched, 2*syncInterval, poll).Should(Succeed())
		if !live {
			Expect(fake.WriteRequests()[writesBefore:]).To(BeEmpty(), "nothing written through the old name")
		}

		By("deleting them leaves the renamed organization where it is")
		deleteAndWait(team)
		deleteAndWait(org)
		Expect(fc.GetOrg(ctx, renamed)).Error().NotTo(HaveOccurred())
	})
})
