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
	"github.com/forgeops/forge-operator/internal/forge"
)

// What a RepositorySet's status and Events say happened: a repository it
// newly covers is Applied, a change made on the forge to one it governs
// already is DriftCorrected (and only that moves
// forge_drift_corrections_total), team access taken back is said as such,
// and Ready summarises compliance.
var _ = Describe("RepositorySet says what happened", func() {
	var ns string
	var fc forge.Interface
	ctx := context.Background()

	// acme holds web and api; teams developers and ops with no repository.
	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fc = forgeClient()
		for _, r := range []string{"web", "api"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		for _, t := range []string{"developers", "ops"} {
			_, err = fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: t, Permission: "write",
				UnitsMap: map[string]string{"repo.code": "write"}})
			Expect(err).NotTo(HaveOccurred())
		}
	})

	newSet := func(name string) *forgev1.RepositorySet {
		return &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RepositorySetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
			}}
	}
	drift := func() float64 {
		return counterValue("forge_drift_corrections_total", map[string]string{"kind": "RepositorySet"})
	}
	// readyIs waits until s is Ready with reason and message.
	readyIs := func(s *forgev1.RepositorySet, reason, message string) {
		GinkgoHelper()
		Eventually(func(g Gomega) string {
			c := readyCondition(s)(g)
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}, timeout, poll).Should(Equal("True " + reason + ": " + message))
	}
	inSync := func(s *forgev1.RepositorySet) func(Gomega) int32 {
		return func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.InSync
		}
	}

	It("reports a repository made on the forge as newly governed (Applied), counting no drift correction", func() {
		s := newSet("policy")
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false), Description: ptr("governed")}
		s.Spec.Topics = []forgev1.Topic{"managed"}
		s.Spec.Teams = []forgev1.TeamName{"developers"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		before := drift()

		Expect(fake.CreateRepo("acme", "new")).To(Succeed())
		const governed = "1 repository governed: 2 settings, 1 team access, 1 topic"
		expectEvent(s, "Applied: "+governed)
		readyIs(s, forgev1.ReasonApplied, "3 of 3 repositories in sync; "+governed)
		Expect(fake.TeamRepos("acme", "developers")).To(ContainElement("new"))
		Expect(drift()).To(Equal(before), "a repository newly governed is no drift corrected")
		Expect(events(s)).NotTo(ContainElement(HavePrefix(forgev1.ReasonDriftCorrected + ": ")))
	})

	It("reports a repository that came to match its topic selector as newly governed (Applied)", func() {
		Expect(fc.SetRepoTopics(ctx, "acme", "web", []string{"service"})).To(Succeed())
		s := newSet("services")
		s.Spec.Repositories.Topics = []forgev1.Topic{"service"}
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false)}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		before := drift()

		Expect(fc.SetRepoTopics(ctx, "acme", "api", []string{"service"})).To(Succeed())
		expectEvent(s, "Applied: 1 repository governed: 1 setting")
		readyIs(s, forgev1.ReasonApplied, "2 of 2 repositories in sync; 1 repository governed: 1 setting")
		api, _ := fake.Repo("acme", "api")
		Expect(api.HasWiki).To(BeFalse())
		Expect(drift()).To(Equal(before))
	})

	It("says the team access it takes back from a team no longer listed as that team's access", func() {
		s := newSet("access")
		s.Spec.Teams = []forgev1.TeamName{"developers", "ops"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(fake.TeamRepos("acme", "ops")).To(Equal([]string{"api", "web"}))

		change(s, func(s *forgev1.RepositorySet) { s.Spec.Teams = []forgev1.TeamName{"developers"} })
		Eventually(func() []string { return fake.TeamRepos("acme", "ops") }, timeout, poll).Should(BeEmpty())
		// One pass takes both back, or (cut short) each pass some.
		Eventually(func() []string { return events(s) }, timeout, poll).Should(ContainElement(
			MatchRegexp(`^Updated: took back team ops's access to (1 repository|2 repositories)$`)))
		Expect(events(s)).NotTo(ContainElement(ContainSubstring("deleted")))
		Expect(fake.TeamRepos("acme", "developers")).To(Equal([]string{"api", "web"}))
		Eventually(inSync(s), timeout, poll).Should(BeEquivalentTo(2))
	})

	It("keeps DriftCorrected, and the drift-corrections counter, for a change made on the forge to a repository it governs already", func() {
		s := newSet("drift")
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false)}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Eventually(func(g Gomega) *forgev1.MatchedRepositories {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.Matched
		}, timeout, poll).ShouldNot(BeNil(), "the set records what it governs")
		before := drift()

		_, err := fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{HasWiki: ptr(true)})
		Expect(err).NotTo(HaveOccurred())
		expectEvent(s, "DriftCorrected: 1 repository: updated 1 setting")
		readyIs(s, forgev1.ReasonDriftCorrected, "2 of 2 repositories in sync; 1 repository: updated 1 setting")
		Expect(drift()).To(BeNumerically(">=", before+1))
		Expect(events(s)).NotTo(ContainElement(HavePrefix(forgev1.ReasonApplied + ": ")))
	})

	It("summarises compliance in Ready: how many are in sync, and the failing ones named with their reason", func() {
		s := newSet("teams")
		s.Spec.Teams = []forgev1.TeamName{"nosuch"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(func(g Gomega) string {
			return readyCondition(s)(g).Message
		}, timeout, poll).Should(Equal("0 of 2 repositories in sync; 2 failing: acme/api (TeamNotFound), acme/web (TeamNotFound)"))
		Expect(s.Status.Failing).To(BeEquivalentTo(2))
		Eventually(func() []string { return events(s) }, timeout, poll).Should(ContainElement(
			HavePrefix(`TeamNotFound: 0 of 2 repositories in sync; 2 failing: acme/api: TeamNotFound: team "nosuch" not found`)))
	})
})
