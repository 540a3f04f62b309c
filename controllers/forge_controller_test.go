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
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
)

var _ = Describe("Forge", func() {
	ctx := context.Background()

	getForge := func(ns, name string) *forgev1.Forge {
		GinkgoHelper()
		f := &forgev1.Forge{}
		Expect(k8s.Get(ctx, key(ns, name), f)).To(Succeed())
		return f
	}
	// newForge creates another Forge on the spec's fake forge.
	newForge := func(ns, name string, auth forgev1.ForgeAuth) *forgev1.Forge {
		GinkgoHelper()
		f := &forgev1.Forge{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       forgev1.ForgeSpec{URL: fakeURL, Auth: auth},
		}
		Expect(k8s.Create(ctx, f)).To(Succeed())
		return f
	}
	newSecret := func(ns, name string, data map[string]string) *corev1.Secret {
		GinkgoHelper()
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		return s
	}
	setSecret := func(ns, name string, data map[string]string) {
		GinkgoHelper()
		var s corev1.Secret
		Expect(k8s.Get(ctx, key(ns, name), &s)).To(Succeed())
		s.Data = map[string][]byte{}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		Expect(k8s.Update(ctx, &s)).To(Succeed())
	}
	tokenAuth := func(secret string) forgev1.ForgeAuth {
		return forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: secret}}
	}

	It("is Ready with the server's version, flavor and login", func() {
		ns := newNamespace()
		f := getForge(ns, "gitea")
		Expect(f.Status.ServerVersion).To(Equal(fakeforge.DefaultVersion))
		Expect(f.Status.Flavor).To(Equal("gitea"))
		Expect(f.Status.Login).To(Equal(fakeforge.DefaultLogin))
		Expect(f.Status.ObservedGeneration).To(Equal(f.Generation))
		msg := expectReason(f, metav1.ConditionTrue, forgev1.ReasonConnected)
		Expect(msg).To(ContainSubstring("gitea 1.26.0"))
		eventWithReason(f, forgev1.ReasonConnected)
		Expect(kstatusOf(f).Status).To(Equal(status.CurrentStatus))
	})

	It("says how many sync intervals a drift check of every scope takes when its checks ask more than half its rate", func() {
		ns := newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []string{"a", "b", "c", "d", "e"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		f := getForge(ns, "gitea")
		Expect(f.Status.DriftCheckIntervals).To(BeNumerically("<=", 1))
		// A Forge at 2 calls a second leaves its checks 1; a set over five
		// repositories checked every 2 s asks 3 listings a second (the
		// organization's repositories and each repository's labels).
		change(f, func(f *forgev1.Forge) { f.Spec.RateLimit = &forgev1.RateLimit{QPS: 2, Burst: 2} })
		set := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "std"},
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Labels:       []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}}}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		Eventually(func(g Gomega) {
			f := getForge(ns, "gitea")
			g.Expect(f.Status.DriftScopes).To(BeEquivalentTo(6))
			g.Expect(f.Status.DriftCheckIntervals).To(BeEquivalentTo(3))
			g.Expect(findCondition(f, forgev1.ConditionReady).Message).To(ContainSubstring("takes 3 sync intervals"))
		}, timeout, poll).Should(Succeed())

		// At 20 calls a second the checks fit again.
		change(f, func(f *forgev1.Forge) { f.Spec.RateLimit = &forgev1.RateLimit{QPS: 20, Burst: 20} })
		Eventually(func() int32 { return getForge(ns, "gitea").Status.DriftCheckIntervals }, timeout, poll).Should(BeEquivalentTo(1))
	})

	It("tells Forgejo from Gitea by the version string", func() {
		ns := newNamespace(fakeforge.WithVersion("15.0.3+gitea-1.22.0"))
		f := getForge(ns, "gitea")
		Expect(f.Status.ServerVersion).To(Equal("15.0.3+gitea-1.22.0"))
		Expect(f.Status.Flavor).To(Equal("forgejo"))
		Expect(expectReason(f, metav1.ConditionTrue, forgev1.ReasonConnected)).To(ContainSubstring("forgejo 15.0.3"))
	})

	It("is not Ready when its address is denied by --forge-deny-cidrs", func() {
		ns := newNamespace()
		// The suite's manager denies 192.0.2.0/24 (TEST-NET-1): the dialler
		// refuses it before any packet leaves.
		f := &forgev1.Forge{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "metadata"},
			Spec:       forgev1.ForgeSpec{URL: "http://192.0.2.10:3000", Auth: tokenAuth("gitea-token")},
		}
		Expect(k8s.Create(ctx, f)).To(Succeed())
		msg := expectReason(f, metav1.ConditionFalse, forgev1.ReasonForgeError)
		Expect(msg).To(ContainSubstring("address 192.0.2.10 is denied by the operator's address policy"))
		Expect(msg).NotTo(ContainSubstring(token))
	})

	It("waits with SecretNotFound until its Secret exists, and so do the resources using it", func() {
		ns := newNamespace()
		f := newForge(ns, "second", tokenAuth("second-token"))
		msg := expectReason(f, metav1.ConditionFalse, forgev1.ReasonSecretNotFound)
		Expect(msg).To(ContainSubstring(ns + "/second-token"))
		Expect(findCondition(f, forgev1.ConditionReconciling)).NotTo(BeNil())
		expectKstatus(f, status.InProgressStatus)

		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bug"},
			Spec: forgev1.LabelSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "second"}, SyncInterval: every(time.Hour)},
				Organization: ptr(forgev1.OwnerName("acme")),
				Color:        "d73a4a",
			},
		}
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Create(ctx, l)).To(Succeed())
		Expect(expectReason(l, metav1.ConditionFalse, forgev1.ReasonForgeNotReady)).To(ContainSubstring("SecretNotFound"))
		expectKstatus(l, status.InProgressStatus)

		// A Secret without the key is reported by name and key.
		newSecret(ns, "second-token", map[string]string{"apikey": token})
		Eventually(func(g Gomega) string {
			c := readyCondition(f)(g)
			return c.Message
		}, timeout, poll).Should(ContainSubstring(`key "token" not found or empty in Secret ` + ns + "/second-token"))

		setSecret(ns, "second-token", map[string]string{"token": token})
		expectReady(f)
		expectReady(l) // through the Forge watch: the label's own interval is an hour
	})

	It("is Unauthorized (Stalled) with a bad token, and Ready once the Secret is fixed", func() {
		ns := newNamespace()
		newSecret(ns, "bad-token", map[string]string{"token": rotatedToken})
		f := newForge(ns, "bad", tokenAuth("bad-token"))
		msg := expectReason(f, metav1.ConditionFalse, forgev1.ReasonUnauthorized)
		Expect(msg).To(And(ContainSubstring("401"), ContainSubstring(ns+"/bad-token")))
		Expect(findCondition(f, forgev1.ConditionStalled)).NotTo(BeNil())
		Expect(findCondition(f, forgev1.ConditionReconciling)).To(BeNil())
		expectKstatus(f, status.FailedStatus)
		eventWithReason(f, forgev1.ReasonUnauthorized)

		// Rechecked at once when the Secret changes, not at the next interval:
		// right after a periodic check, the next one is at least 0.9 interval away.
		rejected := func() int {
			n := 0
			for _, r := range fake.Requests() {
				if strings.HasSuffix(r.Path, "/version") && r.Status == http.StatusUnauthorized {
					n++
				}
			}
			return n
		}
		seen := rejected()
		Eventually(rejected, timeout, 10*time.Millisecond).Should(BeNumerically(">", seen))
		setSecret(ns, "bad-token", map[string]string{"token": token})
		Eventually(func(g Gomega) {
			c := readyCondition(f)(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		}, syncInterval/2, 20*time.Millisecond).Should(Succeed())
		Expect(f.Status.Login).To(Equal(fakeforge.DefaultLogin))
		Expect(findCondition(f, forgev1.ConditionStalled)).To(BeNil())
	})

	It("backs off exponentially from the default options while the server answers 500, and rechecks at once on request", func() {
		// A manager of its own, set up with no backoff options as main.go does,
		// checks a Forge on a fake of its own whose /version always fails.
		down := fakeforge.New(fakeforge.WithToken(token))
		srv := down.Start()
		DeferCleanup(srv.Close)
		down.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/version", Count: -1, Status: http.StatusInternalServerError})
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "spec-"}}
		Expect(k8s.Create(ctx, nsObj)).To(Succeed())
		ns := nsObj.Name
		DeferCleanup(func() { removeAll(ns) })
		newSecret(ns, "gitea-token", map[string]string{"token": token})
		f := &forgev1.Forge{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "down", Labels: map[string]string{ownManagerLabel: "true"}},
			Spec:       forgev1.ForgeSpec{URL: srv.URL, Auth: tokenAuth("gitea-token")},
		}
		Expect(k8s.Create(ctx, f)).To(Succeed())
		// Started after both exist: its first pass comes once, with both in its cache.
		startManager(ns, controllers.Options{SyncInterval: time.Hour, RequestTimeout: 2 * time.Second})

		// Note when each call arrives.
		var at []time.Time
		calls := func() int {
			n := 0
			for _, r := range down.Requests() {
				if strings.HasSuffix(r.Path, "/version") {
					n++
				}
			}
			for len(at) < n {
				at = append(at, time.Now())
			}
			return n
		}
		Eventually(calls, timeout, 20*time.Millisecond).Should(BeNumerically(">=", 1))
		// From 1s doubling: calls at 0, 1, 3, 7 and 15 seconds, 6 in the first
		// minute; the Forge's old fixed limiter made one every second.
		Consistently(calls, 16*time.Second, 20*time.Millisecond).Should(BeNumerically("<=", 5))
		Expect(len(at)).To(BeNumerically(">=", 4), "still retried")
		for i := 1; i < len(at); i++ {
			// Load only lengthens a gap; poll and start-up jitter may shorten one by a little.
			want := time.Duration(1<<(i-1))*time.Second - 150*time.Millisecond
			Expect(at[i].Sub(at[i-1])).To(BeNumerically(">=", want), "gap before call %d", i+1)
		}
		msg := expectReason(f, metav1.ConditionFalse, forgev1.ReasonForgeError)
		Expect(msg).To(ContainSubstring("500"))
		Expect(findCondition(f, forgev1.ConditionReconciling)).NotTo(BeNil())
		eventWithReason(f, forgev1.ReasonForgeError)

		// The server recovers; a requested check does not wait for the backoff.
		down.ClearFaults()
		change(f, func(f *forgev1.Forge) {
			f.Annotations = map[string]string{forgev1.ReconcileRequestedAtAnnotation: "after-repair"}
		})
		Eventually(func(g Gomega) {
			c := readyCondition(f)(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(f.Status.LastHandledReconcileAt).To(Equal("after-repair"))
		}, 5*time.Second, poll).Should(Succeed())
	})

	It("is Rejected (Stalled) when the forge refuses the check with 422, as every kind is", func() {
		ns := newNamespace()
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/user", Count: -1,
			Status: http.StatusUnprocessableEntity, Body: `{"message":"user does not exist"}`})
		f := newForge(ns, "refused", forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}})
		msg := expectReason(f, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("422 user does not exist"))
		Expect(findCondition(f, forgev1.ConditionStalled)).NotTo(BeNil())
		expectKstatus(f, status.FailedStatus)
	})

	It("authenticates with basic auth", func() {
		ns := newNamespace(fakeforge.WithBasicAuth("site-admin", basicPassword))
		newSecret(ns, "gitea-basic", map[string]string{"username": "site-admin", "password": basicPassword})
		f := newForge(ns, "basic", forgev1.ForgeAuth{BasicAuthSecretRef: &forgev1.SecretReference{Name: "gitea-basic"}})
		expectReady(f)
		Expect(f.Status.Login).To(Equal("site-admin"))

		setSecret(ns, "gitea-basic", map[string]string{"username": "site-admin", "password": "wrong"})
		expectReason(f, metav1.ConditionFalse, forgev1.ReasonUnauthorized)
		setSecret(ns, "gitea-basic", map[string]string{"username": "site-admin"})
		Expect(expectReason(f, metav1.ConditionFalse, forgev1.ReasonSecretNotFound)).To(ContainSubstring(`key "password"`))
		setSecret(ns, "gitea-basic", map[string]string{"username": "site-admin", "password": basicPassword})
		expectReady(f)
	})
})
