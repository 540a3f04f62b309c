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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("LabelSet and BranchProtectionSet selecting repositories by topics", func() {
	var ns string
	ctx := context.Background()

	// acme: web carries go and service (written in mixed case: the forge
	// lower-cases), api only service, docs none.
	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fc := forgeClient()
		for name, topics := range map[string][]string{"web": {"Go", "service"}, "api": {"service"}, "docs": nil} {
			Expect(fake.CreateRepo("acme", name)).To(Succeed())
			Expect(fc.SetRepoTopics(ctx, "acme", name, topics)).To(Succeed())
		}
	})

	managed := func() forgev1.ManagedSpec {
		// An hour: a later pass comes only when requested.
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(time.Hour)}
	}
	byTopics := func(topics ...forgev1.Topic) forgev1.RepositorySelector {
		return forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme")), Topics: topics}
	}
	labelSet := func(name, color string, sel forgev1.RepositorySelector) *forgev1.LabelSet {
		return &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.LabelSetSpec{ManagedSpec: managed(), Repositories: sel,
				Labels: []forgev1.LabelSetLabel{{Name: "kind/bug", Color: color}}}}
	}
	labelsIn := func(repo string) map[string]string {
		out := map[string]string{}
		for _, l := range fake.Labels(forge.RepoScope("acme", repo)) {
			out[l.Name] = l.Color
		}
		return out
	}
	rulesIn := func(repo string) []string {
		var out []string
		for _, b := range fake.BranchProtections("acme", repo) {
			out = append(out, b.RuleName)
		}
		return out
	}
	requestPass := func(obj client.Object) {
		change(obj, func(o client.Object) {
			a := o.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[forgev1.ReconcileRequestedAtAnnotation] = time.Now().Format(time.RFC3339Nano)
			o.SetAnnotations(a)
		})
	}
	repositories := func(obj client.Object, st *forgev1.SetStatus) func(Gomega) int32 {
		return func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			g.Expect(st.InSync).To(Equal(st.Repositories))
			return st.Repositories
		}
	}

	It("writes only into the repositories carrying every topic, from the listing with no read per repository, and takes in one whose topic is added on the forge at the next pass", func() {
		fake.ClearRequests()
		ls := labelSet("services", "d73a4a", byTopics("go", "service"))
		bs := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "services"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: managed(), Repositories: byTopics("service", "go"),
				Rules: []forgev1.BranchProtectionRule{{RuleName: "main", RequiredApprovals: ptr(int64(1))}}}}
		Expect(k8s.Create(ctx, ls)).To(Succeed())
		Expect(k8s.Create(ctx, bs)).To(Succeed())
		expectReady(ls)
		expectReady(bs)
		Expect(ls.Status.Repositories).To(BeEquivalentTo(1))
		Expect(bs.Status.Repositories).To(BeEquivalentTo(1))
		Expect(labelsIn("web")).To(HaveKey("kind/bug"))
		Expect(rulesIn("web")).To(Equal([]string{"main"}))
		for _, r := range []string{"api", "docs"} {
			Expect(labelsIn(r)).To(BeEmpty(), r)
			Expect(rulesIn(r)).To(BeEmpty(), r)
		}
		for _, r := range fake.Requests() {
			Expect(r.Path).NotTo(HaveSuffix("/topics"), "topics come with the organization's listing")
			Expect(r.Path).NotTo(MatchRegexp(`^/api/v1/repos/acme/[^/]+$`), "no read per repository")
		}

		By("a topic added on the forge brings api in at the next pass")
		Expect(forgeClient().SetRepoTopics(ctx, "acme", "api", []string{"service", "go"})).To(Succeed())
		requestPass(ls)
		requestPass(bs)
		Eventually(func() map[string]string { return labelsIn("api") }, timeout, poll).Should(HaveKey("kind/bug"))
		Eventually(func() []string { return rulesIn("api") }, timeout, poll).Should(Equal([]string{"main"}))
		Eventually(repositories(ls, &ls.Status.SetStatus), timeout, poll).Should(BeEquivalentTo(2))
		Eventually(repositories(bs, &bs.Status.SetStatus), timeout, poll).Should(BeEquivalentTo(2))
		Expect(labelsIn("docs")).To(BeEmpty())
		Expect(rulesIn("docs")).To(BeEmpty())
	})

	It("is re-run when a Repository resource with its topics becomes Ready, and takes that repository only when it carries them", func() {
		ls := labelSet("services", "d73a4a", byTopics("service"))
		Expect(k8s.Create(ctx, ls)).To(Succeed())
		expectReady(ls)
		Expect(ls.Status.Repositories).To(BeEquivalentTo(2))

		// The set's interval is an hour: only the Repositories becoming
		// Ready re-run it.
		for name, topics := range map[string][]forgev1.Topic{"billing": {"service"}, "notes": nil} {
			r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: "acme", Topics: topics}}
			Expect(k8s.Create(ctx, r)).To(Succeed())
			expectReady(r)
		}
		Eventually(func() map[string]string { return labelsIn("billing") }, timeout, poll).Should(HaveKey("kind/bug"))
		Eventually(repositories(ls, &ls.Status.SetStatus), timeout, poll).Should(BeEquivalentTo(3))
		Expect(labelsIn("notes")).To(BeEmpty())
	})

	It("claims for an older set only the repositories carrying its topics: a younger set naming others writes there, and yields only where both apply", func() {
		older := labelSet("go", "d73a4a", byTopics("go"))
		Expect(k8s.Create(ctx, older)).To(Succeed())
		expectReady(older)
		younger := labelSet("named", "00ff00", forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web", "acme/docs"}})
		Expect(k8s.Create(ctx, younger)).To(Succeed())

		Eventually(func(g Gomega) []string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(younger), younger)).To(Succeed())
			var out []string
			for _, f := range younger.Status.Failures {
				out = append(out, f.Repository+" "+f.Reason)
			}
			return out
		}, timeout, poll).Should(Equal([]string{"acme/web Conflict"}))
		Eventually(func() map[string]string { return labelsIn("docs") }, timeout, poll).Should(HaveKeyWithValue("kind/bug", "00ff00"))
		Expect(labelsIn("web")).To(HaveKeyWithValue("kind/bug", "d73a4a"))
		Expect(slices.ContainsFunc(fake.WriteRequests(), func(r fakeforge.Request) bool {
			return r.Method == http.MethodPatch && strings.Contains(r.Path, "/repos/acme/web/labels")
		})).To(BeFalse(), "no write fight over web's label")
	})
})
