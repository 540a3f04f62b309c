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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = childSpecs(childRow{
	kind: "BranchProtection",
	object: func(ns, name, repo, rule string) forgev1.Managed {
		return &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.BranchProtectionSpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: forgev1.BranchRuleName(rule)}}}
	},
	onForge: func(repo, rule string) {
		_, err := forgeClient().CreateBranchProtection(context.Background(), "acme", repo, forge.BranchProtection{RuleName: rule})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.BranchProtections("acme", repo), func(b forge.BranchProtection) string { return b.RuleName })
	},
})

var _ = Describe("BranchProtection and BranchProtectionSet", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []string{"web", "api", "sandbox-play"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		fc := forgeClient()
		for _, u := range []string{"alice", "bob", "carol"} {
			fake.AddUser(u)
		}
		for _, u := range []string{"alice", "bob"} {
			Expect(fc.SetCollaborator(ctx, "acme", "web", u, "write")).To(Succeed())
		}
		fake.ClearRequests()
	})

	managed := func() forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)}
	}
	newRule := func(name, repo, rule string) *forgev1.BranchProtection {
		return &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo),
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: forgev1.BranchRuleName(rule)}}}
	}
	rule := func(repo, name string) *forge.BranchProtection {
		for _, b := range fake.BranchProtections("acme", repo) {
			if b.RuleName == name {
				return &b
			}
		}
		return nil
	}
	ruleNames := func(repo string) []string {
		var out []string
		for _, b := range fake.BranchProtections("acme", repo) {
			out = append(out, b.RuleName)
		}
		return out
	}
	writesTo := func(method, part string) int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if r.Method == method && strings.Contains(r.Path, part) {
				n++
			}
		}
		return n
	}

	It("creates a rule with allow-lists, approvals, checks and file patterns, adopts one that exists, and never writes for list order", func() {
		b := newRule("web-main", "acme/web", "main")
		b.Spec.EnablePush, b.Spec.EnablePushWhitelist = ptr(true), ptr(true)
		b.Spec.PushWhitelistUsernames = []forgev1.UserName{"bob", "Alice"}
		b.Spec.RequiredApprovals = ptr(int64(2))
		b.Spec.EnableStatusCheck = ptr(true)
		b.Spec.StatusCheckContexts = []forgev1.StatusCheckContext{"ci/test", "ci/build"}
		b.Spec.ProtectedFilePatterns = ptr("*.lock;.gitea/workflows/*")
		Expect(k8s.Create(ctx, b)).To(Succeed())
		expectReady(b)
		eventWithReason(b, forgev1.ReasonCreated)
		Expect(b.Status.ExternalName).To(Equal("main"))
		got := rule("web", "main")
		Expect(got).NotTo(BeNil())
		Expect(got.EnablePush && got.EnablePushWhitelist && got.EnableStatusCheck).To(BeTrue())
		Expect(got.PushWhitelistUsernames).To(ConsistOf("alice", "bob"))
		Expect(got.StatusCheckContexts).To(ConsistOf("ci/test", "ci/build"))
		Expect(got.RequiredApprovals).To(BeEquivalentTo(2))
		Expect(got.ProtectedFilePatterns).To(Equal("*.lock;.gitea/workflows/*"))

		By("adopting a rule that exists, with a write only for what differs")
		fc := forgeClient()
		_, err := fc.CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: "release/*", RequiredApprovals: 1, BlockOnRejectedReviews: true})
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
		release := newRule("web-release", "acme/web", "release/*")
		release.Spec.RequiredApprovals = ptr(int64(1))
		release.Spec.RequireSignedCommits = ptr(true)
		Expect(k8s.Create(ctx, release)).To(Succeed())
		expectReady(release)
		eventWithReason(release, forgev1.ReasonAdopted)
		Expect(writesTo(http.MethodPost, "/branch_protections")).To(BeZero(), "an existing rule is adopted, never posted")
		Expect(rule("web", "release/*").RequireSignedCommits).To(BeTrue())
		Expect(rule("web", "release/*").BlockOnRejectedReviews).To(BeTrue(), "a field the spec leaves out is not managed")

		By("at rest: no writes, one rule listing per repository per interval")
		Eventually(func() []fakeforge.Request { fake.ClearRequests(); return fake.WriteRequests() }, timeout, poll).Should(BeEmpty())
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		Expect(requestsTo("/repos/acme/web/branch_protections")).To(BeNumerically("<=", 4))
	})

	It("corrects a field changed by hand and a rule deleted by hand within one interval", func() {
		b := newRule("web-main", "acme/web", "main")
		b.Spec.RequiredApprovals = ptr(int64(2))
		b.Spec.BlockOnOutdatedBranch = ptr(true)
		Expect(k8s.Create(ctx, b)).To(Succeed())
		expectReady(b)
		fc := forgeClient()
		_, err := fc.EditBranchProtection(ctx, "acme", "web", "main", forge.EditBranchProtectionOption{RequiredApprovals: ptr(int64(0))})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() int64 { return rule("web", "main").RequiredApprovals }, timeout, poll).Should(BeEquivalentTo(2))
		eventWithReason(b, forgev1.ReasonDriftCorrected)

		Expect(fc.DeleteBranchProtection(ctx, "acme", "web", "main")).To(Succeed())
		Eventually(func() *forge.BranchProtection { return rule("web", "main") }, timeout, poll).Should(
			And(Not(BeNil()), HaveField("BlockOnOutdatedBranch", true)))
	})

	It("reports, once retried, an allow-list entry the forge drops (a user without write access) as Rejected", func() {
		b := newRule("web-main", "acme/web", "main")
		b.Spec.EnablePush, b.Spec.EnablePushWhitelist = ptr(true), ptr(true)
		b.Spec.PushWhitelistUsernames = []forgev1.UserName{"alice", "carol"} // carol cannot write to acme/web
		Expect(k8s.Create(ctx, b)).To(Succeed())
		msg := expectReason(b, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("pushWhitelistUsernames"))
		Expect(msg).To(ContainSubstring("write access"))
		Expect(rule("web", "main").PushWhitelistUsernames).To(Equal([]string{"alice"}))
		Expect(writesTo(http.MethodPost, "/branch_protections")).To(Equal(1))
		Expect(writesTo(http.MethodPatch, "/branch_protections/main")).To(Equal(1), "what the forge did not take is sent again once, not hot")

		By("once carol may write, the rule converges")
		Expect(forgeClient().SetCollaborator(ctx, "acme", "web", "carol", "write")).To(Succeed())
		Eventually(func() []string { return rule("web", "main").PushWhitelistUsernames }, timeout, poll).Should(ConsistOf("alice", "carol"))
		expectReady(b)
	})

	It("observes without writing and deletes by policy", func() {
		observed := newRule("observed", "acme/api", "main")
		observed.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, observed)).To(Succeed())
		expectReason(observed, metav1.ConditionFalse, forgev1.ReasonNotFound)
		Expect(fake.WriteRequests()).To(BeEmpty())

		gone, kept := newRule("gone", "acme/web", "gone"), newRule("kept", "acme/web", "kept")
		kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
		for _, b := range []*forgev1.BranchProtection{gone, kept} {
			Expect(k8s.Create(ctx, b)).To(Succeed())
		}
		for _, b := range []*forgev1.BranchProtection{gone, kept} {
			expectReady(b)
			Expect(k8s.Delete(ctx, b)).To(Succeed())
		}
		for _, b := range []*forgev1.BranchProtection{gone, kept} {
			Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, b.Name), b)) }, timeout, poll).Should(BeTrue())
		}
		Expect(ruleNames("web")).To(Equal([]string{"kept"}))
	})

	newSet := func(name string, rules ...forgev1.BranchProtectionRule) *forgev1.BranchProtectionSet {
		return &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme")), Exclude: []forgev1.RepositoryGlob{"sandbox-*"}},
				Rules:        rules}}
	}
	mainRule := forgev1.BranchProtectionRule{RuleName: "main", RequiredApprovals: ptr(int64(1)), BlockOnRejectedReviews: ptr(true)}

	It("applies a set to every matching repository, later ones too, skipping archived and excluded ones, and reads one listing per repository at rest", func() {
		Expect(fake.CreateRepo("acme", "old")).To(Succeed())
		fake.SetArchived("acme", "old", true)
		s := newSet("protect-main", mainRule)
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Repositories).To(BeEquivalentTo(2))
		Expect(s.Status.InSync).To(BeEquivalentTo(2))
		for _, r := range []string{"web", "api"} {
			Expect(rule(r, "main")).To(And(Not(BeNil()), HaveField("RequiredApprovals", BeEquivalentTo(1)), HaveField("BlockOnRejectedReviews", true)), r)
		}
		Expect(ruleNames("sandbox-play")).To(BeEmpty())
		Expect(ruleNames("old")).To(BeEmpty())

		By("a repository created later gets the rules within one interval")
		Expect(fake.CreateRepo("acme", "docs")).To(Succeed())
		Eventually(func() *forge.BranchProtection { return rule("docs", "main") }, timeout, poll).ShouldNot(BeNil())
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, key(ns, s.Name), s)).To(Succeed())
			return s.Status.InSync
		}, timeout, poll).Should(BeEquivalentTo(3))

		By("at rest: no writes, one rule listing per repository per interval")
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		for _, r := range []string{"web", "api", "docs"} {
			Expect(requestsTo("/repos/acme/"+r+"/branch_protections")).To(BeNumerically("<=", 4), r)
		}
	})

	It("deletes unlisted rules when Authoritative within its limit, never fights a BranchProtection or an older set, and removes only its own rules on Delete", func() {
		fc := forgeClient()
		for _, n := range []string{"stale-1", "stale-2"} {
			_, err := fc.CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: n})
			Expect(err).NotTo(HaveOccurred())
		}
		for _, n := range []string{"a", "b", "c"} {
			_, err := fc.CreateBranchProtection(ctx, "acme", "api", forge.BranchProtection{RuleName: n})
			Expect(err).NotTo(HaveOccurred())
		}
		single := newRule("web-release", "acme/web", "release/*")
		Expect(k8s.Create(ctx, single)).To(Succeed())
		expectReady(single)

		s := newSet("protect-main", mainRule, forgev1.BranchProtectionRule{RuleName: "release/*", RequiredApprovals: ptr(int64(3))})
		s.Spec.Mode = forgev1.SetModeAuthoritative
		s.Spec.MaxDeletionsPerRepository = ptr(int32(2))
		s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(func(g Gomega) []forgev1.SetFailure {
			g.Expect(k8s.Get(ctx, key(ns, s.Name), s)).To(Succeed())
			return s.Status.Failures
		}, timeout, poll).Should(ConsistOf(
			And(HaveField("Repository", "acme/api"), HaveField("Reason", forgev1.ReasonTooManyDeletions)),
			And(HaveField("Repository", "acme/web"), HaveField("Reason", forgev1.ReasonConflict),
				HaveField("Message", ContainSubstring("BranchProtection "+ns+"/web-release"))),
		))
		// Ready names the first repository's reason; both need a user's change.
		expectReason(s, metav1.ConditionFalse, forgev1.ReasonTooManyDeletions)
		Expect(ruleNames("web")).To(ConsistOf("release/*", "main"), "unlisted rules deleted within the limit; the BranchProtection's rule kept")
		Expect(rule("web", "release/*").RequiredApprovals).To(BeZero(), "the BranchProtection's rule is left to it")
		Expect(ruleNames("api")).To(ConsistOf("a", "b", "c", "main", "release/*"), "over the limit: nothing deleted there")

		By("a newer set listing the same rule yields")
		// Created within a second of the other, a set is the newer by name.
		newer := newSet("yielding", mainRule)
		newer.Spec.Repositories = forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}}
		Expect(k8s.Create(ctx, newer)).To(Succeed())
		Expect(expectReason(newer, metav1.ConditionFalse, forgev1.ReasonConflict)).To(Equal("0 of 1 repository in sync; 1 failing: acme/web (Conflict)"))
		Expect(newer.Status.Failures).To(ConsistOf(HaveField("Message", ContainSubstring("BranchProtectionSet "+ns+"/protect-main"))))

		By("deleting the set removes its listed rules only")
		Expect(k8s.Delete(ctx, newer)).To(Succeed())
		gone(newer)
		s.Spec.MaxDeletionsPerRepository = ptr(int32(5))
		change(s, func(s *forgev1.BranchProtectionSet) { s.Spec.MaxDeletionsPerRepository = ptr(int32(5)) })
		Eventually(func() []string { return ruleNames("api") }, timeout, poll).Should(ConsistOf("main", "release/*"))
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		gone(s)
		Expect(ruleNames("web")).To(ConsistOf("release/*"), "the BranchProtection's rule stays")
		Expect(ruleNames("api")).To(BeEmpty())
		Expect(ruleNames("sandbox-play")).To(BeEmpty())
	})
})

