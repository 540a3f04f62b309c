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
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
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

var _ = Describe("OrgHook", func() {
	const hookURL = "https://ci.example.com/hooks/forge"
	var ns string
	ctx := context.Background()

	setup := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
	}

	newHook := func(name string) *forgev1.OrgHook {
		return &forgev1.OrgHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.OrgHookSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Organization: "acme",
				HookSpec:     forgev1.HookSpec{Type: "gitea", URL: hookURL},
			},
		}
	}

	hooks := func() []forge.Hook { return fake.OrgHooks("acme") }

	Context("on the default forge", func() {
		BeforeEach(func() { setup() })

		It("creates an active hook and, with [issues] at rest, makes no writes", func() {
			h := newHook("ci")
			h.Spec.Events = []forgev1.HookEvent{"issues"}
			h.Spec.BranchFilter = "main"
			h.Spec.Name = "CI"
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			eventWithReason(h, forgev1.ReasonCreated)

			Expect(hooks()).To(HaveLen(1))
			got := hooks()[0]
			Expect(h.Status.ID).To(Equal(got.ID))
			Expect(got.Active).To(BeTrue(), "active is sent explicitly: the forge defaults it to false")
			Expect(got.Events).To(ConsistOf("issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"))
			Expect(got.BranchFilter).To(Equal("main"))
			Expect(got.Name).To(Equal("CI"))
			Expect(got.Config).To(HaveKeyWithValue("content_type", "json"))
			Expect(h.Finalizers).To(ContainElement(forgev1.Finalizer))

			// The forge answers five events in random order: still no drift.
			fake.ClearRequests()
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
			Expect(requestsTo("/hooks")).To(BeNumerically(">", 0), "the drift check reads the hook")
			c := readyCondition(h)(Default)
			Expect(c.Status).To(Equal(metav1.ConditionTrue))
		})

		It("defaults events to push", func() {
			h := newHook("push")
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			Expect(hooks()).To(HaveLen(1))
			Expect(hooks()[0].Events).To(ConsistOf("push"))
		})

		It("adopts the one unclaimed hook of the same type and URL, and creates when it is claimed", func() {
			existing, err := forgeClient().CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{
				Type: "gitea", Config: map[string]string{"url": hookURL, "content_type": "json"}, Events: []string{"push"},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(existing.Active).To(BeFalse())

			first := newHook("first")
			Expect(k8s.Create(ctx, first)).To(Succeed())
			expectReady(first)
			Expect(first.Status.ID).To(Equal(existing.ID))
			eventWithReason(first, forgev1.ReasonAdopted)
			Expect(hooks()).To(HaveLen(1))
			Expect(hooks()[0].Active).To(BeTrue(), "adoption brings the hook to the spec")

			second := newHook("second")
			Expect(k8s.Create(ctx, second)).To(Succeed())
			expectReady(second)
			Expect(second.Status.ID).NotTo(Equal(existing.ID), "a hook another OrgHook holds is not adopted")
			Expect(hooks()).To(HaveLen(2))
			expectReady(first)
		})

		It("applies spec changes and corrects drift, always sending events and branch filter", func() {
			h := newHook("ci")
			h.Spec.Events = []forgev1.HookEvent{"push", "pull_request"}
			h.Spec.BranchFilter = "release/*"
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			id := h.Status.ID

			change(h, func(h *forgev1.OrgHook) {
				h.Spec.Active = ptr(false)
				h.Spec.ContentType = "form"
			})
			Eventually(func() bool { return hooks()[0].Active }, timeout, poll).Should(BeFalse())
			expectReady(h)
			got := hooks()[0]
			Expect(got.Config).To(HaveKeyWithValue("content_type", "form"))
			Expect(got.BranchFilter).To(Equal("release/*"), "the branch filter survives the PATCH")
			Expect(got.Events).To(ContainElements("push", "pull_request", "pull_request_sync"))

			// Someone edits the hook in the web UI; the PATCH quirk drops the filter and events.
			_, err := forgeClient().EditHook(ctx, forge.OrgScope("acme"), id, forge.EditHookOption{Active: ptr(true)})
			Expect(err).NotTo(HaveOccurred())
			Expect(hooks()[0].Events).To(ConsistOf("push"))
			Eventually(func() forge.Hook { return hooks()[0] }, timeout, poll).Should(And(
				HaveField("Active", BeFalse()),
				HaveField("BranchFilter", "release/*"),
				HaveField("Events", ContainElement("pull_request_review")),
			))
			eventWithReason(h, forgev1.ReasonDriftCorrected)
			Expect(hooks()).To(HaveLen(1))
			Expect(hooks()[0].ID).To(Equal(id))
		})

		It("replaces the hook when its secret changes, within seconds of the Secret update", func() {
			putSecret(ns, "hook-secret", "secret", "first-webhook-secret")
			h := newHook("signed")
			h.Spec.SyncInterval = every(time.Hour) // the Secret watch, not the interval, must act
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			old := h.Status.ID
			Expect(fake.HookSecret("acme", old)).To(Equal("first-webhook-secret"))
			Expect(h.Status.AppliedSecrets).To(HaveLen(1))

			putSecret(ns, "hook-secret", "secret", "second-webhook-secret")
			Eventually(func() []forge.Hook { return hooks() }, 10*time.Second, poll).Should(And(
				HaveLen(1), Not(ContainElement(HaveField("ID", old)))))
			now := hooks()[0]
			Expect(fake.HookSecret("acme", now.ID)).To(Equal("second-webhook-secret"))
			Eventually(func() int64 { readyCondition(h)(Default); return h.Status.ID }, timeout, poll).Should(Equal(now.ID))
			eventWithReason(h, forgev1.ReasonReplaced)
			expectReady(h)
			Consistently(func() []forge.Hook { return hooks() }, 2*time.Second, poll).Should(HaveLen(1))
			Expect(leaks(h, "first-webhook-secret", "second-webhook-secret")).To(BeEmpty())
		})

		It("keeps one hook when the response of a replacing create is lost", func() {
			putSecret(ns, "hook-secret", "secret", "before-rotation")
			h := newHook("rotated")
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			old := h.Status.ID

			fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/api/v1/orgs/*/hooks", Count: 1, LostResponse: true})
			putSecret(ns, "hook-secret", "secret", "after-rotation")
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(And(
				HaveLen(1), Not(ContainElement(HaveField("ID", old)))))
			expectReady(h)
			Expect(h.Status.ID).To(Equal(hooks()[0].ID))
			Expect(fake.HookSecret("acme", h.Status.ID)).To(Equal("after-rotation"))
			Consistently(func() []forge.Hook { return hooks() }, 2*syncInterval, poll).Should(HaveLen(1))
		})

		It("keeps the hook when a write to its Secret leaves the value as it was", func() {
			putSecret(ns, "hook-secret", "secret", "unchanged")
			h := newHook("steady")
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			id := h.Status.ID

			var sec corev1.Secret
			Expect(k8s.Get(ctx, key(ns, "hook-secret"), &sec)).To(Succeed())
			sec.Labels = map[string]string{"team": "platform"}
			sec.Data["other"] = []byte("another key")
			Expect(k8s.Update(ctx, &sec)).To(Succeed())

			// The new version is recorded (the watch brings the pass), the hook stays.
			Eventually(func(g Gomega) string {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(h), h)).To(Succeed())
				g.Expect(h.Status.AppliedSecrets).To(HaveLen(1))
				return h.Status.AppliedSecrets[0].ResourceVersion
			}, timeout, poll).Should(Equal(sec.ResourceVersion))
			Consistently(func() []forge.Hook { return hooks() }, 2*syncInterval, poll).Should(And(
				HaveLen(1), ContainElement(HaveField("ID", id))))
			Expect(fake.HookSecret("acme", id)).To(Equal("unchanged"))
			Expect(events(h)).NotTo(ContainElement(HavePrefix(forgev1.ReasonReplaced + ": ")))
		})

		It("keeps the hook when its Secret is rewritten with the same value after a manager restart, and replaces it on a new value", Serial, func() {
			const value = "kept-across-restarts"
			putSecret(ns, "hook-secret", "secret", value)
			h := newHook("restarted")
			h.Spec.SyncInterval = every(time.Hour) // passes come from the restart and the Secret watch
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			id := h.Status.ID

			// Status keeps a keyed digest: neither the value nor its plain hash.
			Expect(h.Status.AppliedSecrets).To(HaveLen(1))
			digest := h.Status.AppliedSecrets[0].Digest
			Expect(digest).To(HavePrefix("hmac-sha256:"))
			plain := sha256.Sum256([]byte(value))
			for _, enc := range []string{hex.EncodeToString(plain[:]), base64.RawStdEncoding.EncodeToString(plain[:]),
				base64.StdEncoding.EncodeToString(plain[:])} {
				Expect(digest).NotTo(ContainSubstring(enc))
			}
			Expect(leaks(h, value)).To(BeEmpty())
			var keySecret corev1.Secret
			Expect(k8s.Get(ctx, digestKey, &keySecret)).To(Succeed(), "the operator creates its digest key on first use")
			Expect(keySecret.Data["key"]).To(HaveLen(32))

			By("restarting the manager: stop it, start a new one on the same control plane")
			stopManager()
			startSuiteManager()

			var sec corev1.Secret
			Expect(k8s.Get(ctx, key(ns, "hook-secret"), &sec)).To(Succeed())
			sec.Labels = map[string]string{"rotated-by": "a-tool-that-rewrites-the-same-value"}
			sec.Data["secret"] = []byte(value)
			Expect(k8s.Update(ctx, &sec)).To(Succeed())
			// The new manager handled the write (the record follows the version)...
			Eventually(func(g Gomega) string {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(h), h)).To(Succeed())
				g.Expect(h.Status.AppliedSecrets).To(HaveLen(1))
				return h.Status.AppliedSecrets[0].ResourceVersion
			}, timeout, poll).Should(Equal(sec.ResourceVersion))
			// ...and kept the hook.
			Consistently(func() []forge.Hook { return hooks() }, 2*syncInterval, poll).Should(And(
				HaveLen(1), ContainElement(HaveField("ID", id))))
			Expect(h.Status.AppliedSecrets[0].Digest).To(Equal(digest))
			Expect(events(h)).NotTo(ContainElement(HavePrefix(forgev1.ReasonReplaced + ": ")))

			putSecret(ns, "hook-secret", "secret", "a-new-value")
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(And(
				HaveLen(1), Not(ContainElement(HaveField("ID", id)))))
			eventWithReason(h, forgev1.ReasonReplaced)
			Expect(fake.HookSecret("acme", hooks()[0].ID)).To(Equal("a-new-value"))
		})

		It("replaces no hook when the digest key is lost: compares by Secret version, re-stamps under the new key, warns once", func() {
			const value = "kept-across-a-lost-key"
			putSecret(ns, "hook-secret", "secret", value)
			h := newHook("lost-key")
			h.Spec.SyncInterval = every(time.Hour) // passes come from the restart and the annotation
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			id, digest := h.Status.ID, h.Status.AppliedSecrets[0].Digest

			By("the key Secret is deleted (a recreated operator namespace) and the manager restarts")
			stopManager()
			var keySecret corev1.Secret
			Expect(k8s.Get(ctx, digestKey, &keySecret)).To(Succeed())
			Expect(k8s.Delete(ctx, &keySecret)).To(Succeed())
			startSuiteManager()
			change(h, func(h *forgev1.OrgHook) {
				h.Annotations = map[string]string{forgev1.ReconcileRequestedAtAnnotation: "after-the-key-was-lost"}
			})
			Eventually(func(g Gomega) string {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(h), h)).To(Succeed())
				g.Expect(h.Status.AppliedSecrets).To(HaveLen(1))
				return h.Status.AppliedSecrets[0].Digest
			}, timeout, poll).ShouldNot(Equal(digest), "re-stamped under the new key")
			eventWithReason(h, forgev1.ReasonDigestKeyChanged)
			Expect(hooks()).To(ConsistOf(HaveField("ID", id)), "the hook is kept")
			Expect(fake.HookSecret("acme", id)).To(Equal(value))

			By("the next pass knows the key: no second warning, no write")
			fake.ClearRequests()
			change(h, func(h *forgev1.OrgHook) {
				h.Annotations = map[string]string{forgev1.ReconcileRequestedAtAnnotation: "once-more"}
			})
			Eventually(func() string { readyCondition(h)(Default); return h.Status.LastHandledReconcileAt }, timeout, poll).Should(Equal("once-more"))
			Expect(fake.WriteRequests()).To(BeEmpty())
			warned := 0
			for _, e := range events(h) {
				if strings.HasPrefix(e, forgev1.ReasonDigestKeyChanged+": ") {
					warned++
				}
			}
			Expect(warned).To(Equal(1))

			By("a new value is still told apart and replaces the hook")
			putSecret(ns, "hook-secret", "secret", "a-value-after-the-new-key")
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(And(
				HaveLen(1), Not(ContainElement(HaveField("ID", id)))))
		})

		It("deletes the replaced hook on a later pass when its delete failed", func() {
			putSecret(ns, "hook-secret", "secret", "first")
			h := newHook("retried")
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			old := h.Status.ID

			fake.InjectFault(fakeforge.Fault{Method: http.MethodDelete, Path: "/api/v1/orgs/*/hooks/*", Count: 1,
				Status: http.StatusInternalServerError, Body: `{"message":""}`})
			putSecret(ns, "hook-secret", "secret", "second")
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(And(
				HaveLen(1), Not(ContainElement(HaveField("ID", old)))))
			expectReady(h)
			Expect(fake.HookSecret("acme", h.Status.ID)).To(Equal("second"))
			expectSettled(h)
			// The settled replaces mark deletes nothing again.
			fake.ClearRequests()
			Consistently(func() int { return writesTo("/hooks") }, 2*syncInterval, poll).Should(BeZero())
			Expect(hooks()).To(ConsistOf(HaveField("ID", h.Status.ID)))
		})

		It("replaces an adopted hook when the spec sets a secret, since the forge cannot show it", func() {
			existing, err := forgeClient().CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{
				Type: "gitea", Config: map[string]string{"url": hookURL, "content_type": "json", "secret": "unknown"}, Active: true,
			})
			Expect(err).NotTo(HaveOccurred())
			putSecret(ns, "hook-secret", "secret", "known-secret")
			h := newHook("adopted")
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			eventWithReason(h, forgev1.ReasonReplaced)
			expectReady(h)
			Expect(hooks()).To(HaveLen(1))
			Expect(h.Status.ID).NotTo(Equal(existing.ID))
			Expect(fake.HookSecret("acme", h.Status.ID)).To(Equal("known-secret"))
		})

		It("replaces the hook when its type changes", func() {
			h := newHook("typed")
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			old := h.Status.ID

			change(h, func(h *forgev1.OrgHook) { h.Spec.Type = "discord" })
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(And(
				HaveLen(1), ContainElement(HaveField("Type", "discord"))))
			Expect(hooks()[0].ID).NotTo(Equal(old))
			expectReady(h)
			Expect(h.Status.ID).To(Equal(hooks()[0].ID))
			eventWithReason(h, forgev1.ReasonReplaced)
		})

		It("creates exactly one hook when the create response is lost", func() {
			fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/api/v1/orgs/*/hooks", Count: 1, LostResponse: true})
			putSecret(ns, "hook-secret", "secret", "lost-response-secret")
			h := newHook("once")
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			Expect(hooks()).To(HaveLen(1))
			Expect(h.Status.ID).To(Equal(hooks()[0].ID))
			Expect(fake.HookSecret("acme", h.Status.ID)).To(Equal("lost-response-secret"))
			expectSettled(h)
			Consistently(func() []forge.Hook { return hooks() }, 2*syncInterval, poll).Should(HaveLen(1))
		})

		It("waits for missing Secrets, naming them, and keeps URL, secret and header out of status, Events and logs", func() {
			const (
				chatURL = "https://chat.example.com/hooks/T0KEN-IN-THE-PATH"
				secret  = "never-show-this-hmac-key"
				header  = "Bearer never-show-this-header"
			)
			h := newHook("chat")
			h.Spec.Type = "slack"
			h.Spec.URL = ""
			h.Spec.URLSecretRef = &forgev1.SecretKeySelector{Name: "chat-url", Key: "url"}
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "chat-secret", Key: "secret"}
			h.Spec.AuthorizationHeaderSecretRef = &forgev1.SecretKeySelector{Name: "chat-secret", Key: "header"}
			h.Spec.Config = map[string]string{"channel": "#builds", "username": "forge"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			msg := expectReason(h, metav1.ConditionFalse, forgev1.ReasonSecretNotFound)
			Expect(msg).To(ContainSubstring("chat-url"))

			putSecret(ns, "chat-url", "url", chatURL)
			putSecret(ns, "chat-secret", "secret", secret)
			Eventually(func(g Gomega) string { return readyCondition(h)(g).Message }, timeout, poll).Should(
				And(ContainSubstring("chat-secret"), ContainSubstring(`key "header"`)))
			Expect(readyCondition(h)(Default).Reason).To(Equal(forgev1.ReasonSecretNotFound))
			putSecret(ns, "chat-secret", "header", header)
			expectReady(h)

			Expect(hooks()).To(HaveLen(1))
			got := hooks()[0]
			Expect(got.Config).To(HaveKeyWithValue("url", chatURL))
			Expect(got.Config).To(HaveKeyWithValue("channel", "#builds"))
			Expect(got.AuthorizationHeader).To(Equal(header))
			// Earlier Secret writes may have replaced the first hook; the last one holds the secret.
			Expect(fake.HookSecret("acme", got.ID)).To(Equal(secret))

			fake.ClearRequests()
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
			Expect(leaks(h, chatURL, "T0KEN-IN-THE-PATH", secret, header)).To(BeEmpty())
		})

		It("deletes the hook with deletionPolicy Delete and keeps it with Orphan", func() {
			del := newHook("gone")
			kept := newHook("kept")
			kept.Spec.URL = "https://ci.example.com/other"
			kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
			Expect(k8s.Create(ctx, del)).To(Succeed())
			Expect(k8s.Create(ctx, kept)).To(Succeed())
			expectReady(del)
			expectReady(kept)
			Expect(del.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete), "Delete is the OrgHook default")

			Expect(k8s.Delete(ctx, del)).To(Succeed())
			Expect(k8s.Delete(ctx, kept)).To(Succeed())
			gone(del)
			gone(kept)
			Expect(hooks()).To(HaveLen(1))
			Expect(hooks()[0].ID).To(Equal(kept.Status.ID))
		})

		It("only reads with managementPolicy Observe", func() {
			_, err := forgeClient().CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{
				Type: "gitea", Config: map[string]string{"url": hookURL, "content_type": "json"}, Active: true,
				Events: []string{"create"},
			})
			Expect(err).NotTo(HaveOccurred())
			fake.ClearRequests()
			h := newHook("watched")
			h.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
			Expect(k8s.Create(ctx, h)).To(Succeed())
			msg := expectReason(h, metav1.ConditionFalse, forgev1.ReasonDriftDetected)
			Expect(msg).To(ContainSubstring("events"))
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		})

		It("waits for a missing organization", func() {
			h := newHook("orphan")
			h.Spec.Organization = "nowhere"
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReason(h, metav1.ConditionFalse, forgev1.ReasonParentNotFound)
			_, err := fake.CreateOrg("nowhere")
			Expect(err).NotTo(HaveOccurred())
			expectReady(h)
			Expect(fake.OrgHooks("nowhere")).To(HaveLen(1))
		})
	})

	Context("on Gitea 1.27, which hides the authorization header", func() {
		BeforeEach(func() { setup(fakeforge.WithVersion("1.27.3")) })

		It("patches the header when its Secret changes, without replacing the hook, and is quiet at rest", func() {
			putSecret(ns, "auth", "header", "Bearer one")
			h := newHook("authed")
			h.Spec.SyncInterval = every(time.Hour)
			h.Spec.AuthorizationHeaderSecretRef = &forgev1.SecretKeySelector{Name: "auth", Key: "header"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			id := h.Status.ID
			Expect(hooks()[0].AuthorizationHeader).To(Equal("Bearer one"))

			// Readers get "" back: no PATCH every pass.
			fake.ClearRequests()
			change(h, func(h *forgev1.OrgHook) {
				h.Annotations = map[string]string{forgev1.ReconcileRequestedAtAnnotation: "now"}
			})
			Eventually(func() string { readyCondition(h)(Default); return h.Status.LastHandledReconcileAt }, timeout, poll).Should(Equal("now"))
			Expect(fake.WriteRequests()).To(BeEmpty())

			putSecret(ns, "auth", "header", "Bearer two")
			Eventually(func() string { return hooks()[0].AuthorizationHeader }, 10*time.Second, poll).Should(Equal("Bearer two"))
			Expect(hooks()).To(HaveLen(1))
			Expect(hooks()[0].ID).To(Equal(id))
			Expect(leaks(h, "Bearer one", "Bearer two")).To(BeEmpty())
		})
	})

	Context("on Gitea 1.24, which has no workflow_run event", func() {
		BeforeEach(func() { setup(fakeforge.WithVersion("1.24.6")) })

		It("reports a hook asking for it Unsupported, naming the version, writes nothing, and applies it after an upgrade", func() {
			h := newHook("workflows")
			h.Spec.Events = []forgev1.HookEvent{"push", "workflow_run"}
			h.Spec.SyncInterval = every(time.Hour) // only the Forge's new version can bring it back soon
			Expect(k8s.Create(ctx, h)).To(Succeed())
			msg := expectReason(h, metav1.ConditionFalse, forgev1.ReasonUnsupported)
			Expect(msg).To(And(ContainSubstring("1.24.6"), ContainSubstring("workflow_run")))
			Expect(hooks()).To(BeEmpty())

			fake.SetVersion("1.25.5")
			expectReady(h)
			Expect(hooks()).To(HaveLen(1))
			Expect(hooks()[0].Events).To(ConsistOf("push", "workflow_run"))
		})
	})
})
