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
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// workload is the W1 shape of the scale issue: per organization 5 hooks,
// a project and a runner setting; repositories spread over the
// organizations, 20 labels in each; every object of one Forge, applied at once.
type workload struct {
	orgs, repos, hooksPerOrg, labelsPerRepo int
}

func (w workload) objects() int {
	return w.orgs*(1+w.hooksPerOrg+1+1) + w.repos*w.labelsPerRepo
}

// W1: 20 organizations, 100 hooks, 1,000 labels (20 in each of 50
// repositories), 20 projects, 20 runner settings: 1,160 objects.
var (
	w1      = workload{orgs: 20, repos: 50, hooksPerOrg: 5, labelsPerRepo: 20}
	w1Small = workload{orgs: 2, repos: 5, hooksPerOrg: 5, labelsPerRepo: 20}
)

// BenchmarkW1 applies W1 (and a ten times smaller variant) to the manager
// running against the fake forge with 5 ms added to every call, at the
// Forge's default rate limit and at qps 100, and prints what the scale issue
// counts: seconds to all Ready, forge calls and Kubernetes writes per object
// to converge, forge reads per object per sync interval at rest and the
// largest lateness of a drift check, and the manager process's peak memory and CPU.
// Printed, never asserted. W1_SIZES=small limits it to the small variant,
// W1_REST sets how long the at-rest phase watches (default 3 sync intervals),
// BENCH_TRACE names a file to write every forge call of a converge to
// (seconds after the apply, method, path), for the order things happen in.
func BenchmarkW1(b *testing.B) {
	sizes := map[string]workload{"W1/10": w1Small, "W1": w1}
	order := []string{"W1/10", "W1"}
	if os.Getenv("W1_SIZES") == "small" {
		order = order[:1]
	}
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	for _, name := range order {
		for _, qps := range []float64{0, 100} {
			label := name + "/qps=default"
			if qps > 0 {
				label = fmt.Sprintf("%s/qps=%g", name, qps)
			}
			b.Run(label, func(b *testing.B) {
				for b.Loop() {
					runW1(b, cfg, sizes[name], qps)
				}
			})
		}
	}
}

// w1Sync is the manager's sync interval in W1 and the benchmarks of one kind.
const w1Sync = 30 * time.Second

// benchRun is one run of a workload: the fake forge (every call recorded,
// latency added), a manager watching the run's namespace only, and a Forge
// "gitea" Ready in that namespace.
type benchRun struct {
	b    *testing.B
	fake *fakeforge.Server
	rec  *recorder
	k8s  client.Client
	ns   string
	qps  float64
	// sync is the manager's --sync-interval.
	sync  time.Duration
	spec  forgev1.ManagedSpec
	start time.Time
	stop  func()
	// proc is the manager's process.
	proc *managerProcess
	// members, when set, is how many repositories the run's set resources
	// cover: the figures are printed per repository too.
	members int
	// restart stops the manager and starts a new one on the same forge
	// and namespace.
	restart func()
}

// newRun starts a run whose manager checks for drift every sync; scene
// sets the forge up before the manager starts.
func newRun(b *testing.B, cfg *rest.Config, qps float64, sync time.Duration, scene func(*fakeforge.Server)) *benchRun {
	return newRunWith(b, cfg, qps, sync, "", scene)
}

