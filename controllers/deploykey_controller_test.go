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
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// sshKey is a fresh ed25519 public key line and its fingerprint.
func sshKey(comment string) (string, string) {
	GinkgoHelper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	pk, err := ssh.NewPublicKey(pub)
	Expect(err).NotTo(HaveOccurred())
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " " + comment, ssh.FingerprintSHA256(pk)
}

// seededKey is the public key line of an ed25519 key made from seed: the
// same key for the same seed, so that a resource and a key made by hand
// can name one.
func seededKey(seed string) string {
	GinkgoHelper()
	sum := sha256.Sum256([]byte(seed))
	pk, err := ssh.NewPublicKey(ed25519.NewKeyFromSeed(sum[:]).Public())
	Expect(err).NotTo(HaveOccurred())
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk)))
}

var _ = childSpecs(childRow{
	kind: "DeployKey",
	object: func(ns, name, repo, title string) forgev1.Managed {
		return &forgev1.DeployKey{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.DeployKeySpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), Title: ptr(title), PublicKey: ptr(seededKey(title))}}
	},
	onForge: func(repo, title string) {
		_, err := forgeClient().CreateDeployKey(context.Background(), "acme", repo,
			forge.CreateDeployKeyOption{Title: title, Key: seededKey(title), ReadOnly: true})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.DeployKeys("acme", repo), func(k forge.DeployKey) string { return k.Title })
	},
})

