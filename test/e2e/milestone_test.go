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
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Milestone on the fake and on a real Gitea, read back through the forge's
// REST API. Gitea keeps a created milestone's due date to the second and an
// edited one's as the end of its day in the server's time zone: neither
// may cause a write at rest.
var _ = Describe("Milestone end to end", func() {
	ctx := context.Background()

	milestonesOf := func(g Gomega, org, repo string) []forge.Milestone {
		all, err := fc.ListMilestones(ctx, org, repo)
		g.Expect(err).NotTo(HaveOccurred())
		return all
	}

	It("creates a milestone, closes it, sets back a title changed by hand and deletes it", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		due := time.Date(2027, 3, 31, 12, 0, 0, 0, time.UTC)
		m := &forgev1.Milestone{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "v1"},
			Spec: forgev1.MilestoneSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo), Title: "v1.0",
				Description: new("The first release"), DueOn: &metav1.Time{Time: due}}}
		Expect(k8s.Create(ctx, m)).To(Succeed())
		Expect(expectReady(m)).To(Equal(forgev1.ReasonCreated))
		all := milestonesOf(Default, sc.org, "web")
		Expect(all).To(ConsistOf(And(HaveField("ID", m.Status.ID), HaveField("Title", "v1.0"), HaveField("State", "open"),
			HaveField("Description", "The first release"), HaveField("DueOn", HaveValue(BeTemporally("==", due))))))

		By("closing it: the edit keeps its day, and no write follows at rest")
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(m), m)).To(Succeed())
		m.Spec.State = new("closed")
		Expect(k8s.Update(ctx, m)).To(Succeed())
		Eventually(func(g Gomega) string { return milestonesOf(g, sc.org, "web")[0].State }, timeout, poll).Should(Equal("closed"))
		expectReady(m)
		Expect(milestonesOf(Default, sc.org, "web")[0].DueOn).NotTo(BeNil())
		written := counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written))

		By("a title changed by hand is set back")
		_, err := fc.EditMilestone(ctx, sc.org, "web", m.Status.ID, forge.EditMilestoneOption{Title: new("renamed"), DueOn: &due})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) string { return milestonesOf(g, sc.org, "web")[0].Title }, timeout, poll).Should(Equal("v1.0"))
		eventWithReason(m, forgev1.ReasonDriftCorrected)

		By("deleting the resource deletes the milestone")
		deleteAndWait(m)
		Expect(milestonesOf(Default, sc.org, "web")).To(BeEmpty())
		Expect(counter.Writes()).To(ContainElement(HavePrefix(http.MethodDelete + " ")))
	})
})
