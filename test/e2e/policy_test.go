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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// Governing an organization by policy, on the fake and on each Gitea: the
// walk-through of docs/kinds.md applied as the page shows it, and the
// RepositorySet's releases.
var _ = Describe("Policy over an organization end to end", func() {
	ctx := context.Background()

	// forgeView reads what a person sees on the forge in the scenario's
	// organization.
	type forgeView struct{ sc *scenario }
	labelsOf := func(v forgeView, repo string) []string {
		GinkgoHelper()
		ls, err := fc.ListLabels(ctx, forge.RepoScope(v.sc.org, repo))
		Expect(err).NotTo(HaveOccurred())
		out := []string{}
		for _, l := range ls {
			out = append(out, l.Name)
		}
		slices.Sort(out)
		return out
	}
	rulesOf := func(v forgeView, repo string) []string {
		GinkgoHelper()
		bs, err := fc.ListBranchProtections(ctx, v.sc.org, repo)
		Expect(err).NotTo(HaveOccurred())
		out := []string{}
		for _, b := range bs {
			out = append(out, b.RuleName)
		}
		return out
	}
	teamReposOf := func(v forgeView, team string) []string {
		GinkgoHelper()
		teams, err := fc.ListTeams(ctx, v.sc.org)
		Expect(err).NotTo(HaveOccurred())
		out := []string{}
		for _, t := range teams {
			if t.Name != team {
				continue
			}
			rs, err := fc.ListTeamRepos(ctx, t.ID)
			Expect(err).NotTo(HaveOccurred())
			for _, r := range rs {
				out = append(out, r.Name)
			}
		}
		slices.Sort(out)
		return out
	}
	repoOf := func(v forgeView, name string) *forge.Repository {
		GinkgoHelper()
		r, err := fc.GetRepo(ctx, v.sc.org, name)
		Expect(err).NotTo(HaveOccurred())
		return r
	}
	requestPass := func(objs ...client.Object) {
		GinkgoHelper()
		for _, o := range objs {
			update(o, func(o client.Object) {
				a := o.GetAnnotations()
				if a == nil {
					a = map[string]string{}
				}
				a[forgev1.ReconcileRequestedAtAnnotation] = time.Now().Format(time.RFC3339Nano)
				o.SetAnnotations(a)
			})
		}
	}

	It("the docs' walk-through \"Governing an organization by policy\", applied as docs/kinds.md shows it: the settings, topic, access, labels and rule everywhere they are due, the exception's field kept, zero writes at rest, a new repository governed, a repository that leaves released, removals reported, and two sets disagreeing", func() {
		sc, counter := newCountedScenario()
		v := forgeView{sc}
		sc.createOrg()
		for _, name := range []string{"web", "api", "docs"} {
			sc.createRepo(name)
		}
		for _, name := range []string{"web", "api"} {
			Expect(fc.SetRepoTopics(ctx, sc.org, name, []string{"service"})).To(Succeed())
		}
		_, err := fc.CreateLabel(ctx, forge.RepoScope(sc.org, "web"), forge.CreateLabelOption{Name: "wontfix-old", Color: "cccccc"})
		Expect(err).NotTo(HaveOccurred())

		applyExample := func(marker string) map[string]*unstructured.Unstructured {
			GinkgoHelper()
			samples, err := testenv.DocExample("docs/kinds.md", marker)
			Expect(err).NotTo(HaveOccurred())
			byName := map[string]*unstructured.Unstructured{}
			for _, s := range samples {
				Expect(s.Object).NotTo(BeNil(), "%s: every document of the walk-through is an object", s.File)
				o := s.Object
				o.SetNamespace(sc.ns)
				// The page governs acme; the spec governs an organization of
				// its own, the rest as written.
				spec, _, _ := unstructured.NestedMap(o.Object, "spec")
				Expect(unstructured.SetNestedMap(o.Object, inOrg(spec, sc.org).(map[string]any), "spec")).To(Succeed())
				Expect(k8s.Create(ctx, o)).To(Succeed(), "%s: %s %s", s.File, o.GetKind(), o.GetName())
				byName[o.GetName()] = o
			}
			return byName
		}
		objs := applyExample("policy-example")
		Expect(objs).To(HaveKey("developers"))
		Expect(objs).To(HaveKey("acme-policy"))
		Expect(objs).To(HaveKey("acme-service-labels"))
		Expect(objs).To(HaveKey("acme-service-rules"))
		Expect(objs).To(HaveKey("legacy"))

		By("applied: every repository has the policy, the services their labels and rule, legacy its wiki")
		Eventually(func(g Gomega) {
			for _, name := range []string{"web", "api", "docs", "legacy"} {
				r, err := fc.GetRepo(ctx, sc.org, name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(r.HasWiki).To(Equal(name == "legacy"), "%s: hasWiki (legacy's own field wins)", name)
				g.Expect(r.DefaultMergeStyle).To(Equal("squash"), name)
				g.Expect(r.DefaultDeleteBranchAfterMerge).To(BeTrue(), name)
				g.Expect(r.Topics).To(ContainElement("managed"), name)
			}
		}, timeout, poll).Should(Succeed())
		for _, o := range objs {
			expectReady(o)
		}
		Expect(repoOf(v, "web").Topics).To(Equal([]string{"managed", "service"}), "a repository's other topics stay")
		// Ready sets do not order the team's additions: wait for them.
		Eventually(func() []string { return teamReposOf(v, "developers") }, timeout, poll).Should(Equal([]string{"api", "docs", "legacy", "web"}))
		for _, name := range []string{"web", "api"} {
			Expect(rulesOf(v, name)).To(Equal([]string{"main"}), name)
		}
		Expect(labelsOf(v, "web")).To(Equal([]string{"kind/bug", "kind/feature", "wontfix-old"}), "removals Report deletes nothing")
		Expect(labelsOf(v, "api")).To(Equal([]string{"kind/bug", "kind/feature"}))
		Expect(labelsOf(v, "docs")).To(BeEmpty(), "docs carries no topic service")
		Expect(rulesOf(v, "docs")).To(BeEmpty())

		By("removals Report: the label the Authoritative set would delete is listed, and the set is Ready")
		labelSet := &forgev1.LabelSet{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: sc.ns, Name: "acme-service-labels"}, labelSet)).To(Succeed())
		Expect(labelSet.Status.PendingRemovals).NotTo(BeNil())
		Expect(labelSet.Status.PendingRemovals.Items).To(Equal([]forgev1.PendingRemoval{
			{Repository: sc.org + "/web", Kind: "Label", Name: "wontfix-old"}}))
		eventWithReason(labelSet, forgev1.ReasonRemovalsPending)

		By("at rest, the set and legacy disagreeing on hasWiki: zero writes")
		before := len(counter.Writes())
		Consistently(func() []string { return counter.Writes()[before:] }, 3*syncInterval, poll).Should(BeEmpty())

		By("a repository made on the forge with the topic service is governed at the sets' next pass")
		sc.createRepo("billing")
		Expect(fc.SetRepoTopics(ctx, sc.org, "billing", []string{"service"})).To(Succeed())
		Eventually(func(g Gomega) {
			r, err := fc.GetRepo(ctx, sc.org, "billing")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.HasWiki).To(BeFalse())
			g.Expect(r.DefaultMergeStyle).To(Equal("squash"))
			g.Expect(r.Topics).To(Equal([]string{"managed", "service"}))
			g.Expect(teamReposOf(v, "developers")).To(ContainElement("billing"))
			g.Expect(labelsOf(v, "billing")).To(Equal([]string{"kind/bug", "kind/feature"}))
			g.Expect(rulesOf(v, "billing")).To(Equal([]string{"main"}))
		}, timeout, poll).Should(Succeed())

		By("api loses the topic service: released, its rule deleted (Delete) and its labels left (Orphan)")
		Expect(fc.SetRepoTopics(ctx, sc.org, "api", []string{"managed"})).To(Succeed())
		requestPass(objs["acme-service-labels"], objs["acme-service-rules"])
		eventWithReason(objs["acme-service-rules"], forgev1.ReasonReleased)
		eventWithReason(objs["acme-service-labels"], forgev1.ReasonReleased)
		Eventually(func() []string { return rulesOf(v, "api") }, timeout, poll).Should(BeEmpty())
		Expect(labelsOf(v, "api")).To(Equal([]string{"kind/bug", "kind/feature"}))
		Expect(rulesOf(v, "web")).To(Equal([]string{"main"}))
		Expect(teamReposOf(v, "developers")).To(ContainElement("api"), "api still matches the RepositorySet")

		By("two sets disagreeing: the younger lists docs as a Conflict naming the field and the older set, and writes nothing there")
		later := applyExample("policy-example-disagreeing")
		Expect(later).To(HaveKey("docs-wiki"))
		younger := &forgev1.RepositorySet{}
		Eventually(func(g Gomega) []string {
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: sc.ns, Name: "docs-wiki"}, younger)).To(Succeed())
			out := []string{}
			for _, f := range younger.Status.Failures {
				out = append(out, f.Repository+" "+f.Reason)
			}
			return out
		}, timeout, poll).Should(Equal([]string{sc.org + "/docs " + forgev1.ReasonConflict}))
		msg := younger.Status.Failures[0].Message
		Expect(msg).To(ContainSubstring("hasWiki"))
		Expect(msg).To(ContainSubstring("RepositorySet " + sc.ns + "/acme-policy"))
		expectReason(younger, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(repoOf(v, "docs").HasWiki).To(BeFalse(), "the older set holds hasWiki")
		expectReady(objs["acme-policy"])
	})

	It("a RepositorySet releases a repository whose topic is removed: with Orphan its team keeps the access, with Delete the access it gave is taken back", func() {
		sc := newScenario()
		v := forgeView{sc}
		sc.createOrg()
		for _, name := range []string{"web", "api"} {
			sc.createRepo(name)
			Expect(fc.SetRepoTopics(ctx, sc.org, name, []string{"service"})).To(Succeed())
		}
		for _, team := range []string{"keepers", "takers"} {
			_, err := fc.CreateTeam(ctx, sc.org, forge.CreateTeamOption{Name: team, Permission: "write",
				UnitsMap: map[string]string{"repo.code": "write"}})
			Expect(err).NotTo(HaveOccurred())
		}
		services := forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org)), Topics: []forgev1.Topic{"service"}}
		set := func(name, team string, policy forgev1.DeletionPolicy) *forgev1.RepositorySet {
			return &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: name},
				Spec: forgev1.RepositorySetSpec{ManagedSpec: managed(), Repositories: services, DeletionPolicy: policy,
					Settings: &forgev1.RepositorySettings{DefaultDeleteBranchAfterMerge: ptr(true)},
					Teams:    []forgev1.TeamName{forgev1.TeamName(team)}}}
		}
		kept, taken := set("kept", "keepers", forgev1.DeletionPolicyOrphan), set("taken", "takers", forgev1.DeletionPolicyDelete)
		for _, s := range []*forgev1.RepositorySet{kept, taken} {
			Expect(k8s.Create(ctx, s)).To(Succeed())
		}
		for _, s := range []*forgev1.RepositorySet{kept, taken} {
			expectReady(s)
		}
		Expect(teamReposOf(v, "keepers")).To(Equal([]string{"api", "web"}))
		Expect(teamReposOf(v, "takers")).To(Equal([]string{"api", "web"}))
		apiID := repoOf(v, "api").ID

		By("api's topic removed on the forge releases it at each set's next pass")
		Expect(fc.SetRepoTopics(ctx, sc.org, "api", nil)).To(Succeed())
		requestPass(kept, taken)
		eventWithReason(kept, forgev1.ReasonReleased)
		eventWithReason(taken, forgev1.ReasonReleased)
		Eventually(func() []string { return teamReposOf(v, "takers") }, timeout, poll).Should(Equal([]string{"web"}))
		Expect(teamReposOf(v, "keepers")).To(Equal([]string{"api", "web"}), "Orphan: the access stays")
		for _, s := range []*forgev1.RepositorySet{kept, taken} {
			expectReady(s)
			Expect(s.Status.Repositories).To(BeEquivalentTo(1))
			for _, g := range s.Status.TeamGrants {
				Expect(g.RepositoryIDs).NotTo(ContainElement(apiID), "%s no longer records access it gave in api", s.Name)
			}
		}

		By("the Orphan set forgot api: deleted under Delete later, it takes back web alone")
		update(kept, func(s *forgev1.RepositorySet) { s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete })
		expectReady(kept)
		deleteAndWait(kept)
		Expect(teamReposOf(v, "keepers")).To(Equal([]string{"api"}))
	})
})

// inOrg is a walk-through's spec value with the organization acme of the
// page replaced by org: "acme" and the owner of "acme/<repo>".
func inOrg(v any, org string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = inOrg(e, org)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = inOrg(e, org)
		}
		return x
	case string:
		if x == "acme" {
			return org
		}
		if rest, ok := strings.CutPrefix(x, "acme/"); ok {
			return org + "/" + rest
		}
		return x
	}
	return v
}
