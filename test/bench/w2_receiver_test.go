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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// W2's receiver variant: a repository made on the forge is governed by
// W2's sets when its delivery arrives, not at the next listing of its
// organization.

// w2Burst is how many repositories the receiver variant makes on the
// forge at once, and burstLimit how long it waits for them to be governed
// (half the sync interval: past it, the next listing might have done it).
const (
	w2Burst    = 50
	burstLimit = 5 * time.Minute
)

// runW2Receiver runs W2 with a Receiver of its organizations, the manager
// at its default sync interval (10m) serving deliveries, the Forge at its
// default rate (qps 10). Once all is Ready and a minute at rest has passed
// (W2_RECEIVER_REST sets it), w2Burst repositories are made on the forge
// at once, spread over the organizations, none a sandbox; the fake forge
// delivers each to the Receiver's hooks as Gitea does. Printed, never
// asserted: the time until all of them have what W2's sets keep (labels,
// rules, the RepositorySet's topic and team access, the FileSet's files),
// the passes that ran meanwhile per resource of each kind (a set's at
// most 2: deliveries within a second coalesce), the deliveries the
// Receiver counted, and the burst's forge calls and Kubernetes writes.
func runW2Receiver(b *testing.B, cfg *rest.Config, w governed, limit time.Duration) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		b.Fatal(err)
	}
	w.receiver = true
	run := w.start(b, cfg, 10*time.Minute, addr)
	defer run.stop()
	w.apply(run, addr)
	rec := run.convergeWith(w.objects(), convergeOptions{limit: limit, restEnv: []string{"W2_RECEIVER_REST"}, rest: time.Minute})
	printReadyByKind(w.resources(), rec)

	run.rec.reset()
	before, err := run.proc.reconciles()
	if err != nil {
		b.Fatal(err)
	}
	type made struct{ org, repo string }
	var burst []made
	start := time.Now()
	for i := range w2Burst {
		m := made{org: fmt.Sprintf("org-%02d", i%w.orgs), repo: fmt.Sprintf("made-%02d", i)}
		if err := run.fake.CreateRepo(m.org, m.repo); err != nil {
			b.Fatal(err)
		}
		burst = append(burst, m)
	}
	// The fake forge's state is read, not its API: nothing is recorded.
	lacking := slices.Clone(burst)
	for len(lacking) > 0 && time.Since(start) < burstLimit {
		time.Sleep(50 * time.Millisecond)
		lacking = slices.DeleteFunc(lacking, func(m made) bool { return len(w.lacks(run.fake, m.org, m.repo)) == 0 })
	}
	took := time.Since(start)
	after := settledPasses(b, run.proc)
	calls, kube := run.rec.snapshot()

	if len(lacking) == 0 {
		files := ""
		if w.fileSet {
			files = ", files"
		}
		fmt.Printf("  receiver: %d repositories made on the forge at once (over %d of W2's organizations) are all governed after %.1fs (labels, rules, topic, team access%s; sync interval 10m, Forge qps 10)\n",
			w2Burst, w.orgs, took.Seconds(), files)
		b.ReportMetric(took.Seconds(), "s-burst-governed")
	} else {
		m := lacking[0]
		fmt.Printf("  receiver: NOT all governed after %s: %d of %d repositories lack something (%s/%s lacks %s)\n",
			burstLimit, len(lacking), w2Burst, m.org, m.repo, strings.Join(w.lacks(run.fake, m.org, m.repo), ", "))
	}
	var parts []string
	for _, k := range w.resources() {
		r := "ran/" + strings.ToLower(k.kind)
		n := sum(after[r]) - sum(before[r])
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f (%.0f)", k.kind, n/float64(k.objects), n))
		}
	}
	fmt.Printf("  receiver: passes that ran from the burst until they stopped, per resource of each kind (in all): %s\n", strings.Join(parts, ", "))
	parts = nil
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range after["deliveries"] {
			if !yield(k) {
				return
			}
		}
	}) {
		if n := after["deliveries"][k] - before["deliveries"][k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, n))
		}
	}
	fmt.Printf("  receiver: deliveries counted during the burst (event, result): %s\n", strings.Join(parts, ", "))
	fmt.Printf("  receiver: the burst's forge calls %d (%d reads, %d writes; at the Forge's rate %.1fs), Kubernetes writes %d (Events excluded); per repository made:\n",
		len(calls), reads(calls), len(calls)-reads(calls), float64(len(calls))/effectiveQPS(run.qps), writes(kube))
	printRoutes(calls, w2Burst)
}

// lacks is what repository repo of org lacks of what W2's sets keep: their
// labels, their rules, the RepositorySet's topic and its teams' access,
// the FileSet's files. It reads the fake forge's state, not its API.
func (w governed) lacks(fake *fakeforge.Server, org, repo string) []string {
	r, ok := fake.Repo(org, repo)
	if !ok {
		return []string{"the repository"}
	}
	var out []string
	labels := 0
	for _, l := range fake.Labels(forge.RepoScope(org, repo)) {
		if slices.ContainsFunc(w2Labels, func(want forgev1.LabelSetLabel) bool { return string(want.Name) == l.Name }) {
			labels++
		}
	}
	if labels < len(w2Labels) {
		out = append(out, "labels")
	}
	rules := 0
	for _, p := range fake.BranchProtections(org, repo) {
		if slices.ContainsFunc(w2Rules, func(want forgev1.BranchProtectionRule) bool { return string(want.RuleName) == p.RuleName }) {
			rules++
		}
	}
	if rules < len(w2Rules) {
		out = append(out, "rules")
	}
	if w.repositorySet {
		if !slices.Contains(r.Topics, string(w2Topic)) {
			out = append(out, "topic")
		}
		for t := range w.teamsPerOrg {
			if !slices.Contains(fake.TeamRepos(org, fmt.Sprintf("team-%d", t)), repo) {
				out = append(out, fmt.Sprintf("team-%d's access", t))
			}
		}
	}
	if w.fileSet && !hasW2Files(fake, org, repo) {
		out = append(out, "files")
	}
	return out
}

// settledPasses reads the manager's passes once they have stopped: the
// same for 3 seconds (the passes the last deliveries asked for ran), at
// most a minute.
func settledPasses(b *testing.B, proc *managerProcess) map[string]map[string]float64 {
	ran := func(m map[string]map[string]float64) float64 {
		t := 0.0
		for k, v := range m {
			if strings.HasPrefix(k, "ran/") {
				t += sum(v)
			}
		}
		return t
	}
	deadline := time.Now().Add(time.Minute)
	var last map[string]map[string]float64
	since := time.Now()
	for {
		now, err := proc.reconciles()
		if err != nil {
			b.Fatal(err)
		}
		if last == nil || ran(now) != ran(last) {
			last, since = now, time.Now()
		}
		if time.Since(since) >= 3*time.Second || time.Now().After(deadline) {
			return last
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// sum is the total of a metric's counts.
func sum(m map[string]float64) float64 {
	t := 0.0
	for _, v := range m {
		t += v
	}
	return t
}
