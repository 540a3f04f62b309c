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

// The defaults are part of the contract: the controllers read them from the
// stored object, so they must be there after a create that omits them.
var _ = Describe("defaults", func() {
	_, _, _, _, defaults := kindRows()
	var ns string

	BeforeEach(func(ctx SpecContext) {
		ns = newNamespace(ctx, "defaults")
	})

	// storedAs creates u and reads the stored object back into out.
	storedAs := func(ctx SpecContext, u *unstructured.Unstructured, out client.Object) {
		GinkgoHelper()
		u.SetNamespace(ns)
		Expect(k8sClient.Create(ctx, u)).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), out)).To(Succeed())
	}

	// The API review (docs/api.md): every kind stores the deletionPolicy it
	// acts on, these four included, which defaulted in code alone before.
	// One spec over four kinds, so it is no single kind's and stays here.
	It("ActionsSecret, ActionsVariable, Team and RunnerRegistrationToken store deletionPolicy Delete", func(ctx SpecContext) {
		for _, kind := range []string{"ActionsSecret", "ActionsVariable", "Team", "RunnerRegistrationToken"} {
			u := obj(kind)
			stored := &unstructured.Unstructured{}
			stored.SetGroupVersionKind(u.GroupVersionKind())
			storedAs(ctx, u, stored)
			Expect(stored.Object).To(HaveKeyWithValue("spec", HaveKeyWithValue("deletionPolicy", "Delete")), kind)
		}
	})

	// Every kind's own defaults, registered from its file (registerKind).
	for _, d := range defaults {
		It(d.name, func(ctx SpecContext) { d.check(ctx, storedAs) })
	}
})