var _ = Describe("DeployKey", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fake.ClearRequests()
	})

	newKey := func(name string) *forgev1.DeployKey {
		return &forgev1.DeployKey{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.DeployKeySpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"},
				SyncInterval: every(syncInterval)}, Repository: "acme/web"}}
	}
	keys := func() []forge.DeployKey { return fake.DeployKeys("acme", "web") }
	keyPosts := func() int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/keys") {
				n++
			}
		}
		return n
	}
	secretOf := func(name string) *corev1.Secret {
		GinkgoHelper()
		s := &corev1.Secret{}
		Expect(k8s.Get(ctx, key(ns, name), s)).To(Succeed())
		return s
	}
	// derived is the fingerprint of the public half of the Secret's private key.
	derived := func(s *corev1.Secret) string {
		GinkgoHelper()
		signer, err := ssh.ParsePrivateKey(s.Data["identity"])
		Expect(err).NotTo(HaveOccurred(), "identity holds an OpenSSH private key")
		return ssh.FingerprintSHA256(signer.PublicKey())
	}

	It("creates a key from spec.publicKey, adopts one that exists by fingerprint with no write, and replaces a key whose title or readOnly changes", func() {
		line, fp := sshKey("ci@example")
		k := newKey("ci")
		k.Spec.PublicKey = ptr(line)
		Expect(k8s.Create(ctx, k)).To(Succeed())
		expectReady(k)
		eventWithReason(k, forgev1.ReasonCreated)
		Expect(k.Status.Fingerprint).To(Equal(fp))
		Expect(keys()).To(ConsistOf(And(HaveField("Title", "ci"), HaveField("Fingerprint", fp), HaveField("ReadOnly", true),
			HaveField("ID", k.Status.ID), HaveField("Key", line))))

		By("adopting a key that exists under another title, with no write (spec.title unset)")
		other, otherFP := sshKey("someone")
		made, err := forgeClient().CreateDeployKey(ctx, "acme", "web", forge.CreateDeployKeyOption{Title: "hand-made", Key: other, ReadOnly: true})
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
		adopted := newKey("adopted")
		adopted.Spec.PublicKey = ptr(other)
		Expect(k8s.Create(ctx, adopted)).To(Succeed())
		expectReady(adopted)
		eventWithReason(adopted, forgev1.ReasonAdopted)
		Expect(adopted.Status.ID).To(Equal(made.ID))
		Expect(adopted.Status.Fingerprint).To(Equal(otherFP))
		Expect(fake.WriteRequests()).To(BeEmpty(), "adoption by fingerprint writes nothing")

		By("setting a title: the key is replaced (the forge cannot edit one), once")
		change(adopted, func(d *forgev1.DeployKey) { d.Spec.Title = ptr("flux") })
		expectReady(adopted)
		eventWithReason(adopted, forgev1.ReasonReplaced)
		Eventually(keys, timeout, poll).Should(ContainElement(And(HaveField("Title", "flux"), HaveField("Fingerprint", otherFP))))
		Expect(keys()).To(HaveLen(2), "the old key is gone")
		Expect(adopted.Status.ID).NotTo(Equal(made.ID))
		Expect(keyPosts()).To(Equal(1))

		By("writable: replaced again")
		change(k, func(d *forgev1.DeployKey) { d.Spec.ReadOnly = ptr(false) })
		Eventually(keys, timeout, poll).Should(ContainElement(And(HaveField("Title", "ci"), HaveField("ReadOnly", false))))
		expectReady(k)
		Expect(keys()).To(HaveLen(2))

		By("a new spec.publicKey that is in the repository already: that key is taken, and the old one deleted")
		placed, placedFP := sshKey("placed")
		there, err := forgeClient().CreateDeployKey(ctx, "acme", "web", forge.CreateDeployKeyOption{Title: "placed", Key: placed})
		Expect(err).NotTo(HaveOccurred())
		change(k, func(d *forgev1.DeployKey) { d.Spec.PublicKey = ptr(placed) })
		Eventually(keys, timeout, poll).Should(HaveLen(2), "the key ci held before is deleted")
		Expect(keys()).To(ContainElement(And(HaveField("ID", there.ID), HaveField("Fingerprint", placedFP))))
		Expect(keys()).NotTo(ContainElement(HaveField("Fingerprint", fp)))
		Eventually(func() int64 {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(k), k)).To(Succeed())
			return k.Status.ID
		}, timeout, poll).Should(Equal(there.ID))
	})

	It("generates the pair once into an owned Secret, changes nothing on a later pass, and replaces the key once when the Secret is deleted; the private key shows nowhere", func() {
		k := newKey("flux")
		k.Spec.Generate = &forgev1.DeployKeyGenerate{SecretName: "flux-key"}
		Expect(k8s.Create(ctx, k)).To(Succeed())
		expectReady(k)
		eventWithReason(k, forgev1.ReasonCreated)
		s := secretOf("flux-key")
		Expect(metav1.IsControlledBy(s, k)).To(BeTrue(), "the Secret is owned by the DeployKey")
		Expect(derived(s)).To(Equal(k.Status.Fingerprint))
		pub, _, _, _, err := ssh.ParseAuthorizedKey(s.Data["identity.pub"])
		Expect(err).NotTo(HaveOccurred())
		Expect(ssh.FingerprintSHA256(pub)).To(Equal(k.Status.Fingerprint))
		Expect(keys()).To(ConsistOf(And(HaveField("Title", "flux"), HaveField("Fingerprint", k.Status.Fingerprint))))
		first := string(s.Data["identity"])

		By("a requested pass (what a restart does) reads the pair from the Secret and writes nothing")
		fake.ClearRequests()
		rv := s.ResourceVersion
		at := time.Now().UTC().Format(time.RFC3339Nano)
		change(k, func(d *forgev1.DeployKey) {
			metav1.SetMetaDataAnnotation(&d.ObjectMeta, forgev1.ReconcileRequestedAtAnnotation, at)
		})
		Eventually(func() string {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(k), k)).To(Succeed())
			return k.Status.LastHandledReconcileAt
		}, timeout, poll).Should(Equal(at))
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(secretOf("flux-key").ResourceVersion).To(Equal(rv), "the Secret is never written again")

		By("deleting the Secret: a new pair, and the key replaced once")
		old := k.Status.ID
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		Eventually(func() string {
			n := &corev1.Secret{}
			if err := k8s.Get(ctx, key(ns, "flux-key"), n); err != nil {
				return ""
			}
			return derived(n)
		}, timeout, poll).ShouldNot(Or(BeEmpty(), Equal(k.Status.Fingerprint)))
		eventWithReason(k, forgev1.ReasonReplaced)
		fresh := secretOf("flux-key")
		Eventually(keys, timeout, poll).Should(ConsistOf(And(HaveField("Title", "flux"), HaveField("Fingerprint", derived(fresh)))))
		expectReady(k)
		Expect(k.Status.ID).NotTo(Equal(old))
		Expect(k.Status.Fingerprint).To(Equal(derived(fresh)))
		Expect(keyPosts()).To(Equal(1))
		Consistently(keyPosts, 2*syncInterval, poll).Should(Equal(1))

		for _, private := range []string{first, string(fresh.Data["identity"])} {
			Expect(leaks(k, private)).To(BeEmpty())
			// The base64 body of the PEM, line by line, shows nowhere either.
			for _, l := range strings.Split(private, "\n")[1:3] {
				Expect(leaks(k, l)).To(BeEmpty())
			}
		}
	})

	It("never writes into a Secret it did not create (Conflict), and reports a key the forge refuses (Rejected)", func() {
		putSecret(ns, "theirs", "other", "kept")
		k := newKey("flux")
		k.Spec.Generate = &forgev1.DeployKeyGenerate{SecretName: "theirs"}
		Expect(k8s.Create(ctx, k)).To(Succeed())
		Expect(expectReason(k, metav1.ConditionFalse, forgev1.ReasonConflict)).To(ContainSubstring("Secret theirs was not created by this DeployKey"))
		Expect(secretOf("theirs").Data).To(Equal(map[string][]byte{"other": []byte("kept")}))
		Expect(keys()).To(BeEmpty())

		line, _ := sshKey("me@laptop")
		Expect(fake.AddUserKey("alice", line)).To(Succeed())
		used := newKey("used")
		putSecret(ns, "pub", "identity.pub", line)
		used.Spec.PublicKeyFrom = &forgev1.DeployKeyFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "pub", Key: "identity.pub"}}
		Expect(k8s.Create(ctx, used)).To(Succeed())
		Expect(expectReason(used, metav1.ConditionFalse, forgev1.ReasonRejected)).To(ContainSubstring("Key content has been used as non-deploy key"))
		Expect(keys()).To(BeEmpty())

		By("a new public key in the Secret is taken up")
		fresh, fp := sshKey("ci")
		putSecret(ns, "pub", "identity.pub", fresh)
		expectReady(used)
		Expect(keys()).To(ConsistOf(HaveField("Fingerprint", fp)))
	})

	It("only reads with Observe, deletes with Delete and leaves the key with Orphan", func() {
		line, fp := sshKey("x")
		_, err := forgeClient().CreateDeployKey(ctx, "acme", "web", forge.CreateDeployKeyOption{Title: "ro", Key: line})
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
		watched := newKey("watched")
		watched.Spec.PublicKey = ptr(line)
		watched.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, watched)).To(Succeed())
		Expect(expectReason(watched, metav1.ConditionFalse, forgev1.ReasonDriftDetected)).To(ContainSubstring("readOnly"))
		Expect(fake.WriteRequests()).To(BeEmpty())

		del := newKey("del")
		del.Spec.Generate = &forgev1.DeployKeyGenerate{SecretName: "del-key"}
		kept := newKey("kept")
		kept.Spec.Generate = &forgev1.DeployKeyGenerate{SecretName: "kept-key"}
		kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
		Expect(k8s.Create(ctx, del)).To(Succeed())
		Expect(k8s.Create(ctx, kept)).To(Succeed())
		expectReady(del)
		expectReady(kept)
		Expect(k8s.Delete(ctx, del)).To(Succeed())
		Expect(k8s.Delete(ctx, kept)).To(Succeed())
		Expect(k8s.Delete(ctx, watched)).To(Succeed())
		gone(del)
		gone(kept)
		gone(watched)
		Expect(keys()).To(ConsistOf(HaveField("Fingerprint", fp), HaveField("Fingerprint", kept.Status.Fingerprint)))
	})
})
