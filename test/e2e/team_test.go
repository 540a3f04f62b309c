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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Team end to end", func() {
	ctx := context.Background()

	teamNamed := func(g Gomega, org, name string) *forge.Team {
		all, err := fc.ListTeams(ctx, org)
		g.Expect(err).NotTo(HaveOccurred())
		for i := range all {
			if strings.EqualFold(all[i].Name, name) {
				return &all[i]
			}
		}
		return nil
	}
	members := func(g Gomega, id int64) []string {
		users, err := fc.ListTeamMembers(ctx, id)
		g.Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, u := range users {
			out = append(out, u.Login)
		}
		slices.Sort(out)
		return out
	}
	repos := func(g Gomega, id int64) []string {
		rs, err := fc.ListTeamRepos(ctx, id)
		g.Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }

	It("creates a team, keeps its units, members and repositories, renames it in place and deletes it", func() {
		sc := newScenario()
		sc.createOrg()
		sc.createRepo("web")
		sc.createRepo("api")
		alice, bob, carol := newUser(), newUser(), newUser()
		t := &forgev1.Team{
			ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "platform"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(sc.org),
				Description: ptr("Runs the platform"), Units: &forgev1.TeamUnits{Code: "write", Issues: "read"},
				IncludesAllRepositories: ptr(false),
				Members:                 []forgev1.OwnerName{forgev1.OwnerName(alice), forgev1.OwnerName(bob)},
				Repositories:            []forgev1.RepoName{"web"}},
		}
		Expect(k8s.Create(ctx, t)).To(Succeed())
		Expect(expectReady(t)).To(Equal(forgev1.ReasonCreated))
		got := teamNamed(Default, sc.org, "platform")
		Expect(t.Status.ID).To(Equal(got.ID))
		Expect(got.UnitsMap).To(HaveKeyWithValue("repo.code", "write"))
		Expect(got.UnitsMap).To(HaveKeyWithValue("repo.issues", "read"))
		Expect(members(Default, got.ID)).To(Equal(sorted(alice, bob)))
		Expect(repos(Default, got.ID)).To(Equal([]string{"web"}))

		By("a unit, a member and a repository changed by hand are set back")
		_, err := fc.EditTeam(ctx, sc.org, got.ID, forge.EditTeamOption{UnitsMap: map[string]string{"repo.code": "read", "repo.issues": "read"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.AddTeamMember(ctx, got.ID, carol)).To(Succeed())
		Expect(fc.RemoveTeamMember(ctx, got.ID, bob)).To(Succeed())
		Expect(fc.AddTeamRepo(ctx, got.ID, sc.org, "api")).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(teamNamed(g, sc.org, "platform").UnitsMap).To(HaveKeyWithValue("repo.code", "write"))
			g.Expect(members(g, got.ID)).To(Equal(sorted(alice, bob)))
			g.Expect(repos(g, got.ID)).To(Equal([]string{"web"}))
		}, timeout, poll).Should(Succeed())
		eventWithReason(t, forgev1.ReasonDriftCorrected)

		By("a rename keeps the id and the members")
		update(t, func(t *forgev1.Team) { t.Spec.Name = ptr(forgev1.TeamName("infra")) })
		Eventually(func(g Gomega) *forge.Team { return teamNamed(g, sc.org, "infra") }, timeout, poll).Should(HaveField("ID", got.ID))
		expectReady(t)
		Expect(members(Default, got.ID)).To(Equal(sorted(alice, bob)))

		By("deletion removes the team, not its members' accounts")
		deleteAndWait(t)
		Expect(teamNamed(Default, sc.org, "infra")).To(BeNil())
		_, err = fc.ListTeamMembers(ctx, got.ID)
		Expect(forge.IsNotFound(err)).To(BeTrue(), "team still there: %v", err)
	})

	It("adopts a web-UI team without a write, adopts a renamed one, and never deletes Owners", func() {
		sc := newScenario()
		sc.createOrg()
		alice := newUser()
		devs, err := fc.CreateTeam(ctx, sc.org, forge.CreateTeamOption{Name: "devs", Permission: "none",
			UnitsMap: map[string]string{"repo.code": "write", "repo.pulls": "write"}})
		Expect(err).NotTo(HaveOccurred())
		old, err := fc.CreateTeam(ctx, sc.org, forge.CreateTeamOption{Name: "ops", UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.AddTeamMember(ctx, old.ID, alice)).To(Succeed())

		same := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "devs"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(sc.org), Permission: ptr("write"),
				Units: &forgev1.TeamUnits{Code: "write", Pulls: "write"}}}
		Expect(k8s.Create(ctx, same)).To(Succeed())
		Expect(expectReady(same)).To(Equal(forgev1.ReasonAdopted), "the same units: nothing to write")
		Expect(same.Status.ID).To(Equal(devs.ID))

		renamed := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "platform"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(sc.org),
				PreviousNames: []forgev1.TeamName{"ops"}, Units: &forgev1.TeamUnits{Code: "read"}}}
		Expect(k8s.Create(ctx, renamed)).To(Succeed())
		expectReady(renamed)
		Expect(renamed.Status.ID).To(Equal(old.ID))
		Expect(members(Default, old.ID)).To(Equal([]string{alice}))

		me, err := fc.CurrentUser(ctx)
		Expect(err).NotTo(HaveOccurred())
		owners := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "owners"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(sc.org), Name: ptr(forgev1.TeamName("Owners")),
				DeletionPolicy: forgev1.DeletionPolicyDelete, Members: []forgev1.OwnerName{forgev1.OwnerName(me.Login), forgev1.OwnerName(alice)}}}
		Expect(k8s.Create(ctx, owners)).To(Succeed())
		Expect(expectReady(owners)).To(Equal(forgev1.ReasonAdopted))
		ownersTeam := teamNamed(Default, sc.org, "Owners")
		Expect(members(Default, ownersTeam.ID)).To(Equal(sorted(me.Login, alice)))
		deleteAndWait(owners)
		Expect(teamNamed(Default, sc.org, "Owners")).NotTo(BeNil(), "Owners is never deleted")
		eventWithReason(owners, forgev1.ReasonOrphaned)
	})
})
