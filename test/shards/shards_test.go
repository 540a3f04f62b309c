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
// one control plane with two fake forge servers (docs/shards.md, issue 37):
// each serves its own server's resources and writes only to its server.
// The move of a server between shards (the handover) is not built yet.
package shards

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
	"github.com/forgeops/forge-operator/internal/testmanager"
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

// start starts a control plane, stopped at the end of t, with the
// operator's namespace, and returns a client of it.
func start(t *testing.T) (*rest.Config, client.Client) {
	t.Helper()
	ctrl.SetLogger(zap.New(zap.WriteTo(t.Output()), zap.UseDevMode(true)))
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
	mo.LeaderElectionID, mo.LeaderElectionNamespace = manager.LeaderElectionID(shard), testenv.OperatorNamespace
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
	org := forgev1.OwnerName("acme")
	var out []*forgev1.Label
	for i := range labels {
		l := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: fmt.Sprintf("label-%d", i)},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
				Organization: &org, Color: "#ABC"}}
		must(t, k8s.Create(ctx, l))
		out = append(out, l)
	}
	return f, out
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
// requests reach only its own server, and nothing is made twice.
func TestTwoShardsEachWriteToTheirServer(t *testing.T) {
	cfg, k8s := start(t)
	startManager(t, cfg, "")
	startManager(t, cfg, "eu-1")
	fakeA, agentsA, urlA := server(t)
	fakeB, agentsB, urlB := server(t)
	forgeA, labelsA := tenant(t, k8s, urlA, "")
	forgeB, labelsB := tenant(t, k8s, urlB, "eu-1")

	g := NewWithT(t)
	ctx := context.Background()
	for _, obj := range append([]client.Object{forgeA, forgeB}, objects(labelsA, labelsB)...) {
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
