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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// Both versions through the real API server: every kind's sample written
// at one version, its status too, reads back the same at the other (spec,
// status, metadata), in both directions; every request at v1alpha1 gets
// the deprecation warning naming v1beta1, and none at v1beta1 does.
var _ = Describe("API versions", func() {
	It("every sample reads back identically at v1alpha1 and v1beta1, status included, and only v1alpha1 warns", func(ctx SpecContext) {
		warnings := &testenv.Warnings{}
		cfg := rest.CopyConfig(env.Config)
		cfg.WarningHandlerWithContext = warnings
		c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme, FieldValidation: metav1.FieldValidationStrict})
		Expect(err).NotTo(HaveOccurred())
		at := func(u *unstructured.Unstructured, version string) *unstructured.Unstructured {
			out := &unstructured.Unstructured{}
			out.SetAPIVersion(forgev1.GroupVersion.Group + "/" + version)
			out.SetKind(u.GetKind())
			out.SetNamespace(u.GetNamespace())
			out.SetName(u.GetName())
			return out
		}
		// same: u and v are the one object, apart from apiVersion.
		same := func(u, v *unstructured.Unstructured, what string) {
			GinkgoHelper()
			for _, field := range []string{"spec", "status", "metadata"} {
				Expect(v.Object[field]).To(Equal(u.Object[field]), "%s: %s", what, field)
			}
		}
		expectWarned := func(kind string, want bool, what string) {
			GinkgoHelper()
			got := warnings.Take()
			if !want {
				Expect(got).To(BeEmpty(), "%s at v1beta1", what)
				return
			}
			Expect(got).NotTo(BeEmpty(), "%s at v1alpha1", what)
			Expect(got).To(HaveEach(Equal(v1alpha1.DeprecationWarning(kind))), what)
		}
		for _, way := range []struct{ write, read string }{{"v1alpha1", "v1beta1"}, {"v1beta1", "v1alpha1"}} {
			ns := newNamespace(ctx, "versions")
			for _, s := range readSamples() {
				obj := s.obj.DeepCopy()
				place(ctx, obj, ns)
				kind, what := obj.GetKind(), s.file+" "+obj.GetName()+" written at "+way.write
				written := obj.DeepCopy()
				written.SetAPIVersion(forgev1.GroupVersion.Group + "/" + way.write)
				Expect(c.Create(ctx, written)).To(Succeed(), what)
				expectWarned(kind, way.write == "v1alpha1", what)
				Expect(unstructured.SetNestedField(written.Object, written.GetGeneration(), "status", "observedGeneration")).To(Succeed())
				Expect(unstructured.SetNestedSlice(written.Object, []any{map[string]any{
					"type": forgev1.ConditionReady, "status": "True", "reason": forgev1.ReasonSynced, "message": "the forge object equals the spec",
					"observedGeneration": written.GetGeneration(), "lastTransitionTime": "2026-12-02T10:00:00Z",
				}}, "status", "conditions")).To(Succeed())
				Expect(c.Status().Update(ctx, written)).To(Succeed(), what)
				expectWarned(kind, way.write == "v1alpha1", what)

				for _, version := range []string{way.read, way.write} {
					read := at(written, version)
					Expect(c.Get(ctx, client.ObjectKeyFromObject(written), read)).To(Succeed(), what)
					expectWarned(kind, version == "v1alpha1", what)
					same(written, read, what+", read at "+version)
				}
				if !namespaced(obj) {
					// Cluster-scoped (ClusterForge): gone before the other
					// direction writes the same name.
					Expect(k8sClient.Delete(ctx, obj)).To(Succeed())
					expectWarned(kind, false, what)
				}
			}
		}
	})
})

// namespaced says whether u's kind is namespaced.
func namespaced(u *unstructured.Unstructured) bool {
	GinkgoHelper()
	ok, err := k8sClient.IsObjectNamespaced(u)
	Expect(err).NotTo(HaveOccurred())
	return ok
}
