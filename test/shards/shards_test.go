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

// Package shards runs two managers, the default one and --shard=eu-1, on
// one control plane with two fake forge servers (docs/shards.md):
// each serves its own server's resources and writes only to its server.
// The move of a server between shards (the handover) is not built yet.
package shards

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
	"github.com/forgeops/forge-operator/test/testmanager"
)

const (
	token   = "sh4rd-t0ken-value"
	labels  = 5
	timeout = 60 * time.Second
	poll    = 200 * time.Millisecond
)

// agents serves a fake forge and counts its requests by User-Agent: the
// manager each came from, and when its last one came.
type agents struct {
	next http.Handler
	mu   sync.Mutex
	seen map[string]int
	last map[string]time.Time
}

func (a *agents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen[r.Header.Get("User-Agent")]++
	a.last[r.Header.Get("User-Agent")] = time.Now()
	a.mu.Unlock()
	a.next.ServeHTTP(w, r)
}

// lastFrom is when the last request with User-Agent agent came.
func (a *agents) lastFrom(agent string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last[agent]
}

func (a *agents) counts() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.seen)
}

// server starts a fake forge with an organization acme.
func server(t *testing.T) (*fakeforge.Server, *agents, string) {
	t.Helper()
	fake := fakeforge.New(fakeforge.WithToken(token))
	if _, err := fake.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	a := &agents{next: fake, seen: map[string]int{}, last: map[string]time.Time{}}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return fake, a, srv.URL
}

// doneWriter writes to a test's output until the test is done, then
// discards: controller-runtime's logger is global, and a manager's last
// lines (or those of a manager of an earlier run of the test, with -count)
// may come after the test that set it has completed, where writing to its
// output panics.
type doneWriter struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

func (d *doneWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return len(p), nil
	}
	return d.w.Write(p)
}

// untilDone is t's output, discarding what is written after t's cleanup.
func untilDone(t *testing.T) io.Writer {
	d := &doneWriter{w: t.Output()}
	t.Cleanup(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.done = true
	})
	return d
}

// start starts a control plane, stopped at the end of t, with the
// operator's namespace, and returns a client of it.
func start(t *testing.T) (*rest.Config, client.Client) {
	t.Helper()
	ctrl.SetLogger(zap.New(zap.WriteTo(untilDone(t)), zap.UseDevMode(true)))
	env, err := testenv.New()
	must(t, err)
	cfg, err := env.Start()
	must(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	must(t, err)
	must(t, k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.OperatorNamespace}}))
	return cfg, k8s
}

