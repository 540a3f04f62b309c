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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The fields Gitea 1.27 added (and has_code, from 1.25): managed only when
// set, drift corrected on 1.27, and on an older release Unsupported before
// anything is written, since that release would drop them without a word.
var _ = Describe("Fields of later releases: the bypass allow-list, team visibility, a repository's code unit and update style", func() {
	ctx := context.Background()
	managed := func() forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)}
	}
	// scene makes the three resources of the scenario: a rule with
	// a bypass allow-list, a limited team, a repository with code off and
	// rebase as its update style.
	scene := func(ns string) (*forgev1.BranchProtection, *forgev1.Team, *forgev1.Repository) {
		bp := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-main"},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: "acme/web",
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "main", EnableBypassAllowlist: ptr(true),
					BypassAllowlistUsernames: []forgev1.UserName{fakeforge.DefaultLogin}}}}
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "platform"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: "acme", Visibility: ptr("limited")}}
		repo := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "docs"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: "acme", RepositorySettings: forgev1.RepositorySettings{HasCode: ptr(false),
				DefaultUpdateStyle: ptr("rebase")}}}
		for _, obj := range []client.Object{bp, team, repo} {
			Expect(k8s.Create(ctx, obj)).To(Succeed())
		}
		return bp, team, repo
	}
	setup := func(version string) string {
		ns := newNamespace(fakeforge.WithVersion(version))
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fake.ClearRequests()
		return ns
	}
	rule := func() *forge.BranchProtection {
		for _, b := range fake.BranchProtections("acme", "web") {
			if b.RuleName == "main" {
				return &b
			}
		}
		return nil
	}

	stalledUnsupported := func(obj client.Object) string {
		GinkgoHelper()
		msg := expectReason(obj, metav1.ConditionFalse, forgev1.ReasonUnsupported)
		stalled := findCondition(obj.(forgev1.ConditionsAccessor), forgev1.ConditionStalled)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		return msg
	}

	It("on Gitea 1.26: each is Unsupported, naming the field and the release that has it, and nothing is written", func() {
		bp, team, repo := scene(setup("1.26.4"))
		Expect(stalledUnsupported(bp)).To(And(ContainSubstring("enableBypassAllowlist, bypassAllowlistUsernames"),
			ContainSubstring("Gitea 1.27 and later"), ContainSubstring("gitea 1.26.4"), ContainSubstring("nothing was written")))
		Expect(stalledUnsupported(team)).To(And(ContainSubstring("visibility"), ContainSubstring("Gitea 1.27 and later")))
		// has_code is 1.25's: only the update style is missing here.
		msg := stalledUnsupported(repo)
		Expect(msg).To(And(ContainSubstring("defaultUpdateStyle"), ContainSubstring("Gitea 1.27 and later")))
		Expect(msg).NotTo(ContainSubstring("hasCode"))
		Consistently(fake.WriteRequests, 2*syncInterval, poll).Should(BeEmpty())
		Expect(rule()).To(BeNil())
		_, made := fake.Team("acme", "platform")
		Expect(made).To(BeFalse())
		_, made = fake.Repo("acme", "docs")
		Expect(made).To(BeFalse())

		By("the same rule in a set stalls the whole set")
		set := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: bp.Namespace, Name: "protect"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Rules: []forgev1.BranchProtectionRule{{RuleName: "dev", RequiredApprovals: ptr(int64(1))},
					{RuleName: "release/*", EnableBypassAllowlist: ptr(true)}}}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		Expect(stalledUnsupported(set)).To(And(ContainSubstring(`rule "release/*": enableBypassAllowlist`),
			ContainSubstring("nothing was written to any repository")))
		Expect(fake.WriteRequests()).To(BeEmpty())

		By("a stalled resource is still deleted")
		Expect(k8s.Delete(ctx, bp)).To(Succeed())
		gone(bp)
	})

	It("on Gitea 1.27: each is applied, corrected when changed by hand, and nothing is written at rest", func() {
		bp, team, repo := scene(setup("1.27.3"))
		for _, obj := range []client.Object{bp, team, repo} {
			expectReady(obj)
		}
		Expect(rule()).To(And(Not(BeNil()), HaveField("EnableBypassAllowlist", true),
			HaveField("BypassAllowlistUsernames", ConsistOf(fakeforge.DefaultLogin))))
		t, ok := fake.Team("acme", "platform")
		Expect(ok).To(BeTrue())
		Expect(t.Visibility).To(Equal("limited"))
		r, ok := fake.Repo("acme", "docs")
		Expect(ok).To(BeTrue())
		Expect(r).To(And(HaveField("HasCode", false), HaveField("DefaultUpdateStyle", "rebase"),
			HaveField("AllowMergeUpdate", true), HaveField("AllowRebaseUpdate", true)))

		By("at rest nothing is written")
		fake.ClearRequests()
		Consistently(fake.WriteRequests, 2*syncInterval, poll).Should(BeEmpty())

		By("changed by hand, each is corrected")
		fc := forgeClient()
		_, err := fc.EditBranchProtection(ctx, "acme", "web", "main", forge.EditBranchProtectionOption{EnableBypassAllowlist: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.EditTeam(ctx, "acme", t.ID, forge.EditTeamOption{Visibility: ptr("public")})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.EditRepo(ctx, "acme", "docs", forge.EditRepoOption{HasCode: ptr(true), DefaultUpdateStyle: ptr("merge")})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() bool { b := rule(); return b.EnableBypassAllowlist && len(b.BypassAllowlistUsernames) == 1 }, timeout, poll).Should(BeTrue())
		Eventually(func() string { t, _ := fake.Team("acme", "platform"); return t.Visibility }, timeout, poll).Should(Equal("limited"))
		Eventually(func() []any { r, _ := fake.Repo("acme", "docs"); return []any{r.HasCode, r.DefaultUpdateStyle} }, timeout, poll).
			Should(Equal([]any{false, "rebase"}))
		for _, obj := range []client.Object{bp, team, repo} {
			eventWithReason(obj, forgev1.ReasonDriftCorrected)
		}
	})

	It("manages each only when set: a spec without them leaves what the forge holds", func() {
		ns := setup("1.27.3")
		fc := forgeClient()
		_, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "platform", Visibility: "public",
			UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{HasCode: ptr(false), DefaultUpdateStyle: ptr("rebase")})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: "main",
			EnableBypassAllowlist: true, BypassAllowlistUsernames: []string{fakeforge.DefaultLogin}})
		Expect(err).NotTo(HaveOccurred())
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "platform"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: "acme", Units: &forgev1.TeamUnits{Code: "read"}}}
		repo := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: "acme"}}
		bp := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-main"},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: "acme/web",
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "main"}}}
		fake.ClearRequests()
		for _, obj := range []client.Object{team, repo, bp} {
			Expect(k8s.Create(ctx, obj)).To(Succeed())
			expectReady(obj)
		}
		Consistently(fake.WriteRequests, 2*syncInterval, poll).Should(BeEmpty())
		t, _ := fake.Team("acme", "platform")
		Expect(t.Visibility).To(Equal("public"))
		r, _ := fake.Repo("acme", "web")
		Expect(r).To(And(HaveField("HasCode", false), HaveField("DefaultUpdateStyle", "rebase")))
		Expect(rule()).To(HaveField("EnableBypassAllowlist", true))
	})
})
