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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A hook has no natural key: it is adopted by type and URL when exactly
// one unclaimed hook has them, and two resources make two hooks.
var _ = childSpecs(childRow{
	kind:    "RepoHook",
	keyless: true,
	object: func(ns, name, repo, target string) forgev1.Managed {
		return &forgev1.RepoHook{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.RepoHookSpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), HookSpec: forgev1.HookSpec{Type: "gitea", URL: hookTarget(target)}}}
	},
	onForge: func(repo, target string) {
		_, err := forgeClient().CreateHook(context.Background(), forge.RepoScope("acme", repo), forge.CreateHookOption{
			Type: "gitea", Config: map[string]string{"url": hookTarget(target), "content_type": "json"}, Events: []string{"push"}})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.Hooks(forge.RepoScope("acme", repo)), func(h forge.Hook) string { return strings.TrimPrefix(h.Config["url"], hookTarget("")) })
	},
})

// hookTarget is the URL of a hook named name.
func hookTarget(name string) string { return "https://deploy.example.com/hooks/" + name }

// RepoHook is OrgHook's implementation over a repository: these specs show
// each behaviour through the repository's endpoints; the loop's and the
// hook code's finer cases are OrgHook's specs.
var _ = Describe("RepoHook", func() {
	const hookURL = "https://deploy.example.com/hooks/web"
	var ns string
	ctx := context.Background()
	web := forge.RepoScope("acme", "web")

	setup := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
	}

	newHook := func(name string) *forgev1.RepoHook {
		return &forgev1.RepoHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RepoHookSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  "acme/web",
				HookSpec:    forgev1.HookSpec{Type: "gitea", URL: hookURL},
			},
		}
	}

	hooks := func() []forge.Hook { return fake.Hooks(web) }

	Context("on the default forge", func() {
		BeforeEach(func() { setup() })

		It("adopts the one unclaimed hook of the same type and URL, creates the next, and corrects drift", func() {
			existing, err := forgeClient().CreateHook(ctx, web, forge.CreateHookOption{
				Type: "gitea", Config: map[string]string{"url": hookURL, "content_type": "json"}, Events: []string{"push"},
			})
			Expect(err).NotTo(HaveOccurred())

			first := newHook("first")
			first.Spec.Events = []forgev1.HookEvent{"issues", "push"}
			Expect(k8s.Create(ctx, first)).To(Succeed())
			expectReady(first)
			Expect(first.Status.ID).To(Equal(existing.ID))
			eventWithReason(first, forgev1.ReasonAdopted)

			second := newHook("second")
			Expect(k8s.Create(ctx, second)).To(Succeed())
			expectReady(second)
			Expect(second.Status.ID).NotTo(Equal(existing.ID), "a hook another RepoHook holds is not adopted")
			Expect(hooks()).To(HaveLen(2))
			Expect(fake.OrgHooks("acme")).To(BeEmpty(), "nothing lands on the organization")

			// The web UI's PATCH quirk drops the events and deactivates: set back.
			_, err = forgeClient().EditHook(ctx, web, existing.ID, forge.EditHookOption{Active: ptr(false)})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(ContainElement(And(
				HaveField("ID", existing.ID), HaveField("Active", true),
				HaveField("Events", ConsistOf("push", "issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment")))))
			eventWithReason(first, forgev1.ReasonDriftCorrected)
		})

		It("replaces the hook on a new secret and keeps it when a Secret write leaves the value", func() {
			putSecret(ns, "web-secret", "secret", "first-value")
			h := newHook("signed")
			h.Spec.SyncInterval = every(time.Hour) // the Secret watch must act
			h.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "web-secret", Key: "secret"}
			Expect(k8s.Create(ctx, h)).To(Succeed())
			expectReady(h)
			id := h.Status.ID
			Expect(fake.HookSecret("acme/web", id)).To(Equal("first-value"))
			Expect(h.Status.AppliedSecrets).To(ConsistOf(HaveField("Digest", HavePrefix("hmac-sha256:"))))

			putSecret(ns, "web-secret", "other-key", "unrelated")
			var sec corev1.Secret
			Expect(k8s.Get(ctx, key(ns, "web-secret"), &sec)).To(Succeed())
			Eventually(func() string {
				readyCondition(h)(Default)
				return h.Status.AppliedSecrets[0].ResourceVersion
			}, timeout, poll).Should(Equal(sec.ResourceVersion))
			Expect(hooks()).To(ConsistOf(HaveField("ID", id)))

			putSecret(ns, "web-secret", "secret", "second-value")
			Eventually(func() []forge.Hook { return hooks() }, timeout, poll).Should(And(
				HaveLen(1), Not(ContainElement(HaveField("ID", id)))))
			eventWithReason(h, forgev1.ReasonReplaced)
			Expect(fake.HookSecret("acme/web", hooks()[0].ID)).To(Equal("second-value"))
			Eventually(func() int64 { readyCondition(h)(Default); return h.Status.ID }, timeout, poll).Should(Equal(hooks()[0].ID))
			Expect(leaks(h, "first-value", "second-value")).To(BeEmpty())
		})

		It("deletes with deletionPolicy Delete, leaves with Orphan, only reads with Observe, and makes no calls while suspended", func() {
			del := newHook("gone")
			kept := newHook("kept")
			kept.Spec.URL = "https://deploy.example.com/hooks/kept"
			kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
			Expect(k8s.Create(ctx, del)).To(Succeed())
			Expect(k8s.Create(ctx, kept)).To(Succeed())
			expectReady(del)
			expectReady(kept)
			Expect(k8s.Delete(ctx, del)).To(Succeed())
			Expect(k8s.Delete(ctx, kept)).To(Succeed())
			gone(del)
			gone(kept)
			Expect(hooks()).To(ConsistOf(HaveField("ID", kept.Status.ID)))

			watched := newHook("watched")
			watched.Spec.URL = kept.Spec.URL
			watched.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
			watched.Spec.Events = []forgev1.HookEvent{"release"}
			fake.ClearRequests()
			Expect(k8s.Create(ctx, watched)).To(Succeed())
			Expect(expectReason(watched, metav1.ConditionFalse, forgev1.ReasonDriftDetected)).To(ContainSubstring("events"))

			paused := newHook("paused")
			paused.Spec.URL = "https://deploy.example.com/hooks/paused"
			paused.Spec.Suspend = true
			Expect(k8s.Create(ctx, paused)).To(Succeed())
			expectReason(paused, metav1.ConditionUnknown, forgev1.ReasonSuspended)
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
			Expect(hooks()).To(HaveLen(1))
		})
	})

	Context("with a token of a user who does not administer the repository", func() {
		BeforeEach(func() { setup(fakeforge.WithUser("dev", "dev-token")) })

		It("stalls Unauthorized with the forge's message", func() {
			tokenForge(ns, "dev", "dev-token")
			h := newHook("denied")
			h.Spec.ForgeRef.Name = "dev"
			Expect(k8s.Create(ctx, h)).To(Succeed())
			Expect(expectReason(h, metav1.ConditionFalse, forgev1.ReasonUnauthorized)).To(ContainSubstring("admin"))
			Expect(hooks()).To(BeEmpty())
		})
	})
})
