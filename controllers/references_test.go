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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("References to what the same apply declares", func() {
	var ns string
	ctx := context.Background()

	managed := func() forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)}
	}
	writesTo := func(part string) int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if strings.Contains(r.Path, part) {
				n++
			}
		}
		return n
	}
	newTeam := func(name string) *forgev1.Team {
		return &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: "acme",
				Units: &forgev1.TeamUnits{Code: "write"}, Repositories: []forgev1.RepoName{"web"}}}
	}
	protections := func() (*forgev1.TagProtection, *forgev1.BranchProtection) {
		tp := &forgev1.TagProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-release-tags"},
			Spec: forgev1.TagProtectionSpec{ManagedSpec: managed(), Repository: "acme/web", NamePattern: "v*",
				WhitelistTeams: []forgev1.TeamName{"web-developers"}}}
		bp := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-release"},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: "acme/web",
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "release/*", EnablePush: ptr(true),
					EnablePushWhitelist: ptr(true), PushWhitelistTeams: []forgev1.TeamName{"web-developers"}}}}
		return tp, bp
	}

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fake.ClearRequests()
	})

	It("a TagProtection, a BranchProtection and a BranchProtectionSet naming a team wait, writing nothing, while its Team is not Ready, and go on once it is", func() {
		// The forge fails the team's create until the fault is cleared: the
		// Team stays on its way, with no team on the forge.
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/orgs/acme/teams", Count: -1, Status: http.StatusInternalServerError})
		team := newTeam("web-developers")
		Expect(k8s.Create(ctx, team)).To(Succeed())
		expectReason(team, metav1.ConditionFalse, forgev1.ReasonForgeError)

		tp, bp := protections()
		set := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-main"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}},
				Rules: []forgev1.BranchProtectionRule{{RuleName: "main", EnablePush: ptr(true), EnablePushWhitelist: ptr(true),
					PushWhitelistTeams: []forgev1.TeamName{"Web-Developers"}}}}}
		Expect(k8s.Create(ctx, tp)).To(Succeed())
		Expect(k8s.Create(ctx, bp)).To(Succeed())
		Expect(k8s.Create(ctx, set)).To(Succeed())
		msg := expectReason(set, metav1.ConditionFalse, forgev1.ReasonTeamNotFound)
		Expect(msg).To(Equal(`waiting for Team "Web-Developers" in acme, declared by Team ` + ns + `/web-developers, which is not Ready yet`))
		for _, obj := range []forgev1.Managed{tp, bp} {
			msg := expectReason(obj, metav1.ConditionFalse, forgev1.ReasonTeamNotFound)
			Expect(msg).To(Equal(`waiting for Team "web-developers" in acme, declared by Team ` + ns + `/web-developers, which is not Ready yet`))
			Expect(condStatus(obj, forgev1.ConditionReconciling)).To(Equal(metav1.ConditionTrue), "waiting, not stalled")
			Expect(condStatus(obj, forgev1.ConditionStalled)).NotTo(Equal(metav1.ConditionTrue))
		}
		Consistently(func() int { return writesTo("/tag_protections") + writesTo("/branch_protections") }, 2*syncInterval, poll).
			Should(BeZero(), "nothing is written while the team is on its way")

		By("the Team becomes Ready; the protections follow with the team in their allow-lists")
		fake.ClearFaults()
		expectReady(team)
		expectReady(tp)
		expectReady(bp)
		expectReady(set)
		tags := fake.TagProtections("acme", "web")
		Expect(tags).To(HaveLen(1))
		Expect(tags[0].WhitelistTeams).To(ConsistOf("web-developers"))
		rules := fake.BranchProtections("acme", "web")
		Expect(rules).To(ConsistOf(
			And(HaveField("RuleName", "release/*"), HaveField("PushWhitelistTeams", ConsistOf("web-developers"))),
			And(HaveField("RuleName", "main"), HaveField("PushWhitelistTeams", ConsistOf("web-developers")))))
		for _, obj := range []forgev1.Managed{tp, bp, set} {
			Expect(events(obj)).NotTo(ContainElement(HavePrefix(forgev1.ReasonRejected)), "never refused by the forge meanwhile")
		}
	})

	It("a protection naming a team nothing declares is refused by the forge, as before", func() {
		_, bp := protections()
		bp.Spec.PushWhitelistTeams = []forgev1.TeamName{"nobody"}
		Expect(k8s.Create(ctx, bp)).To(Succeed())
		msg := expectReason(bp, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("team does not exist"))
		Expect(condStatus(bp, forgev1.ConditionStalled)).To(Equal(metav1.ConditionTrue))

		By("a Team of another organization declares no team of acme")
		other := newTeam("nobody")
		other.Spec.Organization, other.Spec.Repositories = "other", nil
		Expect(k8s.Create(ctx, other)).To(Succeed())
		expectReason(other, metav1.ConditionFalse, forgev1.ReasonParentNotFound)
		Consistently(readyCondition(bp), 2*syncInterval, poll).Should(HaveField("Reason", forgev1.ReasonRejected))
	})

	It("a Team naming a member waits while a User resource under the same ClusterForge, in another namespace, is not Ready", func() {
		tenant, other := newTenant(nil), newTenant(nil)
		cf := newClusterForge(forgev1.ClusterForgeTenant{Namespaces: []string{tenant}, Owners: []forgev1.OwnerGlob{"ci-*"},
			SiteAdmin: true, GrantAdmin: true}, forgev1.ClusterForgeTenant{Namespaces: []string{other}, Owners: []forgev1.OwnerGlob{"acme"}})
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/admin/users", Count: -1, Status: http.StatusInternalServerError})
		u := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "ci-dev"},
			Spec: forgev1.UserSpec{ManagedSpec: onCluster(cf), Username: "ci-dev", Email: "ci-dev@example.com"}}
		Expect(k8s.Create(ctx, u)).To(Succeed())
		expectReason(u, metav1.ConditionFalse, forgev1.ReasonForgeError)

		team := newTeam("developers")
		team.Namespace, team.Spec.ManagedSpec = other, onCluster(cf)
		team.Spec.Members = []forgev1.OwnerName{"ci-dev"}
		Expect(k8s.Create(ctx, team)).To(Succeed())
		msg := expectReason(team, metav1.ConditionFalse, forgev1.ReasonUserNotFound)
		Expect(msg).To(Equal(`waiting for User "ci-dev", declared by a User in another namespace, which is not Ready yet`),
			"another namespace's resource is not named")
		Consistently(func() []forge.Team { return fake.Teams("acme") }, 2*syncInterval, poll).
			ShouldNot(ContainElement(HaveField("Name", "developers")), "the team is not made while its member is on its way")

		By("the User becomes Ready; the Team is made with its member")
		fake.ClearFaults()
		expectReady(u)
		expectReady(team)
		Expect(fake.TeamMembers("acme", "developers")).To(ConsistOf("ci-dev"))
		Expect(team.Status.Failures).To(BeEmpty())
	})
})

