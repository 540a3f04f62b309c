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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Fairness between Forges", func() {
	ctx := context.Background()

	// deadServer is a fake forge behind a black hole that still forwards:
	// Forges made at it become Ready, until swallow.
	deadServer := func() *blackHole {
		fake := fakeforge.New(fakeforge.WithToken(token))
		srv := fake.Start()
		DeferCleanup(srv.Close)
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		return newBlackHole(srv.Listener.Addr().String())
	}
	// stuck waits until passes of labels are taking workers, and failing
	// by the timeout.
	stuck := func(labels []*forgev1.Label) {
		Eventually(func(g Gomega) {
			failed := 0
			for _, l := range labels {
				if c := ready(g, l); c != nil && c.Reason == forgev1.ReasonForgeError {
					failed++
				}
			}
			g.Expect(failed).To(BeNumerically(">=", 2))
		}, timeout, poll).Should(Succeed())
	}
	// otherTenantServed makes tenant B at a healthy forge: its new Forge and
	// Label are Ready within one reconcile timeout plus their own work each.
	otherTenantServed := func() {
		fakeB := fakeforge.New(fakeforge.WithToken(token))
		srvB := fakeB.Start()
		DeferCleanup(srvB.Close)
		_, err := fakeB.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		nsB, forgeB := tenant(srvB.URL)
		took := waitReady(forgeB, start)
		Expect(took).To(BeNumerically("<", reconcileTimeout+ownWork), "B's Forge was Ready after %s", took)
		l := label(nsB, "bug")
		start = time.Now()
		Expect(k8s.Create(ctx, l)).To(Succeed())
		took = waitReady(l, start)
		Expect(took).To(BeNumerically("<", reconcileTimeout+ownWork), "B's Label was Ready after %s", took)
		AddReportEntry("B's Label Ready after", took.String())
		Expect(fakeB.Labels(forge.OrgScope("acme"))).To(HaveLen(1))
	}

	It("delays another tenant's new resources by at most one reconcile timeout", func() {
		// Tenant A: a Forge that was Ready, then its server stops answering
		// while A has many Labels to reconcile; each pass hangs until the
		// reconcile timeout and is retried within a second.
		hole := deadServer()
		nsA, forgeA := tenant(hole.URL())
		waitReady(forgeA, time.Now())
		hole.swallow()
		var labelsA []*forgev1.Label
		for i := range 20 {
			l := label(nsA, fmt.Sprintf("a-%02d", i))
			Expect(k8s.Create(ctx, l)).To(Succeed())
			labelsA = append(labelsA, l)
		}
		stuck(labelsA)
		otherTenantServed()
	})

	It("caps a tenant's many Forges at one dead server by namespace: another namespace's Label is Ready within one reconcile timeout", func() {
		hole := deadServer()
		nsA, first := tenant(hole.URL())
		forges := []*forgev1.Forge{first}
		for i := range 3 {
			f := first.DeepCopy()
			f.ObjectMeta = metav1.ObjectMeta{Namespace: nsA, Name: fmt.Sprintf("gitea-%d", i)}
			f.Status = forgev1.ForgeStatus{}
			Expect(k8s.Create(ctx, f)).To(Succeed())
			forges = append(forges, f)
		}
		for _, f := range forges {
			waitReady(f, time.Now())
		}
		hole.swallow()
		var labelsA []*forgev1.Label
		for _, f := range forges {
			for i := range 3 {
				l := label(nsA, fmt.Sprintf("%s-%d", f.Name, i))
				l.Spec.ForgeRef.Name = f.Name
				Expect(k8s.Create(ctx, l)).To(Succeed())
				labelsA = append(labelsA, l)
			}
		}
		stuck(labelsA)
		otherTenantServed()

		// Counted: the dead server never held more Label passes at once
		// than the namespace's share of the pool, four Forges or not.
		peak := hole.peak.Load()
		AddReportEntry("passes in flight at the dead server, at most", peak)
		Expect(peak).To(BeNumerically("<=", workers-1), "passes held by one namespace at once")
	})
})