// startManager starts a manager of shard on cfg, elected as main elects
// it (short leases, so that a stopped manager's shard is seen gone
// quickly), stopped at the end of t unless stopped before.
func startManager(t *testing.T, cfg *rest.Config, shard string) (stop func()) {
	t.Helper()
	mo := testenv.ManagerOptions()
	mo.Cache = manager.CacheOptions(nil, shard, testenv.OperatorNamespace)
	mo.LeaderElection, mo.LeaderElectionReleaseOnCancel = true, true
	mo.LeaderElectionID, mo.LeaderElectionNamespace = shards.LeaderElectionID(shard), testenv.OperatorNamespace
	mo.LeaseDuration, mo.RenewDeadline, mo.RetryPeriod = new(2*time.Second), new(1500*time.Millisecond), new(200*time.Millisecond)
	stopManager, err := testmanager.Start(cfg, mo, controllers.Options{
		SyncInterval:            10 * time.Minute,
		MaxConcurrentReconciles: 2,
		BaseBackoff:             200 * time.Millisecond,
		MaxBackoff:              2 * time.Second,
		// No Label sends a secret: the key is never read.
		SecretDigestKey: types.NamespacedName{Namespace: testenv.OperatorNamespace, Name: secretdigest.DefaultName},
		Shard:           shard,
		ShardRecheck:    time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := stopManager(); err != nil {
				t.Errorf("manager of shard %q: %v", shard, err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// tenant makes a namespace with a token Secret, a Forge "gitea" at url
// labelled with shard (none for ""), and Labels in organization acme.
func tenant(t *testing.T, k8s client.Client, url, shard string) (*forgev1.Forge, []*forgev1.Label) {
	t.Helper()
	ctx := context.Background()
	f := tenantForge(t, k8s, url, shard)
	org := forgev1.OwnerName("acme")
	var out []*forgev1.Label
	for i := range labels {
		l := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: fmt.Sprintf("label-%d", i)},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Organization: &org, Color: "#ABC"}}
		must(t, k8s.Create(ctx, l))
		out = append(out, l)
	}
	return f, out
}

// tenantForge makes a namespace with a token Secret and a Forge "gitea"
// at url labelled with shard (none for "").
func tenantForge(t *testing.T, k8s client.Client, url, shard string) *forgev1.Forge {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
	must(t, k8s.Create(ctx, ns))
	must(t, k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea-token"},
		StringData: map[string]string{"token": token}}))
	f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		Spec: forgev1.ForgeSpec{URL: url, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}}
	if shard != "" {
		f.Labels = map[string]string{forgev1.ShardLabel: shard}
	}
	must(t, k8s.Create(ctx, f))
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTwoShardsEachWriteToTheirServer: with the default manager and
// --shard=eu-1 running, a Forge labelled eu-1 and its resources are served
// by eu-1 alone (its new resources labelled for it by the default
// manager), an unlabelled one by the default manager alone, each manager's
// requests reach only its own server, and nothing is made twice. A Forge
// labelled for a shard that has no manager stays with the default
// manager, which says so in its Ready message and an Event. A server a
// ClusterForge points at is placed by the ClusterForge's label, not by an
// older tenant Forge's, whichever of the two a manager saw first; once the
// ClusterForge is gone the tenant's label places it.
func TestTwoShardsEachWriteToTheirServer(t *testing.T) {
	cfg, k8s := start(t)
	startManager(t, cfg, "")
	startManager(t, cfg, "eu-1")
	fakeA, agentsA, urlA := server(t)
	fakeB, agentsB, urlB := server(t)
	forgeA, labelsA := tenant(t, k8s, urlA, "")
	forgeB, labelsB := tenant(t, k8s, urlB, "eu-1")
	// A shard that has no manager (a mistyped label): its server stays
	// with the default manager, which says so.
	fakeC, agentsC, urlC := server(t)
	forgeC, labelsC := tenant(t, k8s, urlC, "eu-l")

	g := NewWithT(t)
	ctx := context.Background()
	// The platform's server: a tenant's Forge labelled eu-1, then (a
	// second later, so that the tenant's Forge is older by time) an
	// unlabelled ClusterForge of the same server, which decides: the
	// server is the default shard's, whatever the tenant's label says.
	fakeD, _, urlD := server(t)
	forgeD, labelsD := tenant(t, k8s, urlD, "eu-1")
	g.Eventually(func() bool { return time.Now().After(forgeD.CreationTimestamp.Add(time.Second)) }, timeout, poll).Should(BeTrue())
	must(t, k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: testenv.OperatorNamespace, Name: "platform-token"},
		StringData: map[string]string{"token": token}}))
	platform := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "platform"},
		Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{URL: urlD,
			Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "platform-token"}}}}}
	must(t, k8s.Create(ctx, platform))

	for _, obj := range append([]client.Object{forgeA, forgeB, forgeC}, objects(labelsA, labelsB, labelsC)...) {
		g.Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			c := meta.FindStatusCondition(obj.(forgev1.ConditionsAccessor).GetConditions(), forgev1.ConditionReady)
			g.Expect(c).NotTo(BeNil(), "%s has no Ready condition yet", obj.GetName())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s/%s: %s: %s", obj.GetNamespace(), obj.GetName(), c.Reason, c.Message)
		}, timeout, poll).Should(Succeed())
	}
	for _, l := range labelsA {
		g.Expect(l.Labels).NotTo(HaveKey(forgev1.ShardLabel), "a resource of the default shard's server is labelled")
	}
	for _, l := range labelsB {
		g.Expect(l.Labels).To(HaveKeyWithValue(forgev1.ShardLabel, "eu-1"), "a resource of eu-1's server is not labelled for it")
	}
	g.Expect(fakeA.Labels(forge.OrgScope("acme"))).To(HaveLen(labels), "labels on the default shard's server")
	g.Expect(fakeB.Labels(forge.OrgScope("acme"))).To(HaveLen(labels), "labels on eu-1's server")
	g.Expect(agentsA.counts()).To(HaveKey(forge.UserAgent("")))
	g.Expect(agentsA.counts()).To(HaveLen(1), "requests to the default shard's server by User-Agent")
	g.Expect(agentsB.counts()).To(HaveKey(forge.UserAgent("eu-1")))
	g.Expect(agentsB.counts()).To(HaveLen(1), "requests to eu-1's server by User-Agent")
	g.Expect(fakeC.Labels(forge.OrgScope("acme"))).To(HaveLen(labels), "labels on the server of a shard with no manager")
	g.Expect(agentsC.counts()).To(HaveKey(forge.UserAgent("")))
	g.Expect(agentsC.counts()).To(HaveLen(1), "requests to the server of a shard with no manager by User-Agent")
	g.Expect(meta.FindStatusCondition(forgeC.Status.Conditions, forgev1.ConditionReady).Message).To(
		ContainSubstring("its server's shard is shard eu-l"), "the Ready message of a Forge whose shard has no manager")
	for _, l := range labelsC {
		g.Expect(l.Labels).NotTo(HaveKey(forgev1.ShardLabel), "a resource of a server kept by the default manager is labelled")
	}
	g.Eventually(func() ([]string, error) {
		var evs eventsv1.EventList
		err := k8s.List(ctx, &evs, client.InNamespace(forgeC.Namespace))
		var reasons []string
		for _, e := range evs.Items {
			reasons = append(reasons, e.Reason)
		}
		return reasons, err
	}, timeout, poll).Should(ContainElement("NoShardManager"))

	for _, l := range labelsD {
		g.Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(l), l)).To(Succeed())
			g.Expect(l.Labels).NotTo(HaveKey(forgev1.ShardLabel), "a resource of the platform's server is labelled for the tenant's shard")
			g.Expect(meta.IsStatusConditionTrue(l.Status.Conditions, forgev1.ConditionReady)).To(BeTrue(), "%s is not Ready", l.Name)
		}, timeout, poll).Should(Succeed())
	}
	g.Eventually(func(g Gomega) string {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(forgeD), forgeD)).To(Succeed())
		c := meta.FindStatusCondition(forgeD.Status.Conditions, forgev1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		return c.Message
	}, timeout, poll).Should(ContainSubstring("ClusterForge platform, which decides the server's shard, puts it in the default shard"))
	g.Expect(fakeD.Labels(forge.OrgScope("acme"))).To(HaveLen(labels), "labels on the platform's server")
	g.Expect(serverLease(k8s, urlD)).To(BeNil(), "the Lease of the platform's server")

	// The ClusterForge goes: the tenant's label decides again, and the
	// server moves to eu-1 with its resources, though nothing else of it
	// changed.
	must(t, k8s.Delete(ctx, platform))
	g.Eventually(func(g Gomega) {
		l, err := serverLease(k8s, urlD)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(l).NotTo(BeNil(), "no Lease of the tenant's server once the ClusterForge is gone")
		g.Expect(l.Spec.HolderIdentity).To(HaveValue(Equal("eu-1")))
	}, timeout, poll).Should(Succeed())
	for _, l := range labelsD {
		g.Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(l), l)).To(Succeed())
			g.Expect(l.Labels).To(HaveKeyWithValue(forgev1.ShardLabel, "eu-1"), "a resource of the tenant's server is not labelled for its shard")
		}, timeout, poll).Should(Succeed())
	}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(forgeD), forgeD)).To(Succeed())
		c := meta.FindStatusCondition(forgeD.Status.Conditions, forgev1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%s: %s", c.Reason, c.Message)
		g.Expect(c.Message).NotTo(ContainSubstring("decides the server's shard"), "the Ready message of the Forge that decides its server")
	}, timeout, poll).Should(Succeed())
}

