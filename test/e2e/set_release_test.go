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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// Sets releasing a repository that stops matching, on the fake and on a
// real Gitea: the topic it was selected by is removed on the forge.
var _ = Describe("Sets releasing a repository that stops matching end to end", func() {
	ctx := context.Background()

	It("a topic removed releases the repository: a set with deletionPolicy Orphan leaves its labels, sets with Delete take back their labels and rules", func() {
		sc := newScenario()
		sc.createOrg()
		for _, name := range []string{"web", "api"} {
			sc.createRepo(name)
			Expect(fc.SetRepoTopics(ctx, sc.org, name, []string{"service"})).To(Succeed())
		}
		services := forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org)), Topics: []forgev1.Topic{"service"}}
		labelSet := func(name string, policy forgev1.DeletionPolicy) *forgev1.LabelSet {
			return &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: name},
				Spec: forgev1.LabelSetSpec{ManagedSpec: managed(), Repositories: services, DeletionPolicy: policy,
					Labels: []forgev1.LabelSetLabel{{Name: forgev1.LabelName(name + "/x"), Color: "d73a4a"}}}}
		}
		kept, taken := labelSet("kept", forgev1.DeletionPolicyOrphan), labelSet("taken", forgev1.DeletionPolicyDelete)
		rules := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "rules"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(), Repositories: services, DeletionPolicy: forgev1.DeletionPolicyDelete,
				Rules: []forgev1.BranchProtectionRule{{RuleName: "main", RequiredApprovals: ptr(int64(1))}}}}
		sets := []client.Object{kept, taken, rules}
		for _, s := range sets {
			Expect(k8s.Create(ctx, s)).To(Succeed())
		}
		labels := func(repo string) func() []string {
			return func() []string {
				ls, err := fc.ListLabels(ctx, forge.RepoScope(sc.org, repo))
				Expect(err).NotTo(HaveOccurred())
				out := []string{}
				for _, l := range ls {
					out = append(out, l.Name)
				}
				slices.Sort(out)
				return out
			}
		}
		ruleNames := func(repo string) func() []string {
			return func() []string {
				bs, err := fc.ListBranchProtections(ctx, sc.org, repo)
				Expect(err).NotTo(HaveOccurred())
				out := []string{}
				for _, b := range bs {
					out = append(out, b.RuleName)
				}
				return out
			}
		}
		for _, s := range sets {
			expectReady(s)
		}
		for _, r := range []string{"web", "api"} {
			Expect(labels(r)()).To(Equal([]string{"kept/x", "taken/x"}), r)
			Expect(ruleNames(r)()).To(Equal([]string{"main"}), r)
		}

		By("api's topic removed on the forge releases it at each set's next pass")
		Expect(fc.SetRepoTopics(ctx, sc.org, "api", nil)).To(Succeed())
		for _, s := range sets {
			update(s, func(s client.Object) {
				a := s.GetAnnotations()
				if a == nil {
					a = map[string]string{}
				}
				a[forgev1.ReconcileRequestedAtAnnotation] = time.Now().Format(time.RFC3339Nano)
				s.SetAnnotations(a)
			})
		}
		for _, s := range sets {
			eventWithReason(s, forgev1.ReasonReleased)
		}
		Eventually(labels("api"), timeout, poll).Should(Equal([]string{"kept/x"}))
		Eventually(ruleNames("api"), timeout, poll).Should(BeEmpty())
		Expect(labels("web")()).To(Equal([]string{"kept/x", "taken/x"}))
		Expect(ruleNames("web")()).To(Equal([]string{"main"}))
		for _, s := range sets {
			expectReady(s)
		}
		Expect(kept.Status.Repositories).To(BeEquivalentTo(1))
		Expect(kept.Status.Matched.Count).To(BeEquivalentTo(1))
	})
})
