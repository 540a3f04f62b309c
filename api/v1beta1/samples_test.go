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
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
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

// place puts a sample into namespace ns, or, for a cluster-scoped kind
// (ClusterForge), leaves it without one and deletes it after the spec, so
// that the next spec applying the samples can create it again.
func place(ctx SpecContext, obj *unstructured.Unstructured, ns string) {
	GinkgoHelper()
	namespaced, err := k8sClient.IsObjectNamespaced(obj)
	Expect(err).NotTo(HaveOccurred(), "%s: its CRD is installed", obj.GetKind())
	if namespaced {
		obj.SetNamespace(ns)
		return
	}
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, obj))).To(Succeed())
	})
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
			Expect(s.file).To(Equal("forge_v1beta1_"+strings.ToLower(s.obj.GetKind())+".yaml"),
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
		clusterForges := map[string]*forgev1.ClusterForge{}
		for _, u := range byKind["ClusterForge"] {
			var cf forgev1.ClusterForge
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cf)).To(Succeed())
			clusterForges[cf.Name] = &cf
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
				switch {
				case kind == "Forge" || kind == "ClusterForge":
				case str(o, "spec", "forgeRef", "kind") == "ClusterForge":
					cf := clusterForges[str(o, "spec", "forgeRef", "name")]
					Expect(cf).NotTo(BeNil(), "%s names a ClusterForge the samples lack", id)
					expectPermitted(cf, o, id)
				default:
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
			place(ctx, s.obj, ns)
			Expect(k8sClient.Create(ctx, s.obj)).To(Succeed(), "%s: %s %s", s.file, s.obj.GetKind(), s.obj.GetName())
		}
	})
})

// expectPermitted checks that a sample naming ClusterForge cf is one its
// tenants entries let some namespace manage: an entry allows each of its
// owners (names or globs with * and ?, in any case), and for a site-admin
// kind (User) that entry has siteAdmin: true.
func expectPermitted(cf *forgev1.ClusterForge, u *unstructured.Unstructured, id string) {
	GinkgoHelper()
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	Expect(err).NotTo(HaveOccurred())
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj)).To(Succeed())
	managed, ok := obj.(forgev1.Managed)
	Expect(ok).To(BeTrue(), "%s is a managed kind", id)
	siteAdminOnly := forgev1.NeedsSiteAdmin(obj)
	Expect(managed.ForgeOwners()).NotTo(BeEmpty(), id)
	for _, owner := range managed.ForgeOwners() {
		allowed := slices.ContainsFunc(cf.Spec.Tenants, func(t forgev1.ClusterForgeTenant) bool {
			return (t.SiteAdmin || !siteAdminOnly) && slices.ContainsFunc(t.Owners, func(g forgev1.OwnerGlob) bool {
				ok, err := path.Match(strings.ToLower(string(g)), strings.ToLower(owner))
				return err == nil && ok
			})
		})
		Expect(allowed).To(BeTrue(), "%s: no tenants entry of ClusterForge %s allows owner %s (siteAdmin needed: %t)", id, cf.Name, owner, siteAdminOnly)
	}
}
