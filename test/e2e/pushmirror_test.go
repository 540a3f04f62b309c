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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// PushMirror on the fake and on a real Gitea: a mirror made by hand is
// adopted by its address without a write; one with a password from a
// Secret is made with it; a new interval replaces a mirror once (the new
// one first); at rest nothing is written; deletion removes them. The
// addresses are IP addresses every supported Gitea's default migration
// rules allow and nothing answers (see internal/forge/pushmirrors.go).
var _ = Describe("PushMirror end to end", func() {
	ctx := context.Background()

	It("adopts a mirror made by hand without a write, creates one with a password, replaces one on a new interval, and deletes them", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		mirrorsOf := func(g Gomega) []forge.PushMirror {
			all, err := fc.ListPushMirrors(ctx, sc.org, "web")
			g.Expect(err).NotTo(HaveOccurred())
			return all
		}
		newMirror := func(name, address string) *forgev1.PushMirror {
			return &forgev1.PushMirror{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: name},
				Spec: forgev1.PushMirrorSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo), RemoteAddress: address}}
		}

		By("a mirror made by hand is adopted by its address without a write")
		const handAddress = "http://240.0.0.1:9/hand/web.git"
		made, err := fc.CreatePushMirror(ctx, sc.org, "web", forge.CreatePushMirrorOption{RemoteAddress: handAddress, Interval: "8h"})
		Expect(err).NotTo(HaveOccurred())
		adopted := newMirror("hand", handAddress)
		Expect(k8s.Create(ctx, adopted)).To(Succeed())
		expectReady(adopted)
		Expect(adopted.Status.RemoteName).To(Equal(made.RemoteName))
		Expect(counter.Writes()).To(BeEmpty())

		By("a mirror with a password from a Secret")
		const token = "e2e-mirror-token"
		putSecret(sc.ns, "mirror-auth", "token", token)
		github := newMirror("github", "http://240.0.0.2:9/acme/web.git")
		github.Spec.Auth = &forgev1.PushMirrorAuth{Username: ptr("git"), PasswordSecretRef: forgev1.SecretKeySelector{Name: "mirror-auth", Key: "token"}}
		github.Spec.Interval = &metav1.Duration{Duration: time.Hour}
		Expect(k8s.Create(ctx, github)).To(Succeed())
		expectReady(github)
		Expect(mirrorsOf(Default)).To(ConsistOf(
			And(HaveField("RemoteName", made.RemoteName), HaveField("Interval", "8h0m0s")),
			And(HaveField("RemoteName", github.Status.RemoteName), HaveField("Interval", "1h0m0s"), HaveField("RemoteAddress", "http://240.0.0.2:9/acme/web.git")),
		))
		Expect(github.Status.AppliedSecrets).To(HaveLen(1))
		written := counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written), "in sync: no write")

		By("a new interval replaces the mirror once, the new one first")
		old := github.Status.RemoteName
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(github), github)).To(Succeed())
		github.Spec.Interval = &metav1.Duration{Duration: 0}
		Expect(k8s.Update(ctx, github)).To(Succeed())
		Eventually(func(g Gomega) []forge.PushMirror { return mirrorsOf(g) }, timeout, poll).Should(ConsistOf(
			HaveField("RemoteName", made.RemoteName),
			And(Not(HaveField("RemoteName", old)), HaveField("Interval", "0s")),
		))
		eventWithReason(github, forgev1.ReasonReplaced)
		var mirrorWrites []string
		for _, w := range counter.Writes()[len(written):] {
			if strings.Contains(w, "/push_mirrors") {
				mirrorWrites = append(mirrorWrites, strings.Fields(w)[0])
			}
		}
		Expect(mirrorWrites).To(Equal([]string{"POST", "DELETE"}))
		written = counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written), "replaced once")

		By("deletion removes the mirrors")
		for _, m := range []*forgev1.PushMirror{adopted, github} {
			deleteAndWait(m)
		}
		Eventually(mirrorsOf, timeout, poll).Should(BeEmpty())
	})
})