// newRunWith is newRun with the manager's --receiver-bind-address (""
// for none).
func newRunWith(b *testing.B, cfg *rest.Config, qps float64, sync time.Duration, receiver string, scene func(*fakeforge.Server)) *benchRun {
	resetPeakRSS()
	rec := &recorder{kube: map[string]int{}}
	fake, srv := startFake(rec)
	scene(fake)
	ns := fmt.Sprintf("bench-%d", time.Now().UnixNano())

	// The manager runs as its own process (process_test.go), watching
	// only this run's namespace: the resources of earlier runs stay in the
	// shared API server, and their passes against a stopped fake forge
	// would be counted as this run's writes. It keeps its secret digest key
	// (hooks' and Actions secrets') in forge-operator-system, creating it
	// on first use.
	ctrl.SetLogger(logr.Discard()) // the benchmark's own clients
	proxy, err := startKubeProxy(cfg, rec)
	if err != nil {
		b.Fatal(err)
	}
	logDir := b.TempDir()
	startManager := func() *managerProcess {
		p, err := startManagerProcess(managerArgs{kubeURL: proxy.URL, namespaces: []string{ns},
			digestKey: benchDigestKey.String(), logDir: logDir, sync: sync, receiver: receiver})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	proc := startManager()

	k8s, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		b.Fatal(err)
	}
	run := &benchRun{b: b, fake: fake, rec: rec, k8s: k8s, ns: ns, qps: qps, sync: sync,
		spec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
		proc: proc}
	run.stop = func() { run.proc.stop(); proxy.Close(); srv.Close() }
	run.restart = func() { run.proc.stop(); run.proc = startManager() }
	createDigestNamespace(b, k8s)
	for _, o := range tenant(ns, srv.URL, qps, nil) {
		run.apply(o)
	}
	waitReady(b, k8s, ns, 1, time.Minute)
	rec.reset()
	run.start = time.Now()
	return run
}

// benchDigestKey is where the managers keep their secret digest key
// (hooks' and Actions secrets'), creating it on first use.
var benchDigestKey = types.NamespacedName{Namespace: "forge-operator-system", Name: secretdigest.DefaultName}

// createDigestNamespace creates the namespace of benchDigestKey, if it is not there.
func createDigestNamespace(b *testing.B, k8s client.Client) {
	err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchDigestKey.Namespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
}

// startFake starts a fake forge over real HTTP whose API calls are
// recorded in rec and take benchLatency more.
func startFake(rec *recorder) (*fakeforge.Server, *httptest.Server) {
	latency := benchLatency()
	fake := fakeforge.New(fakeforge.WithToken(token))
	srv := fake.Start()
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/") {
			rec.addForge(call{at: time.Now(), method: r.Method, path: strings.TrimPrefix(r.URL.Path, "/api/v1"),
				agent: r.Header.Get("User-Agent")})
			time.Sleep(latency)
		}
		inner.ServeHTTP(rw, r)
	})
	return fake, srv
}

// tenant is what a tenant of the forge at url applies before its
// resources: its namespace ns, the token Secret and the Forge "gitea" at
// rate qps (the default when 0), with labels.
func tenant(ns, url string, qps float64, labels map[string]string) []client.Object {
	fg := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gitea", Labels: labels}, Spec: forgev1.ForgeSpec{
		URL: url, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "token"}}}}
	if qps > 0 {
		fg.Spec.RateLimit = &forgev1.RateLimit{QPS: qps, Burst: int32(qps * 2)}
	}
	return []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "token"}, StringData: map[string]string{"token": token}},
		fg,
	}
}

func benchLatency() time.Duration {
	if v, err := time.ParseDuration(os.Getenv("W1_LATENCY")); err == nil {
		return v
	}
	return 5 * time.Millisecond
}

func (r *benchRun) apply(o client.Object) {
	if err := r.k8s.Create(context.Background(), o); err != nil {
		r.b.Fatal(err)
	}
}

// recorded is what a run's forge served: the calls to converge, those at
// rest, the sync interval and how many of them the rest lasted; and what
// the manager asked of Kubernetes in each phase, and how the wait for
// Ready went.
type recorded struct {
	calls, rest    []call
	interval       time.Duration
	intervals      float64
	kube, restKube map[string]int
	// ready is when the wait for Ready ended, after the apply began;
	// readiness what it saw then.
	ready     time.Duration
	readiness readiness
}

// convergeOptions are what a workload may change of converge.
type convergeOptions struct {
	// limit bounds the wait for Ready; 30 minutes when zero.
	limit time.Duration
	// printOnTimeout prints the figures reached when the limit passes,
	// with how many objects were Ready, instead of failing the run.
	printOnTimeout bool
	// restEnv names the variables that may set how long the at-rest phase
	// watches, the first one set wins; W1_REST when empty.
	restEnv []string
	// rest, when not zero, is how long the at-rest phase watches when
	// none of restEnv is set (instead of restFor's intervals).
	rest time.Duration
	// atReady runs when the wait for Ready ends, before the figures are
	// taken; atRest when the at-rest phase ends.
	atReady, atRest func()
}

