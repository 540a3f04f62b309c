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
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Two tenants, each with a namespace and a Forge of its own pointing at one
// server, declare the same objects (DESIGN "Reconciliation semantics",
// Conflicts): the younger of each pair is Stalled Conflict naming the
// older and writes nothing; deleting either side never removes what the
// other holds.
var _ = Describe("Tenants sharing one server", func() {
	ctx := context.Background()

	It("leaves each object to its older holder, and never removes or edits what the other tenant holds", func() {
		sc := newScenario()
		sc.createOrg()
		org := sc.org
		full := forgev1.RepositoryName(org + "/web")
		member, collaborator := newUser(), newUser()
		nsA, nsB := sc.ns, newNamespace(forgeURL)

		// tenant declares the same six objects in ns; b marks the younger
		// tenant's, which ask for different content (no members, no
		// collaborators, another rule, value, colour, and an Authoritative
		// set) and carry allow-delete: a naive deletion or pass would strip
		// or remove what the older tenant holds.
		tenant := func(ns string, b bool) []client.Object {
			pick := func(a, other string) string {
				if b {
					return other
				}
				return a
			}
			putSecret(ns, "deploy", "value", pick("value-of-a", "value-of-b"))
			repo := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
				Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(org), DeletionPolicy: "Delete",
					Collaborators: []forgev1.Collaborator{{User: forgev1.OwnerName(collaborator), Permission: "write"}}}}
			team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "devs"},
				Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(org),
					Members: []forgev1.OwnerName{forgev1.OwnerName(member)}}}
			rule := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-main"},
				Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: full,
					BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "main", RequiredApprovals: ptr(int64(1))}}}
			secret := &forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deploy-token"},
				Spec: forgev1.ActionsSecretSpec{ManagedSpec: managed(), ActionsScope: forgev1.ActionsScope{Repository: &full},
					ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "deploy", Key: "value"}}}}
			label := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bug"},
				Spec: forgev1.LabelSpec{ManagedSpec: managed(), Repository: &full, Name: "bug", Color: "ee0701"}}
			set := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kinds"},
				Spec: forgev1.LabelSetSpec{ManagedSpec: managed(), DeletionPolicy: "Delete",
					Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{full}},
					Labels:       []forgev1.LabelSetLabel{{Name: "kind/feature", Color: "a2eeef"}}}}
			if b {
				repo.Annotations = map[string]string{forgev1.AllowDeleteAnnotation: "true"}
				repo.Spec.Collaborators = []forgev1.Collaborator{}
				team.Spec.Members = []forgev1.OwnerName{}
				rule.Spec.RequiredApprovals = ptr(int64(2))
				label.Spec.Color = "00ff00"
				set.Spec.Mode = forgev1.SetModeAuthoritative
				set.Spec.Labels[0].Color = "000000"
			}
			return []client.Object{repo, team, rule, secret, label, set}
		}
		apply := func(objs []client.Object) {
			for _, o := range objs {
				Expect(k8s.Create(ctx, o)).To(Succeed())
			}
		}

		// What the older tenant holds on the forge, as a person reads it.
		held := func(g Gomega) {
			repo, err := fc.GetRepo(ctx, org, "web")
			g.Expect(err).NotTo(HaveOccurred(), "the repository exists")
			users, err := fc.ListCollaborators(ctx, org, repo.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(users).To(ContainElement(HaveField("Login", collaborator)), "the collaborator stays")
			teams, err := fc.ListTeams(ctx, org)
			g.Expect(err).NotTo(HaveOccurred())
			i := slices.IndexFunc(teams, func(t forge.Team) bool { return t.Name == "devs" })
			g.Expect(i).To(BeNumerically(">=", 0), "the team exists")
			members, err := fc.ListTeamMembers(ctx, teams[i].ID)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(members).To(ContainElement(HaveField("Login", member)), "the member stays")
			rules, err := fc.ListBranchProtections(ctx, org, "web")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(rules).To(ContainElement(And(HaveField("RuleName", "main"), HaveField("RequiredApprovals", int64(1)))), "the rule is as the older tenant says")
			secrets, err := fc.ListActionsSecrets(ctx, forge.RepoScope(org, "web"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(secrets).To(ContainElement(HaveField("Name", "DEPLOY_TOKEN")), "the secret exists")
			if !live {
				v, _ := fake.ActionsSecretValue(forge.RepoScope(org, "web"), "DEPLOY_TOKEN")
				g.Expect(v).To(Equal("value-of-a"), "the secret keeps the older tenant's value")
			}
			labels, err := fc.ListLabels(ctx, forge.RepoScope(org, "web"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(labels).To(ContainElement(And(HaveField("Name", "bug"), HaveField("Color", "ee0701"))), "the label keeps its colour")
			g.Expect(labels).To(ContainElement(And(HaveField("Name", "kind/feature"), HaveField("Color", "a2eeef"))), "the set's label keeps its colour")
		}
		conflicts := func(objs []client.Object, holderNS string) {
			GinkgoHelper()
			for _, o := range objs {
				msg := expectReason(o, metav1.ConditionFalse, forgev1.ReasonConflict)
				if set, ok := o.(interface{ GetSetStatus() *forgev1.SetStatus }); ok {
					// A set's Ready summarises compliance; each repository's
					// detail is in status.failures.
					Expect(msg).To(HaveSuffix("(Conflict)"))
					Expect(k8s.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
					Expect(set.GetSetStatus().Failures).NotTo(BeEmpty())
					msg = set.GetSetStatus().Failures[0].Message
				}
				Expect(msg).To(ContainSubstring("in another namespace"), "%s %s says who holds it", o.GetObjectKind().GroupVersionKind().Kind, o.GetName())
				Expect(msg).NotTo(ContainSubstring(holderNS), "%s %s names another tenant's resource", o.GetObjectKind().GroupVersionKind().Kind, o.GetName())
			}
		}

		a := tenant(nsA, false)
		apply(a)
		for _, o := range a {
			expectReady(o)
		}
		Eventually(held, timeout, poll).Should(Succeed())
		// Creation times count in whole seconds, and two of one second are
		// ordered by namespace and name: the younger tenant's resources are
		// made a second later, so that they are younger by time.
		var newest time.Time
		for _, o := range a {
			if t := o.GetCreationTimestamp().Time; t.After(newest) {
				newest = t
			}
		}
		Eventually(func() bool { return time.Now().After(newest.Add(time.Second)) }, timeout, poll).Should(BeTrue())

		b := tenant(nsB, true)
		apply(b)
		conflicts(b, nsA)
		Consistently(held, 3*syncInterval, poll).Should(Succeed(), "the younger tenant writes nothing")

		By("deleting the younger tenant's resources (deletionPolicy Delete, allow-delete)")
		for _, o := range b {
			deleteAndWait(o)
		}
		Consistently(held, 2*syncInterval, poll).Should(Succeed(), "nothing the older tenant holds is removed")

		By("deleting the older tenant's resources while the younger's hold the same objects")
		b = tenant(nsB, true)
		apply(b)
		conflicts(b, nsA)
		for _, o := range b[:5] {
			// The younger has read its object: it holds it too.
			Eventually(func(g Gomega) bool {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
				return o.(forgev1.Managed).GetManagedStatus().Known()
			}, timeout, poll).Should(BeTrue(), "%s records the object it yields", o.GetName())
		}
		for _, o := range a {
			deleteAndWait(o)
		}
		repo, err := fc.GetRepo(ctx, org, "web")
		Expect(err).NotTo(HaveOccurred(), "the repository the other tenant holds is not deleted")
		for _, o := range b {
			expectReady(o) // the other tenant now manages each object
		}
		Expect(repo.ID).To(Equal(b[0].(*forgev1.Repository).Status.ID))
		teams, err := fc.ListTeams(ctx, org)
		Expect(err).NotTo(HaveOccurred())
		Expect(teams).To(ContainElement(HaveField("Name", "devs")), "the team the other tenant holds is not deleted")
		rules, err := fc.ListBranchProtections(ctx, org, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(rules).To(ContainElement(And(HaveField("RuleName", "main"), HaveField("RequiredApprovals", int64(2)))))
		labels, err := fc.ListLabels(ctx, forge.RepoScope(org, "web"))
		Expect(err).NotTo(HaveOccurred())
		Expect(labels).To(ContainElement(And(HaveField("Name", "bug"), HaveField("Color", "00ff00"))))
		Expect(labels).To(ContainElement(HaveField("Name", "kind/feature")), "the set's label the other set holds is not deleted")
		Expect(strings.ToLower(repo.Name)).To(Equal("web"))
	})
})

// A repository renamed by hand, and a new one made under its old name,
// before the resource is deleted (DESIGN "Addressing"): Delete and Archive
// act on the repository the resource holds, under the name it has now.
var _ = Describe("Repository renamed, then its name taken", func() {
	ctx := context.Background()

	It("deletes or archives the repository it holds, never the one that took its old name", func() {
		sc := newScenario()
		sc.createOrg()
		deleted := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), DeletionPolicy: "Delete"}}
		archived := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "api"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), DeletionPolicy: "Archive"}}
		for _, r := range []*forgev1.Repository{deleted, archived} {
			Expect(k8s.Create(ctx, r)).To(Succeed())
			expectReady(r)
			_, err := fc.EditRepo(ctx, sc.org, r.Name, forge.EditRepoOption{Name: ptr(r.Name + "-2025")})
			Expect(err).NotTo(HaveOccurred())
			sc.createRepo(r.Name)
		}
		newWeb, err := fc.GetRepo(ctx, sc.org, "web")
		Expect(err).NotTo(HaveOccurred())
		webID, apiID := deleted.Status.ID, archived.Status.ID

		deleteAndWait(deleted)
		deleteAndWait(archived)

		_, err = fc.GetRepoByID(ctx, webID)
		Expect(forge.IsNotFound(err)).To(BeTrue(), "the repository it made, renamed since, is deleted: %v", err)
		still, err := fc.GetRepo(ctx, sc.org, "web")
		Expect(err).NotTo(HaveOccurred(), "the repository made under the old name is not deleted")
		Expect(still.ID).To(Equal(newWeb.ID))
		old, err := fc.GetRepoByID(ctx, apiID)
		Expect(err).NotTo(HaveOccurred())
		Expect(old.Name).To(Equal("api-2025"))
		Expect(old.Archived).To(BeTrue(), "the repository it held is archived")
		newAPI, err := fc.GetRepo(ctx, sc.org, "api")
		Expect(err).NotTo(HaveOccurred())
		Expect(newAPI.Archived).To(BeFalse(), "the repository that took the old name is not archived")
	})
})
