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
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// Credentials the specs hand the operator; none may ever show in a status,
// an Event or the manager's log.
const (
	rotatedToken  = "r0tat3d-t0ken-value"
	basicPassword = "b4sic-p4ssw0rd-value"
)

var secretValues = []string{token, rotatedToken, basicPassword}

// Checks that hold after every spec of the suite, whatever it did.
var _ = AfterEach(func() {
	for _, obj := range allForgeObjects() {
		// kstatus: every resource that says it is Ready for its generation is Current.
		if c := meta.FindStatusCondition(obj.(forgev1.ConditionsAccessor).GetConditions(), forgev1.ConditionReady); c != nil &&
			c.Status == metav1.ConditionTrue && c.ObservedGeneration == obj.GetGeneration() && obj.GetDeletionTimestamp().IsZero() {
			Expect(kstatusOf(obj).Status).To(Equal(status.CurrentStatus), "kstatus of Ready %T %s/%s", obj, obj.GetNamespace(), obj.GetName())
		}
	}
	expectNoSecretsShown()
})

// kstatusOf computes obj's kstatus as kubectl, Flux and the cli-utils
// appliers do, from its unstructured form.
func kstatusOf(obj client.Object) *status.Result {
	GinkgoHelper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	Expect(err).NotTo(HaveOccurred())
	res, err := status.Compute(&unstructured.Unstructured{Object: u})
	Expect(err).NotTo(HaveOccurred())
	return res
}

// expectKstatus waits until obj's kstatus is want.
func expectKstatus(obj client.Object, want status.Status) {
	GinkgoHelper()
	Eventually(func(g Gomega) status.Status {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		return kstatusOf(obj).Status
	}, timeout, poll).Should(Equal(want))
}

// allForgeObjects lists every forge.forgeops.dev resource in every namespace.
func allForgeObjects() []client.Object {
	GinkgoHelper()
	var out []client.Object
	for _, list := range testenv.Lists() {
		Expect(k8s.List(context.Background(), list)).To(Succeed())
		items, err := meta.ExtractList(list)
		Expect(err).NotTo(HaveOccurred())
		for _, it := range items {
			out = append(out, it.(client.Object))
		}
	}
	return out
}

// expectNoSecretsShown checks that no credential the specs use appears in
// any resource's status, in any Event, or in the manager's log.
func expectNoSecretsShown() {
	GinkgoHelper()
	for _, obj := range allForgeObjects() {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		Expect(err).NotTo(HaveOccurred())
		raw, err := json.Marshal(u["status"])
		Expect(err).NotTo(HaveOccurred())
		for _, v := range secretValues {
			Expect(string(raw)).NotTo(ContainSubstring(v), "status of %s/%s", obj.GetNamespace(), obj.GetName())
		}
	}
	var evs corev1.EventList
	Expect(k8s.List(context.Background(), &evs)).To(Succeed())
	for _, e := range evs.Items {
		for _, v := range secretValues {
			Expect(e.Message+" "+e.Reason).NotTo(ContainSubstring(v), "Event %s/%s", e.Namespace, e.Name)
		}
	}
	l := logs.String()
	for _, v := range secretValues {
		Expect(strings.Contains(l, v)).To(BeFalse(), "the manager log shows a credential")
	}
}

// counterValue reads a counter of the controller-runtime metrics registry,
// where the manager registers ours; 0 when the series does not exist yet.
func counterValue(name string, labels map[string]string) float64 {
	GinkgoHelper()
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
