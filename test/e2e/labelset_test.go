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
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// LabelSet's renames, merges and authoritative deletions, on the fake and
// on a real Gitea: what issues carry afterwards is read back through the
// forge's REST API.
var _ = Describe("LabelSet end to end", func() {
	ctx := context.Background()

	// setup creates the scenario's organization with repository "web" and
	// the labels named, and returns the labels by name.
	setup := func(sc *scenario, names ...string) map[string]forge.Label {
		GinkgoHelper()
		sc.createOrg()
		sc.createRepo("web")
		out := map[string]forge.Label{}
		for _, n := range names {
			l, err := fc.CreateLabel(ctx, forge.RepoScope(sc.org, "web"), forge.CreateLabelOption{Name: n, Color: "ededed"})
			Expect(err).NotTo(HaveOccurred())
			out[n] = *l
		}
		return out
	}
	issue := func(sc *scenario, title string, closed bool, labels ...forge.Label) int64 {
		GinkgoHelper()
		ids := make([]int64, len(labels))
		for i, l := range labels {
			ids[i] = l.ID
		}
		is, err := fc.CreateIssue(ctx, sc.org, "web", forge.CreateIssueOption{Title: title, Labels: ids, Closed: closed})
		Expect(err).NotTo(HaveOccurred())
		return is.Number
	}
	// labelsOf reads the label ids an issue carries from the forge's issue listing.
	labelsOf := func(sc *scenario, number int64) []int64 {
		GinkgoHelper()
		status, body := rawCall(http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/web/issues?state=all&limit=50", sc.org), nil)
		Expect(status).To(Equal(http.StatusOK), string(body))
		var issues []forge.Issue
		Expect(json.Unmarshal(body, &issues)).To(Succeed())
		i := slices.IndexFunc(issues, func(is forge.Issue) bool { return is.Number == number })
		Expect(i).To(BeNumerically(">=", 0), "issue %d not listed", number)
		ids := []int64{}
		for _, l := range issues[i].Labels {
			ids = append(ids, l.ID)
		}
		return ids
	}
	onForge := func(sc *scenario) map[string]forge.Label {
		GinkgoHelper()
		ls, err := fc.ListLabels(ctx, forge.RepoScope(sc.org, "web"))
		Expect(err).NotTo(HaveOccurred())
		out := map[string]forge.Label{}
		for _, l := range ls {
			out[l.Name] = l
		}
		return out
	}
	names := func(m map[string]forge.Label) []string {
		var out []string
		for n := range m {
			out = append(out, n)
		}
		slices.Sort(out)
		return out
	}
	newSet := func(sc *scenario, labels ...forgev1.LabelSetLabel) *forgev1.LabelSet {
		return &forgev1.LabelSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "standard"},
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:  managed(),
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{forgev1.RepositoryName(sc.org + "/web")}},
				Labels:       labels,
			},
		}
	}

	It("renames a label in place (issues keep it) and merges an old label into the new one (issues move, the old goes)", func() {
		sc := newScenario()
		ls := setup(sc, "bug", "feature", "kind/feature", "docs")
		open := issue(sc, "crash", false, ls["bug"])
		closed := issue(sc, "old crash", true, ls["bug"], ls["docs"])
		wanted := issue(sc, "dark mode", false, ls["feature"])
		both := issue(sc, "themes", false, ls["feature"], ls["kind/feature"])
		other := issue(sc, "typo", false, ls["docs"])

		s := newSet(sc,
			forgev1.LabelSetLabel{Name: "kind/bug", Color: "#d73a4a", PreviousNames: []forgev1.LabelName{"bug"}},
			forgev1.LabelSetLabel{Name: "kind/feature", Color: "#a2eeef", PreviousNames: []forgev1.LabelName{"feature"}})
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		got := onForge(sc)
		Expect(names(got)).To(Equal([]string{"docs", "kind/bug", "kind/feature"}))
		Expect(got["kind/bug"].ID).To(Equal(ls["bug"].ID), "renamed in place")
		Expect(got["kind/bug"].Color).To(Equal("d73a4a"))
		Expect(got["kind/feature"].ID).To(Equal(ls["kind/feature"].ID))
		Expect(got["kind/feature"].Color).To(Equal("a2eeef"))
		Expect(labelsOf(sc, open)).To(ConsistOf(ls["bug"].ID))
		Expect(labelsOf(sc, closed)).To(ConsistOf(ls["bug"].ID, ls["docs"].ID))
		Expect(labelsOf(sc, wanted)).To(ConsistOf(ls["kind/feature"].ID), "merged: the old label's issue carries the new one")
		Expect(labelsOf(sc, both)).To(ConsistOf(ls["kind/feature"].ID))
		Expect(labelsOf(sc, other)).To(ConsistOf(ls["docs"].ID), "an issue without the old label gets nothing")
		eventWithReason(s, forgev1.ReasonUpdated)
	})

	It("in Authoritative mode deletes unlisted labels but those matching preserve, and none past the deletion guard", func() {
		sc := newScenario()
		setup(sc, "wontfix", "stale", "question")
		s := newSet(sc, forgev1.LabelSetLabel{Name: "kind/bug", Color: "d73a4a", Exclusive: ptr(true)})
		s.Spec.Mode = forgev1.SetModeAuthoritative
		s.Spec.Preserve = "^wontfix$"
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		got := onForge(sc)
		Expect(names(got)).To(Equal([]string{"kind/bug", "wontfix"}))
		Expect(got["kind/bug"].Exclusive).To(BeTrue())

		By("more unlisted labels than maxDeletionsPerRepository: none deleted")
		for _, n := range []string{"a", "b", "c"} {
			_, err := fc.CreateLabel(ctx, forge.RepoScope(sc.org, "web"), forge.CreateLabelOption{Name: n, Color: "ededed"})
			Expect(err).NotTo(HaveOccurred())
		}
		update(s, func(s *forgev1.LabelSet) { s.Spec.MaxDeletionsPerRepository = ptr(int32(2)) })
		expectReason(s, metav1.ConditionFalse, forgev1.ReasonTooManyDeletions)
		Expect(s.Status.Failures).To(HaveLen(1))
		Expect(s.Status.Failures[0].Repository).To(Equal(sc.org + "/web"))
		Consistently(func() []string { return names(onForge(sc)) }, 3*syncInterval, poll).
			Should(Equal([]string{"a", "b", "c", "kind/bug", "wontfix"}))
	})

	It("with deletionPolicy Delete removes nothing in a repository beyond maxDeletionsPerRepository until the limit allows it", func() {
		sc := newScenario()
		setup(sc)
		s := newSet(sc,
			forgev1.LabelSetLabel{Name: "kind/bug", Color: "d73a4a"},
			forgev1.LabelSetLabel{Name: "kind/feature", Color: "a2eeef"})
		s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		s.Spec.MaxDeletionsPerRepository = ptr(int32(1))
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(names(onForge(sc))).To(Equal([]string{"kind/bug", "kind/feature"}))

		Expect(k8s.Delete(ctx, s)).To(Succeed())
		msg := expectReason(s, metav1.ConditionFalse, forgev1.ReasonTooManyDeletions)
		Expect(msg).To(ContainSubstring(sc.org + "/web (2)"))
		Expect(names(onForge(sc))).To(Equal([]string{"kind/bug", "kind/feature"}), "nothing deleted past the limit")

		update(s, func(s *forgev1.LabelSet) { s.Spec.MaxDeletionsPerRepository = ptr(int32(2)) })
		Eventually(func() []string { return names(onForge(sc)) }, timeout, poll).Should(BeEmpty())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(s), s))
		}, timeout, poll).Should(BeTrue(), "the set is gone once its labels are")
	})

	It("never lets a merge into an exclusive label strip another label of its scope: such issues keep the old label and are named", func() {
		sc := newScenario()
		ls := setup(sc, "bug")
		for _, n := range []string{"kind/bug", "kind/feature"} {
			l, err := fc.CreateLabel(ctx, forge.RepoScope(sc.org, "web"), forge.CreateLabelOption{Name: n, Color: "ededed", Exclusive: true})
			Expect(err).NotTo(HaveOccurred())
			ls[n] = *l
		}
		both := issue(sc, "bug or feature", false, ls["bug"], ls["kind/feature"])
		plain := issue(sc, "crash", false, ls["bug"])

		s := newSet(sc, forgev1.LabelSetLabel{Name: "kind/bug", Color: "ededed", Exclusive: ptr(true), PreviousNames: []forgev1.LabelName{"bug"}})
		Expect(k8s.Create(ctx, s)).To(Succeed())
		msg := expectReason(s, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(Equal(fmt.Sprintf("0 of 1 repository in sync; 1 failing: %s/web (Conflict)", sc.org)))
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
		Expect(s.Status.Failures).To(HaveLen(1))
		Expect(s.Status.Failures[0].Message).To(And(ContainSubstring(fmt.Sprintf("#%d", both)), ContainSubstring(`"kind/feature"`)))
		Expect(labelsOf(sc, both)).To(ConsistOf(ls["bug"].ID, ls["kind/feature"].ID), "nothing stripped")
		Expect(labelsOf(sc, plain)).To(ConsistOf(ls["bug"].ID, ls["kind/bug"].ID))
		Expect(names(onForge(sc))).To(Equal([]string{"bug", "kind/bug", "kind/feature"}), "the old label stays while an issue carries it")
	})

	It("in Authoritative mode leaves a label a Label resource holds by id while its name changes, and one a tenant holds through another Forge object at the same server", func() {
		sc := newScenario()
		setup(sc, "stale")
		repoLabel := func(ns, forgeRef, name string) *forgev1.Label {
			return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: forgeRef}},
					Repository: ptr(forgev1.RepositoryName(sc.org + "/web")), Name: name, Color: "111111"}}
		}
		triage := repoLabel(sc.ns, "gitea", "triage")
		Expect(k8s.Create(ctx, triage)).To(Succeed())
		expectReady(triage)
		update(triage, func(l *forgev1.Label) { l.Spec.Suspend = true; l.Spec.Name = "triaged" })
		expectReason(triage, metav1.ConditionUnknown, forgev1.ReasonSuspended)
		// Another tenant, whose Forge spells the same server's URL otherwise.
		other := newNamespace(strings.TrimSuffix(forgeURL, "/") + "/api/v1/")
		team := repoLabel(other, "gitea", "team-b")
		Expect(k8s.Create(ctx, team)).To(Succeed())
		expectReady(team)

		s := newSet(sc, forgev1.LabelSetLabel{Name: "kind/bug", Color: "d73a4a"})
		s.Spec.Mode = forgev1.SetModeAuthoritative
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(names(onForge(sc))).To(Equal([]string{"kind/bug", "team-b", "triage"}), "only the unclaimed label is deleted")
	})
})
