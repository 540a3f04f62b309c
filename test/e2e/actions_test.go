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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("ActionsSecret and ActionsVariable end to end", func() {
	ctx := context.Background()

	It("creates secrets and variables, rotates a secret, corrects a variable and deletes them", func() {
		sc := newScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		putSecret(sc.ns, "ci-values", "token", "first-token-value")
		secret := &forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "deploy-token"},
			Spec: forgev1.ActionsSecretSpec{ManagedSpec: managed(),
				ActionsScope: forgev1.ActionsScope{Repository: ptr(forgev1.RepositoryName(repo))},
				ValueFrom:    forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "ci-values", Key: "token"}}}}
		orgSecret := secret.DeepCopy()
		orgSecret.Name, orgSecret.Spec.Repository, orgSecret.Spec.Organization = "registry-password", nil, ptr(forgev1.OwnerName(sc.org))
		variable := &forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "go-version"},
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: managed(),
				ActionsScope: forgev1.ActionsScope{Organization: ptr(forgev1.OwnerName(sc.org)), Description: ptr("Go release")},
				Value:        ptr("1.26")}}
		for _, o := range []client.Object{secret, orgSecret, variable} {
			Expect(k8s.Create(ctx, o)).To(Succeed())
		}
		Expect(expectReady(secret)).To(Equal(forgev1.ReasonCreated))
		Expect(expectReady(orgSecret)).To(Equal(forgev1.ReasonCreated))
		Expect(expectReady(variable)).To(Equal(forgev1.ReasonCreated))
		names := func(scope forge.Scope) []string {
			all, err := fc.ListActionsSecrets(ctx, scope)
			Expect(err).NotTo(HaveOccurred())
			var out []string
			for _, s := range all {
				out = append(out, s.Name)
			}
			return out
		}
		Expect(names(forge.RepoScope(sc.org, "web"))).To(Equal([]string{"DEPLOY_TOKEN"}))
		Expect(names(forge.OrgScope(sc.org))).To(Equal([]string{"REGISTRY_PASSWORD"}))
		value := func(g Gomega) string {
			all, err := fc.ListActionsVariables(ctx, forge.OrgScope(sc.org))
			g.Expect(err).NotTo(HaveOccurred())
			i := slices.IndexFunc(all, func(v forge.ActionsVariable) bool { return v.Name == "GO_VERSION" })
			g.Expect(i).To(BeNumerically(">=", 0))
			return all[i].Data
		}
		Expect(value(Default)).To(Equal("1.26"))

		By("a new Secret value is sent and recorded under a new digest")
		digest := secret.Status.AppliedSecrets[0].Digest
		putSecret(sc.ns, "ci-values", "token", "second-token-value")
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(secret), secret)).To(Succeed())
			g.Expect(secret.Status.AppliedSecrets).To(HaveLen(1))
			return secret.Status.AppliedSecrets[0].Digest
		}, timeout, poll).ShouldNot(Equal(digest))

		By("a variable changed by hand is set back")
		Expect(fc.UpdateActionsVariable(ctx, forge.OrgScope(sc.org), "GO_VERSION", "0.1", "Go release")).To(Succeed())
		Eventually(value, timeout, poll).Should(Equal("1.26"))

		By("deletion removes them")
		deleteAndWait(secret)
		deleteAndWait(variable)
		Expect(names(forge.RepoScope(sc.org, "web"))).To(BeEmpty())
	})
})
