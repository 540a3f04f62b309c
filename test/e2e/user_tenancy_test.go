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
	"fmt"
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

// What a tenant with a siteAdmin entry cannot do to the platform (DESIGN
// "User"): touch the account the ClusterForge's credentials belong to, or
// make, adopt or keep a site administrator without grantAdmin. The
// ClusterForge reaches the forge through a counter of its writes: none
// may be sent.
var _ = Describe("User tenancy: the connection's account and site administrators", func() {
	ctx := context.Background()

	// siteForge makes a namespace and a ClusterForge whose one entry
	// selects it, with owners and siteAdmin, and grantAdmin as given,
	// through a write counter.
	siteForge := func(grant bool, owners ...string) (string, *forgev1.ClusterForge, *writeCounter) {
		GinkgoHelper()
		counter := newWriteCounter(forgeURL)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-site-"}}
		Expect(k8s.Create(ctx, ns)).To(Succeed())
		DeferCleanup(func() { removeAll(ns.Name) })
		secret := unique("site-token")
		putSecret(operatorNamespace, secret, "token", token)
		globs := make([]forgev1.OwnerGlob, len(owners))
		for i, o := range owners {
			globs[i] = forgev1.OwnerGlob(o)
		}
		cf := &forgev1.ClusterForge{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "site-"},
			Spec: forgev1.ClusterForgeSpec{
				ForgeSpec: forgev1.ForgeSpec{URL: counter.srv.URL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: secret}}},
				Tenants: []forgev1.ClusterForgeTenant{{Namespaces: []string{ns.Name}, Owners: globs,
					SiteAdmin: true, GrantAdmin: grant}},
			},
		}
		Expect(k8s.Create(ctx, cf)).To(Succeed())
		DeferCleanup(func() {
			removeAll(ns.Name)
			Expect(client.IgnoreNotFound(k8s.Delete(ctx, cf))).To(Succeed())
		})
		expectReady(cf)
		return ns.Name, cf, counter
	}
	on := func(cf *forgev1.ClusterForge) forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}}
	}
	noWrites := func(counter *writeCounter) {
		GinkgoHelper()
		Consistently(counter.Writes, 3*syncInterval, poll).Should(BeEmpty())
	}

	It("writes nothing to the ClusterForge's own account, named by its login in any case or recorded by its id, and adopts nothing", func() {
		me, err := fc.CurrentUser(ctx)
		Expect(err).NotTo(HaveOccurred())
		prefix := unique("pr")
		ns, cf, counter := siteForge(true, prefix+"-*", me.Login)
		Expect(cf.Status.Login).To(Equal(me.Login))
		Expect(cf.Status.UserID).To(Equal(me.ID), "the connection records its account's id")

		By("its login, in another case, with a password, an email and a demotion, deletionPolicy Delete")
		const chosen = "Tenant-Chosen-Passw0rd"
		putSecret(ns, "takeover", "password", chosen)
		byName := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "by-name"},
			Spec: forgev1.UserSpec{ManagedSpec: on(cf), Username: forgev1.OwnerName(strings.ToUpper(me.Login)),
				Email: prefix + "@example.com", FullName: ptr("Taken over"), Admin: ptr(false),
				DeletionPolicy:    forgev1.DeletionPolicyDelete,
				PasswordSecretRef: &forgev1.SecretKeySelector{Name: "takeover", Key: "password"}}}
		Expect(k8s.Create(ctx, byName)).To(Succeed())
		msg := expectReason(byName, metav1.ConditionFalse, forgev1.ReasonProtected)
		Expect(msg).To(ContainSubstring(fmt.Sprintf("its login is %q", me.Login)))
		Expect(byName.Status.ID).To(BeZero(), "the account is not adopted")
		noWrites(counter)
		Expect(signIn(me.Login, chosen)()).To(Equal(http.StatusUnauthorized), "the tenant's password is not the account's")
		deleteAndWait(byName)

		By("its id in status, under another name")
		byID := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "by-id"},
			Spec: forgev1.UserSpec{ManagedSpec: on(cf), Username: forgev1.OwnerName(prefix + "-other"),
				Email: prefix + "-other@example.com", DeletionPolicy: forgev1.DeletionPolicyDelete}}
		byID.Spec.Suspend = true
		Expect(k8s.Create(ctx, byID)).To(Succeed())
		expectReason(byID, metav1.ConditionUnknown, forgev1.ReasonSuspended)
		Eventually(func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(byID), byID); err != nil {
				return err
			}
			byID.Status.ID = me.ID
			return k8s.Status().Update(ctx, byID)
		}, timeout, poll).Should(Succeed())
		update(byID, func(u *forgev1.User) { u.Spec.Suspend = false })
		msg = expectReason(byID, metav1.ConditionFalse, forgev1.ReasonProtected)
		Expect(msg).To(ContainSubstring(fmt.Sprintf("status.id %d is its id", me.ID)))
		noWrites(counter)
		_, err = fc.GetUser(ctx, prefix+"-other")
		Expect(forge.IsNotFound(err)).To(BeTrue(), "nothing is created in its place: %v", err)

		after, err := fc.CurrentUser(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(after.Email).To(Equal(me.Email))
		Expect(after.FullName).To(Equal(me.FullName))
		Expect(after.IsAdmin).To(BeTrue())
	})

	It("makes, adopts or keeps no site administrator through siteAdmin alone; grantAdmin lets it", func() {
		prefix := unique("ga")
		ns, cf, counter := siteForge(false, prefix+"-*")
		admin := prefix + "-admin"
		status, body := rawCall(http.MethodPost, "/api/v1/admin/users", map[string]any{
			"username": admin, "email": admin + "@example.com", "password": "Pw-" + unique("x"), "must_change_password": false})
		Expect(status).To(Equal(http.StatusCreated), string(body))
		DeferCleanup(func() { rawCall(http.MethodDelete, "/api/v1/admin/users/"+admin+"?purge=true", nil) })
		status, body = rawCall(http.MethodPatch, "/api/v1/admin/users/"+admin, map[string]any{"login_name": admin, "admin": true})
		Expect(status).To(Equal(http.StatusOK), string(body))
		made := prefix + "-made"
		DeferCleanup(func() { rawCall(http.MethodDelete, "/api/v1/admin/users/"+made+"?purge=true", nil) })

		newAdmin := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "new-admin"},
			Spec: forgev1.UserSpec{ManagedSpec: on(cf), Username: forgev1.OwnerName(made), Email: made + "@example.com", Admin: ptr(true)}}
		adopted := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "adopted"},
			Spec: forgev1.UserSpec{ManagedSpec: on(cf), Username: forgev1.OwnerName(admin), Email: admin + "@example.org"}}
		Expect(k8s.Create(ctx, newAdmin)).To(Succeed())
		Expect(k8s.Create(ctx, adopted)).To(Succeed())
		Expect(expectReason(newAdmin, metav1.ConditionFalse, forgev1.ReasonNotPermitted)).To(And(
			ContainSubstring("spec.admin is true"), ContainSubstring("grantAdmin: true")))
		Expect(expectReason(adopted, metav1.ConditionFalse, forgev1.ReasonNotPermitted)).To(
			ContainSubstring(fmt.Sprintf("the account %q is a site administrator on the forge", admin)))
		Expect(adopted.Status.ID).To(BeZero(), "the administrator is not adopted")
		noWrites(counter)
		_, err := fc.GetUser(ctx, made)
		Expect(forge.IsNotFound(err)).To(BeTrue(), "no administrator is made: %v", err)
		got, err := fc.GetUser(ctx, admin)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Email).To(Equal(admin + "@example.com"))

		By("grantAdmin on the entry")
		update(cf, func(cf *forgev1.ClusterForge) { cf.Spec.Tenants[0].GrantAdmin = true })
		expectReady(newAdmin)
		expectReady(adopted)
		got, err = fc.GetUser(ctx, made)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.IsAdmin).To(BeTrue())
		got, err = fc.GetUser(ctx, admin)
		Expect(err).NotTo(HaveOccurred())
		Expect(adopted.Status.ID).To(Equal(got.ID))
		Expect(got.Email).To(Equal(admin + "@example.org"))
		Expect(got.IsAdmin).To(BeTrue())

		By("grantAdmin taken away: the administrators are kept no more")
		update(cf, func(cf *forgev1.ClusterForge) { cf.Spec.Tenants[0].GrantAdmin = false })
		expectReason(adopted, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		before := len(counter.Writes())
		update(adopted, func(u *forgev1.User) { u.Spec.Email = admin + "@example.net" })
		expectReason(adopted, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Consistently(func() int { return len(counter.Writes()) }, 3*syncInterval, poll).Should(Equal(before))
	})
})
