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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Removals Report, on every kind that removes what it does not list: what
// would go stays, is listed in status.pendingRemovals and told once by a
// Warning Event RemovalsPending; additions still happen and Ready stays
// True; the list follows the forge.
var _ = Describe("Removals Report", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []string{"web", "api"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		for _, u := range []string{"alice", "bob", "carol"} {
			fake.AddUser(u)
		}
	})

	managed := func() forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)}
	}
	pending := func(obj client.Object) func(Gomega) *forgev1.PendingRemovals {
		return func(g Gomega) *forgev1.PendingRemovals {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			p, err := reconciler.PendingRemovalsIn(obj)
			g.Expect(err).NotTo(HaveOccurred())
			return p
		}
	}
	reported := func(obj client.Object) []corev1.Event {
		var list corev1.EventList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		var out []corev1.Event
		for _, e := range list.Items {
			if e.InvolvedObject.Name == obj.GetName() && e.Reason == forgev1.ReasonRemovalsPending {
				out = append(out, e)
			}
		}
		return out
	}
	notes := func(obj client.Object) func() []string {
		return func() []string {
			var out []string
			for _, e := range reported(obj) {
				Expect(e.Type).To(Equal(corev1.EventTypeWarning))
				out = append(out, e.Message)
			}
			return out
		}
	}
	// pass requests a pass of obj and waits until it is done.
	pass := func(obj client.Object, at string) {
		GinkgoHelper()
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		Expect(k8s.Patch(ctx, obj, client.RawPatch("application/merge-patch+json",
			[]byte(`{"metadata":{"annotations":{"`+forgev1.ReconcileRequestedAtAnnotation+`":"`+at+`"}}}`)))).To(Succeed())
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			return obj.(forgev1.Managed).GetManagedStatus().LastHandledReconcileAt
		}, timeout, poll).Should(Equal(at))
	}
	deletes := func() int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if r.Method == http.MethodDelete {
				n++
			}
		}
		return n
	}
	// reportsOnce: obj is Ready with want pending and one Event saying so,
	// and two more passes remove nothing and tell nothing again.
	reportsOnce := func(obj client.Object, want *forgev1.PendingRemovals, note string) {
		GinkgoHelper()
		Eventually(pending(obj), timeout, poll).Should(Equal(want))
		expectReady(obj)
		Eventually(notes(obj), timeout, poll).Should(Equal([]string{note}))
		fake.ClearRequests()
		pass(obj, "again")
		pass(obj, "once-more")
		Expect(pending(obj)(Default)).To(Equal(want))
		expectReady(obj)
		Consistently(notes(obj), syncInterval, poll).Should(Equal([]string{note}))
		Expect(reported(obj)[0].Series).To(BeNil(), "told once, not once per pass")
		Expect(deletes()).To(BeZero(), "nothing is removed")
	}

	It("keeps an Authoritative LabelSet's unlisted labels, preserved ones unlisted, and follows them as they change", func() {
		fc := forgeClient()
		seed := func(name string) forge.Label {
			GinkgoHelper()
			l, err := fc.CreateLabel(ctx, forge.RepoScope("acme", "web"), forge.CreateLabelOption{Name: name, Color: "ededed"})
			Expect(err).NotTo(HaveOccurred())
			return *l
		}
		stale := seed("stale")
		seed("wontfix")
		s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "standard"},
			Spec: forgev1.LabelSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}},
				Labels:       []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}},
				Mode:         forgev1.SetModeAuthoritative, Preserve: "^wontfix$", Removals: forgev1.RemovalsReport}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		reportsOnce(s, &forgev1.PendingRemovals{Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/web", Kind: "Label", Name: "stale"}}},
			`1 removal not made (removals Report; see status.pendingRemovals): acme/web Label "stale"`)
		names := func() []string {
			var out []string
			for _, l := range fake.Labels(forge.RepoScope("acme", "web")) {
				out = append(out, l.Name)
			}
			return out
		}
		Expect(names()).To(ConsistOf("kind/bug", "stale", "wontfix"), "the listed label is created, the others stay")
		Expect(s.Status.InSync).To(BeEquivalentTo(1))

		By("a label listing that fails keeps the list, and does not tell it again")
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/web/labels", Count: -1,
			Status: http.StatusInternalServerError, Body: `{"message":"database is locked"}`})
		pass(s, "failing")
		expectReason(s, metav1.ConditionFalse, forgev1.ReasonForgeError)
		Expect(pending(s)(Default)).To(Equal(&forgev1.PendingRemovals{Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/web", Kind: "Label", Name: "stale"}}}))
		fake.ClearFaults()
		pass(s, "recovered")
		expectReady(s)
		Expect(notes(s)()).To(HaveLen(1))
		Expect(reported(s)[0].Series).To(BeNil())

		By("another unlisted label: the list changes, and that is told")
		old := seed("old")
		pass(s, "old-added")
		Eventually(pending(s), timeout, poll).Should(Equal(&forgev1.PendingRemovals{Count: 2, Items: []forgev1.PendingRemoval{
			{Repository: "acme/web", Kind: "Label", Name: "old"}, {Repository: "acme/web", Kind: "Label", Name: "stale"}}}))
		Eventually(notes(s), timeout, poll).Should(ContainElement(
			`2 removals not made (removals Report; see status.pendingRemovals): acme/web Label "old", acme/web Label "stale"`))

		By("removed by hand: nothing is pending")
		for _, l := range []forge.Label{stale, old} {
			Expect(fc.DeleteLabel(ctx, forge.RepoScope("acme", "web"), l.ID)).To(Succeed())
		}
		pass(s, "removed")
		Eventually(pending(s), timeout, poll).Should(BeNil())
		expectReady(s)
		Expect(notes(s)()).To(HaveLen(2), "nothing pending is no Warning")

		By("Apply: an unlisted label goes")
		seed("stale-again")
		change(s, func(s *forgev1.LabelSet) { s.Spec.Removals = forgev1.RemovalsApply })
		Eventually(names, timeout, poll).Should(ConsistOf("kind/bug", "wontfix"))
		Expect(pending(s)(Default)).To(BeNil())
	})

	It("keeps an Authoritative BranchProtectionSet's unlisted rules and lists them", func() {
		fc := forgeClient()
		_, err := fc.CreateBranchProtection(ctx, "acme", "api", forge.BranchProtection{RuleName: "stale-1"})
		Expect(err).NotTo(HaveOccurred())
		s := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "protect"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Rules:        []forgev1.BranchProtectionRule{{RuleName: "main", RequiredApprovals: ptr(int64(1))}},
				Mode:         forgev1.SetModeAuthoritative, MaxDeletionsPerRepository: ptr(int32(0)), Removals: forgev1.RemovalsReport}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		reportsOnce(s, &forgev1.PendingRemovals{Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/api", Kind: "BranchProtection", Name: "stale-1"}}},
			`1 removal not made (removals Report; see status.pendingRemovals): acme/api BranchProtection "stale-1"`)
		rules := func(repo string) []string {
			var out []string
			for _, b := range fake.BranchProtections("acme", repo) {
				out = append(out, b.RuleName)
			}
			return out
		}
		Expect(rules("api")).To(ConsistOf("main", "stale-1"), "maxDeletionsPerRepository bounds removals; Report makes none")
		Expect(rules("web")).To(ConsistOf("main"))

		Expect(fc.DeleteBranchProtection(ctx, "acme", "api", "stale-1")).To(Succeed())
		pass(s, "removed")
		Eventually(pending(s), timeout, poll).Should(BeNil())
		expectReady(s)
	})

	It("keeps a Team's unlisted members and repositories, adds the listed ones, and lists them whatever maxRemovals", func() {
		t := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "platform"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: "acme",
				Members: []forgev1.OwnerName{"alice", "bob"}, Repositories: []forgev1.RepoName{"web", "api"}}}
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		Expect(t.Status.PendingRemovals).To(BeNil())

		change(t, func(t *forgev1.Team) {
			t.Spec.Members, t.Spec.Repositories = []forgev1.OwnerName{"alice", "carol"}, []forgev1.RepoName{"web"}
			t.Spec.MaxRemovals, t.Spec.Removals = ptr(int32(0)), forgev1.RemovalsReport
		})
		Eventually(func() []string { return fake.TeamMembers("acme", "platform") }, timeout, poll).Should(ConsistOf("alice", "bob", "carol"))
		reportsOnce(t, &forgev1.PendingRemovals{Count: 2, Items: []forgev1.PendingRemoval{{Kind: "Member", Name: "bob"}, {Kind: "Repository", Name: "api"}}},
			`2 removals not made (removals Report; see status.pendingRemovals): Member "bob", Repository "api"`)
		Expect(fake.TeamRepos("acme", "platform")).To(ConsistOf("web", "api"))
		Expect(fake.WriteRequests()).To(BeEmpty(), "at rest with removals pending: no write")

		id := func() int64 { tm, _ := fake.Team("acme", "platform"); return tm.ID }()
		fc := forgeClient()
		Expect(fc.RemoveTeamMember(ctx, id, "bob")).To(Succeed())
		Expect(fc.RemoveTeamRepo(ctx, id, "acme", "api")).To(Succeed())
		pass(t, "removed")
		Eventually(pending(t), timeout, poll).Should(BeNil())
		expectReady(t)
	})

	It("keeps a Repository's unlisted collaborator, adds the listed one, and lists it", func() {
		fc := forgeClient()
		Expect(fc.SetCollaborator(ctx, "acme", "web", "bob", "write")).To(Succeed())
		r := acmeRepository(ns, "web")
		r.Spec.Collaborators = []forgev1.Collaborator{{User: "alice", Permission: "read"}}
		r.Spec.Removals = forgev1.RemovalsReport
		Expect(k8s.Create(ctx, r)).To(Succeed())
		Eventually(func() map[string]string { return fake.Collaborators("acme", "web") }, timeout, poll).
			Should(Equal(map[string]string{"alice": "read", "bob": "write"}))
		reportsOnce(r, &forgev1.PendingRemovals{Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/web", Kind: "Collaborator", Name: "bob"}}},
			`1 removal not made (removals Report; see status.pendingRemovals): acme/web Collaborator "bob"`)
		Expect(fake.WriteRequests()).To(BeEmpty(), "at rest with removals pending: no write")

		Expect(fc.RemoveCollaborator(ctx, "acme", "web", "bob")).To(Succeed())
		pass(r, "removed")
		Eventually(pending(r), timeout, poll).Should(BeNil())
		expectReady(r)
	})
})
