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
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// kstatus (Flux, kubectl wait --for, cli-utils appliers) reads a custom
// resource without status as Current. Every kind defaults
// status.observedGeneration to -1, so that an object no controller has
// written yet reads as InProgress, and only the operator's Ready for the
// object's generation makes it Current.
var _ = Describe("kstatus health", func() {
	It("reads every kind InProgress before the operator writes its status, and Current once Ready for its generation", func(ctx SpecContext) {
		ns := newNamespace(ctx, "health")
		kinds := map[string]bool{}
		for _, s := range readSamples() {
			o := s.obj.DeepCopy()
			place(ctx, o, ns)
			Expect(k8sClient.Create(ctx, o)).To(Succeed(), "%s %s", o.GetKind(), o.GetName())
			kinds[o.GetKind()] = true

			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GroupVersionKind())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), got)).To(Succeed())
			gen, found, err := unstructured.NestedInt64(got.Object, "status", "observedGeneration")
			Expect(err).NotTo(HaveOccurred())
			Expect(found).To(BeTrue(), "%s: status.observedGeneration defaulted", o.GetKind())
			Expect(gen).To(Equal(int64(-1)), o.GetKind())
			res, err := status.Compute(got)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Status).To(Equal(status.InProgressStatus), "%s before any status write: %s", o.GetKind(), res.Message)

			// What the operator writes once the object is Ready.
			now := metav1.Now()
			Expect(unstructured.SetNestedField(got.Object, got.GetGeneration(), "status", "observedGeneration")).To(Succeed())
			Expect(unstructured.SetNestedSlice(got.Object, []any{map[string]any{
				"type": "Ready", "status": "True", "reason": "Synced", "message": "in sync",
				"observedGeneration": got.GetGeneration(), "lastTransitionTime": now.UTC().Format("2006-01-02T15:04:05Z"),
			}}, "status", "conditions")).To(Succeed())
			Expect(k8sClient.Status().Update(ctx, got)).To(Succeed(), o.GetKind())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), got)).To(Succeed())
			res, err = status.Compute(got)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Status).To(Equal(status.CurrentStatus), "%s when Ready: %s", o.GetKind(), res.Message)
		}
		for _, kind := range testenv.Kinds() {
			Expect(kinds).To(HaveKey(kind), "the sample of every kind is checked")
		}
	})
})