// converge waits for n objects (and the Forge) to be Ready, watches the
// run at rest (W1_REST, default 3 sync intervals), and prints the figures;
// it returns the calls, for figures of a workload's own.
func (r *benchRun) converge(n int) recorded { return r.convergeWith(n, convergeOptions{}) }

// convergeWith is converge as opts say. The at-rest phase lasts 3 sync
// intervals, or one when the interval is 10 minutes or longer.
func (r *benchRun) convergeWith(n int, opts convergeOptions) recorded {
	b := r.b
	applied := time.Since(r.start) // the objects are all created: the apply has returned
	limit := opts.limit
	if limit == 0 {
		limit = 30 * time.Minute
	}
	seen, err := pollReady(r.k8s, r.ns, n+1, limit, r.start)
	if err != nil {
		b.Fatal(err)
	}
	if !seen.done && !opts.printOnTimeout {
		b.Fatalf("%d of %d objects Ready after %s", seen.ready, n+1, limit)
	}
	ready := time.Since(r.start)
	if opts.atReady != nil {
		opts.atReady()
	}
	calls, kube := r.rec.snapshot()
	if f := os.Getenv("BENCH_TRACE"); f != "" {
		var out strings.Builder
		for _, c := range calls {
			fmt.Fprintf(&out, "%.2f %s %s\n", c.at.Sub(r.start).Seconds(), c.method, c.path)
		}
		_ = os.WriteFile(f, []byte(out.String()), 0o644)
	}

	// At rest: no change, only drift checks.
	r.rec.reset()
	restEnv := opts.restEnv
	if len(restEnv) == 0 {
		restEnv = []string{"W1_REST"}
	}
	rest := restFor(r.sync, restEnv)
	if _, set := envDuration(restEnv); !set && opts.rest > 0 {
		rest = opts.rest
	}
	time.Sleep(rest)
	restCalls, restKube := r.rec.snapshot()
	if opts.atRest != nil {
		opts.atRest()
	}

	fmt.Printf("\n%s: %d objects, fake forge +%s per call, sync interval %s, Forge qps %s\n",
		b.Name(), n, benchLatency(), r.sync, qpsText(r.qps))
	atRate := float64(len(calls)) / effectiveQPS(r.qps)
	if seen.done {
		fmt.Printf("  all Ready %.1fs after the apply began, %.1fs after it returned (the apply took %.1fs); its calls at the Forge's rate take %.1fs (Ready at %.2fx of that; rate floor at one write per object: %.1fs)\n",
			ready.Seconds(), (ready - applied).Seconds(), applied.Seconds(), atRate, ready.Seconds()/atRate, float64(n)/effectiveQPS(r.qps))
	} else {
		fmt.Printf("  NOT all Ready: %d of %d objects (the Forge among them) Ready when the wait ended (limit %s), %.1fs after the apply began, %.1fs after it returned (the apply took %.1fs); the figures below are those reached by then, the at-rest ones of a manager still converging; its calls so far at the Forge's rate take %.1fs\n",
			seen.ready, n+1, limit, ready.Seconds(), (ready - applied).Seconds(), applied.Seconds(), atRate)
	}
	fmt.Printf("  to converge: %.2f forge calls per object, %.2f Kubernetes writes per object (Events excluded), %.2f uncached Secret GETs per object\n",
		float64(len(calls))/float64(n), float64(writes(kube))/float64(n), float64(kube["GET secret (uncached)"])/float64(n))
	printRoutes(calls, n)
	printKube(kube)
	intervals := rest.Seconds() / r.sync.Seconds()
	fmt.Printf("  at rest over %s: %.3f forge reads per object per sync interval, %d forge writes, %d Kubernetes writes; largest gap between reads of one path: %.2f intervals\n",
		rest, float64(reads(restCalls))/float64(n)/intervals, len(restCalls)-reads(restCalls), writes(restKube), largestGap(restCalls, r.start.Add(ready))/r.sync.Seconds())
	if r.members > 0 {
		fmt.Printf("  per repository: %.2f forge calls to converge, %.3f forge reads per sync interval at rest\n",
			float64(len(calls))/float64(r.members), float64(reads(restCalls))/float64(r.members)/intervals)
	}
	fmt.Printf("  manager process: peak RSS %d MiB, CPU %.1fs (the benchmark's own process, with the fake forge: peak RSS %d MiB)\n",
		r.proc.peakRSS()>>20, r.proc.cpuSeconds(), peakRSS()>>20)
	if seen.done {
		b.ReportMetric(ready.Seconds(), "s-to-ready")
		b.ReportMetric((ready - applied).Seconds(), "s-after-apply")
	} else {
		b.ReportMetric(float64(seen.ready), "objects-ready-at-limit")
	}
	b.ReportMetric(float64(len(calls))/float64(n), "forge-calls/object")
	b.ReportMetric(float64(writes(kube))/float64(n), "kube-writes/object")
	return recorded{calls: calls, rest: restCalls, interval: r.sync, intervals: intervals,
		kube: kube, restKube: restKube, ready: ready, readiness: seen}
}

