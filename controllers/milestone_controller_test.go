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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = childSpecs(childRow{
	kind: "Milestone",
	object: func(ns, name, repo, title string) forgev1.Managed {
		return &forgev1.Milestone{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.MilestoneSpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), Title: title}}
	},
	onForge: func(repo, title string) {
		_, err := forgeClient().CreateMilestone(context.Background(), "acme", repo, forge.CreateMilestoneOption{Title: title})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.Milestones("acme", repo), func(m forge.Milestone) string { return m.Title })
	},
})

var _ = Describe("Milestone", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fake.ClearRequests()
	})

	due := time.Date(2027, 3, 31, 12, 0, 0, 0, time.UTC)
	newMilestone := func(name, title string) *forgev1.Milestone {
		return &forgev1.Milestone{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.MilestoneSpec{ManagedSpec: childSpec(), Repository: "acme/web", Title: title,
				Description: ptr("The first release"), DueOn: &metav1.Time{Time: due}}}
	}
	milestones := func() []forge.Milestone { return fake.Milestones("acme", "web") }
	writes := func() int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if strings.Contains(r.Path, "/milestones") && r.Method != http.MethodGet {
				n++
			}
		}
		return n
	}

	It("creates the milestone with its due date, closes it when asked, and writes nothing at rest", func() {
		m := newMilestone("v1", "v1.0")
		Expect(k8s.Create(ctx, m)).To(Succeed())
		expectReady(m)
		eventWithReason(m, forgev1.ReasonCreated)
		Expect(milestones()).To(ConsistOf(And(HaveField("ID", m.Status.ID), HaveField("Title", "v1.0"),
			HaveField("Description", "The first release"), HaveField("State", "open"), HaveField("DueOn", HaveValue(BeTemporally("==", due))))))

		By("closing it: the edit sends the due date again, which the forge keeps as the end of its day")
		change(m, func(m *forgev1.Milestone) { m.Spec.State = ptr("closed") })
		Eventually(func() string { return milestones()[0].State }, timeout, poll).Should(Equal("closed"))
		expectReady(m)
		Expect(milestones()[0].DueOn).To(HaveValue(BeTemporally("==", time.Date(2027, 3, 31, 23, 59, 59, 0, time.UTC))))

		By("at rest: the day the forge kept is the spec's, no write")
		fake.ClearRequests()
		Consistently(writes, 3*syncInterval, poll).Should(BeZero())
	})

	It("adopts a milestone by title and corrects what was changed by hand", func() {
		made, err := forgeClient().CreateMilestone(ctx, "acme", "web", forge.CreateMilestoneOption{Title: "v1.0"})
		Expect(err).NotTo(HaveOccurred())
		m := newMilestone("v1", "v1.0")
		Expect(k8s.Create(ctx, m)).To(Succeed())
		expectReady(m)
		Expect(m.Status.ID).To(Equal(made.ID))
		Eventually(func() string { return milestones()[0].Description }, timeout, poll).Should(Equal("The first release"))

		By("a title and due date changed on the forge are put back")
		_, err = forgeClient().EditMilestone(ctx, "acme", "web", made.ID, forge.EditMilestoneOption{Title: ptr("renamed")})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string { return milestones()[0].Title }, timeout, poll).Should(Equal("v1.0"))
		Eventually(func() *time.Time { return milestones()[0].DueOn }, timeout, poll).ShouldNot(BeNil())
		eventWithReason(m, forgev1.ReasonDriftCorrected)
	})

	It("stalls with the ids when several milestones have its title", func() {
		for range 2 {
			_, err := forgeClient().CreateMilestone(ctx, "acme", "web", forge.CreateMilestoneOption{Title: "v1.0"})
			Expect(err).NotTo(HaveOccurred())
		}
		fake.ClearRequests()
		m := newMilestone("v1", "v1.0")
		Expect(k8s.Create(ctx, m)).To(Succeed())
		expectReason(m, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(writes()).To(BeZero())
	})

	It("deletes the milestone with the resource", func() {
		m := newMilestone("v1", "v1.0")
		Expect(k8s.Create(ctx, m)).To(Succeed())
		expectReady(m)
		Expect(k8s.Delete(ctx, m)).To(Succeed())
		gone(m)
		Expect(milestones()).To(BeEmpty())
	})
})
