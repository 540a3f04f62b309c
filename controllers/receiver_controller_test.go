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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
)

// passesOf sums forge_passes_total of kind, every outcome.
func passesOf(kind string) float64 {
	GinkgoHelper()
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for _, f := range families {
		if f.GetName() != "forge_passes_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// acceptedPushes sums forge_receiver_deliveries_total of push deliveries
// accepted (their passes requested), every Receiver.
func acceptedPushes() float64 {
	GinkgoHelper()
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for _, f := range families {
		if f.GetName() != "forge_receiver_deliveries_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			n := 0
			for _, l := range m.GetLabel() {
				if l.GetName() == "event" && l.GetValue() == "push" || l.GetName() == "result" && l.GetValue() == receiver.ResultAccepted {
					n++
				}
			}
			if n == 2 {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

var _ = Describe("Receiver", func() {
	const url = "https://receiver.example.com"
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		for _, o := range []string{"acme", "beta"} {
			_, err := fake.CreateOrg(o)
			Expect(err).NotTo(HaveOccurred())
		}
	})

	newReceiver := func(name string, orgs ...forgev1.OwnerName) *forgev1.Receiver {
		return &forgev1.Receiver{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.ReceiverSpec{
				ManagedSpec:   forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Organizations: orgs,
				URL:           url,
			},
		}
	}
	// secretOf is the hooks' secret the operator generated for r.
	secretOf := func(r *forgev1.Receiver) string {
		GinkgoHelper()
		var s corev1.Secret
		Expect(k8s.Get(ctx, key(ns, r.GeneratedSecretName()), &s)).To(Succeed())
		ref := metav1.GetControllerOf(&s)
		Expect(ref).NotTo(BeNil(), "the generated Secret is owned by its Receiver")
		Expect(ref.Kind).To(Equal("Receiver"))
		Expect(ref.UID).To(Equal(r.UID))
		Expect(s.Data[forgev1.ReceiverSecretKey]).To(HaveLen(64))
		return string(s.Data[forgev1.ReceiverSecretKey])
	}

	It("keeps one hook per organization at url + status.path, its secret generated into a Secret it owns; corrects it, drops an organization's, and deletes them with it", func() {
		r := newReceiver("events", "acme", "beta")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		Expect(readyCondition(r)(Default).Message).To(HavePrefix("2 of 2 organizations in sync"), "the compliance, in organizations")
		Expect(r.Status.Path).To(MatchRegexp(`^/hook/[0-9a-f]{40}$`))
		secret := secretOf(r)
		ids := map[string]int64{}
		for _, org := range []string{"acme", "beta"} {
			hooks := fake.OrgHooks(org)
			Expect(hooks).To(HaveLen(1), "one hook on %s", org)
			h := hooks[0]
			Expect(h.Type).To(Equal("gitea"))
			Expect(h.Config["url"]).To(Equal(url + r.Status.Path))
			Expect(h.Config["content_type"]).To(Equal("json"))
			Expect(h.Active).To(BeTrue())
			Expect(h.Events).To(ConsistOf("create", "push", "repository"))
			Expect(fake.HookSecret(org, h.ID)).To(Equal(secret), "the hook signs with the generated secret")
			ids[org] = h.ID
		}
		Expect(r.Status.Hooks).To(Equal([]forgev1.ReceiverHook{{Organization: "acme", ID: ids["acme"]}, {Organization: "beta", ID: ids["beta"]}}))

		By("a hook changed on the forge is set back in place")
		fc, err := forge.New(forge.Config{URL: fakeURL, Token: token})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.EditHook(ctx, forge.OrgScope("acme"), ids["acme"], forge.EditHookOption{
			Config: map[string]string{"url": url + r.Status.Path, "content_type": "json"}, Events: []string{"push"}, Active: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			hooks := fake.OrgHooks("acme")
			g.Expect(hooks).To(HaveLen(1))
			g.Expect(hooks[0].ID).To(Equal(ids["acme"]))
			g.Expect(hooks[0].Active).To(BeTrue())
			g.Expect(hooks[0].Events).To(ConsistOf("create", "push", "repository"))
		}, timeout, poll).Should(Succeed())

		By("an organization no longer listed loses its hook")
		change(r, func(r *forgev1.Receiver) { r.Spec.Organizations = []forgev1.OwnerName{"acme"} })
		expectReady(r)
		Expect(fake.OrgHooks("beta")).To(BeEmpty())
		Expect(r.Status.Hooks).To(Equal([]forgev1.ReceiverHook{{Organization: "acme", ID: ids["acme"]}}))

		By("deleted, it removes its hooks")
		Expect(k8s.Delete(ctx, r)).To(Succeed())
		Eventually(func() []forge.Hook { return fake.OrgHooks("acme") }, timeout, poll).Should(BeEmpty())
	})

	It("adopts its hook by URL when its record is lost, and replaces it when its secret changes: the path moves with the secret", func() {
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook-secret"},
			StringData: map[string]string{"value": "first-s3cret"}})).To(Succeed())
		r := newReceiver("events", "acme")
		r.Spec.SecretRef = &forgev1.SecretKeySelector{Name: "hook-secret", Key: "value"}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		first := r.Status.Hooks[0].ID
		oldPath := r.Status.Path
		Expect(k8s.Get(ctx, key(ns, r.GeneratedSecretName()), &corev1.Secret{})).NotTo(Succeed(), "no Secret is generated beside spec.secretRef")

		By("a status without the hook's record adopts the one hook of its URL")
		Eventually(func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(r), r); err != nil {
				return err
			}
			r.Status.Hooks = nil
			return k8s.Status().Update(ctx, r)
		}, timeout, poll).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.Hooks).To(Equal([]forgev1.ReceiverHook{{Organization: "acme", ID: first}}))
		}, timeout, poll).Should(Succeed())
		Expect(fake.OrgHooks("acme")).To(HaveLen(1))

		By("a new secret moves the path and replaces the hook")
		var sec corev1.Secret
		Expect(k8s.Get(ctx, key(ns, "hook-secret"), &sec)).To(Succeed())
		sec.Data = map[string][]byte{"value": []byte("second-s3cret")}
		Expect(k8s.Update(ctx, &sec)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.Path).NotTo(Equal(oldPath))
			hooks := fake.OrgHooks("acme")
			g.Expect(hooks).To(HaveLen(1))
			g.Expect(hooks[0].ID).NotTo(Equal(first))
			g.Expect(hooks[0].Config["url"]).To(Equal(url + r.Status.Path))
			g.Expect(fake.HookSecret("acme", hooks[0].ID)).To(Equal("second-s3cret"))
			g.Expect(r.Status.Hooks).To(Equal([]forgev1.ReceiverHook{{Organization: "acme", ID: hooks[0].ID}}))
		}, timeout, poll).Should(Succeed())
		expectReady(r)
	})

	It("after a manager restart, on a forge whose drift lane is short, takes its turn as every check does: no check is said not ready for giving way, and a hook edited on the forge is set back", Serial, func() {
		// Half of one request a second for drift checks, four Receivers
		// checking one organization each: after the restart their checks
		// fall due together, and those whose turn in the lane comes later
		// must give way and come back for it.
		f := &forgev1.Forge{}
		Expect(k8s.Get(ctx, key(ns, "gitea"), f)).To(Succeed())
		change(f, func(f *forgev1.Forge) { f.Spec.RateLimit = &forgev1.RateLimit{QPS: 1, Burst: 2} })
		expectReady(f)
		var rs []*forgev1.Receiver
		for _, org := range []forgev1.OwnerName{"acme", "beta", "gamma", "delta"} {
			if org == "gamma" || org == "delta" {
				_, err := fake.CreateOrg(string(org))
				Expect(err).NotTo(HaveOccurred())
			}
			r := newReceiver("events-"+string(org), org)
			Expect(k8s.Create(ctx, r)).To(Succeed())
			rs = append(rs, r)
		}
		for _, r := range rs {
			expectReady(r)
		}
		r := rs[0]
		id := r.Status.Hooks[0].ID

		By("restarting the manager: stop it, start a new one on the same control plane")
		stopManager()
		from := len(logs.String())
		startSuiteManager()
		gaveWay := func() []string {
			var out []string
			for _, line := range strings.Split(logs.String()[from:], "\n") {
				if strings.Contains(line, ns) && strings.Contains(line, "not ready") &&
					(strings.Contains(line, "yielding the forge's rate budget") || strings.Contains(line, `"reason": ""`)) {
					out = append(out, line)
				}
			}
			return out
		}
		// The first passes, then a round of drift checks.
		Consistently(func(g Gomega) {
			for _, r := range rs {
				c := readyCondition(r)(g)
				g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
			}
			g.Expect(gaveWay()).To(BeEmpty(), "a check that gave way was said not ready")
		}, 12*time.Second, poll).Should(Succeed())

		fc, err := forge.New(forge.Config{URL: fakeURL, Token: token})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.EditHook(ctx, forge.OrgScope("acme"), id, forge.EditHookOption{
			Config: map[string]string{"url": url + r.Status.Path, "content_type": "json"}, Events: []string{"push"}, Active: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			hooks := fake.OrgHooks("acme")
			g.Expect(hooks).To(HaveLen(1))
			g.Expect(hooks[0].ID).To(Equal(id))
			g.Expect(hooks[0].Active).To(BeTrue())
			g.Expect(hooks[0].Events).To(ConsistOf("create", "push", "repository"))
		}, 2*timeout, poll).Should(Succeed(), "the restarted manager's drift check sets the hook back")
		eventWithReason(r, forgev1.ReasonDriftCorrected)
		Expect(gaveWay()).To(BeEmpty(), "a check that gave way was said not ready")
	})

	It("never writes a hook an OrgHook holds: that organization is a Conflict", func() {
		r := newReceiver("events", "acme")
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		// An OrgHook on beta delivering to the Receiver's URL.
		h := &forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copy"}, Spec: forgev1.OrgHookSpec{
			ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
			Organization: "beta", HookSpec: forgev1.HookSpec{Type: "gitea", URL: url + r.Status.Path}}}
		Expect(k8s.Create(ctx, h)).To(Succeed())
		expectReady(h)
		change(r, func(r *forgev1.Receiver) { r.Spec.Organizations = []forgev1.OwnerName{"acme", "beta"} })
		msg := expectReason(r, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(Equal("1 of 2 organizations in sync; 1 failing: beta (Conflict)"))
		Expect(r.Status.Failures).To(ConsistOf(And(HaveField("Organization", "beta"), HaveField("Reason", forgev1.ReasonConflict),
			HaveField("Message", ContainSubstring("OrgHook "+ns+"/copy")))))
		Eventually(func() []string { return events(r) }, timeout, poll).Should(ContainElement(MatchRegexp(
			`^Conflict: 1 of 2 organizations in sync; 1 failing: beta: Conflict: .*OrgHook ` + ns + `/copy`)))
		Expect(fake.OrgHooks("beta")).To(HaveLen(1), "only the OrgHook's")
		Expect(fake.OrgHooks("beta")[0].ID).To(Equal(h.Status.ID))
	})

	Context("with a LabelSet over acme checked every 10 minutes", func() {
		var r *forgev1.Receiver
		var endpoint string
		var set *forgev1.LabelSet
		var secret string

		BeforeEach(func() {
			set = &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "std"}, Spec: forgev1.LabelSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(10 * time.Minute)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Labels:       []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}},
			}}
			Expect(k8s.Create(ctx, set)).To(Succeed())
			expectReady(set)
			r = newReceiver("events", "acme")
			Expect(k8s.Create(ctx, r)).To(Succeed())
			expectReady(r)
			secret = secretOf(r)
			addr, err := receiverEndpoint.BoundAddr(ctx)
			Expect(err).NotTo(HaveOccurred())
			endpoint = "http://" + addr.String()
		})

		labelsOf := func(repo string) []string {
			var out []string
			for _, l := range fake.Labels(forge.RepoScope("acme", repo)) {
				out = append(out, l.Name)
			}
			slices.Sort(out)
			return out
		}
		payload := func(owner, repo string) []byte {
			return fmt.Appendf(nil, `{"action":"created","repository":{"id":7,"name":%q,"full_name":"%s/%s","owner":{"id":2,"login":%q,"username":%q}},"organization":{"id":2,"username":%q},"sender":{"login":"admin"}}`,
				repo, owner, repo, owner, owner, owner)
		}
		post := func(path, event, delivery string, body []byte, secret string) int {
			GinkgoHelper()
			req, err := http.NewRequest(http.MethodPost, endpoint+path, bytes.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Gitea-Event", event)
			req.Header.Set("X-Gitea-Delivery", delivery)
			sig := receiver.Signature([]byte(secret), body)
			req.Header.Set("X-Gitea-Signature", sig)
			req.Header.Set("X-Hub-Signature-256", "sha256="+sig)
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Body.Close()).To(Succeed())
			return resp.StatusCode
		}

		It("a repository created on the forge gets the set's labels within seconds of its signed delivery; a bad signature, an unknown path, a body too large, a foreign organization and a replay pass over nothing", func() {
			Expect(fake.CreateRepo("acme", "web")).To(Succeed())
			_, err := fake.CreateOrg("other")
			Expect(err).NotTo(HaveOccurred())
			Expect(fake.CreateRepo("other", "web")).To(Succeed())
			before := passesOf("LabelSet")

			Expect(post(r.Status.Path, "repository", "d-bad", payload("acme", "web"), "not-the-secret")).To(Equal(http.StatusUnauthorized))
			Expect(post("/hook/0000000000000000000000000000000000000000", "repository", "d-404", payload("acme", "web"), secret)).To(Equal(http.StatusNotFound))
			Expect(post(r.Status.Path, "repository", "d-413", bytes.Repeat([]byte(" "), receiver.MaxBody+1), secret)).To(Equal(http.StatusRequestEntityTooLarge))
			Expect(post(r.Status.Path, "repository", "d-foreign", payload("other", "web"), secret)).To(Equal(http.StatusOK))
			Consistently(func() float64 { return passesOf("LabelSet") }, 2*time.Second, poll).Should(Equal(before), "no delivery that failed its checks passes over anything")
			Expect(labelsOf("web")).To(BeEmpty())

			start := time.Now()
			Expect(post(r.Status.Path, "repository", "d-good", payload("acme", "web"), secret)).To(Equal(http.StatusOK))
			Eventually(func() []string { return labelsOf("web") }, 5*time.Second, poll).Should(Equal([]string{"kind/bug"}))
			GinkgoWriter.Printf("labels %s after the delivery\n", time.Since(start))

			By("the same delivery again is ignored")
			Eventually(func(g Gomega) {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
				g.Expect(set.Status.InSync).To(BeEquivalentTo(1))
			}, timeout, poll).Should(Succeed())
			settled := passesOf("LabelSet")
			Expect(post(r.Status.Path, "repository", "d-good", payload("acme", "web"), secret)).To(Equal(http.StatusOK))
			Consistently(func() float64 { return passesOf("LabelSet") }, 2*time.Second, poll).Should(Equal(settled))

			By("the Receiver records the last event")
			Eventually(func(g Gomega) {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
				g.Expect(r.Status.LastEvent).NotTo(BeNil())
				g.Expect(r.Status.LastEvent.Event).To(Equal("repository"))
				g.Expect(r.Status.LastEvent.Delivery).To(Equal("d-good"))
			}, timeout, poll).Should(Succeed())
			Expect(logs.String()).NotTo(ContainSubstring(secret))
			Expect(logs.String()).NotTo(ContainSubstring(`"sender"`))
		})

		It("coalesces a flood: a hundred signed deliveries within a second cost at most two passes of the set", func() {
			Expect(fake.CreateRepo("acme", "web")).To(Succeed())
			before := passesOf("LabelSet")
			for i := range 100 {
				Expect(post(r.Status.Path, "repository", fmt.Sprintf("flood-%d", i), payload("acme", "web"), secret)).To(Equal(http.StatusOK))
			}
			Eventually(func() []string { return labelsOf("web") }, 5*time.Second, poll).Should(Equal([]string{"kind/bug"}))
			Consistently(func() float64 { return passesOf("LabelSet") - before }, 3*time.Second, poll).Should(BeNumerically("<=", 2))
		})
	})

	It("delivered by the fake as Gitea does: a branch created passes over the BranchProtectionSets selecting its repository, a push over nothing", func() {
		addr, err := receiverEndpoint.BoundAddr(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		set := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rules"}, Spec: forgev1.BranchProtectionSetSpec{
			ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(10 * time.Minute)},
			Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
			Rules:        []forgev1.BranchProtectionRule{{RuleName: "main"}}}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		r := newReceiver("events", "acme")
		r.Spec.URL = "http://" + addr.String()
		r.Spec.Events = []forgev1.ReceiverEvent{forgev1.ReceiverEventCreate, forgev1.ReceiverEventPush}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		Expect(fake.OrgHooks("acme")[0].Events).To(ConsistOf("create", "push"))
		Consistently(func() float64 { return passesOf("BranchProtectionSet") }, 2*time.Second, poll).Should(Equal(passesOf("BranchProtectionSet")))

		before := passesOf("BranchProtectionSet")
		Expect(fake.Push("acme", "web", "main")).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.LastEvent).NotTo(BeNil())
			g.Expect(r.Status.LastEvent.Event).To(Equal("push"))
		}, timeout, poll).Should(Succeed())
		Expect(passesOf("BranchProtectionSet")).To(Equal(before), "a push concerns no branch rule")

		Expect(fake.CreateBranch("acme", "web", "feature")).To(Succeed())
		Eventually(func() float64 { return passesOf("BranchProtectionSet") }, 5*time.Second, poll).Should(BeNumerically(">", before))
	})
})