func objects(lists ...[]*forgev1.Label) []client.Object {
	var out []client.Object
	for _, l := range lists {
		for _, o := range l {
			out = append(out, o)
		}
	}
	return out
}

// estate is a W1/10 estate (the shape of benchmark W1, a tenth of its
// size) on one server: per organization 5 hooks, a project and a runner
// setting, and 20 labels in each of 5 repositories.
type estate struct{ orgs, repos, hooks, labels int }

var w1Tenth = estate{orgs: 2, repos: 5, hooks: 5, labels: 20}

func (e estate) org(o int) string         { return fmt.Sprintf("org-%02d", o) }
func (e estate) repo(r int) (o, n string) { return e.org(r % e.orgs), fmt.Sprintf("repo-%02d", r) }

// seed makes the organizations, repositories and runners on the fake
// (the operator adopts the organizations and makes the rest).
func (e estate) seed(t *testing.T, fake *fakeforge.Server) []string {
	t.Helper()
	var runners []string
	for o := range e.orgs {
		if _, err := fake.CreateOrg(e.org(o)); err != nil {
			t.Fatal(err)
		}
		runners = append(runners, fake.RegisterRunner(forge.OrgScope(e.org(o)), "runner-"+e.org(o)).Name)
	}
	for r := range e.repos {
		must(t, fake.CreateRepo(e.repo(r)))
	}
	return runners
}

