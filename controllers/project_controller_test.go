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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = childSpecs(childRow{
	kind: "Project",
	object: func(ns, name, repo, title string) forgev1.Managed {
		return &forgev1.Project{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.ProjectSpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), Title: title}}
	},
	onForge: func(repo, title string) {
		_, err := forgeClient().CreateProject(context.Background(), forge.RepoScope("acme", repo), forge.CreateProjectOption{Title: title})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.Projects("acme", repo), func(p forge.Project) string { return p.Title })
	},
})

var _ = Describe("Project", func() {
	var ns string
	ctx := context.Background()

	setup := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
	}

	newProject := func(name, title string) *forgev1.Project {
		return &forgev1.Project{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.ProjectSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  "acme/web",
				Title:       title,
				Description: ptr("Work in flight"),
			},
		}
	}

	projects := func() []forge.Project { return fake.Projects("acme", "web") }

	Context("on a forge with the projects API", func() {
		BeforeEach(func() { setup() })

		It("creates the project and makes no writes at rest", func() {
			p := newProject("roadmap", "Roadmap")
			p.Spec.CardType = "images_and_text"
			p.Spec.TemplateType = "basic_kanban"
			Expect(k8s.Create(ctx, p)).To(Succeed())
			expectReady(p)
			eventWithReason(p, forgev1.ReasonCreated)

			Expect(projects()).To(HaveLen(1))
			got := projects()[0]
			Expect(p.Status.ID).To(Equal(got.ID))
			Expect(p.Status.URL).To(Equal(got.HTMLURL))
			Expect(got).To(And(HaveField("Title", "Roadmap"), HaveField("Description", "Work in flight"),
				HaveField("CardType", "images_and_text"), HaveField("TemplateType", "basic_kanban"), HaveField("State", "open")))

			fake.ClearRequests()
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
			Expect(requestsTo("/projects")).To(BeNumerically(">", 0))
		})

		It("creates a closed project closed", func() {
			p := newProject("archive", "Archive")
			p.Spec.State = "closed"
			Expect(k8s.Create(ctx, p)).To(Succeed())
			expectReady(p)
			Expect(projects()).To(ConsistOf(HaveField("State", "closed")))
		})

		It("adopts an existing project by title", func() {
			existing, err := forgeClient().CreateProject(ctx, forge.RepoScope("acme", "web"), forge.CreateProjectOption{Title: "Roadmap"})
			Expect(err).NotTo(HaveOccurred())
			p := newProject("roadmap", "Roadmap")
			Expect(k8s.Create(ctx, p)).To(Succeed())
			expectReady(p)
			Expect(p.Status.ID).To(Equal(existing.ID))
			eventWithReason(p, forgev1.ReasonAdopted)
			Expect(projects()).To(ConsistOf(HaveField("Description", "Work in flight")))
		})

		It("applies title, description, card type and state, and corrects drift", func() {
			p := newProject("roadmap", "Roadmap")
			Expect(k8s.Create(ctx, p)).To(Succeed())
			expectReady(p)
			id := p.Status.ID

			change(p, func(p *forgev1.Project) {
				p.Spec.Title = "Roadmap 2027"
				p.Spec.Description = ptr("Next year")
				p.Spec.CardType = "images_and_text"
				p.Spec.State = "closed"
			})
			Eventually(func() string { return projects()[0].State }, timeout, poll).Should(Equal("closed"))
			expectReady(p)
			Expect(projects()).To(ConsistOf(And(HaveField("ID", id), HaveField("Title", "Roadmap 2027"),
				HaveField("Description", "Next year"), HaveField("CardType", "images_and_text"))))

			change(p, func(p *forgev1.Project) { p.Spec.State = "open" })
			Eventually(func() string { return projects()[0].State }, timeout, poll).Should(Equal("open"))
			expectReady(p)

			// Someone closes and renames it in the web UI.
			_, err := forgeClient().EditProject(ctx, forge.RepoScope("acme", "web"), id, forge.EditProjectOption{Title: ptr("Renamed"), State: ptr("closed")})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() forge.Project { return projects()[0] }, timeout, poll).Should(And(
				HaveField("Title", "Roadmap 2027"), HaveField("State", "open")))
			eventWithReason(p, forgev1.ReasonDriftCorrected)
			Expect(projects()).To(HaveLen(1))
		})

		It("deletes the project with deletionPolicy Delete", func() {
			p := newProject("roadmap", "Roadmap")
			Expect(k8s.Create(ctx, p)).To(Succeed())
			expectReady(p)
			Expect(k8s.Delete(ctx, p)).To(Succeed())
			gone(p)
			Expect(projects()).To(BeEmpty())
		})

		It("stalls with Conflict when several projects have the title", func() {
			for range 2 {
				_, err := forgeClient().CreateProject(ctx, forge.RepoScope("acme", "web"), forge.CreateProjectOption{Title: "Twice"})
				Expect(err).NotTo(HaveOccurred())
			}
			p := newProject("twice", "Twice")
			Expect(k8s.Create(ctx, p)).To(Succeed())
			msg := expectReason(p, metav1.ConditionFalse, forgev1.ReasonConflict)
			Expect(msg).To(ContainSubstring("ids"))
			Expect(projects()).To(HaveLen(2))
		})
	})

	Context("on a forge without the projects API", func() {
		BeforeEach(func() { setup(fakeforge.WithoutProjects(), fakeforge.WithVersion("1.27.3")) })

		It("stalls as Unsupported, naming the version, without retrying faster than the backoff", func() {
			p := newProject("roadmap", "Roadmap")
			Expect(k8s.Create(ctx, p)).To(Succeed())
			msg := expectReason(p, metav1.ConditionFalse, forgev1.ReasonUnsupported)
			Expect(msg).To(And(ContainSubstring("1.27.3"), ContainSubstring("projects")))
			stalled := findCondition(p, forgev1.ConditionStalled)
			Expect(stalled).NotTo(BeNil())
			Expect(stalled.Status).To(Equal(metav1.ConditionTrue))

			// A stalled resource is retried at its sync interval (2s here), not in a hot loop.
			fake.ClearRequests()
			window := 3 * syncInterval
			Consistently(func() int { return requestsTo("/projects") }, window, poll).Should(BeNumerically("<=", 4))
			Expect(fake.WriteRequests()).To(BeEmpty())

			// The server is upgraded: the Forge reports the new version and the project follows.
			fake.SetProjectsEnabled(true)
			fake.SetVersion("1.28.0")
			expectReady(p)
			Expect(projects()).To(HaveLen(1))
		})

		It("tells a missing repository from the missing API", func() {
			p := newProject("nowhere", "Roadmap")
			p.Spec.Repository = "acme/nowhere"
			Expect(k8s.Create(ctx, p)).To(Succeed())
			msg := expectReason(p, metav1.ConditionFalse, forgev1.ReasonParentNotFound)
			Expect(msg).To(ContainSubstring("acme/nowhere"))
		})

		It("lets a stalled project be deleted", func() {
			p := newProject("roadmap", "Roadmap")
			Expect(k8s.Create(ctx, p)).To(Succeed())
			expectReason(p, metav1.ConditionFalse, forgev1.ReasonUnsupported)
			Expect(k8s.Delete(ctx, p)).To(Succeed())
			gone(p)
		})
	})

	It("checks the Forge version again when it changes", func() {
		setup(fakeforge.WithoutProjects())
		p := newProject("roadmap", "Roadmap")
		p.Spec.SyncInterval = every(time.Hour) // only a Forge change can bring it back soon
		Expect(k8s.Create(ctx, p)).To(Succeed())
		expectReason(p, metav1.ConditionFalse, forgev1.ReasonUnsupported)
		fake.SetProjectsEnabled(true)
		fake.SetVersion("1.28.0")
		Eventually(func(g Gomega) string {
			var f forgev1.Forge
			g.Expect(k8s.Get(ctx, key(ns, "gitea"), &f)).To(Succeed())
			return f.Status.ServerVersion
		}, timeout, poll).Should(Equal("1.28.0"))
		expectReady(p)
	})
})
