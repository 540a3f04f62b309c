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
	"regexp"
	"slices"
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

var _ = Describe("LabelSet", func() {
	var ns string
	var fc *forge.Client
	ctx := context.Background()

	// forgeWith gives the spec a namespace and a fake forge made with opts,
	// holding organization acme.
	forgeWith := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fc, err = forge.New(forge.Config{URL: fakeURL, Token: token})
		Expect(err).NotTo(HaveOccurred())
	}
	BeforeEach(func() { forgeWith() })

	repos := func(names ...string) {
		GinkgoHelper()
		for _, n := range names {
			Expect(fake.CreateRepo("acme", n)).To(Succeed())
		}
	}
	newSet := func(name string, labels ...forgev1.LabelSetLabel) *forgev1.LabelSet {
		return &forgev1.LabelSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Labels:       labels,
			},
		}
	}
	named := func(s *forgev1.LabelSet, repos ...string) {
		s.Spec.Repositories = forgev1.RepositorySelector{}
		for _, r := range repos {
			s.Spec.Repositories.Names = append(s.Spec.Repositories.Names, forgev1.RepositoryName("acme/"+r))
		}
	}
	lbl := func(name, color string, previous ...string) forgev1.LabelSetLabel {
		l := forgev1.LabelSetLabel{Name: forgev1.LabelName(name), Color: color}
		for _, p := range previous {
			l.PreviousNames = append(l.PreviousNames, forgev1.LabelName(p))
		}
		return l
	}
	// labelsIn returns the labels of acme/repo by name (the last of several).
	labelsIn := func(repo string) map[string]forge.Label {
		out := map[string]forge.Label{}
		for _, l := range fake.Labels(forge.RepoScope("acme", repo)) {
			out[l.Name] = l
		}
		return out
	}
	namesIn := func(repo string) []string {
		var out []string
		for _, l := range fake.Labels(forge.RepoScope("acme", repo)) {
			out = append(out, l.Name)
		}
		slices.Sort(out)
		return out
	}
	seedLabel := func(repo, name string) forge.Label {
		GinkgoHelper()
		l, err := fc.CreateLabel(ctx, forge.RepoScope("acme", repo), forge.CreateLabelOption{Name: name, Color: "ededed"})
		Expect(err).NotTo(HaveOccurred())
		return *l
	}
	// labelIDsOf returns the label ids issue number carries in acme/repo.
	labelIDsOf := func(repo string, number int64) []int64 {
		for _, is := range fake.Issues("acme", repo) {
			if is.Number == number {
				var ids []int64
				for _, l := range is.Labels {
					ids = append(ids, l.ID)
				}
				return ids
			}
		}
		return nil
	}
	failures := func(s *forgev1.LabelSet) func(Gomega) []forgev1.SetFailure {
		return func(g Gomega) []forgev1.SetFailure {
			g.Expect(k8s.Get(ctx, key(ns, s.Name), s)).To(Succeed())
			return s.Status.Failures
		}
	}
	// labelListings counts the label listings of acme/repo in the request log.
	labelListings := func(repo string) int {
		n := 0
		for _, r := range fake.Requests() {
			if r.Method == http.MethodGet && r.Path == "/api/v1/repos/acme/"+repo+"/labels" {
				n++
			}
		}
		return n
	}
	labelByID := regexp.MustCompile(`/labels/\d+$`)
	firstPage := regexp.MustCompile(`(^|&)page=1($|&)`)

	It("applies to the repositories a glob selects, skips archived ones, picks up a new one, and at rest lists each repository's labels once per interval with no write", func() {
		repos("web-a", "web-b", "api", "web-old")
		fake.SetArchived("acme", "web-old", true)
		s := newSet("standard", lbl("kind/bug", "#d73a4a"), lbl("kind/feature", "a2eeef"))
		s.Spec.Labels[0].Exclusive = ptr(true)
		s.Spec.Labels[0].Description = ptr("Something is broken")
		s.Spec.Repositories.Include = []forgev1.RepositoryGlob{"web-*"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		Expect(s.Status.Repositories).To(Equal(int32(2)))
		Expect(s.Status.InSync).To(Equal(int32(2)))
		Expect(s.Status.Failures).To(BeEmpty())
		for _, r := range []string{"web-a", "web-b"} {
			got := labelsIn(r)
			Expect(got).To(HaveKey("kind/bug"))
			Expect(got["kind/bug"].Color).To(Equal("d73a4a"))
			Expect(got["kind/bug"].Exclusive).To(BeTrue())
			Expect(got["kind/bug"].Description).To(Equal("Something is broken"))
			Expect(got).To(HaveKey("kind/feature"))
		}
		Expect(namesIn("api")).To(BeEmpty(), "api does not match web-*")
		Expect(namesIn("web-old")).To(BeEmpty(), "archived repositories are skipped")
		expectEvent(s, "Updated: 2 repositories: created 4 labels")

		By("at rest: one label listing per repository and one repository listing per interval, no per-label read, no write")
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		reqs := fake.Requests()
		orgListings := 0
		for _, r := range reqs {
			Expect(r.Path).NotTo(MatchRegexp(labelByID.String()), "no per-label reads")
			// A listing may take several pages: count its first ones.
			if r.Path == "/api/v1/orgs/acme/repos" && firstPage.MatchString(r.Query) {
				orgListings++
			}
		}
		// 3 intervals of about 2s (jittered by 10%): 2 to 4 passes.
		for _, r := range []string{"web-a", "web-b"} {
			Expect(labelListings(r)).To(BeNumerically(">=", 2))
			Expect(labelListings(r)).To(BeNumerically("<=", 4))
			// The log may have been cleared between a pass's two listings.
			Expect(labelListings(r)).To(BeNumerically("~", orgListings, 1), "one label listing of %s per pass", r)
		}
		Expect(labelListings("api")).To(BeZero())
		Expect(labelListings("web-old")).To(BeZero())

		By("a repository created later gets the labels within a sync interval")
		repos("web-c")
		// One interval (2s, jittered) and the pass itself; room for a busy machine.
		Eventually(func() []string { return namesIn("web-c") }, 5*syncInterval, poll).Should(Equal([]string{"kind/bug", "kind/feature"}))
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, key(ns, s.Name), s)).To(Succeed())
			return s.Status.InSync
		}, timeout, poll).Should(Equal(int32(3)))
		Expect(s.Status.Repositories).To(Equal(int32(3)))
	})

	It("gives a repository its labels as soon as its Repository resource is Ready, not at the set's next interval", func() {
		repos("web", "sandbox-a")
		s := newSet("std", lbl("kind/bug", "#d73a4a"))
		s.Spec.SyncInterval = every(time.Hour)
		s.Spec.Repositories.Exclude = []forgev1.RepositoryGlob{"sandbox-*"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Repositories).To(BeEquivalentTo(1))

		// A Repository resource makes a new repository the set picks, and
		// another its exclude glob leaves out: within seconds (the set's
		// interval is an hour) the first has the label and the set counts it.
		for _, name := range []string{"api", "sandbox-b"} {
			r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.RepositorySpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}, Owner: "acme"}}
			Expect(k8s.Create(ctx, r)).To(Succeed())
			expectReady(r)
		}
		Eventually(func() []string { return namesIn("api") }, timeout, poll).Should(Equal([]string{"kind/bug"}))
		Eventually(func() int32 {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.InSync
		}, timeout, poll).Should(BeEquivalentTo(2))
		Expect(s.Status.Repositories).To(BeEquivalentTo(2))
		Expect(namesIn("sandbox-b")).To(BeEmpty())
	})

	It("renames a label found under a previous name in place: it keeps its id and its issues", func() {
		repos("web")
		old := seedLabel("web", "bug")
		issue, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "crash", Labels: []int64{old.ID}})
		Expect(err).NotTo(HaveOccurred())
		s := newSet("standard", lbl("kind/bug", "d73a4a", "bug"))
		named(s, "web")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		got := labelsIn("web")
		Expect(got).NotTo(HaveKey("bug"))
		Expect(got).To(HaveKey("kind/bug"))
		Expect(got["kind/bug"].ID).To(Equal(old.ID), "renamed in place, not created anew")
		Expect(got["kind/bug"].Color).To(Equal("d73a4a"))
		Expect(labelIDsOf("web", issue.Number)).To(ConsistOf(old.ID))
		expectEvent(s, "Updated: 1 repository: renamed 1 label")
	})

	It("merges a label left under a previous name: its issues and pull requests get the new label, then it is deleted", func() {
		repos("web")
		old := seedLabel("web", "bug")
		current := seedLabel("web", "kind/bug")
		other := seedLabel("web", "docs")
		withOld, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "crash", Labels: []int64{old.ID, other.ID}})
		Expect(err).NotTo(HaveOccurred())
		closed, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "old crash", Labels: []int64{old.ID}, Closed: true})
		Expect(err).NotTo(HaveOccurred())
		pull, err := fake.AddPullRequest("acme", "web", "fix crash", old.ID)
		Expect(err).NotTo(HaveOccurred())
		without, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "docs", Labels: []int64{other.ID}})
		Expect(err).NotTo(HaveOccurred())

		s := newSet("standard", lbl("kind/bug", "d73a4a", "bug"))
		named(s, "web")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		Expect(namesIn("web")).To(Equal([]string{"docs", "kind/bug"}), "the old label is deleted")
		Expect(labelsIn("web")["kind/bug"].ID).To(Equal(current.ID))
		Expect(labelIDsOf("web", withOld.Number)).To(ConsistOf(current.ID, other.ID))
		Expect(labelIDsOf("web", closed.Number)).To(ConsistOf(current.ID))
		Expect(labelIDsOf("web", pull)).To(ConsistOf(current.ID))
		Expect(labelIDsOf("web", without.Number)).To(ConsistOf(other.ID), "an issue without the old label gets nothing")
		expectEvent(s, "Updated: 1 repository: updated 1, merged 1 labels")
	})

	It("merges by id on a forge whose database compares label names without case: an issue with only the old label keeps a label", func() {
		forgeWith(fakeforge.WithCaseInsensitiveCollation())
		repos("web")
		old := seedLabel("web", "bug")
		twin := seedLabel("web", "Bug") // "labels=bug" resolves both here, and the forge ANDs them
		current := seedLabel("web", "kind/bug")
		onlyOld, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "crash", Labels: []int64{old.ID}})
		Expect(err).NotTo(HaveOccurred())
		onlyTwin, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "other", Labels: []int64{twin.ID}})
		Expect(err).NotTo(HaveOccurred())

		s := newSet("standard", lbl("kind/bug", "d73a4a", "bug"))
		named(s, "web")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		Expect(namesIn("web")).To(Equal([]string{"Bug", "kind/bug"}), "only the old label is deleted")
		Expect(labelIDsOf("web", onlyOld.Number)).To(ConsistOf(current.ID))
		Expect(labelIDsOf("web", onlyTwin.Number)).To(ConsistOf(twin.ID), "the twin's issues are not the merge's")
	})

	It("deletes the old label only after a listing taken after its last relabelling finds no issue left with it", func() {
		repos("web")
		old := seedLabel("web", "bug")
		current := seedLabel("web", "kind/bug")
		first, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "crash", Labels: []int64{old.ID}})
		Expect(err).NotTo(HaveOccurred())
		late, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "labelled while the merge runs"})
		Expect(err).NotTo(HaveOccurred())
		// While the operator relabels the first issue, a person labels
		// another one with the old name.
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/issues/*/labels", Before: func() {
			defer GinkgoRecover()
			_, err := fc.AddIssueLabels(ctx, "acme", "web", late.Number, []int64{old.ID})
			Expect(err).NotTo(HaveOccurred())
		}})

		s := newSet("standard", lbl("kind/bug", "d73a4a", "bug"))
		named(s, "web")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		Expect(namesIn("web")).To(Equal([]string{"kind/bug"}))
		Expect(labelIDsOf("web", first.Number)).To(ConsistOf(current.ID))
		Expect(labelIDsOf("web", late.Number)).To(ConsistOf(current.ID), "the issue labelled during the merge keeps a label")
	})

	It("never lets a merge into an exclusive label strip other labels of its scope: those issues keep the old label and are named", func() {
		repos("web")
		old := seedLabel("web", "bug")
		current, err := fc.CreateLabel(ctx, forge.RepoScope("acme", "web"), forge.CreateLabelOption{Name: "kind/bug", Color: "d73a4a", Exclusive: true})
		Expect(err).NotTo(HaveOccurred())
		feature, err := fc.CreateLabel(ctx, forge.RepoScope("acme", "web"), forge.CreateLabelOption{Name: "kind/feature", Color: "a2eeef", Exclusive: true})
		Expect(err).NotTo(HaveOccurred())
		both, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "bug or feature", Labels: []int64{old.ID, feature.ID}})
		Expect(err).NotTo(HaveOccurred())
		plain, err := fc.CreateIssue(ctx, "acme", "web", forge.CreateIssueOption{Title: "crash", Labels: []int64{old.ID}})
		Expect(err).NotTo(HaveOccurred())

		bug := lbl("kind/bug", "d73a4a", "bug")
		bug.Exclusive = ptr(true)
		s := newSet("standard", bug)
		named(s, "web")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(failures(s), timeout, poll).Should(ConsistOf(And(
			HaveField("Reason", forgev1.ReasonConflict),
			HaveField("Message", And(ContainSubstring(fmt.Sprintf("#%d", both.Number)), ContainSubstring(`"kind/feature"`))))))
		expectReason(s, metav1.ConditionFalse, forgev1.ReasonConflict)

		Expect(labelIDsOf("web", plain.Number)).To(ConsistOf(old.ID, current.ID), "issues without another label of the scope get the new label")
		Expect(labelIDsOf("web", both.Number)).To(ConsistOf(old.ID, feature.ID), "nothing is stripped")
		Expect(namesIn("web")).To(Equal([]string{"bug", "kind/bug", "kind/feature"}), "the old label stays while issues carry it")
	})

	It("in Authoritative mode deletes unlisted labels, except those matching preserve and those another resource manages", func() {
		repos("web")
		for _, n := range []string{"wontfix", "duplicate", "stale", "question", "triage"} {
			seedLabel("web", n)
		}
		triage := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "triage"},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: ptr(forgev1.RepositoryName("acme/web")), Color: "ededed"},
		}
		Expect(k8s.Create(ctx, triage)).To(Succeed())
		expectReady(triage)

		s := newSet("standard", lbl("kind/bug", "d73a4a"))
		named(s, "web")
		s.Spec.Mode = forgev1.SetModeAuthoritative
		s.Spec.Preserve = "^(wontfix|duplicate)$"
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		Expect(namesIn("web")).To(Equal([]string{"duplicate", "kind/bug", "triage", "wontfix"}))
		expectEvent(s, "Updated: 1 repository: created 1, deleted 2 labels")
		expectReady(triage)
	})

	It("deletes nothing in a repository that would lose more than maxDeletionsPerRepository, and still creates", func() {
		repos("web", "api")
		for _, n := range []string{"a", "b", "c"} {
			seedLabel("web", n)
		}
		seedLabel("api", "a")
		s := newSet("standard", lbl("kind/bug", "d73a4a"))
		s.Spec.Mode = forgev1.SetModeAuthoritative
		s.Spec.MaxDeletionsPerRepository = ptr(int32(2))
		Expect(k8s.Create(ctx, s)).To(Succeed())

		msg := expectReason(s, metav1.ConditionFalse, forgev1.ReasonTooManyDeletions)
		Expect(msg).To(Equal("1 of 2 repositories in sync; 1 failing: acme/web (TooManyDeletions)"))
		Expect(condStatus(s, forgev1.ConditionStalled)).To(Equal(metav1.ConditionTrue))
		Eventually(failures(s), timeout, poll).Should(Equal([]forgev1.SetFailure{{Repository: "acme/web",
			Reason:  forgev1.ReasonTooManyDeletions,
			Message: `would delete 3 unlisted labels ("a", "b", "c"), more than maxDeletionsPerRepository 2; deleted none`}}))
		Expect(namesIn("web")).To(Equal([]string{"a", "b", "c", "kind/bug"}))
		Expect(namesIn("api")).To(Equal([]string{"kind/bug"}), "another repository under the limit is brought to the spec")
		Expect(s.Status.Repositories).To(Equal(int32(2)))
		Expect(s.Status.InSync).To(Equal(int32(1)))
		eventWithReason(s, forgev1.ReasonTooManyDeletions)
	})

	It("in Authoritative mode deletes from a listing taken after the pass's writes: a label renamed meanwhile into preserve stays", func() {
		repos("web")
		renamed := seedLabel("web", "temp")
		doomed := seedLabel("web", "stale")
		// While the set creates its label, a person renames "temp" to a
		// name the set preserves.
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/labels", Before: func() {
			defer GinkgoRecover()
			_, err := fc.EditLabel(ctx, forge.RepoScope("acme", "web"), renamed.ID, forge.EditLabelOption{Name: ptr("keep-temp")})
			Expect(err).NotTo(HaveOccurred())
		}})
		s := newSet("strict", lbl("kind/bug", "d73a4a"))
		named(s, "web")
		s.Spec.Mode = forgev1.SetModeAuthoritative
		s.Spec.Preserve = "^keep-"
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(namesIn("web")).To(Equal([]string{"keep-temp", "kind/bug"}))
		Expect(labelsIn("web")["keep-temp"].ID).To(Equal(renamed.ID))
		Expect(labelsIn("web")).NotTo(HaveKey(doomed.Name))
	})

	It("in Authoritative mode never deletes a label a Label resource holds by id while its name changes, nor one held under another Forge object pointing at the same server", func() {
		repos("web")
		triage := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "triage"},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: ptr(forgev1.RepositoryName("acme/web")), Name: "triage", Color: "111111"},
		}
		Expect(k8s.Create(ctx, triage)).To(Succeed())
		expectReady(triage)
		// Its name is being changed: suspended, it holds its label by
		// status.id under the old name until it applies the new one.
		change(triage, func(l *forgev1.Label) { l.Spec.Suspend = true; l.Spec.Name = "triaged" })
		expectReason(triage, metav1.ConditionUnknown, forgev1.ReasonSuspended)

		By("another tenant's Forge object reaches the same server under another spelling of its URL")
		other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
		Expect(k8s.Create(ctx, other)).To(Succeed())
		DeferCleanup(func() { removeAll(other.Name) })
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: other.Name, Name: "gitea-token"},
			StringData: map[string]string{"token": token}})).To(Succeed())
		theirs := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: other.Name, Name: "shared"},
			Spec: forgev1.ForgeSpec{URL: fakeURL + "/api/v1/", Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}}
		Expect(k8s.Create(ctx, theirs)).To(Succeed())
		expectReady(theirs)
		team := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: other.Name, Name: "team-b"},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "shared"}},
				Repository: ptr(forgev1.RepositoryName("acme/web")), Name: "team-b", Color: "222222"},
		}
		Expect(k8s.Create(ctx, team)).To(Succeed())
		expectReady(team)
		seedLabel("web", "stale")

		s := newSet("strict", lbl("kind/bug", "d73a4a"))
		named(s, "web")
		s.Spec.Mode = forgev1.SetModeAuthoritative
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(namesIn("web")).To(Equal([]string{"kind/bug", "team-b", "triage"}), "only the unclaimed label is deleted")
		Expect(labelsIn("web")["triage"].ID).To(Equal(triage.Status.ID))
	})

	It("with deletionPolicy Delete deletes nothing in a repository beyond maxDeletionsPerRepository and keeps its finalizer until the limit allows it", func() {
		repos("web", "api")
		s := newSet("standard", lbl("a", "111111"), lbl("b", "222222"), lbl("c", "333333"))
		named(s, "web", "api")
		s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		s.Spec.MaxDeletionsPerRepository = ptr(int32(2))
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(namesIn("web")).To(Equal([]string{"a", "b", "c"}))

		Expect(k8s.Delete(ctx, s)).To(Succeed())
		msg := expectReason(s, metav1.ConditionFalse, forgev1.ReasonTooManyDeletions)
		Expect(msg).To(And(ContainSubstring("acme/web (3)"), ContainSubstring("acme/api (3)")))
		Expect(namesIn("web")).To(Equal([]string{"a", "b", "c"}))
		Expect(namesIn("api")).To(Equal([]string{"a", "b", "c"}))

		change(s, func(s *forgev1.LabelSet) { s.Spec.MaxDeletionsPerRepository = ptr(int32(3)) })
		gone(s)
		Expect(namesIn("web")).To(BeEmpty())
		Expect(namesIn("api")).To(BeEmpty())
	})

	It("in Additive mode leaves unlisted labels alone", func() {
		repos("web")
		seedLabel("web", "stale")
		s := newSet("standard", lbl("kind/bug", "d73a4a"))
		named(s, "web")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(namesIn("web")).To(Equal([]string{"kind/bug", "stale"}))
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(namesIn("web")).To(Equal([]string{"kind/bug", "stale"}))
	})

	It("never fights a Label resource or an older LabelSet: it leaves their labels, lists them as Conflict, and stays so with no writes", func() {
		repos("web", "api")
		bug := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-bug"},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Repository: ptr(forgev1.RepositoryName("acme/web")), Name: "bug", Color: "111111"},
		}
		Expect(k8s.Create(ctx, bug)).To(Succeed())
		expectReady(bug)
		first := newSet("first", lbl("kind/feature", "222222"))
		named(first, "api")
		Expect(k8s.Create(ctx, first)).To(Succeed())
		expectReady(first)

		second := newSet("second", lbl("bug", "333333"), lbl("kind/feature", "444444"), lbl("docs", "555555"))
		named(second, "web", "api")
		Expect(k8s.Create(ctx, second)).To(Succeed())
		expectReason(second, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(condStatus(second, forgev1.ConditionStalled)).To(Equal(metav1.ConditionTrue))
		want := []forgev1.SetFailure{
			{Repository: "acme/api", Reason: forgev1.ReasonConflict, Message: `label "kind/feature" is managed by LabelSet ` + ns + "/first"},
			{Repository: "acme/web", Reason: forgev1.ReasonConflict, Message: `label "bug" is managed by Label ` + ns + "/web-bug"},
		}
		Eventually(failures(second), timeout, poll).Should(Equal(want))
		// What the other resources do not manage, the set does.
		Eventually(func() []string { return namesIn("web") }, timeout, poll).Should(Equal([]string{"bug", "docs", "kind/feature"}))
		Eventually(func() []string { return namesIn("api") }, timeout, poll).Should(Equal([]string{"bug", "docs", "kind/feature"}))

		By("three sync intervals: no write, the same failures, the others keep their colours")
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		Expect(failures(second)(Default)).To(Equal(want))
		Expect(labelsIn("web")["bug"].Color).To(Equal("111111"))
		Expect(labelsIn("api")["kind/feature"].Color).To(Equal("222222"))
		expectReady(bug)
		expectReady(first)
		var list corev1.EventList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		var warnings []corev1.Event
		for _, e := range list.Items {
			if e.InvolvedObject.Name == second.Name && e.Reason == forgev1.ReasonConflict {
				warnings = append(warnings, e)
			}
		}
		Expect(warnings).To(HaveLen(1))
		Expect(warnings[0].Series).To(BeNil(), "a Warning only when the failures change, not once per pass")
	})

	It("in Observe mode reports per repository what differs and writes nothing", func() {
		repos("web", "api")
		seedLabel("web", "kind/bug") // colour ededed
		fake.ClearRequests()
		s := newSet("standard", lbl("kind/bug", "d73a4a"), lbl("docs", "0075ca"))
		s.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, s)).To(Succeed())

		expectReason(s, metav1.ConditionFalse, forgev1.ReasonDriftDetected)
		Eventually(failures(s), timeout, poll).Should(Equal([]forgev1.SetFailure{
			{Repository: "acme/api", Reason: forgev1.ReasonDriftDetected, Message: `create "kind/bug", create "docs"`},
			{Repository: "acme/web", Reason: forgev1.ReasonDriftDetected, Message: `update "kind/bug" (color), create "docs"`},
		}))
		Expect(s.Finalizers).To(BeEmpty())
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(namesIn("api")).To(BeEmpty())
	})

	It("with deletionPolicy Delete removes the set's labels from every matched repository, and only those", func() {
		repos("web", "api", "old")
		fake.SetArchived("acme", "old", true)
		s := newSet("standard", lbl("kind/bug", "d73a4a", "bug"))
		named(s, "web", "api", "old")
		s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		seedLabel("web", "bug") // renamed to kind/bug: deleted by its current name
		seedLabel("web", "keep")
		seedLabel("old", "kind/bug")
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Repositories).To(Equal(int32(2)), "archived repositories are not counted, also when named")
		Expect(namesIn("web")).To(Equal([]string{"keep", "kind/bug"}))

		Expect(k8s.Delete(ctx, s)).To(Succeed())
		gone(s)
		Expect(namesIn("web")).To(Equal([]string{"keep"}))
		Expect(namesIn("api")).To(BeEmpty())
		Expect(namesIn("old")).To(Equal([]string{"kind/bug"}), "an archived repository is never written")
	})

	It("with deletionPolicy Delete lets go when its organization is gone", func() {
		_, err := fake.CreateOrg("gone")
		Expect(err).NotTo(HaveOccurred())
		s := newSet("standard", lbl("kind/bug", "d73a4a"))
		s.Spec.Repositories.Organization = ptr(forgev1.OwnerName("gone"))
		s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(readyCondition(s)(Default).Message).To(Equal("0 of 0 repositories in sync"))
		Expect(fc.DeleteOrg(ctx, "gone")).To(Succeed())
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		gone(s)
		expectEvent(s, "Deleted: the organization is gone; no labels to delete")
	})

	It("with deletionPolicy Orphan (the default) leaves the labels", func() {
		repos("web")
		s := newSet("standard", lbl("kind/bug", "d73a4a"))
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Finalizers).To(ContainElement(forgev1.Finalizer))
		fake.ClearRequests()
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		gone(s)
		Expect(namesIn("web")).To(Equal([]string{"kind/bug"}))
		Expect(fake.WriteRequests()).To(BeEmpty())
	})
})

// condStatus returns the status of condition t of obj, as last read.
func condStatus(obj forgev1.ConditionsAccessor, t string) metav1.ConditionStatus {
	for _, c := range obj.GetConditions() {
		if c.Type == t {
			return c.Status
		}
	}
	return metav1.ConditionUnknown
}
