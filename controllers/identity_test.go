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
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Identity and addressing (DESIGN "Identity is recorded when seen",
// "Addressing"): what a resource deletes, archives or renames is the
// object of its status.id, under the name that object has now.
var _ = Describe("Identity and addressing", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
	})

	newRepo := func(name string, policy forgev1.RepositoryDeletionPolicy) *forgev1.Repository {
		return &forgev1.Repository{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RepositorySpec{
				ManagedSpec:    forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Owner:          "acme",
				DeletionPolicy: policy,
			},
		}
	}
	gone := func(obj *forgev1.Repository) {
		GinkgoHelper()
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, obj.Name), obj)) }, timeout, poll).Should(BeTrue())
	}

	// The owner's listing the deletion read still showed
	// the old name, and the repository made under it since was deleted.
	It("deletes the repository it holds under the name it has now, never the one that took its old name", func() {
		r := newRepo("web", "Delete")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		made := r.Status.ID

		// By hand: rename it, and make a new repository under the old name.
		_, err := forgeClient().EditRepo(ctx, "acme", "web", forge.EditRepoOption{Name: ptr("web-2025")})
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		newcomer, _ := fake.Repo("acme", "web")

		Expect(k8s.Delete(ctx, r)).To(Succeed())
		gone(r)
		_, ok := fake.Repo("acme", "web-2025")
		Expect(ok).To(BeFalse(), "the repository it made (id %d), renamed since, is deleted", made)
		still, ok := fake.Repo("acme", "web")
		Expect(ok).To(BeTrue(), "the repository made by hand under the old name is not deleted")
		Expect(still.ID).To(Equal(newcomer.ID))
	})

	It("archives the repository it holds under the name it has now", func() {
		r := newRepo("api", "Archive")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		_, err := forgeClient().EditRepo(ctx, "acme", "api", forge.EditRepoOption{Name: ptr("api-old")})
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "api")).To(Succeed())

		Expect(k8s.Delete(ctx, r)).To(Succeed())
		gone(r)
		old, _ := fake.Repo("acme", "api-old")
		Expect(old.Archived).To(BeTrue(), "the repository it held is archived")
		newcomer, _ := fake.Repo("acme", "api")
		Expect(newcomer.Archived).To(BeFalse(), "the repository that took the old name is not")
	})

	// The created mark outlived the repository it was made for.
	It("deletes without allow-delete only the repository it created, not one made by hand under its name after it went", func() {
		r := newRepo("docs", "Delete")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		made := r.Status.ID
		Expect(r.Status.CreatedID).To(Equal(made))

		fake.DeleteRepo("acme", "docs")
		Expect(fake.CreateRepo("acme", "docs")).To(Succeed())
		byHand, _ := fake.Repo("acme", "docs")
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, key(ns, r.Name), r)).To(Succeed())
			g.Expect(r.Status.ID).To(Equal(byHand.ID), "the resource finds the repository now under its name")
		}, timeout, poll).Should(Succeed())
		Expect(r.Status.CreatedID).To(Equal(made), "the mark still names the repository it made")

		Expect(k8s.Delete(ctx, r)).To(Succeed())
		gone(r)
		still, ok := fake.Repo("acme", "docs")
		Expect(ok).To(BeTrue(), "a repository the operator did not create is left without the allow-delete annotation")
		Expect(still.ID).To(Equal(byHand.ID))
		Eventually(func() []string { return events(r) }, timeout, poll).Should(ContainElement(And(HavePrefix(forgev1.ReasonOrphaned), ContainSubstring(forgev1.AllowDeleteAnnotation))), "Events are written after the status, asynchronously")
	})

	// A pass that failed after the adoption dropped the id,
	// and the rename that followed made a second team.
	It("records a team's id when a listed member does not exist, so that a rename renames it", func() {
		t := &forgev1.Team{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "devs"},
			Spec: forgev1.TeamSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Organization: "acme",
				Members:      []forgev1.OwnerName{"nobody-here"},
			},
		}
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReason(t, metav1.ConditionFalse, forgev1.ReasonUserNotFound)
		team, ok := fake.Team("acme", "devs")
		Expect(ok).To(BeTrue())
		Eventually(func(g Gomega) int64 {
			g.Expect(k8s.Get(ctx, key(ns, t.Name), t)).To(Succeed())
			return t.Status.ID
		}, timeout, poll).Should(Equal(team.ID), "the team made is recorded although the pass failed")

		change(t, func(t *forgev1.Team) {
			t.Spec.Name = ptr(forgev1.TeamName("developers"))
			t.Spec.Members = []forgev1.OwnerName{}
		})
		expectReady(t)
		Expect(fake.Teams("acme")).To(ContainElement(HaveField("Name", "developers")))
		Expect(fake.Teams("acme")).NotTo(ContainElement(HaveField("Name", "devs")), "renamed, not made anew")
		renamed, _ := fake.Team("acme", "developers")
		Expect(renamed.ID).To(Equal(team.ID))
	})

	It("records a repository's id when a collaborator does not exist, so that a rename renames it", func() {
		r := newRepo("cli", "Orphan")
		r.Spec.Collaborators = []forgev1.Collaborator{{User: "nobody-here", Permission: "write"}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		Eventually(func(g Gomega) {
			c := readyCondition(r)(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(r.Status.ID).NotTo(BeZero(), "the repository made is recorded although the pass failed (%s)", c.Reason)
		}, timeout, poll).Should(Succeed())
		made := r.Status.ID

		change(r, func(r *forgev1.Repository) {
			r.Spec.Name = ptr(forgev1.RepoName("cli-tool"))
			r.Spec.Collaborators = []forgev1.Collaborator{}
		})
		expectReady(r)
		renamed, ok := fake.Repo("acme", "cli-tool")
		Expect(ok).To(BeTrue())
		Expect(renamed.ID).To(Equal(made), "renamed, not made anew")
		_, ok = fake.Repo("acme", "cli")
		Expect(ok).To(BeFalse())
	})

	// shiftedLabelWalks is shiftedLabels for the first walks listings: as
	// each turns to page 2, a label before the target goes and one after it
	// comes; before each after the first, a label is made that sorts first
	// (labels are listed by name), which puts the target back at the top of
	// page 2 for the next shift to hide.
	shiftedLabelWalks := func(walks int) (forge.Label, *atomic.Int64) {
		GinkgoHelper()
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		web := forge.RepoScope("acme", "web")
		fc := forgeClient()
		var made []*forge.Label
		for i := range forge.PageSize + 1 {
			l, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("l%02d", i), Color: "#ededed"})
			Expect(err).NotTo(HaveOccurred())
			made = append(made, l)
		}
		var pages atomic.Int64
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/web/labels", Count: 2 * walks, Before: func() {
			n := pages.Add(1)
			defer GinkgoRecover()
			if n%2 != 0 {
				if n > 1 {
					_, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("a%02d", n), Color: "#ededed"})
					Expect(err).NotTo(HaveOccurred())
				}
				return
			}
			Expect(fc.DeleteLabel(ctx, web, made[n/2-1].ID)).To(Succeed())
			_, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("late%d", n/2), Color: "#ededed"})
			Expect(err).NotTo(HaveOccurred())
		}})
		return *made[forge.PageSize], &pages
	}
	// shiftedLabels makes PageSize+1 labels in acme/web and arranges that
	// the first listing of them, walked page by page, misses the first label
	// of page 2: between page 1 and page 2 a label before it goes and one
	// after it comes, so it moves to page 1, read already. It returns that
	// label and a count of the listing's pages served.
	shiftedLabels := func() (forge.Label, *atomic.Int64) {
		GinkgoHelper()
		return shiftedLabelWalks(1)
	}
	labelsNamed := func(name string) []forge.Label {
		var out []forge.Label
		for _, have := range fake.Labels(forge.RepoScope("acme", "web")) {
			if have.Name == name {
				out = append(out, have)
			}
		}
		return out
	}

	// A label that moved across a page boundary while the
	// labels were listed page by page was missing from the listing, and the
	// Label created a second one of its name.
	It("confirms a label missing from a paged listing before creating it, and adopts it instead of a duplicate", func() {
		target, pages := shiftedLabels()
		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "target"},
			Spec: forgev1.LabelSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  ptr(forgev1.RepositoryName("acme/web")),
				Name:        target.Name,
				Color:       "ededed",
			},
		}
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		Expect(pages.Load()).To(BeNumerically(">=", 2), "the listing was shifted")
		Expect(l.Status.ID).To(Equal(target.ID), "the label that exists is adopted")
		Expect(labelsNamed(target.Name)).To(HaveLen(1), "no second label of the name")
	})

	It("confirms an absence on walks that agree: a shift during the confirming listing too makes no duplicate", func() {
		// The listing the pass observes from and the fresh one that
		// confirms the absence each lose the label to a shift.
		target, pages := shiftedLabelWalks(2)
		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "target"},
			Spec: forgev1.LabelSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  ptr(forgev1.RepositoryName("acme/web")),
				Name:        target.Name,
				Color:       "ededed",
			},
		}
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		Expect(pages.Load()).To(BeNumerically(">=", 4), "both listings were shifted")
		Expect(l.Status.ID).To(Equal(target.ID), "the label that exists is adopted")
		Expect(labelsNamed(target.Name)).To(HaveLen(1), "no second label of the name")
	})

	It("has a LabelSet confirm a label missing from a paged listing before creating it", func() {
		target, pages := shiftedLabels()
		s := &forgev1.LabelSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kinds"},
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}},
				Labels:       []forgev1.LabelSetLabel{{Name: forgev1.LabelName(target.Name), Color: "ededed"}},
			},
		}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(pages.Load()).To(BeNumerically(">=", 2), "the listing was shifted")
		Expect(labelsNamed(target.Name)).To(ConsistOf(HaveField("ID", target.ID)), "no second label of the name")
	})

	It("has a LabelSet confirm an absence on walks that agree, a shift during the confirming listing too", func() {
		target, pages := shiftedLabelWalks(2)
		s := &forgev1.LabelSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kinds"},
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}},
				Labels:       []forgev1.LabelSetLabel{{Name: forgev1.LabelName(target.Name), Color: "ededed"}},
			},
		}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(pages.Load()).To(BeNumerically(">=", 4), "both listings were shifted")
		Expect(labelsNamed(target.Name)).To(ConsistOf(HaveField("ID", target.ID)), "no second label of the name")
	})

	It("confirms a repository missing from a paged listing with a GET by name before creating it, and adopts it", func() {
		fc := forgeClient()
		var names []string
		for i := range forge.PageSize + 1 {
			names = append(names, fmt.Sprintf("r%02d", i))
			Expect(fake.CreateRepo("acme", names[i])).To(Succeed())
		}
		target, _ := fake.Repo("acme", names[forge.PageSize]) // first on page 2
		var pages atomic.Int64
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/orgs/acme/repos", Count: 2, Before: func() {
			if pages.Add(1) != 2 {
				return
			}
			defer GinkgoRecover()
			Expect(fc.DeleteRepo(ctx, "acme", names[0])).To(Succeed())
			_, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "zz-late"})
			Expect(err).NotTo(HaveOccurred())
		}})
		fake.ClearRequests()
		r := newRepo(target.Name, "Orphan")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		Expect(pages.Load()).To(BeNumerically(">=", 2), "the listing was shifted")
		Expect(r.Status.ID).To(Equal(target.ID), "the repository that exists is adopted")
		Expect(r.Status.CreatedID).To(BeZero())
		creates := 0
		for _, req := range fake.WriteRequests() {
			if req.Method == http.MethodPost && req.Path == "/api/v1/orgs/acme/repos" {
				creates++
			}
		}
		Expect(creates).To(Equal(1), "only the test's own create: the operator made none")
		Expect(requestsTo("/api/v1/repos/acme/"+target.Name)).To(BeNumerically(">=", 1), "confirmed by a GET of its name")
	})

	It("leaves a repository that moved to another owner: nothing is written to it, not even on deletion", func() {
		r := newRepo("moving", "Delete")
		r.Spec.Description = ptr("ours")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		id := r.Status.ID
		// As the forge answers once a person transferred the repository to
		// another owner: its id now reads elsewhere/moving.
		moved := fmt.Sprintf(`{"id":%d,"name":"moving","full_name":"elsewhere/moving","owner":{"id":999,"login":"elsewhere"}}`, id)
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: fmt.Sprintf("/repositories/%d", id), Count: -1,
			Status: http.StatusOK, Body: moved})
		fake.ClearRequests()

		Expect(k8s.Delete(ctx, r)).To(Succeed())
		gone(r)
		Eventually(func() []string { return events(r) }, timeout, poll).Should(ContainElement(And(
			HavePrefix(forgev1.ReasonMoved+": "), ContainSubstring("elsewhere/moving"))))
		Expect(fake.WriteRequests()).To(BeEmpty(), "nothing is written to a repository that moved")
		_, ok := fake.Repo("acme", "moving")
		Expect(ok).To(BeTrue())
	})
})
