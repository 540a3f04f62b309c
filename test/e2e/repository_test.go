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
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Repository end to end", func() {
	ctx := context.Background()

	repoOf := func(g Gomega, owner, name string) *forge.Repository {
		r, err := fc.GetRepo(ctx, owner, name)
		g.Expect(err).NotTo(HaveOccurred())
		return r
	}
	collaborators := func(g Gomega, owner, name string) map[string]string {
		users, err := fc.ListCollaborators(ctx, owner, name)
		g.Expect(err).NotTo(HaveOccurred())
		out := map[string]string{}
		for _, u := range users {
			p, err := fc.GetCollaboratorPermission(ctx, owner, name, u.Login)
			g.Expect(err).NotTo(HaveOccurred())
			out[u.Login] = p
		}
		return out
	}

	It("creates with init and settings, corrects drift, renames in place, archives last and deletes what it created", func() {
		sc := newScenario()
		sc.createOrg()
		alice, bob := newUser(), newUser()
		r := &forgev1.Repository{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web"},
			Spec: forgev1.RepositorySpec{
				ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), DeletionPolicy: "Delete",
				Init: &forgev1.RepositoryInit{AutoInit: ptr(true), License: ptr("MIT"), Gitignores: ptr("Go")},
				RepositorySettings: forgev1.RepositorySettings{Description: ptr("The website"), DefaultBranch: ptr("main"), HasWiki: ptr(false),
					DefaultMergeStyle: ptr("squash")},
				Topics:        []forgev1.Topic{"web", "go"},
				Collaborators: []forgev1.Collaborator{{User: forgev1.OwnerName(alice), Permission: "write"}},
			},
		}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		Expect(expectReady(r)).To(Equal(forgev1.ReasonCreated))
		got := repoOf(Default, sc.org, "web")
		Expect(r.Status.ID).To(Equal(got.ID))
		Expect(r.Status.CloneURL).To(Equal(got.CloneURL))
		Expect(r.Status.DefaultBranch).To(Equal("main"))
		Expect(r.Status.Empty).To(BeFalse())
		Expect([]any{got.Description, got.HasWiki, got.DefaultMergeStyle, got.Topics}).To(Equal([]any{"The website", false, "squash", []string{"go", "web"}}))
		Expect(collaborators(Default, sc.org, "web")).To(Equal(map[string]string{alice: "write"}))

		By("a setting, a topic and a collaborator changed by hand are set back")
		_, err := fc.EditRepo(ctx, sc.org, "web", forge.EditRepoOption{Description: ptr("by hand"), HasIssues: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.SetRepoTopics(ctx, sc.org, "web", []string{"go"})).To(Succeed())
		Expect(fc.SetCollaborator(ctx, sc.org, "web", bob, "read")).To(Succeed())
		Eventually(func(g Gomega) {
			got := repoOf(g, sc.org, "web")
			g.Expect(got.Description).To(Equal("The website"))
			g.Expect(got.Topics).To(Equal([]string{"go", "web"}))
			g.Expect(collaborators(g, sc.org, "web")).To(Equal(map[string]string{alice: "write"}))
		}, timeout, poll).Should(Succeed())
		Expect(repoOf(Default, sc.org, "web").HasIssues).To(BeFalse(), "hasIssues is not in the spec")
		eventWithReason(r, forgev1.ReasonDriftCorrected)

		By("a permission change and a rename keep the id, issues' labels and the old address")
		label, err := fc.CreateLabel(ctx, forge.RepoScope(sc.org, "web"), forge.CreateLabelOption{Name: "kind/bug", Color: "ee0701"})
		Expect(err).NotTo(HaveOccurred())
		update(r, func(r *forgev1.Repository) {
			r.Spec.Name = ptr(forgev1.RepoName("www"))
			r.Spec.Collaborators[0].Permission = "admin"
		})
		Eventually(func(g Gomega) {
			got := repoOf(g, sc.org, "www")
			g.Expect(got.ID).To(Equal(r.Status.ID))
			g.Expect(collaborators(g, sc.org, "www")).To(Equal(map[string]string{alice: "admin"}))
		}, timeout, poll).Should(Succeed())
		expectReady(r)
		labels, err := fc.ListLabels(ctx, forge.RepoScope(sc.org, "www"))
		Expect(err).NotTo(HaveOccurred())
		Expect(labels).To(ContainElement(HaveField("ID", label.ID)))
		// The old name answers with a redirect, which the client does not follow.
		_, err = fc.GetRepo(ctx, sc.org, "web")
		var moved *forge.MovedError
		Expect(errors.As(err, &moved)).To(BeTrue(), "the old name: %v", err)
		Expect(moved.To).To(HaveSuffix("/repos/" + sc.org + "/www"))

		By("archived last; a Label in it stalls without writing; unarchived first")
		update(r, func(r *forgev1.Repository) { r.Spec.Archived = ptr(true); r.Spec.Description = ptr("frozen") })
		Eventually(func(g Gomega) bool { return repoOf(g, sc.org, "www").Archived }, timeout, poll).Should(BeTrue())
		expectReady(r)
		Expect(repoOf(Default, sc.org, "www").Description).To(Equal("frozen"))
		l := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "triage"},
			Spec: forgev1.LabelSpec{ManagedSpec: managed(), Repository: ptr(forgev1.RepositoryName(sc.org + "/www")),
				Name: "needs-triage", Color: "ededed"}}
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReason(l, metav1.ConditionFalse, forgev1.ReasonRepositoryArchived)
		update(r, func(r *forgev1.Repository) { r.Spec.Archived = ptr(false) })
		expectReady(l)

		By("deletion removes a repository the operator created")
		deleteAndWait(l)
		deleteAndWait(r)
		_, err = fc.GetRepo(ctx, sc.org, "www")
		Expect(forge.IsNotFound(err)).To(BeTrue(), "repository still there: %v", err)
	})

	It("adopts by name without a write, adopts and renames from a previous name, refuses both, and never deletes what it adopted", func() {
		sc := newScenario()
		sc.createOrg()
		sc.createRepo("api")
		sc.createRepo("website")
		website := repoOf(Default, sc.org, "website")

		adopt := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "api"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), DeletionPolicy: "Delete",
				RepositorySettings: forgev1.RepositorySettings{HasIssues: ptr(true), DefaultMergeStyle: ptr("merge")}}}
		Expect(k8s.Create(ctx, adopt)).To(Succeed())
		Expect(expectReady(adopt)).To(Equal(forgev1.ReasonAdopted))

		rename := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), PreviousNames: []forgev1.RepoName{"website"}}}
		Expect(k8s.Create(ctx, rename)).To(Succeed())
		Expect(expectReady(rename)).To(Equal(forgev1.ReasonAdopted))
		Expect(rename.Status.ID).To(Equal(website.ID))
		Expect(repoOf(Default, sc.org, "web").ID).To(Equal(website.ID))

		sc.createRepo("docs")
		sc.createRepo("documentation")
		both := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "docs"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), PreviousNames: []forgev1.RepoName{"documentation"}}}
		Expect(k8s.Create(ctx, both)).To(Succeed())
		msg := expectReason(both, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(ContainSubstring(fmt.Sprintf("id %d", repoOf(Default, sc.org, "documentation").ID)))
		Expect(repoOf(Default, sc.org, "documentation").Name).To(Equal("documentation"))

		deleteAndWait(adopt)
		Expect(repoOf(Default, sc.org, "api").ID).To(BeNumerically(">", 0), "an adopted repository is left without the allow-delete annotation")
		eventWithReason(adopt, forgev1.ReasonOrphaned)
	})

	It("with removals Report keeps a collaborator the spec leaves out and lists it, and adds the one it lists", func() {
		sc := newScenario()
		sc.createOrg()
		sc.createRepo("web")
		alice, bob := newUser(), newUser()
		Expect(fc.SetCollaborator(ctx, sc.org, "web", bob, "write")).To(Succeed())
		r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), Removals: forgev1.RemovalsReport,
				Collaborators: []forgev1.Collaborator{{User: forgev1.OwnerName(alice), Permission: "read"}}}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		Eventually(func(g Gomega) *forgev1.PendingRemovals {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			return r.Status.PendingRemovals
		}, timeout, poll).Should(Equal(&forgev1.PendingRemovals{Count: 1,
			Items: []forgev1.PendingRemoval{{Repository: sc.org + "/web", Kind: "Collaborator", Name: bob}}}))
		expectReady(r)
		eventWithReason(r, forgev1.ReasonRemovalsPending)
		Expect(collaborators(Default, sc.org, "web")).To(Equal(map[string]string{alice: "read", bob: "write"}))

		By("removed by hand: nothing is pending")
		Expect(fc.RemoveCollaborator(ctx, sc.org, "web", bob)).To(Succeed())
		Eventually(func(g Gomega) *forgev1.PendingRemovals {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			return r.Status.PendingRemovals
		}, timeout, poll).Should(BeNil())
		expectReady(r)
	})
})
