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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Each kind's life on the forge, as a user lives it: create, drift
// corrected, spec change applied, adoption of what exists, and deletion.
var _ = Describe("Every kind end to end", func() {
	ctx := context.Background()

	It("Organization: creates, corrects drift, updates, adopts and deletes", func() {
		sc := newScenario()
		org := &forgev1.Organization{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "acme"},
			Spec: forgev1.OrganizationSpec{
				ManagedSpec:    managed(),
				DeletionPolicy: forgev1.DeletionPolicyDelete,
				Name:           ptr(forgev1.OwnerName(sc.org)),
				FullName:       ptr("Acme Corporation"),
				Description:    ptr("first"),
				Visibility:     ptr("limited"),
			},
		}
		Expect(k8s.Create(ctx, org)).To(Succeed())
		Expect(expectReady(org)).To(Equal(forgev1.ReasonCreated))
		got, err := fc.GetOrg(ctx, sc.org)
		Expect(err).NotTo(HaveOccurred())
		Expect(org.Status.ID).To(Equal(got.ID))
		Expect([]string{got.FullName, got.Description, got.Visibility}).To(Equal([]string{"Acme Corporation", "first", "limited"}))

		By("drift on the forge is set back")
		_, err = fc.EditOrg(ctx, sc.org, forge.EditOrgOption{Description: ptr("changed by hand")})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) string {
			o, err := fc.GetOrg(ctx, sc.org)
			g.Expect(err).NotTo(HaveOccurred())
			return o.Description
		}, timeout, poll).Should(Equal("first"))
		eventWithReason(org, forgev1.ReasonDriftCorrected)

		By("a spec change is applied, and fields it does not name stay (Gitea before 1.26 empties unsent ones)")
		_, err = fc.EditOrg(ctx, sc.org, forge.EditOrgOption{Website: ptr("https://acme.example")}.KeepUnsent(got))
		Expect(err).NotTo(HaveOccurred())
		update(org, func(o *forgev1.Organization) { o.Spec.Description = ptr("second") })
		Eventually(func(g Gomega) []string {
			o, err := fc.GetOrg(ctx, sc.org)
			g.Expect(err).NotTo(HaveOccurred())
			return []string{o.FullName, o.Description, o.Website}
		}, timeout, poll).Should(Equal([]string{"Acme Corporation", "second", "https://acme.example"}))
		expectReady(org)

		By("deletion removes it from the forge")
		deleteAndWait(org)
		_, err = fc.GetOrg(ctx, sc.org)
		Expect(forge.IsNotFound(err)).To(BeTrue(), "org still there: %v", err)

		By("an existing organization is adopted, not duplicated")
		existing := sc.createOrg()
		adopt := &forgev1.Organization{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "acme-again"},
			Spec: forgev1.OrganizationSpec{
				ManagedSpec: managed(),
				Name:        ptr(forgev1.OwnerName(sc.org)),
				Location:    ptr("Berlin"),
			},
		}
		Expect(k8s.Create(ctx, adopt)).To(Succeed())
		Expect(expectReady(adopt)).To(Equal(forgev1.ReasonAdopted))
		Expect(adopt.Status.ID).To(Equal(existing.ID))
		got, err = fc.GetOrg(ctx, sc.org)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Location).To(Equal("Berlin"))
	})

	It("OrgHook: creates, corrects drift, updates, adopts, replaces on a new secret, deletes", func() {
		sc := newScenario()
		sc.createOrg()
		putSecret(sc.ns, "hook-secret", "secret", "first-hook-secret")
		hook := &forgev1.OrgHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "ci"},
			Spec: forgev1.OrgHookSpec{
				ManagedSpec:  managed(),
				Organization: forgev1.OwnerName(sc.org),
				HookSpec: forgev1.HookSpec{
					Type:      "gitea",
					URL:       "https://ci.example.com/hooks/a",
					Events:    []forgev1.HookEvent{"push", "issues"},
					SecretRef: &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"},
				},
			},
		}
		Expect(k8s.Create(ctx, hook)).To(Succeed())
		Expect(expectReady(hook)).To(Equal(forgev1.ReasonCreated))
		h, err := fc.GetHook(ctx, forge.OrgScope(sc.org), hook.Status.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Active).To(BeTrue())
		Expect(h.Config["url"]).To(Equal("https://ci.example.com/hooks/a"))
		Expect(h.Events).To(ConsistOf("push", "issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"))
		Expect(h.Config).NotTo(HaveKey("secret"))

		By("drift on the forge is set back")
		_, err = fc.EditHook(ctx, forge.OrgScope(sc.org), h.ID, forge.EditHookOption{Events: []string{"create"}, Active: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			h, err := fc.GetHook(ctx, forge.OrgScope(sc.org), hook.Status.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(h.Active).To(BeTrue())
			g.Expect(h.Events).To(ContainElements("push", "issues"))
		}, timeout, poll).Should(Succeed())

		By("a spec change is applied in place")
		update(hook, func(o *forgev1.OrgHook) { o.Spec.URL = "https://ci.example.com/hooks/b" })
		expectReady(hook)
		Eventually(func(g Gomega) string {
			h, err := fc.GetHook(ctx, forge.OrgScope(sc.org), hook.Status.ID)
			g.Expect(err).NotTo(HaveOccurred())
			return h.Config["url"]
		}, timeout, poll).Should(Equal("https://ci.example.com/hooks/b"))
		id := hook.Status.ID

		By("a new secret value replaces the hook: new id, the old one gone, still one hook")
		putSecret(sc.ns, "hook-secret", "secret", "second-hook-secret")
		Eventually(func(g Gomega) {
			c := readyCondition(hook)(g)
			g.Expect(c.Reason).To(Equal(forgev1.ReasonReplaced), "Ready is %s: %s", c.Reason, c.Message)
			g.Expect(hook.Status.ID).NotTo(Equal(id))
		}, timeout, poll).Should(Succeed())
		_, err = fc.GetHook(ctx, forge.OrgScope(sc.org), id)
		Expect(forge.IsNotFound(err)).To(BeTrue(), "old hook still there: %v", err)
		hooks, err := fc.ListHooks(ctx, forge.OrgScope(sc.org))
		Expect(err).NotTo(HaveOccurred())
		Expect(hooks).To(HaveLen(1))
		Expect(hooks[0].ID).To(Equal(hook.Status.ID))

		By("deletion removes it from the forge")
		deleteAndWait(hook)
		hooks, err = fc.ListHooks(ctx, forge.OrgScope(sc.org))
		Expect(err).NotTo(HaveOccurred())
		Expect(hooks).To(BeEmpty())

		By("the one hook of the same type and URL is adopted")
		existing, err := fc.CreateHook(ctx, forge.OrgScope(sc.org), forge.CreateHookOption{
			Type: "gitea", Active: true, Events: []string{"push"},
			Config: map[string]string{"url": "https://ci.example.com/hooks/c", "content_type": "json"},
		})
		Expect(err).NotTo(HaveOccurred())
		adopt := &forgev1.OrgHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "adopted"},
			Spec: forgev1.OrgHookSpec{
				ManagedSpec:  managed(),
				Organization: forgev1.OwnerName(sc.org),
				HookSpec: forgev1.HookSpec{
					Type:   "gitea",
					URL:    "https://ci.example.com/hooks/c",
					Events: []forgev1.HookEvent{"push", "release"},
				},
			},
		}
		Expect(k8s.Create(ctx, adopt)).To(Succeed())
		Expect(expectReady(adopt)).To(Equal(forgev1.ReasonAdopted))
		Expect(adopt.Status.ID).To(Equal(existing.ID))
		h, err = fc.GetHook(ctx, forge.OrgScope(sc.org), existing.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Events).To(ConsistOf("push", "release"))
	})

	for _, scope := range []string{"repository", "organization"} {
		It("Label in an "+scope+": creates, corrects drift, updates, adopts and deletes", func() {
			sc := newScenario()
			sc.createOrg()
			fs := forge.OrgScope(sc.org)
			label := &forgev1.Label{
				ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "kind-bug"},
				Spec: forgev1.LabelSpec{
					ManagedSpec:    managed(),
					DeletionPolicy: forgev1.DeletionPolicyDelete,
					Name:           "kind/bug",
					Color:          "#D73A4A",
					Description:    ptr("Something is broken"),
					Exclusive:      ptr(true),
				},
			}
			if scope == "repository" {
				repo := sc.createRepo("web")
				fs = forge.RepoScope(sc.org, "web")
				label.Spec.Repository = ptr(forgev1.RepositoryName(repo))
			} else {
				label.Spec.Organization = ptr(forgev1.OwnerName(sc.org))
			}
			Expect(k8s.Create(ctx, label)).To(Succeed())
			Expect(expectReady(label)).To(Equal(forgev1.ReasonCreated))
			l, err := fc.GetLabel(ctx, fs, label.Status.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect([]any{l.Name, l.Color, l.Description, l.Exclusive}).To(Equal([]any{"kind/bug", "d73a4a", "Something is broken", true}))

			By("drift on the forge is set back")
			_, err = fc.EditLabel(ctx, fs, l.ID, forge.EditLabelOption{Color: ptr("#00ff00")})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func(g Gomega) string {
				l, err := fc.GetLabel(ctx, fs, label.Status.ID)
				g.Expect(err).NotTo(HaveOccurred())
				return l.Color
			}, timeout, poll).Should(Equal("d73a4a"))
			eventWithReason(label, forgev1.ReasonDriftCorrected)

			By("a spec change is applied")
			update(label, func(o *forgev1.Label) { o.Spec.Description = ptr("Broken"); o.Spec.Archived = ptr(true) })
			expectReady(label)
			l, err = fc.GetLabel(ctx, fs, label.Status.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Description).To(Equal("Broken"))
			Expect(l.IsArchived).To(BeTrue())

			By("deletion removes it from the forge")
			deleteAndWait(label)
			labels, err := fc.ListLabels(ctx, fs)
			Expect(err).NotTo(HaveOccurred())
			Expect(labels).To(BeEmpty())

			By("an existing label of that name is adopted")
			existing, err := fc.CreateLabel(ctx, fs, forge.CreateLabelOption{Name: "kind/feature", Color: "#0000ff"})
			Expect(err).NotTo(HaveOccurred())
			adopt := label.DeepCopy()
			adopt.ObjectMeta = metav1.ObjectMeta{Namespace: sc.ns, Name: "kind-feature"}
			adopt.Status = forgev1.LabelStatus{}
			adopt.Spec.Name, adopt.Spec.Color = "kind/feature", "0000FF"
			Expect(k8s.Create(ctx, adopt)).To(Succeed())
			Expect(expectReady(adopt)).To(Equal(forgev1.ReasonAdopted))
			Expect(adopt.Status.ID).To(Equal(existing.ID))
			labels, err = fc.ListLabels(ctx, fs)
			Expect(err).NotTo(HaveOccurred())
			Expect(labels).To(HaveLen(1))
			Expect(labels[0].Description).To(Equal("Broken"))
		})
	}

	It("Project: a forge without the projects API is reported Unsupported, naming its version", func() {
		sc := newScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		p := &forgev1.Project{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "roadmap"},
			Spec: forgev1.ProjectSpec{
				ManagedSpec: managed(),
				Repository:  forgev1.RepositoryName(repo),
				Title:       "Roadmap",
			},
		}
		Expect(k8s.Create(ctx, p)).To(Succeed())
		msg := expectReason(p, metav1.ConditionFalse, forgev1.ReasonUnsupported)
		_, semver, _ := forge.ParseVersion(version)
		Expect(msg).To(ContainSubstring(semver))
		status, _ := rawCall(http.MethodGet, "/api/v1/repos/"+repo+"/projects", nil)
		Expect(status).To(Equal(http.StatusNotFound))
	})

	It("RunnerSetting: disables a registered runner, corrects drift, re-enables it on deletion", func() {
		sc := newScenario()
		sc.createOrg()
		scope := forge.OrgScope(sc.org)
		id := registerRunner(scope, "e2e-runner")
		rs := &forgev1.RunnerSetting{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "runner"},
			Spec: forgev1.RunnerSettingSpec{
				ManagedSpec:    managed(),
				DeletionPolicy: forgev1.DeletionPolicyDelete,
				Organization:   ptr(forgev1.OwnerName(sc.org)),
				Runner:         forgev1.RunnerSelector{Name: "e2e-runner"},
				Disabled:       true,
			},
		}
		Expect(k8s.Create(ctx, rs)).To(Succeed())
		disabled := func(g Gomega) bool {
			r, err := fc.GetRunner(ctx, scope, id)
			g.Expect(err).NotTo(HaveOccurred())
			return r.Disabled
		}
		if !runnerEditSupported() {
			By("a release without PATCH .../actions/runners/{id} is reported Unsupported, naming its version")
			msg := expectReason(rs, metav1.ConditionFalse, forgev1.ReasonUnsupported)
			_, semver, _ := forge.ParseVersion(version)
			Expect(msg).To(ContainSubstring(semver))
			Expect(disabled(Default)).To(BeFalse(), "nothing written")
			deleteAndWait(rs)

			By("decided from the version: also said at once for a runner that never registered")
			waiting := rs.DeepCopy()
			waiting.ObjectMeta = metav1.ObjectMeta{Namespace: sc.ns, Name: "not-registered"}
			waiting.Spec.Runner = forgev1.RunnerSelector{Name: "never-registered"}
			Expect(k8s.Create(ctx, waiting)).To(Succeed())
			Expect(expectReason(waiting, metav1.ConditionFalse, forgev1.ReasonUnsupported)).To(ContainSubstring(semver))
			deleteAndWait(waiting)
			return
		}
		expectReady(rs)
		Expect(rs.Status.ID).To(Equal(id))
		Eventually(disabled, timeout, poll).Should(BeTrue())

		By("drift on the forge is set back")
		_, err := fc.EditRunner(ctx, scope, id, false)
		Expect(err).NotTo(HaveOccurred())
		Eventually(disabled, timeout, poll).Should(BeTrue())
		eventWithReason(rs, forgev1.ReasonDriftCorrected)

		By("deletion with deletionPolicy Delete re-enables the runner")
		deleteAndWait(rs)
		Expect(disabled(Default)).To(BeFalse())
		runners, err := fc.ListRunners(ctx, scope)
		Expect(err).NotTo(HaveOccurred())
		Expect(slices.ContainsFunc(runners, func(r forge.Runner) bool { return r.ID == id })).To(BeTrue(), "the runner itself stays")
	})
})

