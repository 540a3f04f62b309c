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
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// forgeAPI sends one request to the spec's fake forge and gives its status:
// as the site admin (the suite's token), or with HTTP Basic login:password.
func forgeAPI(method, path string, body any, login, password string) int {
	GinkgoHelper()
	var data []byte
	if body != nil {
		var err error
		data, err = json.Marshal(body)
		Expect(err).NotTo(HaveOccurred())
	}
	req, err := http.NewRequestWithContext(context.Background(), method, fakeURL+"/api/v1"+path, bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	if login == "" {
		req.Header.Set("Authorization", "token "+token)
	} else {
		req.SetBasicAuth(login, password)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	return resp.StatusCode
}

// signsIn gives the status of GET /user with login's password.
func signsIn(login, password string) func() int {
	return func() int { return forgeAPI(http.MethodGet, "/user", nil, login, password) }
}

// forgeUser reads an account on the spec's fake forge.
func forgeUser(login string) func(Gomega) forge.User {
	return func(g Gomega) forge.User {
		u, ok := fake.User(login)
		g.Expect(ok).To(BeTrue(), "user %s is not on the forge", login)
		return u
	}
}

var _ = Describe("User", func() {
	ctx := context.Background()
	var ns string
	var cf *forgev1.ClusterForge

	BeforeEach(func() {
		newNamespace() // the spec's fake forge
		ns = newTenant(nil)
		cf = newClusterForge(forgev1.ClusterForgeTenant{
			Namespaces: []string{ns},
			Owners:     []forgev1.OwnerGlob{"ci-*", fakeforge.DefaultLogin},
			SiteAdmin:  true,
			GrantAdmin: true,
		})
	})

	newUser := func(username string) *forgev1.User {
		return &forgev1.User{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: username},
			Spec: forgev1.UserSpec{ManagedSpec: onCluster(cf), Username: forgev1.OwnerName(username),
				Email: username + "@example.com"},
		}
	}

	It("creates the user with the Secret's password, and writes it again only when the Secret's value changes", func() {
		const first, second = "first-Passw0rd-value", "second-Passw0rd-value"
		putSecret(ns, "ci-one-password", "password", first)
		u := newUser("ci-one")
		u.Spec.FullName, u.Spec.Visibility, u.Spec.Admin = ptr("CI One"), ptr("private"), ptr(true)
		u.Spec.PasswordSecretRef = &forgev1.SecretKeySelector{Name: "ci-one-password", Key: "password"}
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReady(u)
		eventWithReason(u, forgev1.ReasonCreated)

		got := forgeUser("ci-one")(Default)
		Expect(u.Status.ID).To(Equal(got.ID))
		Expect(got).To(Equal(forge.User{ID: got.ID, Login: "ci-one", FullName: "CI One", Email: "ci-one@example.com",
			IsAdmin: true, Active: true, Visibility: "private", LoginName: "ci-one"}))
		Expect(u.Status.AppliedSecrets).To(HaveLen(1))
		Expect(u.Status.AppliedSecrets[0].Field).To(Equal("passwordSecretRef"))
		Expect(signsIn("ci-one", first)()).To(Equal(http.StatusOK), "the user signs in with the Secret's password, and need not change it")
		edits := writesTo("/admin/users/ci-one")
		Expect(edits).To(Equal(1), "the edit that makes the created user an admin")

		// At rest, and on a requested pass: the password is not sent again.
		change(u, func(u *forgev1.User) {
			u.Annotations = map[string]string{forgev1.ReconcileRequestedAtAnnotation: "now"}
		})
		Consistently(func() int { return writesTo("/admin/users/ci-one") }, 3*syncInterval, poll).Should(Equal(edits))

		// A write to the Secret that keeps the value sends nothing.
		putSecret(ns, "ci-one-password", "unrelated", "x")
		Consistently(func() int { return writesTo("/admin/users/ci-one") }, 2*syncInterval, poll).Should(Equal(edits))

		// A new value is written once, and the user signs in with it.
		putSecret(ns, "ci-one-password", "password", second)
		Eventually(signsIn("ci-one", second), timeout, poll).Should(Equal(http.StatusOK))
		Expect(signsIn("ci-one", first)()).To(Equal(http.StatusUnauthorized))
		Consistently(func() int { return writesTo("/admin/users/ci-one") }, 3*syncInterval, poll).Should(Equal(edits + 1))
		Expect(leaks(u, first, second)).To(BeEmpty())

		// mustChangePassword goes with the next password written.
		change(u, func(u *forgev1.User) { u.Spec.MustChangePassword = ptr(true) })
		Consistently(func() int { return writesTo("/admin/users/ci-one") }, 2*syncInterval, poll).Should(Equal(edits + 1))
		putSecret(ns, "ci-one-password", "password", first)
		Eventually(signsIn("ci-one", first), timeout, poll).Should(Equal(http.StatusForbidden), "it signs in, and must change the password first")
	})

	It("creates a user without a Secret with a password nobody knows, and sets what the create cannot", func() {
		u := newUser("ci-locked")
		u.Spec.Active, u.Spec.ProhibitLogin, u.Spec.Restricted = ptr(false), ptr(true), ptr(true)
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReady(u)
		Expect(forgeUser("ci-locked")(Default)).To(And(
			HaveField("Active", false), HaveField("ProhibitLogin", true), HaveField("Restricted", true), HaveField("IsAdmin", false)))
		Expect(u.Status.AppliedSecrets).To(BeEmpty())
	})

	It("adopts an existing user by its name in any case, writing nothing", func() {
		fake.AddUser("CI-Adopted") // its email is CI-Adopted@example.com
		before := forgeUser("CI-Adopted")(Default)
		fake.ClearRequests()
		u := newUser("ci-adopted")
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReady(u)
		Expect(u.Status.ID).To(Equal(before.ID))
		eventWithReason(u, forgev1.ReasonAdopted)
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(forgeUser("CI-Adopted")(Default)).To(Equal(before))
	})

	It("sets drifted managed fields back and leaves the others", func() {
		u := newUser("ci-drift")
		u.Spec.FullName, u.Spec.Restricted = ptr("Drift"), ptr(false)
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReady(u)

		Expect(forgeAPI(http.MethodPatch, "/admin/users/ci-drift", map[string]any{"login_name": "ci-drift",
			"full_name": "Changed by hand", "restricted": true, "visibility": "limited", "email": "elsewhere@example.com"}, "", "")).
			To(Equal(http.StatusOK))
		Eventually(forgeUser("ci-drift"), timeout, poll).Should(And(
			HaveField("FullName", "Drift"), HaveField("Restricted", false), HaveField("Email", "ci-drift@example.com")))
		Expect(forgeUser("ci-drift")(Default).Visibility).To(Equal("limited"), "visibility is not managed")
		eventWithReason(u, forgev1.ReasonDriftCorrected)
	})

	It("is refused by the forge while the user owns a repository, deletes it once it does not; Orphan leaves the user", func() {
		owner := newUser("ci-owner")
		owner.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		orphan := newUser("ci-orphan")
		Expect(k8s.Create(ctx, owner)).To(Succeed())
		Expect(k8s.Create(ctx, orphan)).To(Succeed())
		expectReady(owner)
		expectReady(orphan)
		Expect(fake.CreateRepo("ci-owner", "tools")).To(Succeed())

		Expect(k8s.Delete(ctx, owner)).To(Succeed())
		msg := expectReason(owner, metav1.ConditionFalse, forgev1.ReasonDeleteBlocked)
		Expect(msg).To(ContainSubstring("user still has ownership of repositories"))
		Expect(msg).To(ContainSubstring("deletionPolicy to Orphan"))
		forgeUser("ci-owner")(Default)
		_, ok := fake.Repo("ci-owner", "tools")
		Expect(ok).To(BeTrue(), "a delete never purges the user's repositories")

		fake.DeleteRepo("ci-owner", "tools")
		gone(owner)
		_, ok = fake.User("ci-owner")
		Expect(ok).To(BeFalse())

		Expect(k8s.Delete(ctx, orphan)).To(Succeed())
		gone(orphan)
		forgeUser("ci-orphan")(Default)
		Expect(writesTo("/admin/users/ci-orphan")).To(BeZero())
	})

	It("writes nothing to the account the ClusterForge's credentials belong to, named in any case, adopts nothing, and lets the resource go", func() {
		putSecret(ns, "takeover", "password", "Tenant-Chosen-Passw0rd")
		me := newUser("self")
		me.Spec.Username = forgev1.OwnerName(strings.ToUpper(fakeforge.DefaultLogin))
		me.Spec.Email, me.Spec.FullName, me.Spec.Admin = "tenant@example.com", ptr("Tenant"), ptr(false)
		me.Spec.PasswordSecretRef = &forgev1.SecretKeySelector{Name: "takeover", Key: "password"}
		me.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		before := forgeUser(fakeforge.DefaultLogin)(Default)
		fake.ClearRequests()
		Expect(k8s.Create(ctx, me)).To(Succeed())
		msg := expectReason(me, metav1.ConditionFalse, forgev1.ReasonProtected)
		Expect(msg).To(ContainSubstring(`is the account the credentials of ClusterForge "` + cf.Name + `" belong to (its login is "` + fakeforge.DefaultLogin + `")`))
		Expect(findCondition(me, forgev1.ConditionStalled)).NotTo(BeNil())
		Expect(me.Status.ID).To(BeZero(), "the account is not adopted")
		Expect(me.Finalizers).To(BeEmpty())
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(forgeUser(fakeforge.DefaultLogin)(Default)).To(Equal(before))
		Expect(signsIn(fakeforge.DefaultLogin, "Tenant-Chosen-Passw0rd")()).To(Equal(http.StatusUnauthorized))

		Expect(k8s.Delete(ctx, me)).To(Succeed())
		gone(me)
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(forgeUser(fakeforge.DefaultLogin)(Default)).To(Equal(before))
	})

	It("is not served through a tenants entry without siteAdmin", func() {
		other := newTenant(nil)
		plain := newClusterForge(forgev1.ClusterForgeTenant{Namespaces: []string{other}, Owners: []forgev1.OwnerGlob{"*"}})
		u := newUser("ci-plain")
		u.Namespace, u.Spec.ManagedSpec = other, onCluster(plain)
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReason(u, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Consistently(func() bool { _, ok := fake.User("ci-plain"); return ok }, 2*syncInterval, poll).Should(BeFalse())
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(u), u)).To(Succeed())
		Expect(u.Finalizers).To(BeEmpty())
	})
})
