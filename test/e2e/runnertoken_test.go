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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// RunnerRegistrationToken on the fake and on a real Gitea: the token the
// operator writes into its Secret registers runners in the scope; it is
// asked for once, and once more per rotate annotation value; the
// resource's deletion writes nothing to the forge.
var _ = Describe("RunnerRegistrationToken end to end", func() {
	ctx := context.Background()

	It("writes an organization's and a repository's token that runners register with, asks once, and once per rotation", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		requests := func() int {
			n := 0
			for _, w := range counter.Writes() {
				if strings.HasSuffix(w, "/actions/runners/registration-token") {
					n++
				}
			}
			return n
		}
		tokenIn := func(name string) string {
			s := &corev1.Secret{}
			Expect(k8s.Get(ctx, types.NamespacedName{Namespace: sc.ns, Name: name}, s)).To(Succeed())
			return string(s.Data["token"])
		}
		orgToken := &forgev1.RunnerRegistrationToken{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "org-runner"},
			Spec: forgev1.RunnerRegistrationTokenSpec{ManagedSpec: managed(), Organization: ptr(forgev1.OwnerName(sc.org)), SecretName: "org-runner"}}
		repoToken := &forgev1.RunnerRegistrationToken{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web-runner"},
			Spec: forgev1.RunnerRegistrationTokenSpec{ManagedSpec: managed(), Repository: ptr(forgev1.RepositoryName(repo)), SecretName: "web-runner"}}
		for _, t := range []*forgev1.RunnerRegistrationToken{orgToken, repoToken} {
			Expect(k8s.Create(ctx, t)).To(Succeed())
		}
		for _, t := range []*forgev1.RunnerRegistrationToken{orgToken, repoToken} {
			expectReady(t)
		}
		Expect(requests()).To(Equal(2))

		By("runners register with the Secrets' tokens, each in its scope")
		_, err := fc.RegisterRunnerWith(ctx, tokenIn("org-runner"), "org-builder")
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.RegisterRunnerWith(ctx, tokenIn("web-runner"), "web-builder")
		Expect(err).NotTo(HaveOccurred())
		orgRunners, err := fc.ListRunners(ctx, forge.OrgScope(sc.org))
		Expect(err).NotTo(HaveOccurred())
		Expect(orgRunners).To(ConsistOf(HaveField("Name", "org-builder")))
		repoRunners, err := fc.ListRunners(ctx, forge.RepoScope(sc.org, "web"))
		Expect(err).NotTo(HaveOccurred())
		Expect(repoRunners).To(ConsistOf(HaveField("Name", "web-builder")))
		s := &corev1.Secret{}
		Expect(k8s.Get(ctx, types.NamespacedName{Namespace: sc.ns, Name: "org-runner"}, s)).To(Succeed())
		Expect(string(s.Data["url"])).To(Equal(strings.TrimSuffix(counter.srv.URL, "/")))
		Consistently(requests, 2*syncInterval+time.Second, poll).Should(Equal(2), "at rest: no request")

		By("one rotation: one request; the forge's current token is in the Secret")
		Eventually(func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(orgToken), orgToken); err != nil {
				return err
			}
			metav1.SetMetaDataAnnotation(&orgToken.ObjectMeta, forgev1.RotateRequestedAtAnnotation, "first")
			return k8s.Update(ctx, orgToken)
		}, timeout, poll).Should(Succeed())
		Eventually(func() string {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(orgToken), orgToken)).To(Succeed())
			return orgToken.Status.LastHandledRotateAt
		}, timeout, poll).Should(Equal("first"))
		current, err := fc.RunnerRegistrationToken(ctx, forge.OrgScope(sc.org))
		Expect(err).NotTo(HaveOccurred())
		Expect(tokenIn("org-runner")).To(Equal(current))
		// Gitea answers the token it holds: the rotation says so.
		eventWithReason(orgToken, forgev1.ReasonTokenUnchanged)
		Consistently(requests, 2*syncInterval+time.Second, poll).Should(Equal(3))

		By("deleting the resources writes nothing to the forge")
		for _, t := range []*forgev1.RunnerRegistrationToken{orgToken, repoToken} {
			deleteAndWait(t)
		}
		Expect(requests()).To(Equal(3))
	})
})
