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
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// estates is the W3 shape (many forge servers): forges Forges,
// each in a namespace of its own and on a fake server of its own, each
// with the same estate.
type estates struct {
	forges int
	estate workload
}

func (w estates) objects() int { return w.forges * w.estate.objects() }

// W1/20 is W1 divided by 20: one organization with its 5 hooks, project
// and runner setting, and 50 labels (25 in each of 2 repositories): 58
// objects. W3 is 40 of them (2,320 objects); W3/small 4 (232).
var (
	w1Twentieth = workload{orgs: 1, repos: 2, hooksPerOrg: 5, labelsPerRepo: 25}
	w3          = estates{forges: 40, estate: w1Twentieth}
	w3Small     = estates{forges: 4, estate: w1Twentieth}
)

// BenchmarkW3 applies W3 at once to one manager serving every Forge, then
// (on an API server of its own) to two shards: the default manager and one
// started with --shard=b, every other Forge labelled
// forge.forgeops.dev/shard: b (on the Forge only: the default manager
// labels their resources, docs/shards.md). Each manager is the operator's
// binary in a process of its own, at its default flags, sync interval 30 s,
// reaching the API server through a counting proxy of its own. Printed,
// never asserted: seconds to all Ready, and per manager its peak RSS and
// CPU, its Kubernetes writes per object it serves (the shard-label PATCHes
// among them), its forge calls (told apart by User-Agent), and at rest its
// forge and Kubernetes reads per object per sync interval.
//
// W3_SIZES=small runs 4 Forges (W3/small) instead of 40. W3_REST (or
// W1_REST) sets how long the at-rest phase watches (default 3 intervals);
// W3_LIMIT the wait for Ready (default 30 minutes; a run not Ready by then
// prints the figures it reached).
func BenchmarkW3(b *testing.B) {
	name, w := "W3", w3
	if os.Getenv("W3_SIZES") == "small" {
		name, w = "W3/small", w3Small
	}
	for _, variant := range []struct {
		name   string
		shards []string
	}{
		{"one-manager", []string{""}},
		{"two-shards", []string{"", "b"}},
	} {
		b.Run(name+"/"+variant.name, func(b *testing.B) {
			for b.Loop() {
				runW3(b, w, variant.shards)
			}
		})
	}
}

// shardManager is one manager process of a W3 run, its shard and what its
// Kubernetes proxy counted.
type shardManager struct {
	shard string
	rec   *recorder
	proc  *managerProcess
	// forges is how many of the run's Forges it serves.
	forges int
}

// w3Run is a W3 run: its fake forges' calls, its managers, and the
// client that applies the tenants' resources.
type w3Run struct {
	b        *testing.B
	w        estates
	forgeRec *recorder
	managers []*shardManager
	k8s      client.Client
}

func (r *w3Run) apply(o client.Object) {
	if err := r.k8s.Create(context.Background(), o); err != nil {
		r.b.Fatal(err)
	}
}

func (r *w3Run) reset() {
	r.forgeRec.reset()
	for _, m := range r.managers {
		m.rec.reset()
	}
}

// runW3 runs W3 shaped w on an API server of its own, with one manager
// per shard (Forge i served by shards[i % len(shards)]).
func runW3(b *testing.B, w estates, shards []string) {
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	resetPeakRSS()
	ctrl.SetLogger(logr.Discard()) // the benchmark's own clients
	k8s, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		b.Fatal(err)
	}
	run := &w3Run{b: b, w: w, forgeRec: &recorder{kube: map[string]int{}}, k8s: k8s}

	namespaces, urls, runners := make([]string, w.forges), make([]string, w.forges), make([][]string, w.forges)
	for i := range w.forges {
		fake, srv := startFake(run.forgeRec)
		defer srv.Close()
		runners[i] = seedW1(b, fake, w.estate)
		namespaces[i], urls[i] = fmt.Sprintf("tenant-%02d", i), srv.URL
	}
	logDir := b.TempDir()
	for s, shard := range shards {
		m := &shardManager{shard: shard, rec: &recorder{kube: map[string]int{}}}
		for i := range w.forges {
			if i%len(shards) == s {
				m.forges++
			}
		}
		proxy, err := startKubeProxy(cfg, m.rec)
		if err != nil {
			b.Fatal(err)
		}
		defer proxy.Close()
		// Every namespace (no --watch-namespaces), as a platform of many
		// tenants runs it, on an API server of the run's own: a list of
		// 40 namespaces costs the cache an informer per namespace and kind
		// (about 490 MiB of RSS on W3, measured once).
		if m.proc, err = startManagerProcess(managerArgs{kubeURL: proxy.URL,
			digestKey: benchDigestKey.String(), logDir: logDir, sync: w1Sync, shard: shard}); err != nil {
			b.Fatal(err)
		}
		defer m.proc.stop()
		run.managers = append(run.managers, m)
	}

	createDigestNamespace(b, k8s)
	for i, ns := range namespaces {
		var labels map[string]string
		if shard := shards[i%len(shards)]; shard != "" {
			labels = map[string]string{forgev1.ShardLabel: shard}
		}
		for _, o := range tenant(ns, urls[i], 0, labels) {
			run.apply(o)
		}
	}
	waitReady(b, k8s, "", w.forges, 2*time.Minute)
	run.reset()

	start := time.Now()
	run.applyEstates(namespaces, runners)
	run.converge(start, time.Since(start))
}

// w3Appliers is how many tenants apply their estates at once: tenants
// apply in parallel (a GitOps tool each), and one client creating 2,320
// objects one by one would measure the API server's latency more than
// the managers.
const w3Appliers = 8

