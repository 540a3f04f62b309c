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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TagProtection on the fake and on a real Gitea: the protections are read
// back through the forge's REST API. Gitea shows allow-listed users only
// while they can read the repository's pull requests (so the users here
// are write collaborators), in its own order and in the case they were
// created with; none of that may cause a write.
var _ = Describe("TagProtection end to end", func() {
	ctx := context.Background()

	protectionsOf := func(g Gomega, org, repo string) []forge.TagProtection {
		all, err := fc.ListTagProtections(ctx, org, repo)
		g.Expect(err).NotTo(HaveOccurred())
		return all
	}

	It("creates a protection, sets back allow-lists changed by hand without writing for order or case, and deletes it", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		zed, amy := userNamed("zz"), userNamed("Aa")
		for _, u := range []string{zed, amy} {
			Expect(fc.SetCollaborator(ctx, sc.org, "web", u, "write")).To(Succeed())
		}
		tp := &forgev1.TagProtection{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "release"},
			Spec: forgev1.TagProtectionSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo), NamePattern: "v*",
				// Another order and case than the forge shows them.
				WhitelistUsernames: []forgev1.UserName{forgev1.UserName(strings.ToUpper(zed)), forgev1.UserName(strings.ToLower(amy))}}}
		Expect(k8s.Create(ctx, tp)).To(Succeed())
		Expect(expectReady(tp)).To(Equal(forgev1.ReasonCreated))
		all := protectionsOf(Default, sc.org, "web")
		Expect(all).To(HaveLen(1))
		Expect(all[0].NamePattern).To(Equal("v*"))
		Expect(all[0].WhitelistUsernames).To(ConsistOf(zed, amy))
		Expect(tp.Status.ID).To(Equal(all[0].ID))

		By("in sync, the forge's order and case cause no write over two sync intervals")
		written := counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written))

		By("an allow-list changed by hand is set back")
		_, err := fc.EditTagProtection(ctx, sc.org, "web", all[0].ID, forge.EditTagProtectionOption{WhitelistUsernames: &[]string{zed}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) []string {
			all := protectionsOf(g, sc.org, "web")
			g.Expect(all).To(HaveLen(1))
			return all[0].WhitelistUsernames
		}, timeout, poll).Should(ConsistOf(zed, amy))
		eventWithReason(tp, forgev1.ReasonDriftCorrected)

		By("deleting the resource deletes the protection")
		deleteAndWait(tp)
		Expect(protectionsOf(Default, sc.org, "web")).To(BeEmpty())
		Expect(counter.Writes()).To(ContainElement(HavePrefix(http.MethodDelete + " ")))
	})
})