var _ = Describe("RepoHook end to end", func() {
	ctx := context.Background()

	It("creates, corrects drift, replaces on a new secret, adopts and deletes a repository's hook", func() {
		sc := newScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		scope := forge.RepoScope(sc.org, "web")
		putSecret(sc.ns, "hook-secret", "secret", "first-repo-hook-secret")
		hook := &forgev1.RepoHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "deploy"},
			Spec: forgev1.RepoHookSpec{
				ManagedSpec: managed(),
				Repository:  forgev1.RepositoryName(repo),
				HookSpec: forgev1.HookSpec{
					Type:      "gitea",
					URL:       "https://deploy.example.com/a",
					Events:    []forgev1.HookEvent{"push", "release"},
					SecretRef: &forgev1.SecretKeySelector{Name: "hook-secret", Key: "secret"},
				},
			},
		}
		Expect(k8s.Create(ctx, hook)).To(Succeed())
		Expect(expectReady(hook)).To(Equal(forgev1.ReasonCreated))
		h, err := fc.GetHook(ctx, scope, hook.Status.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Active).To(BeTrue())
		Expect(h.Events).To(ConsistOf("push", "release"))

		By("drift on the forge is set back")
		_, err = fc.EditHook(ctx, scope, h.ID, forge.EditHookOption{Events: []string{"create"}, Active: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			h, err := fc.GetHook(ctx, scope, hook.Status.ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(h.Active).To(BeTrue())
			g.Expect(h.Events).To(ConsistOf("push", "release"))
		}, timeout, poll).Should(Succeed())
		id := hook.Status.ID

		By("a new secret value replaces the hook")
		putSecret(sc.ns, "hook-secret", "secret", "second-repo-hook-secret")
		Eventually(func(g Gomega) {
			c := readyCondition(hook)(g)
			g.Expect(c.Reason).To(Equal(forgev1.ReasonReplaced), "Ready is %s: %s", c.Reason, c.Message)
			g.Expect(hook.Status.ID).NotTo(Equal(id))
		}, timeout, poll).Should(Succeed())
		hooks, err := fc.ListHooks(ctx, scope)
		Expect(err).NotTo(HaveOccurred())
		Expect(hooks).To(HaveLen(1))
		Expect(hooks[0].ID).To(Equal(hook.Status.ID))

		By("deletion removes it from the forge")
		deleteAndWait(hook)
		hooks, err = fc.ListHooks(ctx, scope)
		Expect(err).NotTo(HaveOccurred())
		Expect(hooks).To(BeEmpty())

		By("the one hook of the same type and URL is adopted")
		existing, err := fc.CreateHook(ctx, scope, forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
			Config: map[string]string{"url": "https://deploy.example.com/b", "content_type": "json"}})
		Expect(err).NotTo(HaveOccurred())
		adopt := &forgev1.RepoHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "adopted"},
			Spec: forgev1.RepoHookSpec{
				ManagedSpec: managed(),
				Repository:  forgev1.RepositoryName(repo),
				HookSpec:    forgev1.HookSpec{Type: "gitea", URL: "https://deploy.example.com/b", Events: []forgev1.HookEvent{"push"}},
			},
		}
		Expect(k8s.Create(ctx, adopt)).To(Succeed())
		Expect(expectReady(adopt)).To(Equal(forgev1.ReasonAdopted))
		Expect(adopt.Status.ID).To(Equal(existing.ID))
	})
})
