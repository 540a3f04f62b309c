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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// signIn is the status of GET /user with HTTP Basic login:password.
func signIn(login, password string) func() int {
	return func() int {
		GinkgoHelper()
		req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(forgeURL, "/")+"/api/v1/user", nil)
		Expect(err).NotTo(HaveOccurred())
		req.SetBasicAuth(login, password)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		return resp.StatusCode
	}
}

// The User kind on the forge (DESIGN "User"): the site admin's accounts,
// served through a ClusterForge whose tenants entry has siteAdmin: true.
var _ = Describe("User through a ClusterForge with siteAdmin", func() {
	ctx := context.Background()

	It("creates the account with the Secret's password, writes a new one, corrects drift, deletes it, and never demotes the credentials' own user", func() {
		me, err := fc.CurrentUser(ctx)
		Expect(err).NotTo(HaveOccurred())
		prefix := unique("bu")
		name := prefix + "-ci"
		DeferCleanup(func() { rawCall(http.MethodDelete, "/api/v1/admin/users/"+name+"?purge=true", nil) })

		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-users-"}}
		Expect(k8s.Create(ctx, ns)).To(Succeed())
		DeferCleanup(func() { removeAll(ns.Name) })
		secret := unique("site-token")
		putSecret(operatorNamespace, secret, "token", token)
		cf := &forgev1.ClusterForge{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "site-"},
			Spec: forgev1.ClusterForgeSpec{
				ForgeSpec: forgev1.ForgeSpec{URL: forgeURL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: secret}}},
				Tenants: []forgev1.ClusterForgeTenant{{Namespaces: []string{ns.Name},
					Owners: []forgev1.OwnerGlob{forgev1.OwnerGlob(prefix + "-*"), forgev1.OwnerGlob(me.Login)}, SiteAdmin: true}},
			},
		}
		Expect(k8s.Create(ctx, cf)).To(Succeed())
		DeferCleanup(func() {
			removeAll(ns.Name)
			Expect(client.IgnoreNotFound(k8s.Delete(ctx, cf))).To(Succeed())
		})
		expectReady(cf)
		on := forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}}

		first, second := "Pw-"+unique("first"), "Pw-"+unique("second")
		putSecret(ns.Name, "bot-password", "password", first)
		u := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "bot"},
			Spec: forgev1.UserSpec{ManagedSpec: on, Username: forgev1.OwnerName(name), Email: name + "@example.com",
				FullName: ptr("E2E Bot"), Visibility: ptr("limited"), DeletionPolicy: forgev1.DeletionPolicyDelete,
				PasswordSecretRef: &forgev1.SecretKeySelector{Name: "bot-password", Key: "password"}}}
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReady(u)
		got, err := fc.GetUser(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Status.ID).To(Equal(got.ID))
		Expect(got.FullName).To(Equal("E2E Bot"))
		Expect(got.Visibility).To(Equal("limited"))
		Expect(got.IsAdmin).To(BeFalse())
		Expect(signIn(name, first)()).To(Equal(http.StatusOK), "the account signs in with the Secret's password")

		By("a new password in the Secret")
		putSecret(ns.Name, "bot-password", "password", second)
		Eventually(signIn(name, second), timeout, poll).Should(Equal(http.StatusOK))
		Expect(signIn(name, first)()).To(Equal(http.StatusUnauthorized))

		By("a managed field changed by hand")
		status, body := rawCall(http.MethodPatch, "/api/v1/admin/users/"+name, map[string]any{"login_name": name, "full_name": "By hand"})
		Expect(status).To(Equal(http.StatusOK), string(body))
		Eventually(func(g Gomega) string {
			got, err := fc.GetUser(ctx, name)
			g.Expect(err).NotTo(HaveOccurred())
			return got.FullName
		}, timeout, poll).Should(Equal("E2E Bot"))
		Expect(signIn(name, second)()).To(Equal(http.StatusOK), "correcting a field sends no password")

		By("the credentials' own user")
		self := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "self"},
			Spec: forgev1.UserSpec{ManagedSpec: on, Username: forgev1.OwnerName(me.Login), Email: me.Email, Admin: ptr(false)}}
		Expect(k8s.Create(ctx, self)).To(Succeed())
		Expect(expectReason(self, metav1.ConditionFalse, forgev1.ReasonProtected)).To(ContainSubstring("the operator writes nothing to it"))
		after, err := fc.CurrentUser(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(after.IsAdmin).To(BeTrue())
		deleteAndWait(self) // Orphan, the default: left as it is

		By("deleting the resource (deletionPolicy Delete)")
		deleteAndWait(u)
		_, err = fc.GetUser(ctx, name)
		Expect(forge.IsNotFound(err)).To(BeTrue(), "the account is deleted: %v", err)
	})
})
