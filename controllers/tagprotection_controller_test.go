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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The forge takes no protection without an allow-list: the owners (a team
// of every repository, on each repository as soon as it exists) may push it.
var _ = childSpecs(childRow{
	kind: "TagProtection",
	setup: func() {
		_, err := forgeClient().CreateTeam(context.Background(), "acme", forge.CreateTeamOption{Name: "Release",
			IncludesAllRepositories: true, UnitsMap: map[string]string{"repo.code": "write"}})
		Expect(err).NotTo(HaveOccurred())
	},
	object: func(ns, name, repo, pattern string) forgev1.Managed {
		return &forgev1.TagProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.TagProtectionSpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), NamePattern: forgev1.TagNamePattern(pattern), WhitelistTeams: []forgev1.TeamName{"release"}}}
	},
	onForge: func(repo, pattern string) {
		_, err := forgeClient().CreateTagProtection(context.Background(), "acme", repo,
			forge.CreateTagProtectionOption{NamePattern: pattern, WhitelistTeams: []string{"release"}})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.TagProtections("acme", repo), func(t forge.TagProtection) string { return t.NamePattern })
	},
})

var _ = Describe("TagProtection", func() {
	var ns string
	ctx := context.Background()

	scene := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		for _, u := range []string{"alice", "bob"} {
			fake.AddUser(u)
			Expect(forgeClient().SetCollaborator(ctx, "acme", "web", u, "write")).To(Succeed())
		}
		fake.ClearRequests()
	}

	newTP := func(name, repo, pattern string) *forgev1.TagProtection {
		return &forgev1.TagProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.TagProtectionSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  forgev1.RepositoryName(repo), NamePattern: forgev1.TagNamePattern(pattern)}}
	}
	protection := func(repo, pattern string) *forge.TagProtection {
		for _, t := range fake.TagProtections("acme", repo) {
			if t.NamePattern == pattern {
				return &t
			}
		}
		return nil
	}
	tagWrites := func(method string) int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if r.Method == method && strings.Contains(r.Path, "/tag_protections") {
				n++
			}
		}
		return n
	}

	Context("on a forge with the API", func() {
		BeforeEach(func() { scene() })

		It("creates a protection, records its id, and never writes for order or case at rest", func() {
			tp := newTP("release", "acme/web", "v*")
			tp.Spec.WhitelistUsernames = []forgev1.UserName{"Bob", "alice"}
			Expect(k8s.Create(ctx, tp)).To(Succeed())
			expectReady(tp)
			eventWithReason(tp, forgev1.ReasonCreated)
			got := protection("web", "v*")
			Expect(got).NotTo(BeNil())
			Expect(tp.Status.ID).To(Equal(got.ID))
			Expect(got.WhitelistUsernames).To(ConsistOf("alice", "bob"))

			By("at rest: no writes although the forge answers another order and case")
			fake.ClearRequests()
			Consistently(func() int { return tagWrites(http.MethodPatch) + tagWrites(http.MethodPost) }, 3*syncInterval, poll).Should(BeZero())
		})

		It("adopts a protection of its pattern with no write when the lists match as sets", func() {
			made, err := forgeClient().CreateTagProtection(ctx, "acme", "web", forge.CreateTagProtectionOption{
				NamePattern: "v*", WhitelistUsernames: []string{"bob", "alice"}})
			Expect(err).NotTo(HaveOccurred())
			fake.ClearRequests()
			tp := newTP("release", "acme/web", "v*")
			tp.Spec.WhitelistUsernames = []forgev1.UserName{"ALICE", "bob"}
			Expect(k8s.Create(ctx, tp)).To(Succeed())
			expectReady(tp)
			eventWithReason(tp, forgev1.ReasonAdopted)
			Expect(tp.Status.ID).To(Equal(made.ID))
			Expect(tagWrites(http.MethodPost)+tagWrites(http.MethodPatch)).To(BeZero(), "adoption of an equal protection writes nothing")
			Expect(fake.TagProtections("acme", "web")).To(HaveLen(1))
		})

		It("corrects allow-lists changed by hand and a protection deleted by hand", func() {
			tp := newTP("release", "acme/web", "v*")
			tp.Spec.WhitelistUsernames = []forgev1.UserName{"alice"}
			Expect(k8s.Create(ctx, tp)).To(Succeed())
			expectReady(tp)
			fc := forgeClient()
			_, err := fc.EditTagProtection(ctx, "acme", "web", tp.Status.ID, forge.EditTagProtectionOption{WhitelistUsernames: &[]string{"bob"}})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() []string { return protection("web", "v*").WhitelistUsernames }, timeout, poll).Should(Equal([]string{"alice"}))
			eventWithReason(tp, forgev1.ReasonDriftCorrected)

			By("a pattern renamed by hand is set back on the protection of its id")
			_, err = fc.EditTagProtection(ctx, "acme", "web", tp.Status.ID, forge.EditTagProtectionOption{NamePattern: ptr("w*")})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() *forge.TagProtection { return protection("web", "v*") }, timeout, poll).Should(HaveField("ID", tp.Status.ID))
			Expect(fake.TagProtections("acme", "web")).To(HaveLen(1))

			By("a protection deleted by hand is made again")
			Expect(fc.DeleteTagProtection(ctx, "acme", "web", protection("web", "v*").ID)).To(Succeed())
			Eventually(func() *forge.TagProtection { return protection("web", "v*") }, timeout, poll).Should(
				And(Not(BeNil()), HaveField("WhitelistUsernames", Equal([]string{"alice"}))))
		})

		It("reports an unknown user as Rejected with the forge's message, and one without access by name", func() {
			tp := newTP("release", "acme/web", "v*")
			tp.Spec.WhitelistUsernames = []forgev1.UserName{"alice", "nobody"}
			Expect(k8s.Create(ctx, tp)).To(Succeed())
			msg := expectReason(tp, metav1.ConditionFalse, forgev1.ReasonRejected)
			Expect(msg).To(ContainSubstring("user does not exist [uid: 0, name: nobody]"))
			Expect(fake.TagProtections("acme", "web")).To(BeEmpty())

			fake.AddUser("carol") // no access to acme/web
			change(tp, func(t *forgev1.TagProtection) { t.Spec.WhitelistUsernames = []forgev1.UserName{"alice", "carol"} })
			Eventually(func(g Gomega) string {
				c := readyCondition(tp)(g)
				g.Expect(c).NotTo(BeNil())
				g.Expect(c.Reason).To(Equal(forgev1.ReasonRejected))
				return c.Message
			}, timeout, poll).Should(And(ContainSubstring("whitelistUsernames"), ContainSubstring("read access")))
			Expect(tp.Status.ID).NotTo(BeZero(), "the protection made is recorded")

			By("once carol may read the repository, it converges")
			Expect(forgeClient().SetCollaborator(ctx, "acme", "web", "carol", "write")).To(Succeed())
			expectReady(tp)
		})

		It("observes without writing and deletes by policy", func() {
			observed := newTP("observed", "acme/web", "o*")
			observed.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
			Expect(k8s.Create(ctx, observed)).To(Succeed())
			expectReason(observed, metav1.ConditionFalse, forgev1.ReasonNotFound)
			Expect(fake.WriteRequests()).To(BeEmpty())

			deleted, kept := newTP("gone", "acme/web", "g*"), newTP("kept", "acme/web", "k*")
			kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
			for _, t := range []*forgev1.TagProtection{deleted, kept} {
				t.Spec.WhitelistUsernames = []forgev1.UserName{"alice"}
				Expect(k8s.Create(ctx, t)).To(Succeed())
			}
			for _, t := range []*forgev1.TagProtection{deleted, kept} {
				expectReady(t)
				Expect(k8s.Delete(ctx, t)).To(Succeed())
			}
			for _, t := range []*forgev1.TagProtection{deleted, kept} {
				gone(t)
			}
			Eventually(func() []forge.TagProtection { return fake.TagProtections("acme", "web") }, timeout, poll).Should(
				ConsistOf(HaveField("NamePattern", "k*")))
		})
	})

	It("is Unsupported, naming the release, on a forge without the API, and writes nothing", func() {
		scene(fakeforge.WithVersion("1.22.6"))
		tp := newTP("release", "acme/web", "v*")
		tp.Spec.WhitelistUsernames = []forgev1.UserName{"alice"}
		Expect(k8s.Create(ctx, tp)).To(Succeed())
		msg := expectReason(tp, metav1.ConditionFalse, forgev1.ReasonUnsupported)
		Expect(msg).To(ContainSubstring("1.22.6"))
		Expect(requestsTo("/tag_protections")).To(BeZero())
		Expect(k8s.Delete(ctx, tp)).To(Succeed())
		gone(tp)
	})
})
