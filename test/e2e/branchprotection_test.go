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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// BranchProtection and BranchProtectionSet on the fake and on a real Gitea:
// the rules are read back through the forge's REST API. Gitea keeps
// allow-listed users only while they have write access (so the users here
// are write collaborators), reads them back ordered by name (1.24: by
// account id) and keeps status check contexts in the order sent; none of
// that may cause a write.
var _ = Describe("BranchProtection end to end", func() {
	ctx := context.Background()

	// rulesOf reads the rules of repository "owner/name" by rule name.
	rulesOf := func(g Gomega, repo string) map[string]forge.BranchProtection {
		owner, name, _ := strings.Cut(repo, "/")
		all, err := fc.ListBranchProtections(ctx, owner, name)
		g.Expect(err).NotTo(HaveOccurred())
		out := map[string]forge.BranchProtection{}
		for _, r := range all {
			out[r.RuleName] = r
		}
		return out
	}
	ruleNamesOf := func(g Gomega, repo string) []string {
		out := []string{}
		for n := range rulesOf(g, repo) {
			out = append(out, n)
		}
		slices.Sort(out)
		return out
	}
	// pushRule is the rule of the first specs: a push allow-list, required
	// approvals, status checks and protected files.
	pushRule := func(name string, users, contexts []string) forgev1.BranchProtectionRule {
		r := forgev1.BranchProtectionRule{RuleName: forgev1.BranchRuleName(name),
			EnablePush: ptr(true), EnablePushWhitelist: ptr(true), PushWhitelistUsernames: []forgev1.UserName{},
			RequiredApprovals: ptr(int64(2)), EnableStatusCheck: ptr(true), StatusCheckContexts: []forgev1.StatusCheckContext{},
			ProtectedFilePatterns: ptr("*.lock;go.sum")}
		for _, u := range users {
			r.PushWhitelistUsernames = append(r.PushWhitelistUsernames, forgev1.UserName(u))
		}
		for _, c := range contexts {
			r.StatusCheckContexts = append(r.StatusCheckContexts, forgev1.StatusCheckContext(c))
		}
		return r
	}
	// expectPushRule checks that the forge's rule holds what pushRule
	// describes, lists compared as sets.
	expectPushRule := func(g Gomega, got forge.BranchProtection, users, contexts []string) {
		g.Expect(got.EnablePush).To(BeTrue())
		g.Expect(got.EnablePushWhitelist).To(BeTrue())
		g.Expect(got.PushWhitelistUsernames).To(ConsistOf(users))
		g.Expect(got.RequiredApprovals).To(Equal(int64(2)))
		g.Expect(got.EnableStatusCheck).To(BeTrue())
		g.Expect(got.StatusCheckContexts).To(ConsistOf(contexts))
		g.Expect(got.ProtectedFilePatterns).To(Equal("*.lock;go.sum"))
	}
	newRule := func(ns, name, repo string, rule forgev1.BranchProtectionRule) *forgev1.BranchProtection {
		return &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo), BranchProtectionRule: rule}}
	}
	// setRules are the rules of the set specs, one of them a glob.
	setRules := func() []forgev1.BranchProtectionRule {
		return []forgev1.BranchProtectionRule{
			{RuleName: "main", RequiredApprovals: ptr(int64(1)), BlockOnRejectedReviews: ptr(true),
				EnableStatusCheck: ptr(true), StatusCheckContexts: []forgev1.StatusCheckContext{"ci/build"}},
			{RuleName: "release/*", RequiredApprovals: ptr(int64(2)), DismissStaleApprovals: ptr(true)},
		}
	}
	expectSetRules := func(g Gomega, repo string) {
		rules := rulesOf(g, repo)
		g.Expect(rules).To(HaveKey("main"), "in %s", repo)
		g.Expect(rules).To(HaveKey("release/*"), "in %s", repo)
		main, release := rules["main"], rules["release/*"]
		g.Expect([]any{main.RequiredApprovals, main.BlockOnRejectedReviews, main.EnableStatusCheck}).To(Equal([]any{int64(1), true, true}), "in %s", repo)
		g.Expect(main.StatusCheckContexts).To(ConsistOf("ci/build"), "in %s", repo)
		g.Expect([]any{release.RequiredApprovals, release.DismissStaleApprovals}).To(Equal([]any{int64(2), true}), "in %s", repo)
	}

	It("creates a rule with a push allow-list, approvals, status checks and protected files; adopts an existing one without a write; list order never causes a write", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		// Made in this order, the users' id order (Gitea 1.24's listing),
		// their name order (later releases', upper case first) and the
		// spec's order all differ.
		zed, amy, mia := userNamed("zz"), userNamed("aa"), userNamed("Mm")
		for _, u := range []string{zed, amy, mia} {
			Expect(fc.SetCollaborator(ctx, sc.org, "web", u, "write")).To(Succeed())
		}
		users := []string{amy, zed, mia}

		By("a rule made by hand, its lists in another order, is adopted without a write")
		_, err := fc.CreateBranchProtection(ctx, sc.org, "web", forge.BranchProtection{RuleName: "release/*",
			EnablePush: true, EnablePushWhitelist: true, PushWhitelistUsernames: []string{mia, zed, amy},
			RequiredApprovals: 2, EnableStatusCheck: true, StatusCheckContexts: []string{"ci/lint", "ci/build"},
			ProtectedFilePatterns: "*.lock;go.sum"})
		Expect(err).NotTo(HaveOccurred())
		release := newRule(sc.ns, "release", repo, pushRule("release/*", users, []string{"ci/build", "ci/lint"}))
		Expect(k8s.Create(ctx, release)).To(Succeed())
		Expect(expectReady(release)).To(Equal(forgev1.ReasonAdopted))
		eventWithReason(release, forgev1.ReasonAdopted)
		Expect(counter.Writes()).To(BeEmpty(), "adoption neither creates nor updates")

		By("a new rule is created as the spec says")
		main := newRule(sc.ns, "main", repo, pushRule("main", users, []string{"ci/test", "ci/build"}))
		Expect(k8s.Create(ctx, main)).To(Succeed())
		Expect(expectReady(main)).To(Equal(forgev1.ReasonCreated))
		rules := rulesOf(Default, repo)
		Expect(rules).To(HaveLen(2))
		expectPushRule(Default, rules["main"], users, []string{"ci/test", "ci/build"})
		expectPushRule(Default, rules["release/*"], users, []string{"ci/build", "ci/lint"})
		Expect(counter.Writes()).To(ContainElement(HavePrefix(http.MethodPost+" ")), "the new rule was created")

		By("in sync, the forge's list order causes no write over two sync intervals")
		expectReady(release)
		expectReady(main)
		written := counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written))
	})

	It("sets back a field changed by hand and a rule deleted by hand", func() {
		sc := newScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		alice := newUser()
		Expect(fc.SetCollaborator(ctx, sc.org, "web", alice, "write")).To(Succeed())
		users, contexts := []string{alice}, []string{"ci/test", "ci/build"}
		bp := newRule(sc.ns, "main", repo, pushRule("main", users, contexts))
		Expect(k8s.Create(ctx, bp)).To(Succeed())
		Expect(expectReady(bp)).To(Equal(forgev1.ReasonCreated))

		By("approvals and status checks changed by hand are set back")
		got, err := fc.EditBranchProtection(ctx, sc.org, "web", "main", forge.EditBranchProtectionOption{
			RequiredApprovals: ptr(int64(5)), StatusCheckContexts: &[]string{"by-hand"}})
		Expect(err).NotTo(HaveOccurred())
		Expect([]any{got.RequiredApprovals, got.StatusCheckContexts}).To(Equal([]any{int64(5), []string{"by-hand"}}), "the hand edit took")
		Eventually(func(g Gomega) {
			rules := rulesOf(g, repo)
			g.Expect(rules).To(HaveKey("main"))
			expectPushRule(g, rules["main"], users, contexts)
		}, timeout, poll).Should(Succeed())
		eventWithReason(bp, forgev1.ReasonDriftCorrected)

		By("the rule deleted by hand is created again")
		Expect(fc.DeleteBranchProtection(ctx, sc.org, "web", "main")).To(Succeed())
		Eventually(func(g Gomega) {
			rules := rulesOf(g, repo)
			g.Expect(rules).To(HaveKey("main"))
			expectPushRule(g, rules["main"], users, contexts)
		}, timeout, poll).Should(Succeed())
		eventWithMessage(bp, "was missing on the forge")
		expectReady(bp)
	})

	It("BranchProtectionSet over an organization: every matching repository gets the rules, a new one too; excluded and archived ones are left alone", func() {
		sc := newScenario()
		sc.createOrg()
		web, api := sc.createRepo("web"), sc.createRepo("api")
		sandbox, old := sc.createRepo("sandbox-tools"), sc.createRepo("old")
		// Rules of their own in the repositories the set must not touch,
		// named as one of the set's: an excluded repository, and an
		// archived one (where the forge refuses rule writes).
		for _, r := range []string{"sandbox-tools", "old"} {
			_, err := fc.CreateBranchProtection(ctx, sc.org, r, forge.BranchProtection{RuleName: "main"})
			Expect(err).NotTo(HaveOccurred())
		}
		_, err := fc.EditRepo(ctx, sc.org, "old", forge.EditRepoOption{Archived: ptr(true)})
		Expect(err).NotTo(HaveOccurred())

		s := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "standard"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org)), Exclude: []forgev1.RepositoryGlob{"sandbox-*"}},
				Rules:        setRules()}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect([]int32{s.Status.Repositories, s.Status.InSync}).To(Equal([]int32{2, 2}))
		Expect(s.Status.Failures).To(BeEmpty())
		for _, r := range []string{web, api} {
			expectSetRules(Default, r)
		}
		untouched := func(g Gomega, repo string) {
			rules := rulesOf(g, repo)
			g.Expect(rules).To(HaveLen(1), "in %s", repo)
			g.Expect(rules).To(HaveKey("main"), "in %s", repo)
			g.Expect([]any{rules["main"].RequiredApprovals, rules["main"].BlockOnRejectedReviews}).To(Equal([]any{int64(0), false}), "in %s", repo)
		}
		untouched(Default, sandbox)
		untouched(Default, old)

		By("a repository created later gets the rules")
		docs := sc.createRepo("docs")
		Eventually(func(g Gomega) { expectSetRules(g, docs) }, timeout, poll).Should(Succeed())
		Eventually(func(g Gomega) []int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.Failures).To(BeEmpty())
			return []int32{s.Status.Repositories, s.Status.InSync}
		}, timeout, poll).Should(Equal([]int32{3, 3}))
		expectReady(s)
		untouched(Default, sandbox)
		untouched(Default, old)
	})

	It("deletion: a BranchProtection removes its rule; a set with deletionPolicy Delete removes the rules it lists and no other", func() {
		sc := newScenario()
		sc.createOrg()
		web, api := sc.createRepo("web"), sc.createRepo("api")
		_, err := fc.CreateBranchProtection(ctx, sc.org, "web", forge.BranchProtection{RuleName: "legacy", RequiredApprovals: 1})
		Expect(err).NotTo(HaveOccurred())
		bp := newRule(sc.ns, "develop", web, forgev1.BranchProtectionRule{RuleName: "develop", RequiredApprovals: ptr(int64(1))})
		s := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "standard"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(), DeletionPolicy: forgev1.DeletionPolicyDelete,
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{forgev1.RepositoryName(web), forgev1.RepositoryName(api)}},
				Rules:        setRules()}}
		Expect(k8s.Create(ctx, bp)).To(Succeed())
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Expect(expectReady(bp)).To(Equal(forgev1.ReasonCreated))
		expectReady(s)
		Expect(ruleNamesOf(Default, web)).To(Equal([]string{"develop", "legacy", "main", "release/*"}))
		Expect(ruleNamesOf(Default, api)).To(Equal([]string{"main", "release/*"}))

		By("deleting the BranchProtection (deletionPolicy Delete by default) removes its rule")
		deleteAndWait(bp)
		Expect(ruleNamesOf(Default, web)).To(Equal([]string{"legacy", "main", "release/*"}))

		By("deleting the set removes its rules, not the one made by hand")
		deleteAndWait(s)
		Expect(ruleNamesOf(Default, web)).To(Equal([]string{"legacy"}))
		Expect(ruleNamesOf(Default, api)).To(BeEmpty())
	})

	It("applyToAdmins, Forgejo's alone, is Unsupported on Gitea, naming the field and the flavor, and nothing is written", func() {
		// Gitea would take the write and drop the field without a word
		// (the contract suite checks that): the operator refuses first.
		sc := newScenario()
		sc.createOrg()
		web := sc.createRepo("web")
		bp := newRule(sc.ns, "main", web, forgev1.BranchProtectionRule{RuleName: "main", RequiredApprovals: ptr(int64(1)), ApplyToAdmins: ptr(true)})
		Expect(k8s.Create(ctx, bp)).To(Succeed())
		Expect(expectReason(bp, metav1.ConditionFalse, forgev1.ReasonUnsupported)).To(And(ContainSubstring("applyToAdmins"), ContainSubstring("gitea")))
		Expect(ruleNamesOf(Default, web)).To(BeEmpty())
		deleteAndWait(bp)
	})
})

// userNamed creates an account whose login starts with prefix (the admin
// API on a live forge) and returns its login: newUser, for specs whose
// users' name order matters.
func userNamed(prefix string) string {
	GinkgoHelper()
	name := unique(prefix)
	if !live {
		fake.AddUser(name)
		return name
	}
	status, body := rawCall(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": name, "email": name + "@example.com", "password": "Pw-" + unique("x"), "must_change_password": false,
	})
	Expect(status).To(Equal(http.StatusCreated), string(body))
	DeferCleanup(func() { rawCall(http.MethodDelete, "/api/v1/admin/users/"+name+"?purge=true", nil) })
	return name
}

// eventWithMessage waits for an Event about obj whose message holds part.
func eventWithMessage(obj client.Object, part string) {
	GinkgoHelper()
	Eventually(func(g Gomega) []string {
		var list corev1.EventList
		g.Expect(k8s.List(context.Background(), &list, client.InNamespace(obj.GetNamespace()))).To(Succeed())
		var out []string
		for _, e := range list.Items {
			if e.InvolvedObject.Name == obj.GetName() {
				out = append(out, e.Message)
			}
		}
		return out
	}, timeout, poll).Should(ContainElement(ContainSubstring(part)))
}