// restFor is how long the at-rest phase of a run at sync interval sync
// watches: 3 intervals, or one when the interval is 10 minutes or longer,
// unless the first of the variables env that is set says otherwise.
func restFor(sync time.Duration, env []string) time.Duration {
	if v, set := envDuration(env); set {
		return v
	}
	if sync >= 10*time.Minute {
		return sync
	}
	return 3 * sync
}

// envDuration is the duration the first of the variables env that is
// set says, and whether one is.
func envDuration(env []string) (time.Duration, bool) {
	for _, name := range env {
		if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
			return v, true
		}
	}
	return 0, false
}

// restartAtRest restarts the manager of a run at rest and prints what
// being sure again costs it: the forge reads of the first half interval
// (before any listing's regular check is due again: at most one listing
// per scope, objects settling from their listings, not a read each), and
// no write to the forge or to Kubernetes.
func (r *benchRun) restartAtRest(n int) {
	r.rec.reset()
	start := time.Now()
	r.restart()
	time.Sleep(r.sync / 2)
	calls, kube := r.rec.snapshot()
	scopes := map[string]bool{}
	for _, c := range calls {
		if c.method == http.MethodGet {
			scopes[c.path] = true
		}
	}
	fmt.Printf("  after a manager restart at rest, over %s: %d forge reads (%.3f per object) of %d paths, %d forge writes, %d Kubernetes writes\n",
		time.Since(start).Round(time.Second), reads(calls), float64(reads(calls))/float64(n), len(scopes),
		len(calls)-reads(calls), writes(kube))
}

func runW1(b *testing.B, cfg *rest.Config, w workload, qps float64) {
	var runners []string
	run := newRun(b, cfg, qps, w1Sync, func(fake *fakeforge.Server) { runners = seedW1(b, fake, w) })
	defer run.stop()
	applyW1(run.apply, run.ns, run.spec, w, runners)
	run.converge(w.objects())
	run.restartAtRest(w.objects())
}

// seedW1 sets the forge side of w up: organizations, repositories and
// runners exist (users register runners); the operator adopts the
// organizations and creates everything else. It returns the runners'
// names, by organization.
func seedW1(b *testing.B, fake *fakeforge.Server, w workload) []string {
	var runners []string
	for o := range w.orgs {
		org := fmt.Sprintf("org-%02d", o)
		if _, err := fake.CreateOrg(org); err != nil {
			b.Fatal(err)
		}
		runners = append(runners, fake.RegisterRunner(forge.OrgScope(org), "runner-"+org).Name)
	}
	for r := range w.repos {
		if err := fake.CreateRepo(repoOrg(r, w), fmt.Sprintf("repo-%02d", r)); err != nil {
			b.Fatal(err)
		}
	}
	return runners
}

