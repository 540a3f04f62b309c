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
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// DeployKey on the fake and on a real Gitea: generated pairs (ed25519 and
// rsa-4096, which the forge's minimum key sizes accept) land on the forge
// with the fingerprint of the private key kept in the Secret; a key made by
// hand is adopted by fingerprint without a write; deletion removes both.
var _ = Describe("DeployKey end to end", func() {
	ctx := context.Background()

	It("generates pairs into owned Secrets, adopts a key made by hand without a write, and deletes them", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		keysOf := func(g Gomega) []forge.DeployKey {
			all, err := fc.ListDeployKeys(ctx, sc.org, "web")
			g.Expect(err).NotTo(HaveOccurred())
			return all
		}
		newKey := func(name string) *forgev1.DeployKey {
			return &forgev1.DeployKey{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: name},
				Spec: forgev1.DeployKeySpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo)}}
		}

		By("a key made by hand is adopted by fingerprint, whatever its title, without a write")
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		Expect(err).NotTo(HaveOccurred())
		pk, err := ssh.NewPublicKey(pub)
		Expect(err).NotTo(HaveOccurred())
		line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " ci@example"
		made, err := fc.CreateDeployKey(ctx, sc.org, "web", forge.CreateDeployKeyOption{Title: "made by hand", Key: line, ReadOnly: true})
		Expect(err).NotTo(HaveOccurred())
		adopted := newKey("ci")
		adopted.Spec.PublicKey = ptr(line)
		Expect(k8s.Create(ctx, adopted)).To(Succeed())
		expectReady(adopted)
		Expect(adopted.Status.ID).To(Equal(made.ID))
		Expect(adopted.Status.Fingerprint).To(Equal(ssh.FingerprintSHA256(pk)))
		Expect(counter.Writes()).To(BeEmpty())

		By("generated pairs: ed25519 and rsa-4096")
		flux := newKey("flux")
		flux.Spec.Generate = &forgev1.DeployKeyGenerate{SecretName: "flux-key"}
		pusher := newKey("pusher")
		pusher.Spec.ReadOnly = ptr(false)
		pusher.Spec.Generate = &forgev1.DeployKeyGenerate{SecretName: "pusher-key", Type: forgev1.DeployKeyRSA4096}
		for _, k := range []*forgev1.DeployKey{flux, pusher} {
			Expect(k8s.Create(ctx, k)).To(Succeed())
		}
		for _, k := range []*forgev1.DeployKey{flux, pusher} {
			expectReady(k)
			s := &corev1.Secret{}
			Expect(k8s.Get(ctx, types.NamespacedName{Namespace: sc.ns, Name: k.Spec.Generate.SecretName}, s)).To(Succeed())
			Expect(metav1.IsControlledBy(s, k)).To(BeTrue())
			signer, err := ssh.ParsePrivateKey(s.Data["identity"])
			Expect(err).NotTo(HaveOccurred())
			Expect(ssh.FingerprintSHA256(signer.PublicKey())).To(Equal(k.Status.Fingerprint))
		}
		Expect(keysOf(Default)).To(ConsistOf(
			And(HaveField("Title", "made by hand"), HaveField("ID", made.ID)),
			And(HaveField("Title", "flux"), HaveField("ReadOnly", true), HaveField("Fingerprint", flux.Status.Fingerprint)),
			And(HaveField("Title", "pusher"), HaveField("ReadOnly", false), HaveField("Fingerprint", pusher.Status.Fingerprint)),
		))
		written := counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written), "in sync: no write")

		By("deletion removes the keys")
		for _, k := range []*forgev1.DeployKey{adopted, flux, pusher} {
			deleteAndWait(k)
		}
		Eventually(keysOf, timeout, poll).Should(BeEmpty())
	})
})
