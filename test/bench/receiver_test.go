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

package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// BenchmarkReceiver: a LabelSet and a BranchProtectionSet over an
// organization checked every 10 minutes, and a Receiver of it on a manager
// serving deliveries (the fake delivers as Gitea does). Printed, never
// asserted: the latency from a repository created on the forge to its
// labels and rule (p50 and p95 over 20 made one by one), and what 10,000
// deliveries with bad signatures cost: forge calls, Kubernetes writes, the
// manager's memory. Many repositories made at once, under every set of
// W2, are W2's receiver variant (BenchmarkW2).
func BenchmarkReceiver(b *testing.B) {
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	b.Run("sets=2/sync=10m/qps=10", func(b *testing.B) {
		for b.Loop() {
			runReceiver(b, cfg)
		}
	})
}

func runReceiver(b *testing.B, cfg *rest.Config) {
	ctx := context.Background()
	addr, err := freeLoopbackAddr()
	if err != nil {
		b.Fatal(err)
	}
	run := newRunWith(b, cfg, 10, 10*time.Minute, addr, func(fake *fakeforge.Server) {
		if _, err := fake.CreateOrg("acme"); err != nil {
			b.Fatal(err)
		}
	})
	defer run.stop()
	org := ptr(forgev1.OwnerName("acme"))
	run.apply(&forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: "labels"}, Spec: forgev1.LabelSetSpec{
		ManagedSpec: run.spec, Repositories: forgev1.RepositorySelector{Organization: org},
		Labels: []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}, {Name: "kind/feature", Color: "#a2eeef"}}}})
	run.apply(&forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: "rules"}, Spec: forgev1.BranchProtectionSetSpec{
		ManagedSpec: run.spec, Repositories: forgev1.RepositorySelector{Organization: org},
		Rules: []forgev1.BranchProtectionRule{{RuleName: "main", RequiredApprovals: ptr(int64(1))}}}})
	recv := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: "events"}, Spec: forgev1.ReceiverSpec{
		ManagedSpec: run.spec, Organizations: []forgev1.OwnerName{"acme"}, URL: "http://" + addr}}
	run.apply(recv)
	waitReady(b, run.k8s, run.ns, 4, 2*time.Minute)
	if err := run.k8s.Get(ctx, client.ObjectKeyFromObject(recv), recv); err != nil {
		b.Fatal(err)
	}
	governed := func(repo string) bool {
		labels := 0
		for _, l := range run.fake.Labels(forge.RepoScope("acme", repo)) {
			if strings.HasPrefix(l.Name, "kind/") {
				labels++
			}
		}
		return labels == 2 && len(run.fake.BranchProtections("acme", repo)) == 1
	}
	wait := func(repos []string, limit time.Duration) time.Duration {
		start := time.Now()
		for time.Since(start) < limit {
			if !slices.ContainsFunc(repos, func(r string) bool { return !governed(r) }) {
				return time.Since(start)
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.Fatalf("%d repositories not governed after %s", len(repos), limit)
		return 0
	}

	// One by one: the latency from the create to the labels and the rule.
	var lat []time.Duration
	for i := range 20 {
		name := fmt.Sprintf("one-%02d", i)
		start := time.Now()
		if err := run.fake.CreateRepo("acme", name); err != nil {
			b.Fatal(err)
		}
		wait([]string{name}, time.Minute)
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	fmt.Printf("  receiver: a repository created on the forge is governed after p50 %s, p95 %s (20 repositories, sync interval 10m)\n",
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*95/100].Round(time.Millisecond))

	// Hostile: deliveries with bad signatures cost nothing but the check.
	run.rec.reset()
	body := []byte(`{"action":"created","repository":{"name":"x","full_name":"acme/x","owner":{"login":"acme"}}}`)
	start := time.Now()
	refused := 0
	for i := range 10000 {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+recv.Status.Path, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-Gitea-Event", "repository")
		req.Header.Set("X-Gitea-Delivery", fmt.Sprintf("hostile-%d", i))
		req.Header.Set("X-Gitea-Signature", receiver.Signature([]byte("not-the-secret"), body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized {
			refused++
		}
	}
	calls, kube := run.rec.snapshot()
	writes := 0
	for k, n := range kube {
		if !strings.HasPrefix(k, "GET") && !strings.HasSuffix(k, "leases") {
			writes += n
		}
	}
	fmt.Printf("  receiver: 10000 deliveries with bad signatures in %s: %d refused (401), %d forge calls, %d Kubernetes writes; manager peak RSS %d MiB\n",
		time.Since(start).Round(time.Millisecond), refused, len(calls), writes, run.proc.peakRSS()>>20)
}
