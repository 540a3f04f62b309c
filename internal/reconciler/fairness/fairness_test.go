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
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// TestFair runs passes that block until released and checks that a Forge
// gets no more than its share at once, while another Forge's pass runs.
func TestFair(t *testing.T) {
	started := make(chan string, 10)
	unblock := make(chan struct{})
	inner := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		started <- req.Name
		<-unblock
		return reconcile.Result{}, nil
	})
	// Requests "a-*" use Forge a, "b-*" Forge b (each in a namespace of its
	// own, at a server of its own), "gone" no Forge at all.
	tenantOf := func(_ context.Context, req reconcile.Request) (Tenant, bool, error) {
		if req.Name == "gone" {
			return Tenant{}, false, nil
		}
		f := req.Name[:1]
		return Tenant{Forge: types.NamespacedName{Namespace: "ns-" + f, Name: f}, Server: "https://" + f}, true, nil
	}
	r := Fair(inner, NewFairness(2), tenantOf, 3*time.Second)
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	type done struct {
		name string
		res  reconcile.Result
	}
	results := make(chan done, 10)
	run := func(name string) {
		go func() {
			res, err := r.Reconcile(context.Background(), req(name))
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			results <- done{name, res}
		}()
	}
	waitStarted := func(want string) {
		t.Helper()
		select {
		case got := <-started:
			if got != want {
				t.Fatalf("pass %s started, want %s", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("pass %s did not start", want)
		}
	}

	run("a-1")
	waitStarted("a-1")
	run("a-2")
	waitStarted("a-2")
	// Forge a has its two passes: a third is sent back at once, at low
	// priority, after a short delay, without running.
	res, err := r.Reconcile(context.Background(), req("a-3"))
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > time.Second || res.Priority == nil || *res.Priority != handler.LowPriority {
		t.Fatalf("deferred pass returned %+v, want a requeue within a second at low priority", res)
	}
	// Forge b and a resource without a Forge are not held up by a.
	run("b-1")
	waitStarted("b-1")
	run("gone")
	waitStarted("gone")
	close(unblock)
	for range 4 {
		if d := <-results; d.res != (reconcile.Result{}) {
			t.Fatalf("%s returned %+v, want the inner result", d.name, d.res)
		}
	}
	// The slots are free again (and passes no longer block).
	res, err = r.Reconcile(context.Background(), req("a-3"))
	if err != nil || res != (reconcile.Result{}) {
		t.Fatalf("a-3 after the others ended: %+v %v", res, err)
	}
	if got := <-started; got != "a-3" {
		t.Fatalf("pass %s started, want a-3", got)
	}
}

// TestFairPerNamespaceAndServer: one tenant's many Forges share one
// namespace's slots, and many namespaces' Forges at one server share that
// server's; another tenant at another server still gets a worker.
func TestFairPerNamespaceAndServer(t *testing.T) {
	unblock := make(chan struct{})
	started := make(chan string, 10)
	inner := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		started <- req.Name
		<-unblock
		return reconcile.Result{}, nil
	})
	tenants := map[string]Tenant{
		"hostile-1": {Forge: types.NamespacedName{Namespace: "hostile", Name: "f1"}, Server: "http://dead"},
		"hostile-2": {Forge: types.NamespacedName{Namespace: "hostile", Name: "f2"}, Server: "http://dead-too"},
		"neighbour": {Forge: types.NamespacedName{Namespace: "neighbour", Name: "f"}, Server: "http://dead"},
		"other":     {Forge: types.NamespacedName{Namespace: "other", Name: "f"}, Server: "http://alive"},
	}
	tenantOf := func(_ context.Context, req reconcile.Request) (Tenant, bool, error) {
		return tenants[req.Name], true, nil
	}
	r := Fair(inner, NewFairness(1), tenantOf, 3*time.Second)
	reconcileOf := func(name string) reconcile.Result {
		t.Helper()
		res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	go func() { reconcileOf("hostile-1") }()
	if got := <-started; got != "hostile-1" {
		t.Fatalf("pass %s started, want hostile-1", got)
	}
	for _, name := range []string{"hostile-2", "neighbour"} {
		// Another Forge of the same namespace; another namespace's Forge at the same server.
		if res := reconcileOf(name); res.RequeueAfter <= 0 {
			t.Fatalf("%s ran beside hostile-1: %+v, want it deferred", name, res)
		}
	}
	go func() { reconcileOf("other") }()
	select {
	case got := <-started:
		if got != "other" {
			t.Fatalf("pass %s started, want other", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("another tenant at another server got no worker")
	}
	close(unblock)
}

// TestFairWakesParked: a pass turned away for its tenant's share is put
// back in the queue as soon as a pass of that tenant ends, oldest first,
// and only when its tenant then has a slot; a request is parked once.
func TestFairWakesParked(t *testing.T) {
	f := NewFairness(1)
	a := Tenant{Forge: types.NamespacedName{Namespace: "ns-a", Name: "a"}}
	b := Tenant{Forge: types.NamespacedName{Namespace: "ns-b", Name: "b"}}
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	woken := func() []string {
		var out []string
		for {
			select {
			case e := <-f.woken:
				out = append(out, e.Object.GetName())
			default:
				return out
			}
		}
	}
	releaseA, ok := f.acquire(a, req("a-1"))
	if !ok {
		t.Fatal("a-1 found no slot")
	}
	releaseB, ok := f.acquire(b, req("b-1"))
	if !ok {
		t.Fatal("b-1 found no slot beside a-1")
	}
	for _, name := range []string{"a-2", "b-2", "a-3", "a-2"} {
		tenant := a
		if name[0] == 'b' {
			tenant = b
		}
		if _, ok := f.acquire(tenant, req(name)); ok {
			t.Fatalf("%s took a slot its tenant holds", name)
		}
	}
	if got := woken(); len(got) != 0 {
		t.Fatalf("woken before any pass ended: %v", got)
	}
	releaseB()
	if got := woken(); len(got) != 1 || got[0] != "b-2" {
		t.Fatalf("b-1 ended: woke %v, want b-2 (a's passes still wait for a-1)", got)
	}
	releaseA()
	if got := woken(); len(got) != 1 || got[0] != "a-2" {
		t.Fatalf("a-1 ended: woke %v, want a-2 only, the oldest of a", got)
	}
	if len(f.parked) != 1 || f.parked[0].req != req("a-3") {
		t.Fatalf("still parked: %+v, want a-3 alone (a-2 parked once)", f.parked)
	}
	// a-3 comes back first, by its fallback delay: the slot is held for
	// a-2, woken for it, so a-3 waits on in its place, and a-2 takes it.
	if _, ok := f.acquire(a, req("a-3")); ok {
		t.Fatal("a-3 took the slot held for the woken a-2")
	}
	if len(f.parked) != 1 || f.parked[0].req != req("a-3") {
		t.Fatalf("parked: %+v, want a-3 alone, once", f.parked)
	}
	releaseA2, ok := f.acquire(a, req("a-2"))
	if !ok {
		t.Fatal("the woken a-2 found no slot")
	}
	if got := woken(); len(got) != 0 {
		t.Fatalf("a-2 runs: woke %v, want nothing", got)
	}
	releaseA2()
	if got := woken(); len(got) != 1 || got[0] != "a-3" {
		t.Fatalf("a-2 ended: woke %v, want a-3 in its turn", got)
	}
	// A woken request that needs no slot after all (its resource is gone)
	// hands the held slot on: here to nobody, so anyone may take it.
	f.passOn(req("a-3"))
	if slices.ContainsFunc(f.held, func(h heldSlot) bool { return h.req == req("a-3") }) {
		t.Fatalf("a slot still held for a-3 after it passed its turn on: %+v", f.held)
	}
	releaseA4, ok := f.acquire(a, req("a-4"))
	if !ok {
		t.Fatal("a-4 found no slot after a-3 passed its turn on")
	}
	releaseA4()
}

// A slot held for a woken request that never comes is free again after
// wakeHold.
func TestFairHeldSlotExpires(t *testing.T) {
	f := NewFairness(1)
	a := Tenant{Forge: types.NamespacedName{Namespace: "ns-a", Name: "a"}}
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	release, ok := f.acquire(a, req("a-1"))
	if !ok {
		t.Fatal("a-1 found no slot")
	}
	if _, ok := f.acquire(a, req("a-2")); ok {
		t.Fatal("a-2 took a-1's slot")
	}
	release() // wakes a-2 and holds the slot for it
	if _, ok := f.acquire(a, req("a-3")); ok {
		t.Fatal("a-3 took the slot held for a-2")
	}
	f.mu.Lock()
	for i := range f.held {
		f.held[i].expires = time.Now().Add(-time.Millisecond) // a-2 never came
	}
	f.mu.Unlock()
	if _, ok := f.acquire(a, req("a-3")); !ok {
		t.Fatal("a-3 found no slot after the hold for a-2 expired")
	}
}

// TestFairWatchedWaitsForItsTurn: with Wakeups watched, a turned-away
// request comes back by itself only after parkedFallback (its wake brings
// it sooner), and a woken request whose resource is gone hands its turn to
// the next parked one.
func TestFairWatchedWaitsForItsTurn(t *testing.T) {
	f := NewFairness(1)
	_ = f.Wakeups()
	a := Tenant{Forge: types.NamespacedName{Namespace: "ns-a", Name: "a"}}
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	tenantOf := func(_ context.Context, r reconcile.Request) (Tenant, bool, error) {
		return a, r.Name != "gone", nil
	}
	r := Fair(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, nil
	}), f, tenantOf, time.Minute)
	next := func() string {
		select {
		case e := <-f.woken:
			return e.Object.GetName()
		default:
			return ""
		}
	}

	release, ok := f.acquire(a, req("a-1"))
	if !ok {
		t.Fatal("a-1 found no slot")
	}
	res, err := r.Reconcile(context.Background(), req("a-2"))
	if err != nil || res.RequeueAfter != parkedFallback {
		t.Fatalf("a-2 turned away: %+v, %v; want it back by itself after %s", res, err, parkedFallback)
	}
	release() // a-1 ends
	if got := next(); got != "a-2" {
		t.Fatalf("a-1 ended: woke %q, want a-2", got)
	}
	if res, err := r.Reconcile(context.Background(), req("a-2")); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("the woken a-2: %+v, %v; want it run in the slot held for it", res, err)
	}

	// "gone" and a-3 wait behind a-4; a-4's end wakes "gone" alone, whose
	// resource has gone by the time it runs: it needs no slot, and hands
	// its turn on to a-3.
	release, _ = f.acquire(a, req("a-4"))
	for _, name := range []string{"gone", "a-3"} {
		if _, ok := f.acquire(a, req(name)); ok {
			t.Fatalf("%s took the slot a-4 holds", name)
		}
	}
	release()
	if got := next(); got != "gone" {
		t.Fatalf("a-4 ended: woke %q, want gone", got)
	}
	if got := next(); got != "" {
		t.Fatalf("a-4's end woke %q too; one slot frees one turn", got)
	}
	if _, err := r.Reconcile(context.Background(), req("gone")); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "a-3" {
		t.Fatalf("gone ran without a slot and woke %q, want a-3", got)
	}
}

