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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A set selecting repositories by topics, on the fake and on a real Gitea:
// the topics come with the organization's repository listing.
var _ = Describe("Sets selecting repositories by topics end to end", func() {
	ctx := context.Background()

	It("a LabelSet over an organization with topics labels only the repositories carrying every topic, and one whose topic is added at its next pass", func() {
		sc := newScenario()
		sc.createOrg()
		for name, topics := range map[string][]string{"web": {"Service", "go"}, "api": {"service"}, "docs": nil} {
			sc.createRepo(name)
			Expect(fc.SetRepoTopics(ctx, sc.org, name, topics)).To(Succeed())
		}
		labels := func(repo string) func() []string {
			return func() []string {
				ls, err := fc.ListLabels(ctx, forge.RepoScope(sc.org, repo))
				Expect(err).NotTo(HaveOccurred())
				out := []string{}
				for _, l := range ls {
					out = append(out, l.Name)
				}
				return out
			}
		}
		s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "services"},
			Spec: forgev1.LabelSetSpec{ManagedSpec: managed(),
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org)), Topics: []forgev1.Topic{"go", "service"}},
				Labels:       []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "d73a4a"}}}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Repositories).To(BeEquivalentTo(1))
		Expect(labels("web")()).To(Equal([]string{"kind/bug"}))
		Expect(labels("api")()).To(BeEmpty())
		Expect(labels("docs")()).To(BeEmpty())

		By("a topic added on the forge brings api in at the set's next pass")
		Expect(fc.SetRepoTopics(ctx, sc.org, "api", []string{"go", "service"})).To(Succeed())
		update(s, func(s *forgev1.LabelSet) {
			metav1.SetMetaDataAnnotation(&s.ObjectMeta, forgev1.ReconcileRequestedAtAnnotation, time.Now().Format(time.RFC3339Nano))
		})
		Eventually(labels("api"), timeout, poll).Should(Equal([]string{"kind/bug"}))
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.InSync
		}, timeout, poll).Should(BeEquivalentTo(2))
		Expect(s.Status.Repositories).To(BeEquivalentTo(2))
		Expect(labels("docs")()).To(BeEmpty())
	})
})