// A reference waits only for a declaration that could be honoured (DESIGN
// "References wait for what the same apply declares"): another tenant's
// (its own namespace, its own Forge) makes nothing of the platform's wait.
var _ = Describe("References to what another tenant declares", func() {
	var platform, tenant string
	var readers *forge.Team
	ctx := context.Background()

	// The platform's namespace with its Forge "gitea" (the site admin's
	// token) and a tenant's with its own Forge "gitea" as dev, a member of
	// acme (its team readers) and no owner. acme has web and no team
	// developers; the forge fails every create of a team in acme, so a
	// Team declaring developers is never Ready, and never Stalled.
	BeforeEach(func() {
		platform = newNamespace(fakeforge.WithUser("dev", "dev-token"))
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fc := forgeClient()
		readers, err = fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "readers", UnitsMap: map[string]string{"repo.code": "read"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.AddTeamMember(ctx, readers.ID, "dev")).To(Succeed())
		tenant = newTenant(nil)
		tokenForge(tenant, "gitea", "dev-token")
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/orgs/acme/teams", Count: -1, Status: http.StatusInternalServerError})
	})

	developers := func(ns string) *forgev1.Team {
		return &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "developers"},
			Spec: forgev1.TeamSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Organization: "acme", Units: &forgev1.TeamUnits{Code: "write"}}}
	}
	privateWithDevelopers := func() *forgev1.RepositorySet {
		return &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: platform, Name: "policy"},
			Spec: forgev1.RepositorySetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web"}},
				Settings:     &forgev1.RepositorySettings{Private: ptr(true)},
				Teams:        []forgev1.TeamName{"developers"},
			}}
	}
	private := func() bool {
		r, ok := fake.Repo("acme", "web")
		Expect(ok).To(BeTrue())
		return r.Private
	}
	// failing is the set's failures as "repository reason: message".
	failing := func(s *forgev1.RepositorySet) func(Gomega) []string {
		return func(g Gomega) []string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			var out []string
			for _, f := range s.Status.Failures {
				out = append(out, f.Repository+" "+f.Reason+": "+f.Message)
			}
			return out
		}
	}

	It("a RepositorySet of the platform does not wait for a tenant's Team that is never Ready: it makes web private, reports the team missing on the forge as TeamNotFound, and gives it access once the forge has it", func() {
		team := developers(tenant)
		Expect(k8s.Create(ctx, team)).To(Succeed())
		expectReason(team, metav1.ConditionFalse, forgev1.ReasonForgeError)

		s := privateWithDevelopers()
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(private, timeout, poll).Should(BeTrue(), "the set's settings are applied")
		Eventually(failing(s), timeout, poll).Should(ConsistOf(
			`acme/web TeamNotFound: team "developers" not found in organization acme: the set gives access only to a team that exists`))
		Consistently(readyCondition(s), 2*syncInterval, poll).Should(And(HaveField("Reason", forgev1.ReasonTeamNotFound),
			HaveField("Message", Not(ContainSubstring("declared by")))), "the forge's answer, no wait for the tenant's Team")
		Expect(condStatus(team, forgev1.ConditionReady)).To(Equal(metav1.ConditionFalse), "the tenant's Team is still on its way")
		Expect(condStatus(team, forgev1.ConditionStalled)).NotTo(Equal(metav1.ConditionTrue))

		By("the forge gets team developers: the set gives it access")
		fake.ClearFaults()
		_, err := forgeClient().CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "developers", UnitsMap: map[string]string{"repo.code": "write"}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []string { return fake.TeamRepos("acme", "developers") }, timeout, poll).Should(Equal([]string{"web"}))
		Eventually(failing(s), timeout, poll).Should(BeEmpty())
	})

	It("a tenant's Team whose user is no member of acme stalls, refused acme's teams as the forge refuses them (403, not a missing organization), and the platform's set goes on", func() {
		Expect(forgeClient().RemoveTeamMember(ctx, readers.ID, "dev")).To(Succeed())
		team := developers(tenant)
		Expect(k8s.Create(ctx, team)).To(Succeed())
		msg := expectReason(team, metav1.ConditionFalse, forgev1.ReasonUnauthorized)
		Expect(msg).To(ContainSubstring("403 Must be an organization member"))
		Expect(condStatus(team, forgev1.ConditionStalled)).To(Equal(metav1.ConditionTrue))

		s := privateWithDevelopers()
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(private, timeout, poll).Should(BeTrue())
		Eventually(failing(s), timeout, poll).Should(ConsistOf(HavePrefix("acme/web TeamNotFound: ")))
	})

	It("a RepositorySet waits, writing nothing, for a Team of its own namespace and Forge that is not Ready yet (the control)", func() {
		team := developers(platform)
		Expect(k8s.Create(ctx, team)).To(Succeed())
		expectReason(team, metav1.ConditionFalse, forgev1.ReasonForgeError)

		s := privateWithDevelopers()
		Expect(k8s.Create(ctx, s)).To(Succeed())
		msg := expectReason(s, metav1.ConditionFalse, forgev1.ReasonTeamNotFound)
		Expect(msg).To(Equal(`waiting for Team "developers" in acme, declared by Team ` + platform + `/developers, which is not Ready yet`))
		Expect(condStatus(s, forgev1.ConditionReconciling)).To(Equal(metav1.ConditionTrue), "waiting, not stalled")
		Consistently(private, 2*syncInterval, poll).Should(BeFalse(), "nothing is written while the team is on its way")
	})
})