// TestTenantOfClusterForge: through a ClusterForge each namespace has a
// share of its own, and every namespace counts against the one server.
func TestTenantOfClusterForge(t *testing.T) {
	ref := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: "shared"}
	a := Tenant{Forge: Use("team-a", ref), Server: "https://git.example.com:443/api/v1"}
	b := Tenant{Forge: Use("team-b", ref), Server: "https://git.example.com:443/api/v1"}
	ka, kb := a.keys(), b.keys()
	if ka[0] == kb[0] || ka[1] == kb[1] || ka[2] != kb[2] {
		t.Fatalf("team-a keys %q, team-b keys %q: want distinct uses and namespaces, one server", ka, kb)
	}
	if own := Use("team-a", forgev1.ForgeReference{Name: "shared"}); own == a.Forge {
		t.Fatalf("a Forge %q and the ClusterForge of one name share a key %q", own, a.Forge)
	}
}

// TestPassesAtServer: what a handover drains (InFlightAt) counts the
// passes of every kind's controller at the server: by its server key, and
// by its connections for the passes that began with no server known (a
// Forge of the server, a namespace's use of its ClusterForge); not those
// at another server or through another connection, and no longer once
// they end.
func TestPassesAtServer(t *testing.T) {
	root := NewFairness(2)
	labels, repos := root.ForKind(), root.ForKind()
	at := func(ns, name, server string) Tenant {
		return Tenant{Forge: types.NamespacedName{Namespace: ns, Name: name}, Server: server}
	}
	req := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
	}
	atA := InFlightAt("https://a", []types.NamespacedName{{Namespace: "team-a", Name: "gitea"}, {Namespace: "team-b", Name: "gitea"}}, []string{"shared"})
	var releases []func()
	for _, p := range []struct {
		f      *Fairness
		tenant Tenant
		name   string
	}{
		{labels, at("team-a", "gitea", "https://a"), "l1"},
		{repos, at("team-b", "gitea", ""), "r1"},
		{labels, at("team-d", "ClusterForge/shared", ""), "c1"},
		{repos, at("team-c", "gitea", "https://b"), "r2"},
		{repos, at("team-e", "gitea", ""), "x1"},
	} {
		release, ok := p.f.acquire(p.tenant, req(p.name))
		if !ok {
			t.Fatalf("%s found no slot", p.name)
		}
		releases = append(releases, release)
	}
	for i, name := range []string{"the Label at a", "the Repository of a Forge at a", "the Label through a's ClusterForge"} {
		if got := root.PassesWhere(atA); got == 0 {
			t.Errorf("before %s ended: no pass at a", name)
		}
		releases[i]()
	}
	if got := root.PassesWhere(atA); got != 0 {
		t.Errorf("passes at a after all its passes ended: %d, want 0 (the others are at b or through another Forge)", got)
	}
	releases[3]()
	releases[4]()
	if got := (*Fairness)(nil).PassesWhere(atA); got != 0 {
		t.Errorf("no Fairness: %d passes, want 0", got)
	}
}
