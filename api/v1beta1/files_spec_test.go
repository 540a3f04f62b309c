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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A FileSet keeps in many repositories what a RepositoryFile keeps in one:
// a user moving files from one kind to the other writes the same fields,
// checked the same way and explained the same way (kubectl explain).
var _ = It("FileSet and RepositoryFile serve one schema, docs included, for branch, files, mode, message and author", func(ctx SpecContext) {
	spec := func(plural string) map[string]any {
		GinkgoHelper()
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: plural + ".forge.forgeops.dev"}, crd)).To(Succeed())
		versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
		Expect(err).NotTo(HaveOccurred())
		Expect(versions).NotTo(BeEmpty())
		Expect(versions[0]).To(HaveKeyWithValue("name", "v1beta1"))
		props, ok, err := unstructured.NestedMap(versions[0].(map[string]any),
			"schema", "openAPIV3Schema", "properties", "spec", "properties")
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue(), "%s has a spec schema", plural)
		return props
	}
	set, file := spec("filesets"), spec("repositoryfiles")
	for _, field := range []string{"branch", "files", "mode", "message", "author"} {
		Expect(set).To(HaveKey(field))
		Expect(set[field]).To(Equal(file[field]), "spec.%s", field)
	}
})