var _ = Describe("Receiver on a manager without a receiver endpoint", func() {
	It("is Stalled, saying the manager serves no endpoint and how to start one, and makes no hook", func() {
		ctx := context.Background()
		own := fakeforge.New(fakeforge.WithToken(token))
		srv := own.Start()
		DeferCleanup(srv.Close)
		_, err := own.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "spec-"}}
		Expect(k8s.Create(ctx, nsObj)).To(Succeed())
		ns := nsObj.Name
		DeferCleanup(func() { removeAll(ns) })
		Expect(k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gitea-token"},
			StringData: map[string]string{"token": token}})).To(Succeed())
		// The Forge and the Receiver are the spec's manager's alone: the
		// suite's serves an endpoint.
		mine := map[string]string{ownManagerLabel: "true"}
		Expect(k8s.Create(ctx, &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "own", Labels: mine},
			Spec: forgev1.ForgeSpec{URL: srv.URL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}})).To(Succeed())
		r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "events", Labels: mine}, Spec: forgev1.ReceiverSpec{
			ManagedSpec:   forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "own"}, SyncInterval: every(syncInterval)},
			Organizations: []forgev1.OwnerName{"acme"}, URL: "https://receiver.example.com"}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		startManager(ns, controllers.Options{SyncInterval: time.Hour, RequestTimeout: 2 * time.Second})

		msg := expectReason(r, metav1.ConditionFalse, forgev1.ReasonEndpointNotServed)
		Expect(msg).To(Equal("the manager serves no receiver endpoint: start it with --receiver-bind-address (the chart's receiver value), else the hooks would deliver to nothing"))
		stalled := findCondition(r, forgev1.ConditionStalled)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		Expect(stalled.Reason).To(Equal(forgev1.ReasonEndpointNotServed))
		Expect(r.Status.Path).To(BeEmpty(), "no path is served")
		Expect(own.OrgHooks("acme")).To(BeEmpty(), "no hook delivering to nothing")
	})
})