// objects are the estate's resources in namespace ns, through Forge gitea.
func (e estate) objects(ns string, runners []string) []client.Object {
	spec := forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	var out []client.Object
	for o := range e.orgs {
		org := e.org(o)
		out = append(out, &forgev1.Organization{ObjectMeta: meta(org), Spec: forgev1.OrganizationSpec{ManagedSpec: spec}})
		for h := range e.hooks {
			out = append(out, &forgev1.OrgHook{ObjectMeta: meta(fmt.Sprintf("%s-hook-%d", org, h)),
				Spec: forgev1.OrgHookSpec{ManagedSpec: spec, Organization: forgev1.OwnerName(org), HookSpec: forgev1.HookSpec{Type: "gitea",
					URL: fmt.Sprintf("https://ci.example.com/%s/%d", org, h), Events: []forgev1.HookEvent{"push"}}}})
		}
		owner, name := e.repo(o)
		out = append(out, &forgev1.Project{ObjectMeta: meta(org + "-roadmap"),
			Spec: forgev1.ProjectSpec{ManagedSpec: spec, Repository: forgev1.RepositoryName(owner + "/" + name), Title: "Roadmap"}},
			&forgev1.RunnerSetting{ObjectMeta: meta(org + "-runner"),
				Spec: forgev1.RunnerSettingSpec{ManagedSpec: spec, Organization: new(forgev1.OwnerName(org)),
					Runner: forgev1.RunnerSelector{Name: runners[o]}, Disabled: true}})
	}
	for r := range e.repos {
		owner, name := e.repo(r)
		for l := range e.labels {
			out = append(out, &forgev1.Label{ObjectMeta: meta(fmt.Sprintf("%s-l%02d", name, l)),
				Spec: forgev1.LabelSpec{ManagedSpec: spec, Repository: new(forgev1.RepositoryName(owner + "/" + name)),
					Name: fmt.Sprintf("area/l%02d", l), Color: "#00aabb"}})
		}
	}
	return out
}

// made is what the estate made on the fake, which must be exactly what
// it names: one of each (no duplicate, none lost).
func (e estate) made(g Gomega, fake *fakeforge.Server) {
	for o := range e.orgs {
		g.Expect(fake.OrgHooks(e.org(o))).To(HaveLen(e.hooks), "hooks of %s", e.org(o))
		owner, name := e.repo(o)
		g.Expect(fake.Projects(owner, name)).To(HaveLen(1), "projects of %s/%s", owner, name)
	}
	for r := range e.repos {
		g.Expect(fake.Labels(forge.RepoScope(e.repo(r)))).To(HaveLen(e.labels), "labels of repository %d", r)
	}
}

// readyAll waits until every object of objs is Ready at its generation.
func readyAll(t *testing.T, k8s client.Client, objs []client.Object, limit time.Duration) {
	t.Helper()
	g := NewWithT(t)
	g.Eventually(func(g Gomega) {
		notReady := 0
		var first string
		for _, o := range objs {
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(o), o)).To(Succeed())
			c := meta.FindStatusCondition(o.(forgev1.ConditionsAccessor).GetConditions(), forgev1.ConditionReady)
			if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != o.GetGeneration() {
				if notReady++; first == "" {
					first = fmt.Sprintf("%T %s: %v", o, o.GetName(), c)
				}
			}
		}
		g.Expect(notReady).To(BeZero(), "objects not Ready, the first: %s", first)
	}, limit, poll).Should(Succeed())
}

// serverLease reads the handover Lease of the fake at url (nil: none).
func serverLease(k8s client.Client, url string) (*coordinationv1.Lease, error) {
	var l coordinationv1.Lease
	err := k8s.Get(context.Background(), types.NamespacedName{Namespace: testenv.OperatorNamespace,
		Name: shards.ServerLeaseName(forge.ServerKey(url))}, &l)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return &l, err
}

// shardLabels counts objs' shard labels as they are now ("" for none).
func shardLabels(k8s client.Client, objs []client.Object) (map[string]int, error) {
	out := map[string]int{}
	for _, o := range objs {
		u := o.DeepCopyObject().(client.Object)
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), u); err != nil {
			return nil, err
		}
		out[u.GetLabels()[forgev1.ShardLabel]]++
	}
	return out, nil
}

