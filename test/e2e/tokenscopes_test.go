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
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// scopeTarget is a forge the token scope spec runs on: its URL, a client
// with every scope (acting as a person), and an admin's login and
// password, with which scoped tokens are made (only HTTP Basic may make
// tokens).
type scopeTarget struct {
	url, user, password string
	admin               *forge.Client
}

// scopeTargets: the live server (hack/gitea sets FORGE_USER and
// FORGE_PASSWORD), or fakes of their own as Gitea 1.27 and 1.26.
func scopeTargets() []scopeTarget {
	GinkgoHelper()
	if live {
		user, password := os.Getenv("FORGE_USER"), os.Getenv("FORGE_PASSWORD")
		Expect(user).NotTo(BeEmpty(), "set FORGE_USER and FORGE_PASSWORD (an admin's) to make scoped tokens")
		return []scopeTarget{{url: forgeURL, user: user, password: password, admin: fc}}
	}
	var out []scopeTarget
	for _, v := range []string{"1.27.3", "1.26.4"} {
		f := fakeforge.New(fakeforge.WithVersion(v), fakeforge.WithBasicAuth("root", "s3cret"), fakeforge.WithoutProjects())
		srv := f.Start()
		DeferCleanup(srv.Close)
		c, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1, Timeout: 30 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		out = append(out, scopeTarget{url: srv.URL, user: "root", password: "s3cret", admin: c})
	}
	return out
}

// token makes a token of the target's admin with scopes and gives its value.
func (st scopeTarget) token(scopes ...string) string {
	GinkgoHelper()
	body, err := json.Marshal(map[string]any{"name": unique("scoped"), "scopes": scopes})
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequest(http.MethodPost, st.url+"/api/v1/users/"+st.user+"/tokens", strings.NewReader(string(body)))
	Expect(err).NotTo(HaveOccurred())
	req.SetBasicAuth(st.user, st.password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	var made struct {
		SHA1 string `json:"sha1"`
	}
	Expect(resp.StatusCode).To(Equal(http.StatusCreated))
	Expect(json.NewDecoder(resp.Body).Decode(&made)).To(Succeed())
	return made.SHA1
}

var _ = Describe("Token scopes end to end", func() {
	ctx := context.Background()

	It("stalls an Organization change its token may not write, InsufficientScope with no write, and resumes with a token that may; before 1.27 the forge's 403 stalls as before", func() {
		for _, st := range scopeTargets() {
			v, err := st.admin.Version(ctx)
			Expect(err).NotTo(HaveOccurred())
			server := forge.NewServer(v)
			By(fmt.Sprintf("on %s", server.Name()))
			org := unique("scope")
			_, err = st.admin.CreateOrg(ctx, forge.CreateOrgOption{Name: org})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { _ = st.admin.DeleteOrg(ctx, org) })
			counter := newWriteCounter(st.url)

			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-scope-"}}
			Expect(k8s.Create(ctx, ns)).To(Succeed())
			DeferCleanup(func() { removeAll(ns.Name) })
			putSecret(ns.Name, "scoped-token", "token", st.token("read:organization"))
			f := &forgev1.Forge{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
				Spec: forgev1.ForgeSpec{URL: counter.srv.URL,
					Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "scoped-token"}}},
			}
			Expect(k8s.Create(ctx, f)).To(Succeed())
			o := &forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "org"},
				Spec: forgev1.OrganizationSpec{ManagedSpec: managed(), Name: ptr(forgev1.OwnerName(org)), Description: ptr("kept by the operator")}}

			if !server.Offers(forge.GateTokenScopes) {
				// GET /user needs read:user: the Forge's own check is
				// refused, and its resources wait on it, writing nothing.
				Expect(expectReason(f, metav1.ConditionFalse, forgev1.ReasonUnauthorized)).To(ContainSubstring("required=[read:user]"))
				Expect(f.Status.TokenScopes).To(BeEmpty())
				Expect(k8s.Create(ctx, o)).To(Succeed())
				Expect(expectReason(o, metav1.ConditionFalse, forgev1.ReasonForgeNotReady)).To(ContainSubstring("required=[read:user]"))
				Expect(counter.Writes()).To(BeEmpty())
				continue
			}

			Expect(expectReady(f)).To(Equal(forgev1.ReasonConnected))
			Expect(k8s.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: "gitea"}, f)).To(Succeed())
			Expect(f.Status.TokenScopes).To(Equal([]string{"read:organization"}))
			Expect(f.Status.Login).To(Equal(st.user))
			Expect(readyCondition(f)(Default).Message).To(ContainSubstring("token scopes: read:organization"))

			Expect(k8s.Create(ctx, o)).To(Succeed())
			Expect(expectReason(o, metav1.ConditionFalse, forgev1.ReasonInsufficientScope)).
				To(And(ContainSubstring("write:organization"), ContainSubstring("read:organization")))
			Expect(counter.Writes()).To(BeEmpty())

			By("one that matches needs no write and is Ready; its deletion, a write, stalls too")
			other := unique("scope")
			_, err = st.admin.CreateOrg(ctx, forge.CreateOrgOption{Name: other})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { _ = st.admin.DeleteOrg(ctx, other) })
			kept := &forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "other"},
				Spec: forgev1.OrganizationSpec{ManagedSpec: managed(), Name: ptr(forgev1.OwnerName(other)), DeletionPolicy: forgev1.DeletionPolicyDelete}}
			Expect(k8s.Create(ctx, kept)).To(Succeed())
			expectReady(kept)
			Expect(k8s.Delete(ctx, kept)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(k8s.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: "other"}, kept)).To(Succeed())
				c := readyCondition(kept)(g)
				g.Expect(c.Reason).To(Equal(forgev1.ReasonInsufficientScope))
				g.Expect(c.Message).To(ContainSubstring("write:organization"))
			}, timeout, poll).Should(Succeed())
			Expect(counter.Writes()).To(BeEmpty())

			By("a token with write:organization: the Forge's scopes change and the Organization resumes")
			putSecret(ns.Name, "scoped-token", "token", st.token("write:organization"))
			expectReady(o)
			Expect(k8s.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: "gitea"}, f)).To(Succeed())
			Expect(f.Status.TokenScopes).To(Equal([]string{"write:organization"}))
			got, err := st.admin.GetOrg(ctx, org)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Description).To(Equal("kept by the operator"))
			Eventually(func() error {
				_, err := st.admin.GetOrg(ctx, other)
				return err
			}, timeout, poll).Should(Satisfy(forge.IsNotFound))
			Expect(counter.Writes()).To(ConsistOf("PATCH /api/v1/orgs/"+org, "DELETE /api/v1/orgs/"+other))
		}
	})
})
