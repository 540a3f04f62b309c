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
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Fields that identify the forge object cannot change: the operator would
// otherwise lose track of the object it created, or (templateType) the forge
// applies the value at creation only.
var _ = Describe("immutable fields", func() {
	_, _, immutable, mutable, _ := kindRows()
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx, "immutable")
	})

	// stored creates the object for real: update validation compares with
	// the stored version.
	stored := func(ctx SpecContext, u *unstructured.Unstructured) *unstructured.Unstructured {
		GinkgoHelper()
		u.SetNamespace(ns)
		Expect(k8sClient.Create(ctx, u)).To(Succeed())
		return u
	}

	// update applies edits to the stored object and writes it back.
	update := func(ctx SpecContext, u *unstructured.Unstructured, edits ...edit) error {
		GinkgoHelper()
		current := &unstructured.Unstructured{}
		current.SetGroupVersionKind(u.GroupVersionKind())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), current)).To(Succeed())
		for _, e := range edits {
			e(current.Object)
		}
		return k8sClient.Update(ctx, current)
	}

	DescribeTable("refuses a change", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured, change []edit, field string) {
			o := stored(ctx, u)
			expectRejected(update(ctx, o, change...), field)
		},
	}, immutable...)...)

	// The immutability rules must not freeze the whole object.
	DescribeTable("allows changes to mutable fields", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured, change []edit) {
			o := stored(ctx, u)
			Expect(update(ctx, o, change...)).To(Succeed())
		},
	}, mutable...)...)
})