// TestMoveUnderLoad: relabelling a Forge moves its server to the other
// shard while a W1/10 estate converges on it, and the old manager is
// killed once in the middle of the move (and started again): the Lease
// changes hands once, every object ends Ready and labelled for its new
// shard, nothing is made twice on the forge, and no request of the old
// shard reaches the forge after the handover. Then the server moves back
// while the new shard is stopped for good: the default manager takes the
// server over from the gone shard and serves it (a change made after is
// applied).
func TestMoveUnderLoad(t *testing.T) {
	cfg, k8s := start(t)
	stopDefault := startManager(t, cfg, "")
	stopEU := startManager(t, cfg, "eu-1")
	fake, agents, url := server(t)
	runners := w1Tenth.seed(t, fake)
	ctx := context.Background()
	g := NewWithT(t)

	f := tenantForge(t, k8s, url, "")
	objs := w1Tenth.objects(f.Namespace, runners)
	for _, o := range objs {
		must(t, k8s.Create(ctx, o))
	}

	// Under load: once the default manager has begun (a few resources hold
	// their forge object), the Forge is relabelled for eu-1.
	g.Eventually(func() int {
		n := 0
		for _, o := range objs {
			u := o.DeepCopyObject().(client.Object)
			if k8s.Get(ctx, client.ObjectKeyFromObject(o), u) == nil && len(u.GetFinalizers()) > 0 {
				n++
			}
		}
		return n
	}, timeout, 20*time.Millisecond).Should(BeNumerically(">=", 10))
	patch := client.MergeFrom(f.DeepCopy())
	f.Labels = map[string]string{forgev1.ShardLabel: "eu-1"}
	must(t, k8s.Patch(ctx, f, patch))

	// Mid-move: the old manager is killed once its relabelling has begun
	// (or, if the move is quicker than the poll, once it is over), and a
	// new one starts.
	g.Eventually(func() (int, error) {
		l, err := shardLabels(k8s, objs)
		return l["eu-1"], err
	}, timeout, 10*time.Millisecond).Should(BeNumerically(">", 0))
	lease, err := serverLease(k8s, url)
	must(t, err)
	t.Logf("the default manager killed with the Lease %v", lease != nil)
	stopDefault()
	startManager(t, cfg, "")

	var handover time.Time
	g.Eventually(func(g Gomega) {
		l, err := serverLease(k8s, url)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(l).NotTo(BeNil(), "no Lease of the server")
		g.Expect(l.Spec.HolderIdentity).To(HaveValue(Equal("eu-1")))
		handover = l.Spec.AcquireTime.Time
	}, timeout, poll).Should(Succeed())
	readyAll(t, k8s, objs, 2*timeout)
	g.Expect(shardLabels(k8s, objs)).To(Equal(map[string]int{"eu-1": len(objs)}), "the resources' shard labels")
	g.Eventually(func(g Gomega) { w1Tenth.made(g, fake) }, timeout, poll).Should(Succeed())
	g.Expect(agents.lastFrom(forge.UserAgent(""))).To(BeTemporally("<=", handover),
		"a request of the default shard after it handed the server over at %s", handover)
	g.Expect(agents.lastFrom(forge.UserAgent("eu-1"))).To(BeTemporally(">", handover), "eu-1 never called the forge after the handover")

	// Back to the default shard, eu-1 gone for good: the default manager
	// takes the server over and serves it.
	stopEU()
	stopped := time.Now()
	patch = client.MergeFrom(f.DeepCopy())
	delete(f.Labels, forgev1.ShardLabel)
	must(t, k8s.Patch(ctx, f, patch))
	g.Eventually(func() (*coordinationv1.Lease, error) { return serverLease(k8s, url) }, timeout, poll).Should(BeNil(),
		"the Lease of a server back in the default shard")
	g.Eventually(func() (map[string]int, error) { return shardLabels(k8s, objs) }, timeout, poll).Should(Equal(map[string]int{"": len(objs)}))
	var l forgev1.Label
	must(t, k8s.Get(ctx, types.NamespacedName{Namespace: f.Namespace, Name: "repo-00-l00"}, &l))
	patch = client.MergeFrom(l.DeepCopy())
	l.Spec.Color = "#112233"
	must(t, k8s.Patch(ctx, &l, patch))
	readyAll(t, k8s, objs, timeout)
	g.Eventually(func() []forge.Label {
		return slices.DeleteFunc(fake.Labels(forge.RepoScope(w1Tenth.repo(0))), func(x forge.Label) bool { return x.Name != "area/l00" })
	}, timeout, poll).Should(ConsistOf(HaveField("Color", "112233")))
	w1Tenth.made(g, fake)
	g.Expect(agents.lastFrom(forge.UserAgent("eu-1"))).To(BeTemporally("<=", stopped), "a request of eu-1 after it stopped")
}
