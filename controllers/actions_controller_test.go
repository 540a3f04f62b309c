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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A variable of a repository is the row (a secret's adoption sends its
// value once, which its own spec tests): names are upper case on the forge.
var _ = childSpecs(childRow{
	kind: "ActionsVariable",
	object: func(ns, name, repo, variable string) forgev1.Managed {
		return &forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.ActionsVariableSpec{ManagedSpec: childSpec(),
			ActionsScope: forgev1.ActionsScope{Repository: ptr(forgev1.RepositoryName("acme/" + repo)), Name: ptr(forgev1.ActionsName(strings.ToUpper(variable)))},
			Value:        ptr("on")}}
	},
	onForge: func(repo, variable string) {
		Expect(forgeClient().CreateActionsVariable(context.Background(), forge.RepoScope("acme", repo), strings.ToUpper(variable), "on", "")).To(Succeed())
	},
	names: func(repo string) []string {
		all, _ := forgeClient().ListActionsVariables(context.Background(), forge.RepoScope("acme", repo)) // none in a missing repository
		return namesOn(all, func(v forge.ActionsVariable) string { return strings.ToLower(v.Name) })
	},
})

var _ = Describe("ActionsSecret and ActionsVariable", func() {
	var ns string
	ctx := context.Background()
	web := forge.RepoScope("acme", "web")
	acme := forge.OrgScope("acme")

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
	})

	secretValue := func(scope forge.Scope, name string) string { v, _ := fake.ActionsSecretValue(scope, name); return v }
	variableValue := func(scope forge.Scope, name string) string { v, _ := fake.ActionsVariableValue(scope, name); return v }

	newSecret := func(name string, repo bool) *forgev1.ActionsSecret {
		s := &forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.ActionsSecretSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				ValueFrom:   forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "ci-values", Key: name}},
			}}
		if repo {
			s.Spec.Repository = ptr(forgev1.RepositoryName("acme/web"))
		} else {
			s.Spec.Organization = ptr(forgev1.OwnerName("acme"))
		}
		return s
	}
	puts := func(scope forge.Scope, name string) int {
		n := 0
		for _, r := range fake.WriteRequests() {
			if r.Method == http.MethodPut && strings.HasSuffix(r.Path, "/"+scope.String()+"/actions/secrets/"+name) ||
				r.Method == http.MethodPut && strings.HasSuffix(r.Path, "/orgs/"+scope.String()+"/actions/secrets/"+name) {
				n++
			}
		}
		return n
	}

	It("sends a secret once, again only when the Secret's value changes, and keeps values out of sight", func() {
		const first, second = "first-deploy-token-value", "second-deploy-token-value"
		putSecret(ns, "ci-values", "deploy-token", first)
		putSecret(ns, "ci-values", "registry-password", "org-registry-password-value")
		repoSecret, orgSecret := newSecret("deploy-token", true), newSecret("registry-password", false)
		Expect(k8s.Create(ctx, repoSecret)).To(Succeed())
		Expect(k8s.Create(ctx, orgSecret)).To(Succeed())
		expectReady(repoSecret)
		expectReady(orgSecret)
		Expect(repoSecret.Status.ExternalName).To(Equal("DEPLOY_TOKEN"))
		Expect(repoSecret.Status.AppliedSecrets).To(ConsistOf(And(HaveField("Field", "valueFrom"), HaveField("Digest", HavePrefix("hmac-sha256:")))))
		Expect(secretValue(web, "DEPLOY_TOKEN")).To(Equal(first))
		Expect(secretValue(acme, "REGISTRY_PASSWORD")).To(Equal("org-registry-password-value"))

		By("a write to the Secret that keeps the value sends nothing")
		fake.ClearRequests()
		putSecret(ns, "ci-values", "unrelated", "x")
		Consistently(func() int { return puts(web, "DEPLOY_TOKEN") }, 2*syncInterval, poll).Should(BeZero())

		By("a new value is sent once")
		putSecret(ns, "ci-values", "deploy-token", second)
		Eventually(func() string { v, _ := fake.ActionsSecretValue(web, "DEPLOY_TOKEN"); return v }, timeout, poll).Should(Equal(second))
		Consistently(func() int { return puts(web, "DEPLOY_TOKEN") }, 2*syncInterval, poll).Should(Equal(1))
		Expect(fake.WriteRequests()).To(HaveLen(1), "at rest: no other write")

		Expect(leaks(repoSecret, first, second)).To(BeEmpty())
		Expect(leaks(orgSecret, "org-registry-password-value")).To(BeEmpty())
	})

	// Every pass read the Secret past the manager's cache,
	// drift checks and retries included.
	It("reads the Secret of a secret it sent again only when the Secret changes", func() {
		const first, second = "first-value-read-once", "second-value-read-once"
		putSecret(ns, "ci-values", "deploy-token", first)
		s := newSecret("deploy-token", true)
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(secretValue(web, "DEPLOY_TOKEN")).To(Equal(first))
		reads := func() int { return secretReads(ns, "ci-values") }
		Expect(reads()).To(BeNumerically(">=", 1), "a value is read to be sent")
		request := func(at string) {
			GinkgoHelper()
			change(s, func(s *forgev1.ActionsSecret) {
				s.Annotations = map[string]string{forgev1.ReconcileRequestedAtAnnotation: at}
			})
			Eventually(func() string { readyCondition(s)(Default); return s.Status.LastHandledReconcileAt }, timeout, poll).Should(Equal(at))
		}
		// passes requests passes and waits for drift checks: none reads the
		// Secret, none writes.
		passes := func(prefix string, wantPuts int) {
			GinkgoHelper()
			request(prefix + "-settled") // every pass after this one starts from the recorded value
			n := reads()
			request(prefix + "-again")
			request(prefix + "-once-more")
			Consistently(func() []int { return []int{reads(), puts(web, "DEPLOY_TOKEN")} }, 2*syncInterval, poll).
				Should(Equal([]int{n, wantPuts}), "reads of the Secret, and PUTs of the secret")
		}
		By("requested passes and drift checks read nothing")
		passes("sent", 1)

		By("a new value is read and sent once, then not read again")
		putSecret(ns, "ci-values", "deploy-token", second)
		Eventually(func() string { return secretValue(web, "DEPLOY_TOKEN") }, timeout, poll).Should(Equal(second))
		var sec corev1.Secret
		Expect(k8s.Get(ctx, key(ns, "ci-values"), &sec)).To(Succeed())
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, key(ns, s.Name), s)).To(Succeed())
			g.Expect(s.Status.AppliedSecrets).To(HaveLen(1))
			return s.Status.AppliedSecrets[0].ResourceVersion
		}, timeout, poll).Should(Equal(sec.ResourceVersion))
		passes("changed", 2)

		By("a deleted Secret is still told")
		Expect(k8s.Delete(ctx, &sec)).To(Succeed())
		Expect(expectReason(s, metav1.ConditionFalse, forgev1.ReasonSecretNotFound)).To(ContainSubstring("ci-values"))
		Expect(leaks(s, first, second)).To(BeEmpty())
	})

	It("sends nothing after a manager restart when the Secret is rewritten with the same value", Serial, func() {
		const value = "kept-across-restarts-token"
		putSecret(ns, "ci-values", "deploy-token", value)
		s := newSecret("deploy-token", true)
		s.Spec.SyncInterval = every(time.Hour) // passes come from the restart and the Secret watch
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		digest := s.Status.AppliedSecrets[0].Digest

		stopManager()
		startSuiteManager()
		fake.ClearRequests()
		var sec corev1.Secret
		Expect(k8s.Get(ctx, key(ns, "ci-values"), &sec)).To(Succeed())
		sec.Labels = map[string]string{"rotated-by": "a-tool-that-rewrites-the-same-value"}
		sec.Data["deploy-token"] = []byte(value)
		Expect(k8s.Update(ctx, &sec)).To(Succeed())
		// The new manager handled the write (the record follows the Secret's version)...
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, key(ns, s.Name), s)).To(Succeed())
			g.Expect(s.Status.AppliedSecrets).To(HaveLen(1))
			return s.Status.AppliedSecrets[0].ResourceVersion
		}, timeout, poll).Should(Equal(sec.ResourceVersion))
		// ...and sent nothing.
		Consistently(func() int { return puts(web, "DEPLOY_TOKEN") }, 2*syncInterval, poll).Should(BeZero())
		Expect(s.Status.AppliedSecrets[0].Digest).To(Equal(digest))
		Expect(leaks(s, value)).To(BeEmpty())
	})

	It("writes a secret deleted by hand again, and an adopted one once", func() {
		putSecret(ns, "ci-values", "deploy-token", "v1")
		fc := forgeClient()
		Expect(fc.PutActionsSecret(ctx, web, "DEPLOY_TOKEN", "someone-elses", "")).To(Succeed())
		s := newSecret("deploy-token", true)
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(secretValue(web, "DEPLOY_TOKEN")).To(Equal("v1"), "an adopted secret's value is unknown: written once")
		eventWithReason(s, forgev1.ReasonAdopted)
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())

		Expect(fc.DeleteActionsSecret(ctx, web, "DEPLOY_TOKEN")).To(Succeed())
		Eventually(func() bool { _, ok := fake.ActionsSecretValue(web, "DEPLOY_TOKEN"); return ok }, timeout, poll).Should(BeTrue())
		Eventually(func() []string { return events(s) }, timeout, poll).Should(ContainElement(ContainSubstring("was missing on the forge")))
	})

	It("creates, adopts and corrects variables, from a literal and from a ConfigMap that changes", func() {
		Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "acme-ci"},
			Data: map[string]string{"registry": "registry.acme.example"}})).To(Succeed())
		literal := &forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "go-version"},
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				ActionsScope: forgev1.ActionsScope{Organization: ptr(forgev1.OwnerName("acme"))}, Value: ptr("1.26")}}
		fromCM := &forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "registry"},
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				ActionsScope: forgev1.ActionsScope{Repository: ptr(forgev1.RepositoryName("acme/web")), Name: ptr(forgev1.ActionsName("REGISTRY_HOST"))},
				ValueFrom:    &forgev1.ActionsVariableValueFrom{ConfigMapKeyRef: &forgev1.ConfigMapKeySelector{Name: "acme-ci", Key: "registry"}}}}
		fc := forgeClient()
		Expect(fc.CreateActionsVariable(ctx, acme, "GO_VERSION", "1.25", "")).To(Succeed())
		Expect(k8s.Create(ctx, literal)).To(Succeed())
		Expect(k8s.Create(ctx, fromCM)).To(Succeed())
		expectReady(literal)
		expectReady(fromCM)
		eventWithReason(literal, forgev1.ReasonAdopted)
		Expect(variableValue(acme, "GO_VERSION")).To(Equal("1.26"))
		Expect(variableValue(web, "REGISTRY_HOST")).To(Equal("registry.acme.example"))

		By("a value changed by hand is set back")
		Expect(fc.UpdateActionsVariable(ctx, acme, "GO_VERSION", "1.0", "")).To(Succeed())
		Eventually(func() string { v, _ := fake.ActionsVariableValue(acme, "GO_VERSION"); return v }, timeout, poll).Should(Equal("1.26"))
		eventWithReason(literal, forgev1.ReasonDriftCorrected)

		By("a change to the ConfigMap is applied")
		var cm corev1.ConfigMap
		Expect(k8s.Get(ctx, key(ns, "acme-ci"), &cm)).To(Succeed())
		cm.Data["registry"] = "registry2.acme.example"
		Expect(k8s.Update(ctx, &cm)).To(Succeed())
		Eventually(func() string { v, _ := fake.ActionsVariableValue(web, "REGISTRY_HOST"); return v }, timeout, poll).Should(Equal("registry2.acme.example"))

		By("at rest: no writes, one variable listing per scope per interval")
		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		Expect(requestsTo("/orgs/acme/actions/variables")).To(BeNumerically("<=", 4))
		Expect(requestsTo("/repos/acme/web/actions/variables")).To(BeNumerically("<=", 4))
	})

	// The forge stores a variable's CRLF as LF (a lone CR
	// too, from Gitea 1.26): compared as it was sent, such a value differed
	// at every pass and was written again, with a DriftCorrected Event.
	It("writes a variable with CRLF line ends once, from a literal, a ConfigMap or a Secret", func() {
		const crlf = "line one\r\nline two\r\n"
		Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "eol"},
			Data: map[string]string{"value": crlf}})).To(Succeed())
		putSecret(ns, "ci-values", "value", "secret\r\nvalue\rwith a lone CR")
		variable := func(name string, scope forgev1.ActionsScope, value *string, from *forgev1.ActionsVariableValueFrom) *forgev1.ActionsVariable {
			return &forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.ActionsVariableSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
					ActionsScope: scope, Value: value, ValueFrom: from}}
		}
		org := forgev1.ActionsScope{Organization: ptr(forgev1.OwnerName("acme"))}
		repo := forgev1.ActionsScope{Repository: ptr(forgev1.RepositoryName("acme/web"))}
		vars := []*forgev1.ActionsVariable{
			variable("literal-eol", org, ptr(crlf), nil),
			variable("configmap-eol", repo, nil, &forgev1.ActionsVariableValueFrom{ConfigMapKeyRef: &forgev1.ConfigMapKeySelector{Name: "eol", Key: "value"}}),
			variable("secret-eol", repo, nil, &forgev1.ActionsVariableValueFrom{SecretKeyRef: &forgev1.SecretKeySelector{Name: "ci-values", Key: "value"}}),
		}
		for _, v := range vars {
			Expect(k8s.Create(ctx, v)).To(Succeed())
		}
		for _, v := range vars {
			expectReady(v)
		}
		Expect(variableValue(acme, "LITERAL_EOL")).To(Equal("line one\nline two\n"))
		Expect(variableValue(web, "CONFIGMAP_EOL")).To(Equal("line one\nline two\n"))
		Expect(variableValue(web, "SECRET_EOL")).To(Equal("secret\nvalue\nwith a lone CR"))

		By("at rest: each was written once, and no pass corrects it")
		Consistently(func() int { return writesTo("/actions/variables/") }, 3*syncInterval, poll).Should(Equal(len(vars)))
		for _, v := range vars {
			Expect(events(v)).NotTo(ContainElement(HavePrefix(forgev1.ReasonDriftCorrected)), v.Name)
		}
		Expect(leaks(vars[2], "with a lone CR")).To(BeEmpty())
	})

	It("observes without writing, and deletes by policy", func() {
		putSecret(ns, "ci-values", "token", "observed-value")
		observed := newSecret("token", true)
		observed.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		Expect(k8s.Create(ctx, observed)).To(Succeed())
		expectReason(observed, metav1.ConditionFalse, forgev1.ReasonNotFound)
		Expect(fake.WriteRequests()).To(BeEmpty())

		By("Observe reports a variable that differs, and leaves it")
		fc := forgeClient()
		Expect(fc.CreateActionsVariable(ctx, acme, "WATCHED", "as-on-the-forge", "")).To(Succeed())
		fake.ClearRequests()
		watched := &forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "watched"},
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"},
				SyncInterval: every(syncInterval), ManagementPolicy: forgev1.ManagementPolicyObserve},
				ActionsScope: forgev1.ActionsScope{Organization: ptr(forgev1.OwnerName("acme"))}, Value: ptr("as-in-git")}}
		Expect(k8s.Create(ctx, watched)).To(Succeed())
		Expect(expectReason(watched, metav1.ConditionFalse, forgev1.ReasonDriftDetected)).To(ContainSubstring("value"))
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(variableValue(acme, "WATCHED")).To(Equal("as-on-the-forge"))

		putSecret(ns, "ci-values", "gone", "g")
		putSecret(ns, "ci-values", "kept", "k")
		gone, kept := newSecret("gone", true), newSecret("kept", true)
		kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
		for _, s := range []*forgev1.ActionsSecret{gone, kept} {
			Expect(k8s.Create(ctx, s)).To(Succeed())
		}
		for _, s := range []*forgev1.ActionsSecret{gone, kept} {
			expectReady(s)
			Expect(k8s.Delete(ctx, s)).To(Succeed())
		}
		for _, s := range []*forgev1.ActionsSecret{gone, kept} {
			Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, key(ns, s.Name), s)) }, timeout, poll).Should(BeTrue())
		}
		_, ok := fake.ActionsSecretValue(web, "GONE")
		Expect(ok).To(BeFalse())
		_, ok = fake.ActionsSecretValue(web, "KEPT")
		Expect(ok).To(BeTrue())
	})
})
