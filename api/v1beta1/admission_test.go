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
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// topics is n distinct valid topics.
func topics(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("topic-%d", i)
	}
	return out
}

// Forge names at and just past the forge's limit of 40 characters.
var (
	name40 = "acme-" + strings.Repeat("x", 35)
	name41 = name40 + "y"
)

// dryRunCreate submits u for admission. Admission is synchronous and the
// objects are never needed again: a dry-run create runs the full validation
// without storing anything.
func dryRunCreate(ctx SpecContext, u *unstructured.Unstructured) error {
	u.SetNamespace(dryRunNamespace)
	return k8sClient.Create(ctx, u, client.DryRunAll)
}

// The admission tables: every kind's rows, registered from the kind's own
// <kind>_admission_test.go (registerKind).
var _ = Describe("admission", func() {
	accepted, rejected, _, _, _ := kindRows()

	DescribeTable("accepts valid objects, edge cases included", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured) {
			Expect(dryRunCreate(ctx, u)).To(Succeed())
		},
	}, accepted...)...)

	DescribeTable("rejects an invalid object, naming the offending field", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured, field string) {
			expectRejected(dryRunCreate(ctx, u), field)
		},
	}, rejected...)...)
})