// The rule fields one flavor lacks are refused before any write, from the
// server's flavor: each server drops an unknown field without a word.
var _ = Describe("BranchProtection and BranchProtectionSet fields one flavor lacks", func() {
	var ns string
	ctx := context.Background()
	const forgejo = "15.0.3+gitea-1.22.0"

	setup := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []string{"web", "api"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		fake.ClearRequests()
	}
	newRule := func(name string) *forgev1.BranchProtection {
		return &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.BranchProtectionSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  "acme/web", BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "main"}}}
	}
	rule := func(repo, name string) *forge.BranchProtection {
		for _, b := range fake.BranchProtections("acme", repo) {
			if b.RuleName == name {
				return &b
			}
		}
		return nil
	}
	expectStalledUnsupported := func(obj client.Object) string {
		GinkgoHelper()
		msg := expectReason(obj, metav1.ConditionFalse, forgev1.ReasonUnsupported)
		stalled := findCondition(obj.(forgev1.ConditionsAccessor), forgev1.ConditionStalled)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		return msg
	}

	It("on Forgejo: a Gitea-only field stalls Unsupported with no write; applyToAdmins is applied and drift-corrected", func() {
		setup(fakeforge.WithVersion(forgejo))
		b := newRule("web-main")
		b.Spec.Priority = ptr(int64(1))
		b.Spec.EnablePush, b.Spec.EnableForcePush = ptr(true), ptr(true)
		Expect(k8s.Create(ctx, b)).To(Succeed())
		msg := expectStalledUnsupported(b)
		Expect(msg).To(And(ContainSubstring("priority"), ContainSubstring("enableForcePush"), ContainSubstring("forgejo")))
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(rule("web", "main")).To(BeNil())

		By("without them, applyToAdmins is applied")
		change(b, func(b *forgev1.BranchProtection) {
			b.Spec.Priority, b.Spec.EnableForcePush, b.Spec.ApplyToAdmins = nil, nil, ptr(true)
		})
		expectReady(b)
		Expect(rule("web", "main")).To(And(Not(BeNil()), HaveField("ApplyToAdmins", true), HaveField("EnablePush", true)))

		By("and corrected when changed by hand")
		_, err := forgeClient().EditBranchProtection(ctx, "acme", "web", "main", forge.EditBranchProtectionOption{ApplyToAdmins: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() bool { return rule("web", "main").ApplyToAdmins }, timeout, poll).Should(BeTrue())
		eventWithReason(b, forgev1.ReasonDriftCorrected)

		By("a stalled resource is still deleted")
		odd := newRule("web-odd")
		odd.Spec.RuleName = "odd"
		odd.Spec.BlockAdminMergeOverride = ptr(true)
		Expect(k8s.Create(ctx, odd)).To(Succeed())
		Expect(expectStalledUnsupported(odd)).To(ContainSubstring("blockAdminMergeOverride"))
		Expect(k8s.Delete(ctx, odd)).To(Succeed())
		gone(odd)
	})

	It("on Forgejo: a set whose rule sets a Gitea-only field stalls whole, writing to no repository", func() {
		setup(fakeforge.WithVersion(forgejo))
		s := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "protect"},
			Spec: forgev1.BranchProtectionSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Rules: []forgev1.BranchProtectionRule{
					{RuleName: "main", RequiredApprovals: ptr(int64(1))},
					{RuleName: "release/*", BlockAdminMergeOverride: ptr(true)},
				}}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		msg := expectStalledUnsupported(s)
		Expect(msg).To(And(ContainSubstring(`rule "release/*"`), ContainSubstring("blockAdminMergeOverride"), ContainSubstring("forgejo")))
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(rule("web", "main")).To(BeNil(), "not even the rule Forgejo has")
	})

	It("on Gitea: applyToAdmins stalls Unsupported with no write", func() {
		setup()
		b := newRule("web-main")
		b.Spec.ApplyToAdmins = ptr(true)
		b.Spec.RequiredApprovals = ptr(int64(1))
		Expect(k8s.Create(ctx, b)).To(Succeed())
		msg := expectStalledUnsupported(b)
		Expect(msg).To(And(ContainSubstring("applyToAdmins"), ContainSubstring("gitea")))
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(rule("web", "main")).To(BeNil())
	})
})
