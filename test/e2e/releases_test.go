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
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Gitea 1.27's fields (a rule's bypass allow-list, a team's visibility, a
// repository's update style; has_code came with 1.25) are applied on 1.27
// and Unsupported, with no write, on an older release, which would drop
// them without a word. The spec asserts what the server it runs against
// is: on the fake (1.26) it then reports 1.27.3 and the same resources
// become Ready.
var _ = Describe("Release gates: fields of Gitea 1.27", func() {
	ctx := context.Background()

	It("a rule with a bypass allow-list, a limited team, a repository with code off and rebase updates: Ready on 1.27, Unsupported with no write before", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		bypasser := userNamed("by")
		Expect(fc.SetCollaborator(ctx, sc.org, "web", bypasser, "write")).To(Succeed())

		bp := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "main"},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo),
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "main", EnableBypassAllowlist: ptr(true),
					BypassAllowlistUsernames: []forgev1.UserName{forgev1.UserName(bypasser)}}}}
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "platform"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(sc.org), Visibility: ptr("limited"),
				Units: &forgev1.TeamUnits{Code: "read"}}}
		docs := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "docs"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), RepositorySettings: forgev1.RepositorySettings{HasCode: ptr(false),
				DefaultUpdateStyle: ptr("rebase")}}}
		for _, obj := range []client.Object{bp, team, docs} {
			Expect(k8s.Create(ctx, obj)).To(Succeed())
		}

		flavor, semver, _ := forge.ParseVersion(version)
		var major, minor int
		_, _ = fmt.Sscanf(semver, "%d.%d", &major, &minor)
		if flavor == forge.FlavorGitea && major == 1 && minor < 27 {
			By("on " + version + ": Unsupported, naming the fields and the release that has them, and nothing written")
			Expect(expectReason(bp, metav1.ConditionFalse, forgev1.ReasonUnsupported)).To(And(
				ContainSubstring("enableBypassAllowlist, bypassAllowlistUsernames"), ContainSubstring("Gitea 1.27 and later"), ContainSubstring(version)))
			Expect(expectReason(team, metav1.ConditionFalse, forgev1.ReasonUnsupported)).To(And(
				ContainSubstring("visibility"), ContainSubstring("Gitea 1.27 and later")))
			Expect(expectReason(docs, metav1.ConditionFalse, forgev1.ReasonUnsupported)).To(And(
				ContainSubstring("defaultUpdateStyle"), ContainSubstring("Gitea 1.27 and later")))
			Consistently(counter.Writes, 3*syncInterval, poll).Should(BeEmpty())
			rules, err := fc.ListBranchProtections(ctx, sc.org, "web")
			Expect(err).NotTo(HaveOccurred())
			Expect(rules).To(BeEmpty())
			_, err = fc.GetRepo(ctx, sc.org, "docs")
			Expect(forge.IsNotFound(err)).To(BeTrue(), "the repository is not made: %v", err)
			if live {
				return
			}
			By("the fake then reports Gitea 1.27.3: the resources resume with the Forge's new version")
			fake.SetVersion("1.27.3")
			DeferCleanup(func() { fake.SetVersion(version) })
		}

		for _, obj := range []client.Object{bp, team, docs} {
			expectReady(obj)
		}
		rules, err := fc.ListBranchProtections(ctx, sc.org, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(rules).To(ConsistOf(And(HaveField("RuleName", "main"), HaveField("EnableBypassAllowlist", true),
			HaveField("BypassAllowlistUsernames", ConsistOf(bypasser)))))
		teams, err := fc.ListTeams(ctx, sc.org)
		Expect(err).NotTo(HaveOccurred())
		Expect(teams).To(ContainElement(And(HaveField("Name", "platform"), HaveField("Visibility", "limited"))))
		r, err := fc.GetRepo(ctx, sc.org, "docs")
		Expect(err).NotTo(HaveOccurred())
		Expect(*r).To(And(HaveField("HasCode", false), HaveField("DefaultUpdateStyle", "rebase")))

		By("at rest nothing more is written")
		settled := len(counter.Writes())
		Consistently(func() int { return len(counter.Writes()) }, 3*syncInterval, poll).Should(Equal(settled))
	})
})
