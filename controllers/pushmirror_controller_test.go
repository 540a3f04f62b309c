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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// mirrorAddress is the remote address of a mirror named name.
func mirrorAddress(name string) string { return "https://240.0.0.1/mirrors/" + name }

var _ = childSpecs(childRow{
	kind: "PushMirror",
	object: func(ns, name, repo, remote string) forgev1.Managed {
		return &forgev1.PushMirror{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.PushMirrorSpec{ManagedSpec: childSpec(),
			Repository: forgev1.RepositoryName("acme/" + repo), RemoteAddress: mirrorAddress(remote)}}
	},
	onForge: func(repo, remote string) {
		_, err := forgeClient().CreatePushMirror(context.Background(), "acme", repo,
			forge.CreatePushMirrorOption{RemoteAddress: mirrorAddress(remote), Interval: "8h"})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.PushMirrors("acme", repo), func(m forge.PushMirror) string {
			return strings.TrimPrefix(m.RemoteAddress, mirrorAddress(""))
		})
	},
})

var _ = Describe("PushMirror", func() {
	const address = "https://240.0.0.1/acme/web.git"
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fake.ClearRequests()
	})

	newPM := func(name, repo string) *forgev1.PushMirror {
		return &forgev1.PushMirror{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.PushMirrorSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repository:  forgev1.RepositoryName(repo), RemoteAddress: address}}
	}
	withAuth := func(pm *forgev1.PushMirror) *forgev1.PushMirror {
		pm.Spec.Auth = &forgev1.PushMirrorAuth{Username: ptr("git"),
			PasswordSecretRef: forgev1.SecretKeySelector{Name: "mirror-auth", Key: "token"}}
		return pm
	}
	mirrors := func() []forge.PushMirror { return fake.PushMirrors("acme", "web") }
	mirrorWrites := func(method string) int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if r.Method == method && strings.Contains(r.Path, "/push_mirrors") {
				n++
			}
		}
		return n
	}
	// requestReconcile asks for a pass now (the annotation users set).
	requestReconcile := func(pm *forgev1.PushMirror) {
		change(pm, func(p *forgev1.PushMirror) {
			metav1.SetMetaDataAnnotation(&p.ObjectMeta, forgev1.ReconcileRequestedAtAnnotation, time.Now().Format(time.RFC3339Nano))
		})
	}
	password := func(name string) string {
		_, pass, ok := fake.PushMirrorCredentials("acme", "web", name)
		Expect(ok).To(BeTrue(), "mirror %s exists", name)
		return pass
	}

	It("creates a mirror with its credentials, records its remote name, and never writes at rest", func() {
		putSecret(ns, "mirror-auth", "token", "pm-pw-first-8c1e")
		pm := withAuth(newPM("github", "acme/web"))
		pm.Spec.Interval = every(time.Hour)
		pm.Spec.SyncOnCommit = ptr(true)
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		eventWithReason(pm, forgev1.ReasonCreated)
		Expect(mirrors()).To(ConsistOf(And(HaveField("RemoteAddress", address), HaveField("Interval", "1h0m0s"), HaveField("SyncOnCommit", true))))
		m := mirrors()[0]
		Expect(pm.Status.RemoteName).To(Equal(m.RemoteName))
		Expect(pm.Status.ExternalName).To(Equal(m.RemoteName))
		Expect(pm.Status.LastUpdate).To(BeNil(), "never synced (the forge's 1970) shows as none")
		user, pass, _ := fake.PushMirrorCredentials("acme", "web", m.RemoteName)
		Expect([]string{user, pass}).To(Equal([]string{"git", "pm-pw-first-8c1e"}))
		Expect(pm.Status.AppliedSecrets).To(ConsistOf(And(HaveField("Field", "passwordSecretRef"), HaveField("Digest", HavePrefix("hmac-sha256:")))))
		Expect(leaks(pm, "pm-pw-first-8c1e")).To(BeEmpty())

		By("at rest, with a second mirror of the repository: no writes, one listing per interval for both")
		other := newPM("backup", "acme/web")
		other.Spec.RemoteAddress = "https://240.0.0.9/backup/web.git"
		Expect(k8s.Create(ctx, other)).To(Succeed())
		expectReady(other)
		fake.ClearRequests()
		Consistently(func() int { return len(fake.WriteRequests()) }, 3*syncInterval, poll).Should(BeZero())
		Expect(requestsTo("/repos/acme/web/push_mirrors")).To(BeNumerically("<=", 4))
	})

	It("adopts a mirror of its address with no write when interval and syncOnCommit match", func() {
		made, err := forgeClient().CreatePushMirror(ctx, "acme", "web", forge.CreatePushMirrorOption{RemoteAddress: address, Interval: "8h"})
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()
		pm := newPM("adopted", "acme/web")
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		eventWithReason(pm, forgev1.ReasonAdopted)
		Expect(pm.Status.RemoteName).To(Equal(made.RemoteName))
		Expect(fake.WriteRequests()).To(BeEmpty(), "adoption of an equal mirror writes nothing")
		Consistently(func() int { return len(fake.WriteRequests()) }, 2*syncInterval, poll).Should(BeZero())

		By("a mirror deleted by hand is made again")
		Expect(forgeClient().DeletePushMirror(ctx, "acme", "web", made.RemoteName)).To(Succeed())
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(ConsistOf(
			And(HaveField("RemoteAddress", address), Not(HaveField("RemoteName", made.RemoteName)))))
		Eventually(func() []string { return events(pm) }, timeout, poll).Should(ContainElement(ContainSubstring("was missing on the forge")))
	})

	It("replaces the mirror once, creating before deleting, when the interval changes", func() {
		pm := newPM("interval", "acme/web")
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		old := pm.Status.RemoteName
		fake.ClearRequests()
		change(pm, func(p *forgev1.PushMirror) { p.Spec.Interval = every(24 * time.Hour) })
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(ConsistOf(
			And(HaveField("Interval", "24h0m0s"), Not(HaveField("RemoteName", old)))))
		eventWithReason(pm, forgev1.ReasonReplaced)
		Eventually(func() []string { return events(pm) }, timeout, poll).Should(ContainElement(ContainSubstring(`name "` + old + `" -> name "`)))
		Eventually(func() string { _ = k8s.Get(ctx, key(ns, pm.Name), pm); return pm.Status.RemoteName }, timeout, poll).Should(Equal(mirrors()[0].RemoteName))
		var order []string
		for _, r := range fake.WriteRequests() {
			if strings.Contains(r.Path, "/push_mirrors") {
				order = append(order, r.Method)
			}
		}
		Expect(order).To(Equal([]string{http.MethodPost, http.MethodDelete}), "the new mirror first, then the old one's delete")
		fake.ClearRequests()
		Consistently(func() int { return len(fake.WriteRequests()) }, 2*syncInterval, poll).Should(BeZero())
	})

	It("replaces the mirror once on a new password, and not again after a manager restart", Serial, func() {
		putSecret(ns, "mirror-auth", "token", "pm-pw-first-8c1e")
		pm := withAuth(newPM("rotated", "acme/web"))
		pm.Spec.SyncInterval = every(time.Hour) // passes come from the Secret watch and the restart
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		first := pm.Status.RemoteName

		putSecret(ns, "mirror-auth", "token", "pm-pw-second-5d2f")
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(ConsistOf(Not(HaveField("RemoteName", first))))
		eventWithReason(pm, forgev1.ReasonReplaced)
		second := mirrors()[0].RemoteName
		Expect(password(second)).To(Equal("pm-pw-second-5d2f"))
		Eventually(func() string { _ = k8s.Get(ctx, key(ns, pm.Name), pm); return pm.Status.RemoteName }, timeout, poll).Should(Equal(second))

		By("restarting the manager: the digest in status says the password is sent")
		stopManager()
		startSuiteManager()
		fake.ClearRequests()
		var sec corev1.Secret
		Expect(k8s.Get(ctx, key(ns, "mirror-auth"), &sec)).To(Succeed())
		sec.Labels = map[string]string{"rotated-by": "a-tool-that-rewrites-the-same-value"}
		Expect(k8s.Update(ctx, &sec)).To(Succeed())
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, key(ns, pm.Name), pm)).To(Succeed())
			g.Expect(pm.Status.AppliedSecrets).To(HaveLen(1))
			return pm.Status.AppliedSecrets[0].ResourceVersion
		}, timeout, poll).Should(Equal(sec.ResourceVersion))
		Consistently(func() int { return mirrorWrites(http.MethodPost) + mirrorWrites(http.MethodDelete) }, 2*syncInterval, poll).Should(BeZero())
		Expect(mirrors()).To(ConsistOf(HaveField("RemoteName", second)))
		Expect(leaks(pm, "pm-pw-first-8c1e", "pm-pw-second-5d2f")).To(BeEmpty())

		By("a new username replaces it too")
		change(pm, func(p *forgev1.PushMirror) { p.Spec.Auth.Username = ptr("mirror-bot") })
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(ConsistOf(Not(HaveField("RemoteName", second))))
		user, pass, _ := fake.PushMirrorCredentials("acme", "web", mirrors()[0].RemoteName)
		Expect([]string{user, pass}).To(Equal([]string{"mirror-bot", "pm-pw-second-5d2f"}))
	})

	It("makes one mirror when the answer of its create is lost, and one when a replacing create's is", func() {
		putSecret(ns, "mirror-auth", "token", "pm-pw-before-rotation")
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/*/*/push_mirrors", Count: 1, LostResponse: true})
		pm := withAuth(newPM("lossy", "acme/web"))
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		Expect(mirrors()).To(HaveLen(1))
		first := mirrors()[0].RemoteName
		Expect(pm.Status.RemoteName).To(Equal(first))
		Expect(events(pm)).NotTo(ContainElement(HavePrefix(forgev1.ReasonReplaced+": ")), "found after a lost answer, it holds what the create sent")

		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/*/*/push_mirrors", Count: 1, LostResponse: true})
		putSecret(ns, "mirror-auth", "token", "pm-pw-after-rotation")
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(ConsistOf(Not(HaveField("RemoteName", first))))
		Expect(password(mirrors()[0].RemoteName)).To(Equal("pm-pw-after-rotation"))
		Eventually(func() string { _ = k8s.Get(ctx, key(ns, pm.Name), pm); return pm.Status.RemoteName }, timeout, poll).Should(Equal(mirrors()[0].RemoteName))
		fake.ClearRequests()
		Consistently(func() int { return mirrorWrites(http.MethodPost) }, 2*syncInterval, poll).Should(BeZero())
		Expect(mirrors()).To(HaveLen(1))
	})

	It("deletes the replaced mirror on a later pass when its delete failed", func() {
		pm := newPM("retry", "acme/web")
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		old := pm.Status.RemoteName
		fake.InjectFault(fakeforge.Fault{Method: http.MethodDelete, Path: "/repos/*/*/push_mirrors/*", Count: 2,
			Status: http.StatusInternalServerError, Body: `{"message":"try later"}`})
		change(pm, func(p *forgev1.PushMirror) { p.Spec.SyncOnCommit = ptr(true) })
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(ConsistOf(
			And(Not(HaveField("RemoteName", old)), HaveField("SyncOnCommit", true))))
		expectReady(pm)
		Expect(pm.Status.RemoteName).To(Equal(mirrors()[0].RemoteName))
	})

	It("shows the forge's last error without credentials", func() {
		putSecret(ns, "mirror-auth", "token", "leaky-token")
		pm := withAuth(newPM("failing", "acme/web"))
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		expectReady(pm)
		Expect(fake.SetPushMirrorError("acme", "web", pm.Status.RemoteName,
			"push failed: fatal: unable to access 'https://git:leaky-token@240.0.0.1/acme/web.git/': leaky-token refused")).To(BeTrue())
		requestReconcile(pm)
		Eventually(func() string { _ = k8s.Get(ctx, key(ns, pm.Name), pm); return pm.Status.LastError }, timeout, poll).Should(
			Equal("push failed: fatal: unable to access 'https://[redacted]@240.0.0.1/acme/web.git/': [redacted] refused"))
		Expect(pm.Status.LastUpdate).NotTo(BeNil())
		Expect(leaks(pm, "leaky-token")).To(BeEmpty())
	})

	It("observes without writing and deletes by policy", func() {
		observed := newPM("observed", "acme/web")
		observed.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, observed)).To(Succeed())
		expectReason(observed, metav1.ConditionFalse, forgev1.ReasonNotFound)
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(k8s.Delete(ctx, observed)).To(Succeed())
		gone(observed)

		deleted, kept := newPM("gone", "acme/web"), newPM("kept", "acme/web")
		deleted.Spec.RemoteAddress = "https://240.0.0.2/gone.git"
		kept.Spec.RemoteAddress = "https://240.0.0.3/kept.git"
		kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
		for _, p := range []*forgev1.PushMirror{deleted, kept} {
			Expect(k8s.Create(ctx, p)).To(Succeed())
		}
		for _, p := range []*forgev1.PushMirror{deleted, kept} {
			expectReady(p)
			Expect(k8s.Delete(ctx, p)).To(Succeed())
		}
		for _, p := range []*forgev1.PushMirror{deleted, kept} {
			gone(p)
		}
		Eventually(func() []forge.PushMirror { return mirrors() }, timeout, poll).Should(
			ConsistOf(HaveField("RemoteAddress", "https://240.0.0.3/kept.git")))
	})

	It("is Unsupported, naming the setting, on a server with mirrors disabled, and writes nothing", func() {
		fake.SetMirrorsEnabled(false)
		pm := newPM("off", "acme/web")
		Expect(k8s.Create(ctx, pm)).To(Succeed())
		msg := expectReason(pm, metav1.ConditionFalse, forgev1.ReasonUnsupported)
		Expect(msg).To(ContainSubstring("[mirror] ENABLED = false"))
		Expect(mirrorWrites(http.MethodPost)).To(BeZero())
		fake.SetMirrorsEnabled(true)
		requestReconcile(pm)
		expectReady(pm)
	})

	It("refuses an interval below the forge's minimum", func() {
		short := newPM("short", "acme/web")
		short.Spec.Interval = every(time.Minute)
		Expect(k8s.Create(ctx, short)).To(Succeed())
		msg := expectReason(short, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("MIN_INTERVAL"))
		Expect(mirrors()).To(BeEmpty())
	})
})
