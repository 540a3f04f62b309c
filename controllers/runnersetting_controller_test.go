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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("RunnerSetting", func() {
	var ns string
	ctx := context.Background()
	repo := forge.RepoScope("acme", "web")
	org := forge.OrgScope("acme")

	setup := func(opts ...fakeforge.Option) {
		ns = newNamespace(opts...)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
	}

	newSetting := func(name, runner string) *forgev1.RunnerSetting {
		return &forgev1.RunnerSetting{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RunnerSettingSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  ptr(forgev1.RepositoryName("acme/web")),
				Runner:      forgev1.RunnerSelector{Name: runner},
				Disabled:    true,
			},
		}
	}

	runner := func(scope forge.Scope, id int64) forge.Runner {
		GinkgoHelper()
		for _, r := range fake.Runners(scope) {
			if r.ID == id {
				return r
			}
		}
		Fail(fmt.Sprintf("no runner %d in %s", id, scope))
		return forge.Runner{}
	}

	Context("on a forge with the runner edit endpoint", func() {
		BeforeEach(func() { setup() })

		It("disables the runner found by name, reports it, and makes no writes at rest", func() {
			r := fake.RegisterRunner(repo, "builder-1")
			rs := newSetting("builder", "builder-1")
			Expect(k8s.Create(ctx, rs)).To(Succeed())
			expectReady(rs)
			Expect(runner(repo, r.ID).Disabled).To(BeTrue())
			Expect(rs.Status.ID).To(Equal(r.ID))
			Expect(rs.Status.RunnerID).To(Equal(r.ID))
			Expect(rs.Status.RunnerName).To(Equal("builder-1"))
			Expect(rs.Status.RunnerStatus).To(Equal("offline"))

			fake.SetRunnerStatus(r.ID, "online")
			Eventually(func(g Gomega) string { readyCondition(rs)(g); return rs.Status.RunnerStatus }, timeout, poll).Should(Equal("online"))

			fake.ClearRequests()
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
			Expect(requestsTo("/actions/runners")).To(BeNumerically(">", 0))
		})

		It("waits for a runner that registers later, then becomes Ready", func() {
			rs := newSetting("late", "late-runner")
			Expect(k8s.Create(ctx, rs)).To(Succeed())
			msg := expectReason(rs, metav1.ConditionFalse, forgev1.ReasonRunnerNotFound)
			Expect(msg).To(ContainSubstring("late-runner"))
			stalled := findCondition(rs, forgev1.ConditionStalled)
			Expect(stalled == nil || stalled.Status != metav1.ConditionTrue).To(BeTrue(), "waiting, not stalled")

			r := fake.RegisterRunner(repo, "late-runner")
			expectReady(rs)
			Expect(runner(repo, r.ID).Disabled).To(BeTrue())
			Expect(rs.Status.RunnerID).To(Equal(r.ID))
		})

		It("stalls with Conflict listing the ids when several runners share the name", func() {
			a := fake.RegisterRunner(repo, "twin")
			b := fake.RegisterRunner(repo, "twin")
			rs := newSetting("twin", "twin")
			Expect(k8s.Create(ctx, rs)).To(Succeed())
			msg := expectReason(rs, metav1.ConditionFalse, forgev1.ReasonConflict)
			Expect(msg).To(And(ContainSubstring(fmt.Sprint(a.ID)), ContainSubstring(fmt.Sprint(b.ID))))
			Expect(fake.WriteRequests()).To(BeEmpty())
		})

		It("finds a runner by id in an organization, and by name past the first page", func() {
			for i := range 55 {
				fake.RegisterRunner(org, fmt.Sprintf("pool-%02d", i))
			}
			last := fake.RegisterRunner(org, "pool-last")
			byName := newSetting("by-name", "pool-last")
			byName.Spec.Repository = nil
			byName.Spec.Organization = ptr(forgev1.OwnerName("acme"))
			Expect(k8s.Create(ctx, byName)).To(Succeed())
			expectReady(byName)
			Expect(byName.Status.RunnerID).To(Equal(last.ID))

			first := fake.Runners(org)[0]
			byID := newSetting("by-id", "")
			byID.Spec.Repository = nil
			byID.Spec.Organization = ptr(forgev1.OwnerName("acme"))
			byID.Spec.Runner = forgev1.RunnerSelector{ID: ptr(first.ID)}
			Expect(k8s.Create(ctx, byID)).To(Succeed())
			expectReady(byID)
			Expect(runner(org, first.ID).Disabled).To(BeTrue())
			Expect(byID.Status.RunnerName).To(Equal(first.Name))
		})

		It("corrects a runner re-enabled on the forge at the next interval", func() {
			r := fake.RegisterRunner(repo, "builder-1")
			rs := newSetting("builder", "builder-1")
			Expect(k8s.Create(ctx, rs)).To(Succeed())
			expectReady(rs)

			_, err := forgeClient().EditRunner(ctx, repo, r.ID, false)
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() bool { return runner(repo, r.ID).Disabled }, timeout, poll).Should(BeTrue())
			eventWithReason(rs, forgev1.ReasonDriftCorrected)

			change(rs, func(rs *forgev1.RunnerSetting) { rs.Spec.Disabled = false })
			Eventually(func() bool { return runner(repo, r.ID).Disabled }, timeout, poll).Should(BeFalse())
			expectReady(rs)
		})

		It("re-enables the runner with deletionPolicy Delete and leaves it with Orphan", func() {
			a := fake.RegisterRunner(repo, "a")
			b := fake.RegisterRunner(repo, "b")
			del := newSetting("a", "a")
			del.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
			kept := newSetting("b", "b")
			Expect(k8s.Create(ctx, del)).To(Succeed())
			Expect(k8s.Create(ctx, kept)).To(Succeed())
			expectReady(del)
			expectReady(kept)
			Expect(kept.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyOrphan), "Orphan is the RunnerSetting default")

			Expect(k8s.Delete(ctx, del)).To(Succeed())
			Expect(k8s.Delete(ctx, kept)).To(Succeed())
			gone(del)
			gone(kept)
			Expect(runner(repo, a.ID).Disabled).To(BeFalse())
			Expect(runner(repo, b.ID).Disabled).To(BeTrue())
			Expect(fake.Runners(repo)).To(HaveLen(2), "the runners themselves stay")
		})

		It("lets a RunnerSetting whose runner is gone be deleted", func() {
			rs := newSetting("ghost", "ghost")
			rs.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
			Expect(k8s.Create(ctx, rs)).To(Succeed())
			expectReason(rs, metav1.ConditionFalse, forgev1.ReasonRunnerNotFound)
			Expect(k8s.Delete(ctx, rs)).To(Succeed())
			gone(rs)
		})
	})

	// Decided from the version the forge reports, before any runner is
	// looked for: no runner needs to register for the resource to say so.
	for _, version := range []string{"1.25.5", "15.0.3+gitea-1.22.0"} {
		Context("on a forge reporting "+version, func() {
			BeforeEach(func() {
				setup(fakeforge.WithVersion(version))
				fake.ClearRequests()
			})

			It("is Unsupported at once, naming the version, with no runner registered and nothing written", func() {
				rs := newSetting("builder", "builder-1")
				Expect(k8s.Create(ctx, rs)).To(Succeed())
				msg := expectReason(rs, metav1.ConditionFalse, forgev1.ReasonUnsupported)
				Expect(msg).To(ContainSubstring(version))
				stalled := findCondition(rs, forgev1.ConditionStalled)
				Expect(stalled).NotTo(BeNil())
				Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
				Expect(fake.WriteRequests()).To(BeEmpty())

				By("deletion is not held up")
				Expect(k8s.Delete(ctx, rs)).To(Succeed())
				gone(rs)
			})
		})
	}

	Context("on a forge without the runner edit endpoint", func() {
		BeforeEach(func() { setup(fakeforge.WithoutRunnerEdit()) })

		It("stalls as Unsupported when the runner needs a change, and is Ready when it does not", func() {
			fake.RegisterRunner(repo, "builder-1")
			rs := newSetting("builder", "builder-1")
			Expect(k8s.Create(ctx, rs)).To(Succeed())
			msg := expectReason(rs, metav1.ConditionFalse, forgev1.ReasonUnsupported)
			Expect(msg).To(ContainSubstring("runners"))
			stalled := findCondition(rs, forgev1.ConditionStalled)
			Expect(stalled).NotTo(BeNil())
			Expect(stalled.Status).To(Equal(metav1.ConditionTrue))

			change(rs, func(rs *forgev1.RunnerSetting) { rs.Spec.Disabled = false })
			expectReady(rs)
		})
	})
})
