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
	"fmt"
	"maps"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Team", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []string{"web", "api", "docs"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		for _, u := range []string{"alice", "bob", "carol", "dave"} {
			fake.AddUser(u)
		}
	})

	newTeam := func(name string) *forgev1.Team {
		return &forgev1.Team{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.TeamSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Organization: "acme",
			},
		}
	}
	teamOf := func(name string) forge.Team {
		GinkgoHelper()
		t, ok := fake.Team("acme", name)
		Expect(ok).To(BeTrue(), "team %s", name)
		return t
	}
	units := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for _, k := range forgev1.TeamUnitKeys {
			out[k] = "none"
		}
		maps.Copy(out, m)
		return out
	}
	person := func() forge.Interface { return forgeClient() }

	It("creates a team with units, members and repositories, and reads only its listings at rest", func() {
		t := newTeam("platform")
		t.Spec.Description = ptr("Runs the platform")
		t.Spec.Units = &forgev1.TeamUnits{Code: "write", Issues: "read", Pulls: "write"}
		t.Spec.IncludesAllRepositories = ptr(false)
		t.Spec.Members = []forgev1.OwnerName{"alice", "bob"}
		t.Spec.Repositories = []forgev1.RepoName{"web"}
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)

		got := teamOf("platform")
		Expect(t.Status.ID).To(Equal(got.ID))
		Expect(got.Description).To(Equal("Runs the platform"))
		Expect(units(got.UnitsMap)).To(Equal(units(map[string]string{"repo.code": "write", "repo.issues": "read", "repo.pulls": "write"})))
		Expect(fake.TeamMembers("acme", "platform")).To(Equal([]string{"alice", "bob"}))
		Expect(fake.TeamRepos("acme", "platform")).To(Equal([]string{"web"}))
		Expect(t.Status.Members).To(HaveValue(BeEquivalentTo(2)))
		Expect(t.Status.Repositories).To(HaveValue(BeEquivalentTo(1)))
		eventWithReason(t, forgev1.ReasonCreated)

		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		// At most: the organization's team listing, one member and one
		// repository listing of the team per interval (plus one of each
		// for a check that lands at the edge of the window).
		intervals := 3 + 1
		Expect(requestsTo("/orgs/acme/teams")).To(BeNumerically("<=", intervals))
		Expect(requestsTo(fmt.Sprintf("/teams/%d/members", got.ID))).To(BeNumerically("<=", intervals))
		Expect(requestsTo(fmt.Sprintf("/teams/%d/repos", got.ID))).To(BeNumerically("<=", intervals))
		Expect(requestsTo(fmt.Sprintf("/api/v1/teams/%d", got.ID))-requestsTo(fmt.Sprintf("/teams/%d/", got.ID))).To(BeZero(), "no read of the team itself")
	})

	It("adopts a team by name, and one under a previous name renaming it with its members", func() {
		fc := person()
		infra, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "infra", UnitsMap: units(map[string]string{"repo.code": "read"})})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.AddTeamMember(ctx, infra.ID, "carol")).To(Succeed())
		_, err = fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "readers", UnitsMap: units(map[string]string{"repo.code": "read"})})
		Expect(err).NotTo(HaveOccurred())

		same := newTeam("readers")
		same.Spec.Units = &forgev1.TeamUnits{Code: "read"}
		fake.ClearRequests()
		Expect(k8s.Create(ctx, same)).To(Succeed())
		expectReady(same)
		Expect(fake.WriteRequests()).To(BeEmpty())
		eventWithReason(same, forgev1.ReasonAdopted)

		renamed := newTeam("platform")
		renamed.Spec.PreviousNames = []forgev1.TeamName{"infra"}
		Expect(k8s.Create(ctx, renamed)).To(Succeed())
		expectReady(renamed)
		Expect(renamed.Status.ID).To(Equal(infra.ID))
		Expect(teamOf("platform").ID).To(Equal(infra.ID))
		Expect(fake.TeamMembers("acme", "platform")).To(Equal([]string{"carol"}))
	})

	It("writes nothing for a team the web UI made with the same units, and corrects a unit changed by hand once", func() {
		fc := person()
		tm, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "devs", Permission: "none",
			UnitsMap: map[string]string{"repo.code": "write", "repo.issues": "write"}})
		Expect(err).NotTo(HaveOccurred())
		t := newTeam("devs")
		t.Spec.Permission = ptr("write")
		t.Spec.Units = &forgev1.TeamUnits{Code: "write", Issues: "write"}
		fake.ClearRequests()
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		Expect(fake.WriteRequests()).To(BeEmpty(), "permission none with the same units is the same team")

		_, err = fc.EditTeam(ctx, "acme", tm.ID, forge.EditTeamOption{UnitsMap: map[string]string{"repo.code": "read", "repo.issues": "write"}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string { return teamOf("devs").UnitsMap["repo.code"] }, timeout, poll).Should(Equal("write"))
		Eventually(func() []string { return events(t) }, timeout, poll).Should(ContainElement(And(
			HavePrefix(forgev1.ReasonDriftCorrected), ContainSubstring("units.code"))))
	})

	It("keeps members and repositories exactly as listed, leaves them alone when unset, and empties them with []", func() {
		t := newTeam("platform")
		t.Spec.Members = []forgev1.OwnerName{"alice", "bob"}
		t.Spec.Repositories = []forgev1.RepoName{"web"}
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)

		fc := person()
		id := teamOf("platform").ID
		Expect(fc.AddTeamMember(ctx, id, "carol")).To(Succeed())
		Expect(fc.RemoveTeamMember(ctx, id, "bob")).To(Succeed())
		Expect(fc.AddTeamRepo(ctx, id, "acme", "api")).To(Succeed())
		Eventually(func() []string { return fake.TeamMembers("acme", "platform") }, timeout, poll).Should(Equal([]string{"alice", "bob"}))
		Eventually(func() []string { return fake.TeamRepos("acme", "platform") }, timeout, poll).Should(Equal([]string{"web"}))

		change(t, func(t *forgev1.Team) { t.Spec.Members, t.Spec.Repositories = nil, nil })
		expectReady(t)
		Expect(fc.AddTeamMember(ctx, id, "dave")).To(Succeed())
		Expect(fc.AddTeamRepo(ctx, id, "acme", "docs")).To(Succeed())
		Consistently(func() []string { return fake.TeamMembers("acme", "platform") }, 2*syncInterval, poll).Should(ContainElement("dave"))
		Expect(fake.TeamRepos("acme", "platform")).To(ContainElement("docs"))

		change(t, func(t *forgev1.Team) {
			t.Spec.Members, t.Spec.Repositories = []forgev1.OwnerName{}, []forgev1.RepoName{}
		})
		Eventually(func() []string { return fake.TeamMembers("acme", "platform") }, timeout, poll).Should(BeEmpty())
		Eventually(func() []string { return fake.TeamRepos("acme", "platform") }, timeout, poll).Should(BeEmpty())
		expectReady(t)
		Expect(t.Status.Members).To(HaveValue(BeEquivalentTo(0)))
	})

	It("removes nobody beyond maxRemovals, nor after a member listing that fails", func() {
		t := newTeam("platform")
		t.Spec.Members = []forgev1.OwnerName{"alice", "bob", "carol"}
		t.Spec.MaxRemovals = ptr(int32(1))
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)

		change(t, func(t *forgev1.Team) { t.Spec.Members = []forgev1.OwnerName{"alice", "dave"} })
		msg := expectReason(t, metav1.ConditionFalse, forgev1.ReasonTooManyRemovals)
		Expect(msg).To(ContainSubstring("bob, carol"))
		Expect(fake.TeamMembers("acme", "platform")).To(Equal([]string{"alice", "bob", "carol", "dave"}), "additions still happen")

		id := teamOf("platform").ID
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: fmt.Sprintf("/teams/%d/members", id), Count: -1,
			Status: http.StatusInternalServerError, Body: `{"message":"database is locked"}`})
		change(t, func(t *forgev1.Team) { t.Spec.MaxRemovals = ptr(int32(5)) })
		expectReason(t, metav1.ConditionFalse, forgev1.ReasonForgeError)
		Expect(fake.TeamMembers("acme", "platform")).To(HaveLen(4), "a failed listing removes nobody")

		fake.ClearFaults()
		Eventually(func() []string { return fake.TeamMembers("acme", "platform") }, timeout, poll).Should(Equal([]string{"alice", "dave"}))
		expectReady(t)
	})

	It("adopts the Owners team, never deletes it, and names a member who does not exist", func() {
		o := newTeam("owners")
		o.Spec.Name = ptr(forgev1.TeamName("Owners"))
		o.Spec.Members = []forgev1.OwnerName{forgev1.OwnerName(fake.Login()), "alice", "nobody"}
		o.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, o)).To(Succeed())
		msg := expectReason(o, metav1.ConditionFalse, forgev1.ReasonUserNotFound)
		Expect(msg).To(ContainSubstring("nobody"))
		Eventually(func() []string { return fake.TeamMembers("acme", "Owners") }, timeout, poll).Should(ContainElement("alice"))
		Expect(k8s.Get(ctx, key(ns, "owners"), o)).To(Succeed())
		Expect(o.Status.Failures).To(ConsistOf(And(HaveField("Member", "nobody"), HaveField("Reason", forgev1.ReasonUserNotFound))))
		change(o, func(o *forgev1.Team) { o.Spec.Members = o.Spec.Members[:2] })
		expectReady(o)
		Expect(o.Status.ID).To(Equal(teamOf("Owners").ID))
		Expect(o.Status.Failures).To(BeEmpty())

		Expect(k8s.Delete(ctx, o)).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, "owners"), o)) }, timeout, poll).Should(BeTrue())
		Expect(teamOf("Owners").ID).To(BeNumerically(">", 0))
		Eventually(func() []string { return events(o) }, timeout, poll).Should(ContainElement(And(HavePrefix(forgev1.ReasonOrphaned), ContainSubstring("never deleted"))), "Events are written after the status, asynchronously")
	})

	// A Team left by an earlier release holding the
	// Owners team under another name (it adopted Owners by a previous
	// name, and its finalizer is on), or whose status.id someone pointed
	// at Owners, neither renames Owners, nor removes its owners, nor
	// deletes it: the forge's team, not the spec's name, says Owners.
	It("never renames, empties or deletes the Owners team for a Team named otherwise that finds it by status.id", func() {
		t := newTeam("platform")
		t.Spec.Members = []forgev1.OwnerName{"bob"}
		t.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, t)).To(Succeed())
		expectReady(t)
		platformID := t.Status.ID

		// Held still, the Team's team is deleted on the forge and its
		// status.id pointed at Owners.
		change(t, func(t *forgev1.Team) { t.Spec.Suspend = true })
		expectReason(t, metav1.ConditionUnknown, forgev1.ReasonSuspended)
		Expect(person().DeleteTeam(ctx, "acme", platformID)).To(Succeed())
		owners := teamOf("Owners")
		Expect(owners.Permission).To(Equal("owner"))
		ownersBefore := fake.TeamMembers("acme", "Owners")
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, key(ns, "platform"), t)).To(Succeed())
			t.Status.ID = owners.ID
			g.Expect(k8s.Status().Update(ctx, t)).To(Succeed())
		}, timeout, poll).Should(Succeed())

		fake.ClearRequests()
		change(t, func(t *forgev1.Team) { t.Spec.Suspend = false })
		msg := expectReason(t, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(And(ContainSubstring("Owners team"), ContainSubstring("acme")))
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(teamOf("Owners").ID).To(Equal(owners.ID), "not renamed")
		Expect(fake.TeamMembers("acme", "Owners")).To(Equal(ownersBefore), "no owner added or removed")

		Expect(k8s.Delete(ctx, t)).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, "platform"), t)) }, timeout, poll).Should(BeTrue())
		Expect(teamOf("Owners").ID).To(Equal(owners.ID), "not deleted")
		Expect(fake.TeamMembers("acme", "Owners")).To(Equal(ownersBefore))
		Eventually(func() []string { return events(t) }, timeout, poll).Should(ContainElement(And(
			HavePrefix(forgev1.ReasonOrphaned), ContainSubstring("Owners team"), ContainSubstring("never deleted"))))
	})

	It("deletes a team with deletionPolicy Delete and leaves it with Orphan", func() {
		gone, kept := newTeam("gone"), newTeam("kept")
		kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
		for _, t := range []*forgev1.Team{gone, kept} {
			Expect(k8s.Create(ctx, t)).To(Succeed())
		}
		for _, t := range []*forgev1.Team{gone, kept} {
			expectReady(t)
			Expect(k8s.Delete(ctx, t)).To(Succeed())
		}
		for _, t := range []*forgev1.Team{gone, kept} {
			Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, t.Name), t)) }, timeout, poll).Should(BeTrue())
		}
		_, ok := fake.Team("acme", "gone")
		Expect(ok).To(BeFalse())
		_, ok = fake.Team("acme", "kept")
		Expect(ok).To(BeTrue())
	})
})
