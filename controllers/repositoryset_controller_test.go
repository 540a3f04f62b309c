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
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("RepositorySet", func() {
	var ns string
	var fc forge.Interface
	ctx := context.Background()

	// acme holds web, api and an archived old; a team developers with
	// write access and no repository yet.
	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fc = forgeClient()
		for _, r := range []string{"web", "api", "old"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		fake.SetArchived("acme", "old", true)
		_, err = fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "developers", Permission: "write",
			UnitsMap: map[string]string{"repo.code": "write", "repo.pulls": "write"}})
		Expect(err).NotTo(HaveOccurred())
	})

	newSet := func(name string) *forgev1.RepositorySet {
		return &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RepositorySetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
			}}
	}
	repoOf := func(name string) forge.Repository {
		GinkgoHelper()
		r, ok := fake.Repo("acme", name)
		Expect(ok).To(BeTrue(), name)
		return r
	}
	failures := func(s *forgev1.RepositorySet) func(Gomega) []string {
		return func(g Gomega) []string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			var out []string
			for _, f := range s.Status.Failures {
				out = append(out, f.Repository+" "+f.Reason)
			}
			return out
		}
	}
	teamRepos := func() []string { return fake.TeamRepos("acme", "developers") }
	// atRest expects no write for three sync intervals.
	atRest := func() {
		GinkgoHelper()
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
	}

	It("applies its settings, topics and team access to every selected repository (archived ones skipped, other topics kept), at rest reads listings only and writes nothing, and gives a new repository the same at the next pass", func() {
		Expect(fc.SetRepoTopics(ctx, "acme", "web", []string{"keep"})).To(Succeed())
		s := newSet("policy")
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false), DefaultMergeStyle: ptr("squash"),
			DefaultDeleteBranchAfterMerge: ptr(true), Description: ptr("governed")}
		s.Spec.Topics = []forgev1.Topic{"managed"}
		s.Spec.Teams = []forgev1.TeamName{"developers"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Repositories).To(BeEquivalentTo(2))
		Expect(s.Status.InSync).To(BeEquivalentTo(2))
		for _, name := range []string{"web", "api"} {
			r := repoOf(name)
			Expect(r.HasWiki).To(BeFalse(), name)
			Expect(r.DefaultMergeStyle).To(Equal("squash"), name)
			Expect(r.DefaultDeleteBranchAfterMerge).To(BeTrue(), name)
			Expect(r.Description).To(Equal("governed"), name)
		}
		Expect(repoOf("web").Topics).To(Equal([]string{"keep", "managed"}), "the repository's other topics are kept")
		Expect(repoOf("api").Topics).To(Equal([]string{"managed"}))
		Expect(teamRepos()).To(Equal([]string{"api", "web"}))
		old := repoOf("old")
		Expect(old.HasWiki).To(BeTrue(), "archived repositories are skipped")
		Expect(old.Topics).To(BeEmpty())
		Expect(s.Status.TeamGrants).To(HaveLen(1))
		Expect(s.Status.TeamGrants[0].Team).To(Equal("developers"))
		Expect(s.Status.TeamGrants[0].RepositoryIDs).To(ConsistOf(repoOf("web").ID, repoOf("api").ID))
		eventWithReason(s, forgev1.ReasonUpdated)
		Expect(events(s)).To(ContainElement(HavePrefix("Updated: 2 repositories: updated ")))

		By("at rest: the listings only, no read per repository, no write")
		atRest()
		for _, r := range fake.Requests() {
			Expect(r.Path).NotTo(MatchRegexp(`^/api/v1/repos/acme/[^/]+(/topics)?$`), "no read per repository")
		}

		By("a repository made later gets the settings, the topic and the access at the next pass")
		Expect(fake.CreateRepo("acme", "new")).To(Succeed())
		Eventually(func(g Gomega) {
			r := repoOf("new")
			g.Expect(r.HasWiki).To(BeFalse())
			g.Expect(r.DefaultMergeStyle).To(Equal("squash"))
			g.Expect(r.Topics).To(Equal([]string{"managed"}))
			g.Expect(teamRepos()).To(ContainElement("new"))
		}, 5*syncInterval, poll).Should(Succeed())
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.InSync
		}, timeout, poll).Should(BeEquivalentTo(3))
	})

	It("lists every repository as TeamNotFound for a team the organization lacks, never creating it; a team with every repository needs nothing", func() {
		_, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "everyone", Permission: "read", IncludesAllRepositories: true,
			UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
		s := newSet("teams")
		s.Spec.Teams = []forgev1.TeamName{"everyone", "nosuch"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(failures(s), timeout, poll).Should(Equal([]string{"acme/api TeamNotFound", "acme/web TeamNotFound"}))
		Expect(s.Status.Failures[0].Message).To(ContainSubstring(`team "nosuch" not found in organization acme`))
		for _, r := range fake.WriteRequests() {
			Expect(r.Path).NotTo(HavePrefix("/api/v1/orgs/acme/teams"), "no team is created")
			Expect(r.Path).NotTo(ContainSubstring("/repos/acme/"), "the include-all team is given nothing")
		}
		_, ok := fake.Team("acme", "nosuch")
		Expect(ok).To(BeFalse())

		By("once the team exists, the set gives it access")
		_, err = fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "nosuch", Permission: "read", UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		expectReady(s)
		Expect(fake.TeamRepos("acme", "nosuch")).To(Equal([]string{"api", "web"}))
	})

	It("leaves a field a Repository resource sets to it, without a Conflict, and writes nothing at rest while the two disagree", func() {
		own := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Owner: "acme", RepositorySettings: forgev1.RepositorySettings{HasWiki: ptr(true)}, Topics: []forgev1.Topic{"web"}}}
		Expect(k8s.Create(ctx, own)).To(Succeed())
		expectReady(own)
		s := newSet("policy")
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false), DefaultMergeStyle: ptr("squash")}
		s.Spec.Topics = []forgev1.Topic{"managed"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Failures).To(BeEmpty())
		By("web is governed by the Repository for what it holds: said in status.yielded, not counted in inSync")
		Expect(s.Status.InSync).To(BeEquivalentTo(1))
		Expect(s.Status.Yielded).To(Equal(&forgev1.SetYields{Count: 1, Items: []forgev1.SetYield{
			{Repository: "acme/web", Items: []string{"hasWiki", "topics"}, HeldBy: "Repository " + ns + "/web"}}}))
		web, api := repoOf("web"), repoOf("api")
		Expect(web.HasWiki).To(BeTrue(), "the Repository's own setting wins")
		Expect(web.DefaultMergeStyle).To(Equal("squash"), "the set writes the fields the Repository leaves unset")
		Expect(web.Topics).To(Equal([]string{"web"}), "the Repository's topics are its own")
		Expect(api.HasWiki).To(BeFalse())
		Expect(api.Topics).To(Equal([]string{"managed"}))

		By("at rest, the set and the Repository disagreeing on hasWiki: zero writes")
		atRest()
		expectReady(own)
		expectReady(s)
	})

	It("lets the older of two sets hold a field: the younger lists the repositories as Conflict, naming the field and the older set; equal values are no conflict", func() {
		older := newSet("older")
		older.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false), DefaultMergeStyle: ptr("squash")}
		Expect(k8s.Create(ctx, older)).To(Succeed())
		expectReady(older)
		younger := newSet("younger")
		younger.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(true), DefaultMergeStyle: ptr("squash"), HasProjects: ptr(false)}
		Expect(k8s.Create(ctx, younger)).To(Succeed())
		Eventually(failures(younger), timeout, poll).Should(Equal([]string{"acme/api Conflict", "acme/web Conflict"}))
		msg := younger.Status.Failures[0].Message
		Expect(msg).To(ContainSubstring("hasWiki"))
		Expect(msg).To(ContainSubstring("RepositorySet " + ns + "/older"))
		Expect(msg).NotTo(ContainSubstring("defaultMergeStyle"), "equal values are no conflict")
		expectReason(younger, metav1.ConditionFalse, forgev1.ReasonConflict)
		for _, name := range []string{"web", "api"} {
			Expect(repoOf(name).HasWiki).To(BeFalse(), "the older set holds hasWiki")
			Expect(repoOf(name).HasProjects).To(BeFalse(), "the younger set writes what no one else sets")
		}
		By("no write fight")
		fake.ClearRequests()
		Consistently(func() int {
			return len(slices.DeleteFunc(fake.WriteRequests(), func(r fakeforge.Request) bool { return r.Method != http.MethodPatch }))
		}, 3*syncInterval, poll).Should(BeZero())

		By("the younger set agreeing is no conflict")
		change(younger, func(s *forgev1.RepositorySet) { s.Spec.Settings.HasWiki = ptr(false) })
		expectReady(younger)
	})

	It("in Observe mode reports per repository what differs and writes nothing", func() {
		fake.ClearRequests()
		s := newSet("observed")
		s.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false)}
		s.Spec.Topics = []forgev1.Topic{"managed"}
		s.Spec.Teams = []forgev1.TeamName{"developers"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(failures(s), timeout, poll).Should(Equal([]string{"acme/api DriftDetected", "acme/web DriftDetected"}))
		msg := s.Status.Failures[0].Message
		for _, want := range []string{"hasWiki", "+managed", `give team "developers" access`} {
			Expect(msg).To(ContainSubstring(want))
		}
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(repoOf("web").HasWiki).To(BeTrue())
		Expect(teamRepos()).To(BeEmpty())
	})

	It("takes back only the access it recorded giving: with removals Report it lists it and removes nothing, with Apply it takes it back, and access the team had before stays", func() {
		Expect(fc.AddTeamRepo(ctx, teamID("developers"), "acme", "web")).To(Succeed())
		s := newSet("access")
		s.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false)}
		s.Spec.Teams = []forgev1.TeamName{"developers"}
		s.Spec.Removals = forgev1.RemovalsReport
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(teamRepos()).To(Equal([]string{"api", "web"}))
		Expect(s.Status.TeamGrants).To(HaveLen(1))
		Expect(s.Status.TeamGrants[0].RepositoryIDs).To(Equal([]int64{repoOf("api").ID}), "web's access was the team's already")

		By("the team dropped, removals Report: listed, nothing taken back, still Ready")
		change(s, func(s *forgev1.RepositorySet) { s.Spec.Teams = nil })
		Eventually(func(g Gomega) *forgev1.PendingRemovals {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.PendingRemovals
		}, timeout, poll).Should(Equal(&forgev1.PendingRemovals{Count: 1,
			Items: []forgev1.PendingRemoval{{Repository: "acme/api", Kind: "TeamAccess", Name: "developers"}}}))
		expectReady(s)
		atRest()
		Expect(teamRepos()).To(Equal([]string{"api", "web"}))

		By("removals Apply: the access the set gave is taken back, the team's own stays")
		change(s, func(s *forgev1.RepositorySet) { s.Spec.Removals = forgev1.RemovalsApply })
		Eventually(teamRepos, timeout, poll).Should(Equal([]string{"web"}))
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.TeamGrants).To(BeEmpty())
			g.Expect(s.Status.PendingRemovals).To(BeNil())
		}, timeout, poll).Should(Succeed())
	})

	It("with deletionPolicy Delete takes back the access it gave when deleted, leaving the settings and the team's own access; Orphan leaves it all", func() {
		Expect(fake.CreateRepo("acme", "docs")).To(Succeed())
		Expect(fc.AddTeamRepo(ctx, teamID("developers"), "acme", "web")).To(Succeed())
		_, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "ops", Permission: "read", UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		del := newSet("delete")
		del.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		del.Spec.Settings = &forgev1.RepositorySettings{HasWiki: ptr(false)}
		del.Spec.Teams = []forgev1.TeamName{"developers"}
		orphan := newSet("orphan")
		orphan.Spec.Teams = []forgev1.TeamName{"ops"}
		for _, s := range []*forgev1.RepositorySet{del, orphan} {
			Expect(k8s.Create(ctx, s)).To(Succeed())
			expectReady(s)
		}
		Expect(teamRepos()).To(Equal([]string{"api", "docs", "web"}))
		Expect(fake.TeamRepos("acme", "ops")).To(Equal([]string{"api", "docs", "web"}))

		for _, s := range []*forgev1.RepositorySet{del, orphan} {
			Expect(k8s.Delete(ctx, s)).To(Succeed())
			gone(s)
		}
		Expect(teamRepos()).To(Equal([]string{"web"}), "the access the set gave is taken back, the team's own stays")
		Expect(fake.TeamRepos("acme", "ops")).To(Equal([]string{"api", "docs", "web"}), "Orphan leaves the access")
		Expect(repoOf("api").HasWiki).To(BeFalse(), "settings stay")
		expectEvent(del, "Deleted: took back 2 team accesses the set gave (1 team); settings and topics stay")
	})

	It("releases a repository whose topic was removed: under Delete it takes back the access it gave there, under Orphan it leaves it and forgets it gave it", func() {
		for _, r := range []string{"web", "api"} {
			Expect(fc.SetRepoTopics(ctx, "acme", r, []string{"service"})).To(Succeed())
		}
		_, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "ops", Permission: "read", UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		del := newSet("release-delete")
		del.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		del.Spec.Teams = []forgev1.TeamName{"developers"}
		orphan := newSet("release-orphan")
		orphan.Spec.Teams = []forgev1.TeamName{"ops"}
		for _, s := range []*forgev1.RepositorySet{del, orphan} {
			s.Spec.Repositories.Topics = []forgev1.Topic{"service"}
			Expect(k8s.Create(ctx, s)).To(Succeed())
			expectReady(s)
		}
		Expect(teamRepos()).To(Equal([]string{"api", "web"}))
		Expect(fake.TeamRepos("acme", "ops")).To(Equal([]string{"api", "web"}))
		api := repoOf("api").ID
		grantsOf := func(s *forgev1.RepositorySet) func(Gomega) []int64 {
			return func(g Gomega) []int64 {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
				var ids []int64
				for _, gr := range s.Status.TeamGrants {
					ids = append(ids, gr.RepositoryIDs...)
				}
				return ids
			}
		}
		Eventually(grantsOf(orphan), timeout, poll).Should(ContainElement(api))

		Expect(fc.SetRepoTopics(ctx, "acme", "api", []string{"library"})).To(Succeed())
		Eventually(teamRepos, timeout, poll).Should(Equal([]string{"web"}), "Delete takes back the access it gave the repository that left")
		expectEvent(del, "Released: released acme/api; took back 1 team access the set gave; settings and topics stay")
		expectEvent(orphan, "Released: released acme/api; deletionPolicy Orphan: the settings the set wrote there stay")
		Eventually(grantsOf(orphan), timeout, poll).ShouldNot(ContainElement(api), "the access it no longer governs is no longer recorded")
		Expect(fake.TeamRepos("acme", "ops")).To(Equal([]string{"api", "web"}), "Orphan leaves the access")
		Eventually(grantsOf(del), timeout, poll).ShouldNot(ContainElement(api))
		atRest()
	})

	It("writes nothing to a team whose Team resource lists its repositories: a repository the Team leaves out is a Conflict naming it", func() {
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "developers"},
			Spec: forgev1.TeamSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Organization: "acme", Repositories: []forgev1.RepoName{"web"}}}
		Expect(k8s.Create(ctx, team)).To(Succeed())
		expectReady(team)
		s := newSet("access")
		s.Spec.Teams = []forgev1.TeamName{"developers"}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(failures(s), timeout, poll).Should(Equal([]string{"acme/api Conflict"}))
		Expect(s.Status.Failures[0].Message).To(ContainSubstring("Team " + ns + "/developers"))
		atRest()
		Expect(teamRepos()).To(Equal([]string{"web"}))
	})
})

// teamID is the id of team name of acme on the fake.
func teamID(name string) int64 {
	GinkgoHelper()
	t, ok := fake.Team("acme", name)
	Expect(ok).To(BeTrue(), name)
	return t.ID
}