// applyEstates applies each tenant's estate in its namespace (runners are
// its forge's, by tenant), w3Appliers tenants at once.
func (r *w3Run) applyEstates(namespaces []string, runners [][]string) {
	spec := forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}
	errs := make(chan error, len(namespaces))
	slots := make(chan struct{}, w3Appliers)
	var wg sync.WaitGroup
	for i, ns := range namespaces {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			var err error
			applyW1(func(o client.Object) {
				if err == nil {
					err = r.k8s.Create(context.Background(), o)
				}
			}, ns, spec, r.w.estate, runners[i])
			if err != nil {
				errs <- fmt.Errorf("apply %s: %w", ns, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		r.b.Fatal(err)
	}
}

// w3Phase is what a phase of a W3 run recorded: the forge calls, and
// each manager's Kubernetes requests.
type w3Phase struct {
	calls []call
	kube  []map[string]int
}

func (r *w3Run) snapshot() w3Phase {
	calls, _ := r.forgeRec.snapshot()
	p := w3Phase{calls: calls}
	for _, m := range r.managers {
		_, kube := m.rec.snapshot()
		p.kube = append(p.kube, kube)
	}
	return p
}

// converge waits for every object to be Ready (the apply began at start
// and took applied), watches the run at rest, and prints the figures.
func (r *w3Run) converge(start time.Time, applied time.Duration) {
	b, w := r.b, r.w
	n := w.objects()
	limit := 30 * time.Minute
	if v, err := time.ParseDuration(os.Getenv("W3_LIMIT")); err == nil && v > 0 {
		limit = v
	}
	seen, err := pollReady(r.k8s, "", n+w.forges, limit, start)
	if err != nil {
		b.Fatal(err)
	}
	ready := time.Since(start)
	conv := r.snapshot()

	r.reset()
	rest := restFor(w1Sync, []string{"W3_REST", "W1_REST"})
	time.Sleep(rest)
	atRest := r.snapshot()
	intervals := rest.Seconds() / w1Sync.Seconds()

	names := make([]string, len(r.managers))
	for i, m := range r.managers {
		names[i] = shardName(m.shard)
	}
	fmt.Printf("\n%s: %d Forges on %d fake servers, %d objects each (%d), fake forge +%s per call, sync interval %s, Forge qps %s; managers: %s\n",
		b.Name(), w.forges, w.forges, w.estate.objects(), n, benchLatency(), w1Sync, qpsText(0), strings.Join(names, ", "))
	if seen.done {
		fmt.Printf("  all Ready %.1fs after the apply began, %.1fs after it returned (the apply took %.1fs)\n",
			ready.Seconds(), (ready - applied).Seconds(), applied.Seconds())
		b.ReportMetric(ready.Seconds(), "s-to-ready")
	} else {
		fmt.Printf("  NOT all Ready: %d of %d objects (the Forges among them) Ready after %s; the figures below are those reached by then\n",
			seen.ready, n+w.forges, limit)
		b.ReportMetric(float64(seen.ready), "objects-ready-at-limit")
	}
	total := 0
	for _, k := range conv.kube {
		total += writes(k)
	}
	fmt.Printf("  to converge: %.2f forge calls per object, %.2f Kubernetes writes per object (Events excluded; every manager)\n",
		float64(len(conv.calls))/float64(n), float64(total)/float64(n))
	printRoutes(conv.calls, n)
	fmt.Printf("  at rest over %s: %.3f forge reads per object per sync interval, %d forge writes; largest gap between reads of one path: %.2f intervals\n",
		rest, float64(reads(atRest.calls))/float64(n)/intervals, len(atRest.calls)-reads(atRest.calls), largestGap(atRest.calls, start.Add(ready))/w1Sync.Seconds())
	b.ReportMetric(float64(len(conv.calls))/float64(n), "forge-calls/object")
	b.ReportMetric(float64(total)/float64(n), "kube-writes/object")
	for i, m := range r.managers {
		served := m.forges * w.estate.objects()
		agent := forge.UserAgent(m.shard)
		fmt.Printf("  manager %s (%d Forges, %d objects): peak RSS %d MiB, CPU %.1fs\n",
			shardName(m.shard), m.forges, served, m.proc.peakRSS()>>20, m.proc.cpuSeconds())
		fmt.Printf("    to converge: %.2f forge calls per object it serves (User-Agent %q), %.2f Kubernetes writes per object it serves (Events excluded), %d of them PATCHes setting the shard label\n",
			float64(agentCalls(conv.calls, agent, false))/float64(served), agent, float64(writes(conv.kube[i]))/float64(served),
			conv.kube[i][shardLabelPatches])
		printKube(conv.kube[i])
		fmt.Printf("    at rest: %.3f forge reads and %.3f Kubernetes reads (watches excluded) per object it serves per sync interval, %d Kubernetes writes\n",
			float64(agentCalls(atRest.calls, agent, true))/float64(served)/intervals,
			float64(atRest.kube[i][kubeReads])/float64(served)/intervals, writes(atRest.kube[i]))
		if writes(atRest.kube[i]) > 0 {
			printKube(atRest.kube[i])
		}
		b.ReportMetric(float64(m.proc.peakRSS()>>20), "MiB-peak-rss-"+shardName(m.shard))
	}
	fmt.Printf("  the benchmark's own process (the %d fake forges, the proxies): peak RSS %d MiB\n", w.forges, peakRSS()>>20)
}

// agentCalls is how many of calls agent sent (only its reads, with readsOnly).
func agentCalls(calls []call, agent string, readsOnly bool) int {
	n := 0
	for _, c := range calls {
		if c.agent == agent && (!readsOnly || c.method == http.MethodGet) {
			n++
		}
	}
	return n
}