// applyW1 applies w's resources in ns with spec, on a forge seedW1 set up
// (runners are its answer).
func applyW1(apply func(client.Object), ns string, spec forgev1.ManagedSpec, w workload, runners []string) {
	for o := range w.orgs {
		org := fmt.Sprintf("org-%02d", o)
		apply(&forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org},
			Spec: forgev1.OrganizationSpec{ManagedSpec: spec, Description: ptr("managed by W1")}})
		for h := range w.hooksPerOrg {
			apply(&forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-hook-%d", org, h)},
				Spec: forgev1.OrgHookSpec{ManagedSpec: spec, Organization: forgev1.OwnerName(org), HookSpec: forgev1.HookSpec{Type: "gitea",
					URL: fmt.Sprintf("https://ci.example.com/%s/%d", org, h), Events: []forgev1.HookEvent{"push"}}}})
		}
		apply(&forgev1.Project{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-roadmap"},
			Spec: forgev1.ProjectSpec{ManagedSpec: spec, Repository: forgev1.RepositoryName(fmt.Sprintf("%s/repo-%02d", org, o)), Title: "Roadmap"}})
		apply(&forgev1.RunnerSetting{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-runner"},
			Spec: forgev1.RunnerSettingSpec{ManagedSpec: spec, Organization: ptr(forgev1.OwnerName(org)),
				Runner: forgev1.RunnerSelector{Name: runners[o]}, Disabled: true}})
	}
	for r := range w.repos {
		repo := fmt.Sprintf("%s/repo-%02d", repoOrg(r, w), r)
		for l := range w.labelsPerRepo {
			apply(&forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("repo-%02d-l%02d", r, l)},
				Spec: forgev1.LabelSpec{ManagedSpec: spec, Repository: ptr(forgev1.RepositoryName(repo)),
					Name: fmt.Sprintf("area/l%02d", l), Color: "#00aabb"}})
		}
	}
}

// repoOrg is the organization repository r lives in: round robin, so that
// the first repository of each organization holds its project.
func repoOrg(r int, w workload) string { return fmt.Sprintf("org-%02d", r%w.orgs) }

func waitReady(b *testing.B, k8s client.Client, ns string, want int, limit time.Duration) {
	b.Helper()
	seen, err := pollReady(k8s, ns, want, limit, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if !seen.done {
		b.Fatalf("%d of %d objects Ready after %s", seen.ready, want, limit)
	}
}

// readiness is what a wait for Ready saw at its end: how many objects
// were Ready, whether want were, and per kind (Repository, Team, ...).
type readiness struct {
	ready int
	done  bool
	kinds map[string]*kindReadiness
}

// kindReadiness is one kind's objects in a wait for Ready: how many, how
// many Ready at the end, and when (after the wait's from) all of them
// were Ready first, if ever.
type kindReadiness struct {
	objects, ready int
	all            bool
	allAt          time.Duration
}

// pollReady polls the objects of ns every half second until want of them
// are Ready (at the generation of their spec) or limit has passed,
// noting when each kind first had all its objects Ready, after from.
func pollReady(k8s client.Client, ns string, want int, limit time.Duration, from time.Time) (readiness, error) {
	deadline := time.Now().Add(limit)
	kinds, lists := testenv.Kinds(), testenv.Lists()
	seen := readiness{kinds: map[string]*kindReadiness{}}
	for {
		seen.ready = 0
		for i, l := range lists {
			if err := k8s.List(context.Background(), l, client.InNamespace(ns)); err != nil {
				return seen, err
			}
			items, _ := meta.ExtractList(l)
			ready := 0
			for _, it := range items {
				o := it.(interface {
					client.Object
					forgev1.ConditionsAccessor
				})
				if c := meta.FindStatusCondition(o.GetConditions(), forgev1.ConditionReady); c != nil &&
					c.Status == metav1.ConditionTrue && c.ObservedGeneration == o.GetGeneration() {
					ready++
				}
			}
			seen.ready += ready
			if len(items) == 0 {
				continue
			}
			k := seen.kinds[kinds[i]]
			if k == nil {
				k = &kindReadiness{}
				seen.kinds[kinds[i]] = k
			}
			k.objects, k.ready = len(items), ready
			if ready == len(items) && !k.all {
				k.all, k.allAt = true, time.Since(from)
			}
		}
		if seen.ready >= want {
			seen.done = true
			return seen, nil
		}
		if time.Now().After(deadline) {
			return seen, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }
