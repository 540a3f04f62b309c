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

package v1beta1_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// docObjects decodes the objects of the ```yaml blocks of one page.
func docObjects(page string) []testenv.Sample {
	GinkgoHelper()
	objs, err := testenv.DocObjects(page)
	Expect(err).NotTo(HaveOccurred())
	return objs
}

var _ = Describe("the documentation's examples", func() {
	It("README.md holds one complete example whose objects refer to each other", func() {
		byKind := map[string]map[string]*unstructured.Unstructured{}
		for _, s := range docObjects("README.md") {
			Expect(s.Object).NotTo(BeNil(), "%s: every document of the README's example is an object", s.File)
			Expect(s.Object.GetKind()).NotTo(BeEmpty(), "%s: every document of the README's example is an object", s.File)
			if byKind[s.Object.GetKind()] == nil {
				byKind[s.Object.GetKind()] = map[string]*unstructured.Unstructured{}
			}
			byKind[s.Object.GetKind()][s.Object.GetName()] = s.Object
		}
		for _, kind := range []string{"Secret", "Forge", "Organization", "Team", "Repository", "BranchProtection", "ActionsSecret"} {
			Expect(byKind).To(HaveKey(kind), "the README's example has a %s", kind)
		}
		hasKey := func(secret, key string) bool {
			s := byKind["Secret"][secret]
			if s == nil {
				return false
			}
			_, ok, _ := unstructured.NestedString(s.Object, "stringData", key)
			return ok
		}
		for _, f := range byKind["Forge"] {
			Expect(hasKey(str(f, "spec", "auth", "tokenSecretRef", "name"), "token")).To(BeTrue(),
				"Forge %s: its token Secret is in the example", f.GetName())
		}
		for kind, objs := range byKind {
			for _, o := range objs {
				if kind == "Secret" || kind == "Forge" {
					continue
				}
				id := kind + "/" + o.GetName()
				Expect(byKind["Forge"]).To(HaveKey(str(o, "spec", "forgeRef", "name")), "%s names the example's Forge", id)
				owner := str(o, "spec", "owner") + str(o, "spec", "organization")
				if repo := str(o, "spec", "repository"); repo != "" {
					owner = strings.Split(repo, "/")[0]
					Expect(byKind["Repository"]).To(HaveKey(strings.Split(repo, "/")[1]), "%s is in the example's repository", id)
				}
				if kind != "Organization" {
					Expect(byKind["Organization"]).To(HaveKey(owner), "%s is in the example's organization", id)
				}
				if ref := str(o, "spec", "valueFrom", "secretKeyRef", "name"); ref != "" {
					Expect(hasKey(ref, str(o, "spec", "valueFrom", "secretKeyRef", "key"))).To(BeTrue(), "%s: its Secret is in the example", id)
				}
			}
		}
	})

	It("are accepted by the API server as they are", func(ctx SpecContext) {
		pages, err := testenv.DocPages()
		Expect(err).NotTo(HaveOccurred())
		applied := map[string]int{}
		shown := map[string]bool{}
		for _, page := range pages {
			ns := newNamespace(ctx, "docs")
			for _, s := range docObjects(page) {
				// README.md's example is applied whole; the pages' blocks also
				// hold snippets and other tools' YAML (Flux, NetworkPolicy,
				// CI), of which only the operator's kinds and Secrets are this
				// API's to check.
				if page == "README.md" {
					Expect(s.Object).NotTo(BeNil(), "%s: every document of the README's example is an object", s.File)
				} else if s.Object == nil || s.Object.GetAPIVersion() != forgev1.GroupVersion.String() && s.Object.GetKind() != "Secret" {
					continue
				}
				place(ctx, s.Object, ns)
				Expect(k8sClient.Create(ctx, s.Object, client.DryRunAll)).To(Succeed(),
					"%s: %s %s", s.File, s.Object.GetKind(), s.Object.GetName())
				applied[page]++
				shown[s.Object.GetKind()] = true
			}
		}
		Expect(applied).To(HaveKeyWithValue("README.md", BeNumerically(">=", 8)))
		for _, kind := range testenv.Kinds() {
			Expect(shown).To(HaveKey(kind), "the docs show an example of every kind")
		}
	})
})
