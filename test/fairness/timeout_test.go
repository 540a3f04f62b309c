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

package fairness

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
)

// ownWork is what a healthy tenant's pass may take on a busy CI machine:
// its Forge check or its Label's few forge calls and status writes.
const ownWork = 7 * time.Second

// forgeError waits until obj's Ready is False with reason ForgeError and
// returns the message.
func forgeError(g Gomega, obj client.Object) string {
	c := ready(g, obj)
	g.Expect(c).NotTo(BeNil(), "no Ready condition yet")
	g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
	g.Expect(c.Reason).To(Equal(forgev1.ReasonForgeError), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
	return c.Message
}

var _ = Describe("A forge that never answers", func() {
	ctx := context.Background()

	It("ends a Forge's check by the reconcile timeout with a ForgeError, and a Label's pass too", func() {
		fake := fakeforge.New(fakeforge.WithToken(token))
		srv := fake.Start()
		DeferCleanup(srv.Close)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		hole := newBlackHole(srv.Listener.Addr().String())
		hole.swallow()

		start := time.Now()
		ns, f := tenant(hole.URL())
		var msg string
		Eventually(func(g Gomega) { msg = forgeError(g, f) }, timeout, poll).Should(Succeed())
		took := time.Since(start)
		// Without the deadline the Forge's one-minute request timeout would end it.
		Expect(took).To(BeNumerically("<", reconcileTimeout+ownWork), "the Forge got its ForgeError after %s", took)
		Expect(msg).To(ContainSubstring("reconciliation timeout"))
		Expect(msg).NotTo(ContainSubstring(token))

		// A Label whose Forge was Ready when its forge stopped answering.
		fake2 := fakeforge.New(fakeforge.WithToken(token))
		srv2 := fake2.Start()
		DeferCleanup(srv2.Close)
		_, err = fake2.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		hole2 := newBlackHole(srv2.Listener.Addr().String())
		f.Spec.URL = hole2.URL()
		Expect(k8s.Update(ctx, f)).To(Succeed())
		waitReady(f, time.Now())
		hole2.swallow()
		l := label(ns, "bug")
		start = time.Now()
		Expect(k8s.Create(ctx, l)).To(Succeed())
		Eventually(func(g Gomega) { msg = forgeError(g, l) }, timeout, poll).Should(Succeed())
		took = time.Since(start)
		Expect(took).To(BeNumerically("<", reconcileTimeout+ownWork), "the Label got its ForgeError after %s", took)
		Expect(msg).To(ContainSubstring("reconciliation timeout"))
	})
})
