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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("RunnerRegistrationToken", func() {
	var ns string
	ctx := context.Background()
	acme := forge.OrgScope("acme")

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
	})

	newToken := func(name string) *forgev1.RunnerRegistrationToken {
		return &forgev1.RunnerRegistrationToken{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RunnerRegistrationTokenSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"},
				SyncInterval: every(syncInterval)}, Organization: ptr(forgev1.OwnerName("acme")), SecretName: name}}
	}
	// requests counts the token requests the fake forge was sent.
	requests := func() int { return writesTo("/registration-token") }
	secretOf := func(name string) *corev1.Secret {
		GinkgoHelper()
		s := &corev1.Secret{}
		Expect(k8s.Get(ctx, key(ns, name), s)).To(Succeed())
		return s
	}
	tokenIn := func(name string) func() string {
		return func() string {
			s := &corev1.Secret{}
			if err := k8s.Get(ctx, key(ns, name), s); err != nil {
				return ""
			}
			return string(s.Data["token"])
		}
	}
	annotate := func(t *forgev1.RunnerRegistrationToken, name, value string) {
		change(t, func(t *forgev1.RunnerRegistrationToken) { metav1.SetMetaDataAnnotation(&t.ObjectMeta, name, value) })
	}
	handledRotate := func(t *forgev1.RunnerRegistrationToken) func() string {
		return func() string {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(t), t)).To(Succeed())
			return t.Status.LastHandledRotateAt
		}
	}

	It("requests the organization's token once into a Secret it owns, asks nothing at rest or on a requested pass, and once more when the Secret is deleted; a runner registers with it, and it shows nowhere", func() {
		t := newToken("acme-runner")
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		eventWithReason(t, forgev1.ReasonCreated)
		s := secretOf("acme-runner")
		Expect(metav1.IsControlledBy(s, t)).To(BeTrue(), "the Secret is owned by the resource (the garbage collector removes it with it)")
		Expect(s.Labels).To(HaveKeyWithValue("forge.forgeops.dev/runner-registration-token", "acme-runner"))
		Expect(string(s.Data["token"])).To(Equal(fake.RegistrationToken(acme)))
		Expect(string(s.Data["url"])).To(Equal(fakeURL))
		Expect(t.Status.URL).To(Equal(fakeURL + "/org/acme/settings/actions/runners"))
		Expect(requests()).To(Equal(1))
		first := string(s.Data["token"])

		id, err := forgeClient().(forge.FixturesClient).RegisterRunnerWith(ctx, first, "builder-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.Runners(acme)).To(ContainElement(And(HaveField("ID", id), HaveField("Name", "builder-1"))))

		By("a requested pass reads the Secret and asks the forge nothing")
		rv := s.ResourceVersion
		at := time.Now().UTC().Format(time.RFC3339Nano)
		annotate(t, forgev1.ReconcileRequestedAtAnnotation, at)
		Eventually(func() string {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(t), t)).To(Succeed())
			return t.Status.LastHandledReconcileAt
		}, timeout, poll).Should(Equal(at))
		Consistently(requests, 2*syncInterval, poll).Should(Equal(1))
		Expect(secretOf("acme-runner").ResourceVersion).To(Equal(rv), "the Secret is not written again")
		Expect(events(t)).To(ConsistOf(HavePrefix("Created: ")), "a pass at rest tells nothing")

		By("deleting the Secret: one new request")
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		Eventually(tokenIn("acme-runner"), timeout, poll).Should(Equal(fake.RegistrationToken(acme)))
		Expect(requests()).To(Equal(2))
		Eventually(func() []string { return events(t) }, timeout, poll).Should(ContainElement(
			ContainSubstring("was missing in Secret acme-runner; created it again")), "the token was missing from its Secret, not on the forge")
		Consistently(requests, 2*syncInterval, poll).Should(Equal(2))
		Expect(leaks(t, first)).To(BeEmpty())
	})

	It("requests one token per rotate annotation value, says when the forge answers the same one, writes one reset in the web UI, and handles no value twice, also across a restart", Serial, func() {
		t := newToken("rotated")
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		first := tokenIn("rotated")()
		Expect(first).NotTo(BeEmpty())
		Expect(requests()).To(Equal(1))

		By("a rotation the forge answers with its current token: one request, told, nothing dated")
		annotate(t, forgev1.RotateRequestedAtAnnotation, "1")
		Eventually(handledRotate(t), timeout, poll).Should(Equal("1"))
		eventWithReason(t, forgev1.ReasonTokenUnchanged)
		Expect(requests()).To(Equal(2))
		Expect(t.Status.LastRotated).To(BeNil())
		Expect(tokenIn("rotated")()).To(Equal(first))

		By("after a reset in the web UI, a rotation writes the new token and dates it")
		Expect(fake.ResetRegistrationToken(acme)).To(BeTrue())
		fresh := fake.RegistrationToken(acme)
		Expect(fresh).NotTo(Equal(first))
		annotate(t, forgev1.RotateRequestedAtAnnotation, "2")
		Eventually(tokenIn("rotated"), timeout, poll).Should(Equal(fresh))
		Eventually(handledRotate(t), timeout, poll).Should(Equal("2"))
		Expect(t.Status.LastRotated).NotTo(BeNil())
		Expect(requests()).To(Equal(3))
		Consistently(requests, 2*syncInterval, poll).Should(Equal(3))
		_, err := forgeClient().(forge.FixturesClient).RegisterRunnerWith(ctx, first, "stale")
		Expect(err).To(MatchError(ContainSubstring("has been invalidated")), "the old token no longer registers")

		By("a status write lost across a restart: the Secret tells the value was handled, and nothing is asked again")
		stopManager()
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(t), t)).To(Succeed())
		t.Status.LastHandledRotateAt = ""
		Expect(k8s.Status().Update(ctx, t)).To(Succeed())
		startSuiteManager()
		Eventually(handledRotate(t), timeout, poll).Should(Equal("2"))
		Consistently(requests, 2*syncInterval, poll).Should(Equal(3))
		Expect(tokenIn("rotated")()).To(Equal(fresh))
		Expect(leaks(t, first, fresh)).To(BeEmpty())
	})

	It("never writes into a Secret it did not create (Conflict), requests nothing under Observe, and deletes nothing on the forge", func() {
		putSecret(ns, "theirs", "token", "kept")
		t := newToken("theirs")
		Expect(k8s.Create(ctx, t)).To(Succeed())
		Expect(expectReason(t, metav1.ConditionFalse, forgev1.ReasonConflict)).To(ContainSubstring("Secret theirs was not created by this RunnerRegistrationToken"))
		Expect(secretOf("theirs").Data).To(Equal(map[string][]byte{"token": []byte("kept")}))

		watched := newToken("watched")
		watched.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, watched)).To(Succeed())
		expectReason(watched, metav1.ConditionFalse, forgev1.ReasonNotFound)
		Consistently(requests, 2*syncInterval, poll).Should(BeZero())
		Expect(tokenIn("watched")()).To(BeEmpty(), "Observe makes no Secret")

		mine := newToken("mine")
		Expect(k8s.Create(ctx, mine)).To(Succeed())
		expectReady(mine)
		Expect(k8s.Delete(ctx, mine)).To(Succeed())
		Expect(k8s.Delete(ctx, t)).To(Succeed())
		Expect(k8s.Delete(ctx, watched)).To(Succeed())
		gone(mine)
		gone(t)
		gone(watched)
		Eventually(func() []string { return events(mine) }, timeout, poll).Should(ContainElement(ContainSubstring("nothing to delete on the forge")))
		Expect(fake.WriteRequests()).To(HaveLen(1), "the one token request, and no delete")
		Expect(secretOf("theirs").Data).To(Equal(map[string][]byte{"token": []byte("kept")}))
	})

	It("writes the forge's new root URL into the Secret without asking for a token", func() {
		t := newToken("moved")
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		Expect(requests()).To(Equal(1))
		moved := strings.Replace(fakeURL, "127.0.0.1", "localhost", 1)
		Expect(moved).NotTo(Equal(fakeURL))
		f := &forgev1.Forge{}
		Expect(k8s.Get(ctx, key(ns, "gitea"), f)).To(Succeed())
		change(f, func(f *forgev1.Forge) { f.Spec.URL = moved })
		Eventually(func() string { return string(secretOf("moved").Data["url"]) }, timeout, poll).Should(Equal(moved))
		Expect(tokenIn("moved")()).To(Equal(fake.RegistrationToken(acme)))
		Consistently(requests, 2*syncInterval, poll).Should(Equal(1))
	})

	It("reports a server without the route Unsupported, naming its version", func() {
		fake.InjectFault(fakeforge.Fault{Method: "POST", Path: "/orgs/acme/actions/runners/registration-token", Count: -1,
			Status: http.StatusMethodNotAllowed, Body: "Method Not Allowed"})
		t := newToken("unserved")
		Expect(k8s.Create(ctx, t)).To(Succeed())
		Expect(expectReason(t, metav1.ConditionFalse, forgev1.ReasonUnsupported)).To(ContainSubstring("version " + fakeforge.DefaultVersion))
		Expect(tokenIn("unserved")()).To(BeEmpty())
	})

	It("waits for its repository", func() {
		t := newToken("web-runner")
		t.Spec.Organization, t.Spec.Repository = nil, ptr(forgev1.RepositoryName("acme/web"))
		Expect(k8s.Create(ctx, t)).To(Succeed())
		Expect(expectReason(t, metav1.ConditionFalse, forgev1.ReasonParentNotFound)).To(ContainSubstring("repository acme/web"))
		Expect(tokenIn("web-runner")()).To(BeEmpty())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		expectReady(t)
		web := forge.RepoScope("acme", "web")
		Expect(tokenIn("web-runner")()).To(Equal(fake.RegistrationToken(web)))
		_, err := forgeClient().(forge.FixturesClient).RegisterRunnerWith(ctx, tokenIn("web-runner")(), "web-builder")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.Runners(web)).To(ContainElement(HaveField("Name", "web-builder")))
	})

	It("asks for no token while a Repository resource that declares its repository is on its way, then asks once it is Ready", func() {
		// The repository cannot be made until the fault is cleared: the
		// Repository stays on its way, with no repository on the forge.
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/orgs/acme/repos", Count: -1, Status: http.StatusInternalServerError})
		repo := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}, Owner: "acme"}}
		Expect(k8s.Create(ctx, repo)).To(Succeed())
		expectReason(repo, metav1.ConditionFalse, forgev1.ReasonForgeError)

		t := newToken("web-runner")
		t.Spec.Organization, t.Spec.Repository = nil, ptr(forgev1.RepositoryName("acme/web"))
		Expect(k8s.Create(ctx, t)).To(Succeed())
		Expect(expectReason(t, metav1.ConditionFalse, forgev1.ReasonParentNotFound)).To(
			Equal(`waiting for Repository "acme/web", declared by Repository ` + ns + `/web, which is not Ready yet`))
		Consistently(requests, 2*syncInterval, poll).Should(BeZero(), "the token is not asked for while its repository is on its way")

		By("the Repository becomes Ready; the token follows")
		fake.ClearFaults()
		expectReady(repo)
		expectReady(t)
		Expect(tokenIn("web-runner")()).To(Equal(fake.RegistrationToken(forge.RepoScope("acme", "web"))))
		Expect(requests()).To(Equal(1))
	})

	It("asks for the instance's token only through a ClusterForge tenants entry with siteAdmin", func() {
		By("through a namespaced Forge: refused before any request")
		direct := newToken("instance")
		direct.Spec.Organization = nil
		Expect(k8s.Create(ctx, direct)).To(Succeed())
		Expect(expectReason(direct, metav1.ConditionFalse, forgev1.ReasonNotPermitted)).To(ContainSubstring("siteAdmin: true"))

		By("through a tenants entry without siteAdmin: refused")
		plainNS := newTenant(nil)
		plain := newClusterForge(forgev1.ClusterForgeTenant{Namespaces: []string{plainNS}, Owners: []forgev1.OwnerGlob{"*"}})
		refused := newToken("instance")
		refused.Namespace, refused.Spec.ManagedSpec, refused.Spec.Organization = plainNS, onCluster(plain), nil
		Expect(k8s.Create(ctx, refused)).To(Succeed())
		expectReason(refused, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Consistently(requests, 2*syncInterval, poll).Should(BeZero())

		By("through one with siteAdmin: the instance's token")
		adminNS := newTenant(nil)
		admin := newClusterForge(forgev1.ClusterForgeTenant{Namespaces: []string{adminNS}, Owners: []forgev1.OwnerGlob{"ci-*"}, SiteAdmin: true})
		t := newToken("instance")
		t.Namespace, t.Spec.ManagedSpec, t.Spec.Organization = adminNS, onCluster(admin), nil
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		Expect(requests()).To(Equal(1))
		s := &corev1.Secret{}
		Expect(k8s.Get(ctx, key(adminNS, "instance"), s)).To(Succeed())
		Expect(string(s.Data["token"])).To(Equal(fake.RegistrationToken(forge.InstanceScope)))
		Expect(string(s.Data["token"])).NotTo(Equal(fake.RegistrationToken(acme)))
		Expect(t.Status.URL).To(Equal(fakeURL + "/-/admin/actions/runners"))
	})
})
