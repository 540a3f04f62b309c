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
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// acmeRepository is a Repository of acme named name in namespace ns, on
// the Forge "gitea", checked every syncInterval.
func acmeRepository(ns, name string) *forgev1.Repository {
	return &forgev1.Repository{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: forgev1.RepositorySpec{
			ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
			Owner:       "acme",
		},
	}
}

var _ = Describe("Repository", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fake.AddUser("alice")
		fake.AddUser("bob")
		fake.AddUser("carol")
	})

	newRepo := func(name string) *forgev1.Repository { return acmeRepository(ns, name) }
	repoOf := func(name string) forge.Repository {
		GinkgoHelper()
		r, ok := fake.Repo("acme", name)
		Expect(ok).To(BeTrue(), "repository acme/%s", name)
		return r
	}

	It("creates the repository with init and settings, reports it, and makes no writes at rest", func() {
		r := newRepo("web")
		r.Spec.Init = &forgev1.RepositoryInit{AutoInit: ptr(true), License: ptr("Apache-2.0"), Gitignores: ptr("Go")}
		r.Spec.DefaultBranch = ptr("trunk")
		r.Spec.Description = ptr("The website")
		r.Spec.Private = ptr(true)
		r.Spec.HasWiki = ptr(false)
		r.Spec.DefaultMergeStyle = ptr("squash")
		r.Spec.Topics = []forgev1.Topic{"web", "go"}
		r.Spec.Collaborators = []forgev1.Collaborator{{User: "alice", Permission: "write"}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)

		got := repoOf("web")
		Expect(r.Status.ID).To(Equal(got.ID))
		Expect(r.Status.URL).To(Equal(got.HTMLURL))
		Expect(r.Status.CloneURL).To(Equal(got.CloneURL))
		Expect(r.Status.DefaultBranch).To(Equal("trunk"))
		Expect(r.Status.Empty).To(BeFalse(), "autoInit makes a first commit")
		Expect(r.Status.CreatedID).To(Equal(got.ID), "the created mark names the repository made")
		Expect(got.Description).To(Equal("The website"))
		Expect(got.Private).To(BeTrue())
		Expect(got.HasWiki).To(BeFalse())
		Expect(got.HasIssues).To(BeTrue(), "a setting not in the spec keeps the forge's value")
		Expect(got.DefaultMergeStyle).To(Equal("squash"))
		Expect(got.Topics).To(Equal([]string{"go", "web"}))
		Expect(fake.Collaborators("acme", "web")).To(Equal(map[string]string{"alice": "write"}))
		eventWithReason(r, forgev1.ReasonCreated)

		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		Expect(requestsTo("/repos/acme/web/collaborators")).To(BeNumerically(">", 0), "managed collaborators are listed at each check")
		Expect(requestsTo("/api/v1/repos/acme/web")-requestsTo("/repos/acme/web/collaborators")).To(BeZero(), "no per-repository read at rest")
	})

	It("adopts by name without a write, and adopts and renames from previousNames keeping the id and what it holds", func() {
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		r := newRepo("web")
		r.Spec.HasIssues = ptr(true)
		fake.ClearRequests()
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		Expect(fake.WriteRequests()).To(BeEmpty())
		eventWithReason(r, forgev1.ReasonAdopted)
		Expect(r.Status.CreatedID).To(BeZero())

		Expect(fake.CreateRepo("acme", "website")).To(Succeed())
		old := repoOf("website")
		fc := forgeClient()
		label, err := fc.CreateLabel(ctx, forge.RepoScope("acme", "website"), forge.CreateLabelOption{Name: "kind/bug", Color: "ee0701"})
		Expect(err).NotTo(HaveOccurred())
		person, err := forge.New(forge.Config{URL: fakeURL, Token: token})
		Expect(err).NotTo(HaveOccurred())
		issue, err := person.CreateIssue(ctx, "acme", "website", forge.CreateIssueOption{Title: "broken", Labels: []int64{label.ID}})
		Expect(err).NotTo(HaveOccurred())
		moved := newRepo("site")
		moved.Spec.Name = ptr(forgev1.RepoName("www"))
		moved.Spec.PreviousNames = []forgev1.RepoName{"website"}
		Expect(k8s.Create(ctx, moved)).To(Succeed())
		expectReady(moved)
		Expect(moved.Status.ID).To(Equal(old.ID))
		Expect(repoOf("www").ID).To(Equal(old.ID))
		Expect(fake.Labels(forge.RepoScope("acme", "www"))).To(ContainElement(HaveField("ID", label.ID)))
		issues, err := person.ListIssuesWithLabel(ctx, "acme", "www", "kind/bug")
		Expect(err).NotTo(HaveOccurred())
		Expect(issues).To(ConsistOf(HaveField("Number", issue.Number)), "the issue and its label survive the rename")
		_, err = fc.GetRepo(ctx, "acme", "website")
		Expect(forge.IsMoved(err)).To(BeTrue(), "the old name answers with a redirect to the new one: %v", err)
		Expect(err.Error()).To(ContainSubstring("/repos/acme/www"))
		Eventually(func() []string { return events(moved) }, timeout, poll).Should(ContainElement(And(ContainSubstring("Adopted"), ContainSubstring("updated name"))), "Events are written after the status, asynchronously")
	})

	It("refuses to rename when the name and a previous name both exist", func() {
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		Expect(fake.CreateRepo("acme", "website")).To(Succeed())
		a, b := repoOf("web"), repoOf("website")
		r := newRepo("web")
		r.Spec.PreviousNames = []forgev1.RepoName{"website"}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		msg := expectReason(r, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(ContainSubstring(fmt.Sprintf("id %d", a.ID)))
		Expect(msg).To(ContainSubstring(fmt.Sprintf("id %d", b.ID)))
		Expect(fake.WriteRequests()).To(BeEmpty())
	})

	It("corrects a setting, a topic and a collaborator changed by hand, and never writes settings it does not manage", func() {
		r := newRepo("web")
		r.Spec.Description = ptr("Site")
		r.Spec.Topics = []forgev1.Topic{"go"}
		r.Spec.Collaborators = []forgev1.Collaborator{{User: "alice", Permission: "read"}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)

		fc := forgeClient()
		_, err := fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{Description: ptr("hacked"), Website: ptr("https://elsewhere.example")})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.SetRepoTopics(ctx, "acme", "web", []string{"go", "php"})).To(Succeed())
		Expect(fc.SetCollaborator(ctx, "acme", "web", "bob", "admin")).To(Succeed())
		Expect(fc.RemoveCollaborator(ctx, "acme", "web", "alice")).To(Succeed())

		Eventually(func(g Gomega) {
			got := repoOf("web")
			g.Expect(got.Description).To(Equal("Site"))
			g.Expect(got.Topics).To(Equal([]string{"go"}))
			g.Expect(fake.Collaborators("acme", "web")).To(Equal(map[string]string{"alice": "read"}))
		}, timeout, poll).Should(Succeed())
		Expect(repoOf("web").Website).To(Equal("https://elsewhere.example"), "website is not in the spec")
		Eventually(func() []string { return events(r) }, timeout, poll).Should(ContainElement(ContainSubstring("collaborators, description, topics")))
	})

	It("changes a permission with one PUT and removes no more collaborators than allowed", func() {
		r := newRepo("web")
		r.Spec.Collaborators = []forgev1.Collaborator{{User: "alice", Permission: "read"}, {User: "bob", Permission: "read"}, {User: "carol", Permission: "read"}}
		r.Spec.MaxCollaboratorRemovals = ptr(int32(1))
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)

		fake.ClearRequests()
		change(r, func(r *forgev1.Repository) { r.Spec.Collaborators[0].Permission = "admin" })
		Eventually(func() map[string]string { return fake.Collaborators("acme", "web") }, timeout, poll).Should(HaveKeyWithValue("alice", "admin"))
		expectReady(r)
		Expect(writesTo("/collaborators/")).To(Equal(1), "one PUT, no removal and addition")

		change(r, func(r *forgev1.Repository) { r.Spec.Collaborators = r.Spec.Collaborators[:1] })
		msg := expectReason(r, metav1.ConditionFalse, forgev1.ReasonTooManyRemovals)
		Expect(msg).To(ContainSubstring("bob, carol"))
		Expect(fake.Collaborators("acme", "web")).To(HaveLen(3))

		change(r, func(r *forgev1.Repository) { r.Spec.MaxCollaboratorRemovals = ptr(int32(2)) })
		Eventually(func() map[string]string { return fake.Collaborators("acme", "web") }, timeout, poll).Should(Equal(map[string]string{"alice": "admin"}))
		expectReady(r)

		change(r, func(r *forgev1.Repository) { r.Spec.Collaborators = nil })
		expectReady(r)
		Expect(forgeClient().SetCollaborator(ctx, "acme", "web", "bob", "write")).To(Succeed())
		Consistently(func() map[string]string { return fake.Collaborators("acme", "web") }, 2*syncInterval, poll).Should(HaveKey("bob"), "unset collaborators are left alone")
	})

	It("archives last, unarchives first, and stalls a Label of the archived repository without a write", func() {
		r := newRepo("web")
		r.Spec.Description = ptr("before")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)

		change(r, func(r *forgev1.Repository) { r.Spec.Archived = ptr(true); r.Spec.Description = ptr("archived") })
		Eventually(func() bool { return repoOf("web").Archived }, timeout, poll).Should(BeTrue())
		expectReady(r)
		Expect(repoOf("web").Description).To(Equal("archived"))
		writes := fake.WriteRequests()
		Expect(writes[len(writes)-1].Path).To(Equal("/api/v1/repos/acme/web"))
		Expect(r.Status.Archived).To(BeTrue())

		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bug"},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: ptr(forgev1.RepositoryName("acme/web")), Name: "kind/bug", Color: "ee0701"},
		}
		fake.ClearRequests()
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReason(l, metav1.ConditionFalse, forgev1.ReasonRepositoryArchived)
		Expect(writesTo("/labels")).To(BeZero())

		change(r, func(r *forgev1.Repository) { r.Spec.Archived = ptr(false); r.Spec.Description = ptr("alive") })
		Eventually(func() bool { return repoOf("web").Archived }, timeout, poll).Should(BeFalse())
		expectReady(l)
		Expect(fake.Labels(forge.RepoScope("acme", "web"))).To(HaveLen(1))
	})

	It("orphans by default, archives with Archive, and deletes with Delete only what it created or may delete", func() {
		orphan, archive, created := newRepo("orphan"), newRepo("archive"), newRepo("created")
		archive.Spec.DeletionPolicy = "Archive"
		created.Spec.DeletionPolicy = "Delete"
		Expect(fake.CreateRepo("acme", "adopted")).To(Succeed())
		Expect(fake.CreateRepo("acme", "allowed")).To(Succeed())
		adopted, allowed := newRepo("adopted"), newRepo("allowed")
		adopted.Spec.DeletionPolicy = "Delete"
		allowed.Spec.DeletionPolicy = "Delete"
		allowed.Annotations = map[string]string{forgev1.AllowDeleteAnnotation: "true"}
		all := []*forgev1.Repository{orphan, archive, created, adopted, allowed}
		for _, r := range all {
			Expect(k8s.Create(ctx, r)).To(Succeed())
		}
		for _, r := range all {
			expectReady(r)
			Expect(k8s.Delete(ctx, r)).To(Succeed())
		}
		for _, r := range all {
			Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, r.Name), r)) }, timeout, poll).Should(BeTrue())
		}
		Expect(repoOf("orphan").Archived).To(BeFalse())
		Expect(repoOf("archive").Archived).To(BeTrue())
		_, ok := fake.Repo("acme", "created")
		Expect(ok).To(BeFalse())
		_, ok = fake.Repo("acme", "allowed")
		Expect(ok).To(BeFalse())
		Expect(repoOf("adopted").Archived).To(BeFalse())
		Eventually(func() []string { return events(adopted) }, timeout, poll).Should(ContainElement(And(HavePrefix(forgev1.ReasonOrphaned), ContainSubstring(forgev1.AllowDeleteAnnotation))), "Events are written after the status, asynchronously")
	})

	It("lets a Label, a RepoHook and a LabelSet member applied before their Repository wait, then go Ready", func() {
		hook := &forgev1.RepoHook{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deploy"},
			Spec: forgev1.RepoHookSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: "acme/web", HookSpec: forgev1.HookSpec{Type: "gitea", URL: "https://deploy.example.com/web"}},
		}
		set := &forgev1.LabelSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "standard"},
			Spec: forgev1.LabelSetSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}},
				Labels:       []forgev1.LabelSetLabel{{Name: "triage", Color: "ededed"}}},
		}
		Expect(k8s.Create(ctx, hook)).To(Succeed())
		Expect(k8s.Create(ctx, set)).To(Succeed())
		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bug"},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: ptr(forgev1.RepositoryName("acme/web")), Name: "kind/bug", Color: "ee0701"},
		}
		Expect(k8s.Create(ctx, l)).To(Succeed())
		Expect(expectReason(l, metav1.ConditionFalse, forgev1.ReasonParentNotFound)).To(ContainSubstring("acme/web"))
		Eventually(readyCondition(l), timeout, poll).Should(HaveField("Reason", forgev1.ReasonParentNotFound))
		var cur forgev1.Label
		Expect(k8s.Get(ctx, key(ns, "bug"), &cur)).To(Succeed())
		Expect(condStatus(&cur, forgev1.ConditionStalled)).NotTo(Equal(metav1.ConditionTrue), "waiting, never stalled")

		expectReason(hook, metav1.ConditionFalse, forgev1.ReasonParentNotFound)
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, key(ns, "standard"), set)).To(Succeed())
			return fmt.Sprint(set.Status.Failures)
		}, timeout, poll).Should(ContainSubstring(forgev1.ReasonParentNotFound))

		r := newRepo("web")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		expectReady(l)
		expectReady(hook)
		expectReady(set)
		Expect(fake.Labels(forge.RepoScope("acme", "web"))).To(HaveLen(2))
	})

	It("refuses a write to a renamed repository's old path instead of repeating it as a read", func() {
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fc := forgeClient()
		_, err := fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{Name: ptr("www")})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{Description: ptr("lost")})
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("this PATCH of /repos/acme/web with a redirect to /api/v1/repos/acme/www"))
		Expect(repoOf("www").Description).To(BeEmpty())
		Expect(strings.Contains(err.Error(), fmt.Sprint(http.StatusMovedPermanently))).To(BeTrue())
	})
})
