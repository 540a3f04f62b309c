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

package v1alpha1_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/testenv"
)

var samplesDir = filepath.Join(testenv.RepoRoot(), "config", "samples")

// kustomization is the part of config/samples/kustomization.yaml we check.
type kustomization struct {
	Namespace string   `json:"namespace"`
	Resources []string `json:"resources"`
}

func readKustomization() kustomization {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(samplesDir, "kustomization.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var k kustomization
	Expect(yaml.Unmarshal(raw, &k)).To(Succeed())
	return k
}

// sample is one object of a sample file.
type sample struct {
	file string
	obj  *unstructured.Unstructured
}

// readSamples decodes every YAML document of the files kustomization.yaml lists.
func readSamples() []sample {
	GinkgoHelper()
	samples, err := testenv.Samples()
	Expect(err).NotTo(HaveOccurred())
	var out []sample
	for _, s := range samples {
		out = append(out, sample{file: s.File, obj: s.Object})
	}
	return out
}

func str(u *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, path...)
	return s
}

var _ = Describe("config/samples", func() {
	It("lists every sample file in kustomization.yaml, one kind per file, without a namespace", func() {
		k := readKustomization()
		Expect(k.Namespace).To(BeEmpty(), "the namespace is given at apply time")
		files, err := filepath.Glob(filepath.Join(samplesDir, "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var onDisk []string
		for _, f := range files {
			if base := filepath.Base(f); base != "kustomization.yaml" {
				onDisk = append(onDisk, base)
			}
		}
		Expect(k.Resources).To(ConsistOf(onDisk))

		for _, s := range readSamples() {
			Expect(s.obj.GetAPIVersion()).To(Equal(forgev1.GroupVersion.String()), s.file)
			Expect(s.file).To(Equal("forge_v1alpha1_"+strings.ToLower(s.obj.GetKind())+".yaml"),
				"%s %s is in the wrong file", s.obj.GetKind(), s.obj.GetName())
			Expect(s.obj.GetNamespace()).To(BeEmpty(), "%s/%s: the namespace is given at apply time", s.file, s.obj.GetName())
		}
	})

	It("form one coherent scene", func() {
		byKind := map[string][]*unstructured.Unstructured{}
		seen := map[string]bool{}
		for _, s := range readSamples() {
			id := s.obj.GetKind() + "/" + s.obj.GetName()
			Expect(seen).NotTo(HaveKey(id), "%s appears twice", id)
			seen[id] = true
			byKind[s.obj.GetKind()] = append(byKind[s.obj.GetKind()], s.obj)
		}
		for _, kind := range testenv.Kinds() {
			Expect(byKind).To(HaveKey(kind), "one or more samples of each kind")
		}
		for kind := range byKind {
			Expect(testenv.Kinds()).To(ContainElement(kind), "a sample of a kind the API does not have")
		}

		forges := map[string]bool{}
		for _, f := range byKind["Forge"] {
			forges[f.GetName()] = true
		}
		orgs := map[string]bool{}
		for _, o := range byKind["Organization"] {
			name := str(o, "spec", "name")
			if name == "" {
				name = o.GetName()
			}
			orgs[name] = true
		}
		labelKeys := map[string]bool{}
		var scoped, orgWide, inRepo int
		for kind, objs := range byKind {
			for _, o := range objs {
				id := kind + "/" + o.GetName()
				if kind != "Forge" {
					Expect(forges).To(HaveKey(str(o, "spec", "forgeRef", "name")), "%s names a Forge the samples lack", id)
				}
				if org := str(o, "spec", "organization") + str(o, "spec", "repositories", "organization"); org != "" {
					Expect(orgs).To(HaveKey(org), "%s is in an organization the samples lack", id)
				}
				if repo := str(o, "spec", "repository"); repo != "" {
					Expect(orgs).To(HaveKey(strings.Split(repo, "/")[0]), "%s is in a repository of an organization the samples lack", id)
				}
				if kind != "Label" {
					continue
				}
				name := str(o, "spec", "name")
				if name == "" {
					name = o.GetName()
				}
				scope := str(o, "spec", "organization") + str(o, "spec", "repository")
				Expect(labelKeys).NotTo(HaveKey(scope+":"+name), "two Labels manage %q in %s", name, scope)
				labelKeys[scope+":"+name] = true
				if str(o, "spec", "organization") != "" {
					orgWide++
				} else {
					inRepo++
				}
				if exclusive, _, _ := unstructured.NestedBool(o.Object, "spec", "exclusive"); exclusive && strings.Contains(name, "/") {
					scoped++
				}
			}
		}
		Expect(byKind["Label"]).To(HaveLen(len(labelKeys)))
		Expect(len(labelKeys)).To(BeNumerically(">=", 8), "a realistic label set")
		Expect(orgWide).To(BeNumerically(">", 0), "some labels are organization-wide")
		Expect(inRepo).To(BeNumerically(">", 0), "some labels belong to a repository")
		Expect(scoped).To(BeNumerically(">=", 4), "scoped exclusive labels such as kind/bug and priority/high")
	})

	It("are accepted by the API server as they are", func(ctx SpecContext) {
		ns := newNamespace(ctx, "samples")
		for _, s := range readSamples() {
			s.obj.SetNamespace(ns)
			Expect(k8sClient.Create(ctx, s.obj)).To(Succeed(), "%s: %s %s", s.file, s.obj.GetKind(), s.obj.GetName())
		}
	})
})
