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

package sets

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// roundSetup is a fake forge with organization acme holding repos, a
// client of it, and a LabelSet of two labels over the organization.
func roundSetup(t *testing.T, repos int) (*fakeforge.Server, forge.Interface, client.Client, *forgev1.LabelSet) {
	t.Helper()
	ff, srv := fakeforge.NewTestServer(t, fakeforge.WithToken("t"))
	if _, err := ff.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	for i := range repos {
		if err := ff.CreateRepo("acme", fmt.Sprintf("repo-%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	fc, err := forge.New(forge.Config{Name: t.Name(), URL: srv.URL, Token: "t", QPS: 1e6, Burst: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	cache := emptyCache(t)
	org := forgev1.OwnerName("acme")
	s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "std", UID: "set-uid", Generation: 1},
		Spec: forgev1.LabelSetSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
			Repositories: forgev1.RepositorySelector{Organization: &org},
			Labels:       []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#ff0000"}, {Name: "kind/feature", Color: "#00ff00"}}}}
	return ff, fc, cache, s
}

// emptyCache is the cache a set's pass reads the Repository resources
// from, empty.
func emptyCache(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).Build()
}

// labelPass is one pass of set s that writes the set's labels into each
// repository the round has not done: a set kind's work reduced to what the
// rounds see (a listing per repository, a write per label missing).
func labelPass(ctx context.Context, s *forgev1.LabelSet, pass *reconciler.Pass, rds *rounds.Store[Repo]) (reconciler.SetResult, error) {
	set := New(s, s.Spec.Repositories, pass, rds, "label", "labels")
	return set.Run(ctx, true, &s.Status.SetStatus, func(ctx context.Context, r Repo) *Outcome {
		o := &Outcome{}
		scope := forge.RepoScope(r.Owner, r.Name)
		have, err := pass.Forge.ListLabels(ctx, scope)
		if err != nil {
			o.FailErr(err)
			return o
		}
		for _, l := range s.Spec.Labels {
			if slices.ContainsFunc(have, func(h forge.Label) bool { return h.Name == string(l.Name) }) {
				continue
			}
			if _, err := pass.Forge.CreateLabel(ctx, scope, forge.CreateLabelOption{Name: string(l.Name), Color: forge.NormalizeColor(l.Color)}); err != nil {
				o.FailErr(err)
				return o
			}
			o.Created++
		}
		return o
	})
}

// labelListings counts the label listings of each repository the fake served.
func labelListings(ff *fakeforge.Server) map[string]int {
	n := map[string]int{}
	for _, r := range ff.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/labels") {
			n[r.Path]++
		}
	}
	return n
}

// TestSetRoundGoesOnWherePassStopped: a set whose passes each have time
// for a few repositories only (a slow forge, a short reconcile timeout)
// still converges: every pass adds repositories to its round, none is
// listed or written twice, and the set reports how far it got until it is
// complete.
func TestSetRoundGoesOnWherePassStopped(t *testing.T) {
	const repos = 8
	ff, fc, cache, s := roundSetup(t, repos)
	ff.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/*/labels", Count: -1, Delay: 300 * time.Millisecond})
	rds := rounds.NewStore[Repo]()
	pass := &reconciler.Pass{Forge: fc, Cache: cache, Interval: time.Hour}

	var results []reconciler.SetResult
	for len(results) < 3*repos {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		res, err := labelPass(ctx, s, pass, rds)
		cancel()
		if err != nil {
			t.Fatalf("pass %d: %v", len(results)+1, err)
		}
		results = append(results, res)
		if !res.Unfinished {
			break
		}
	}
	if len(results) < 2 {
		t.Fatalf("one pass did all %d repositories; the test needs passes cut short", repos)
	}
	first, last := results[0], results[len(results)-1]
	if !first.Unfinished || first.Pending == 0 || first.Members != repos {
		t.Errorf("first pass: %+v, want an unfinished round of %d repositories with some pending", first, repos)
	}
	for i := 1; i < len(results); i++ {
		if results[i].InSync <= results[i-1].InSync {
			t.Errorf("pass %d added nothing: %d in sync after %d", i+1, results[i].InSync, results[i-1].InSync)
		}
	}
	if last.Unfinished || last.InSync != repos || last.Pending != 0 || s.Status.InSync != repos {
		t.Errorf("last pass: %+v (status inSync %d), want all %d in sync", last, s.Status.InSync, repos)
	}
	for path, n := range labelListings(ff) {
		if n != 1 {
			t.Errorf("%s listed %d times, want once: a repository done in the round is not redone", path, n)
		}
	}
	writes := 0
	for _, r := range ff.WriteRequests() {
		if strings.HasSuffix(r.Path, "/labels") {
			writes++
		}
	}
	if writes != 2*repos {
		t.Errorf("%d label writes, want %d (two labels in each repository, once)", writes, 2*repos)
	}

	// The round is complete: a pass before the next interval compares
	// nothing again.
	ff.ClearRequests()
	res, err := labelPass(context.Background(), s, pass, rds)
	if err != nil || res.Unfinished || res.InSync != repos {
		t.Fatalf("pass after the round: %+v, %v", res, err)
	}
	if n := len(labelListings(ff)); n != 0 {
		t.Errorf("a pass within the interval after a complete round listed %d repositories' labels again", n)
	}
}

// TestSetRoundTakesArrivals: a repository made (and Ready as a Repository
// resource) while the set's pass runs is listed and done in that pass:
// the set is never Ready for fewer repositories than it selects.
func TestSetRoundTakesArrivals(t *testing.T) {
	ff, fc, cache, s := roundSetup(t, 3)
	var arrived atomic.Int64
	ff.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/repo-01/labels", Before: func() {
		if err := ff.CreateRepo("acme", "late"); err != nil {
			t.Error(err)
		}
		arrived.Store(time.Now().UnixNano())
	}})
	pass := &reconciler.Pass{Forge: fc, Cache: cache, Interval: time.Hour,
		Arrived: func() time.Time {
			if n := arrived.Load(); n != 0 {
				return time.Unix(0, n)
			}
			return time.Time{}
		}}
	res, err := labelPass(context.Background(), s, pass, rounds.NewStore[Repo]())
	if err != nil {
		t.Fatal(err)
	}
	if res.Unfinished || res.Members != 4 || res.InSync != 4 {
		t.Fatalf("pass: %+v, want the late repository among 4 in sync", res)
	}
	labels, err := fc.ListLabels(context.Background(), forge.RepoScope("acme", "late"))
	if err != nil || len(labels) != 2 {
		t.Fatalf("labels of the late repository: %v, %v; want the set's 2", labels, err)
	}
}

// TestSetRoundTakesDeclaredRepositories: a repository a Repository
// resource made, missing from the organization listing a set's pass was
// served (kept from before it was made), is listed afresh and done in the
// same pass: a set is never Ready for fewer repositories than exist.
func TestSetRoundTakesDeclaredRepositories(t *testing.T) {
	ff, fc, cache, s := roundSetup(t, 2)
	ctx := context.Background()
	snaps := forge.NewSnapshots(fc)
	view := snaps.Reading(&forge.ReadPolicy{MaxAge: time.Hour})
	if _, err := view.ListOrgRepos(ctx, "acme"); err != nil { // kept: repo-00 and repo-01
		t.Fatal(err)
	}
	if err := ff.CreateRepo("acme", "late"); err != nil {
		t.Fatal(err)
	}
	late, _ := ff.Repo("acme", "late")
	r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "late"},
		Spec:   forgev1.RepositorySpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}, Owner: "acme"},
		Status: forgev1.RepositoryStatus{ManagedStatus: forgev1.ManagedStatus{ID: late.ID}}}
	if err := cache.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	pass := &reconciler.Pass{Forge: snaps.Reading(&forge.ReadPolicy{MaxAge: time.Hour}), Cache: cache, Interval: time.Hour}
	res, err := labelPass(ctx, s, pass, rounds.NewStore[Repo]())
	if err != nil {
		t.Fatal(err)
	}
	if res.Unfinished || res.Members != 3 || res.InSync != 3 {
		t.Fatalf("pass: %+v, want the declared repository among 3 in sync", res)
	}
	if labels := ff.Labels(forge.RepoScope("acme", "late")); len(labels) != 2 {
		t.Fatalf("labels of the declared repository: %v; want the set's 2", labels)
	}
}

// TestSetRoundWithoutTimeForArrivals: a pass that learns of a repository
// made while it ran, with no time left to list and do it, does not say the
// set is complete: the next pass does it.
func TestSetRoundWithoutTimeForArrivals(t *testing.T) {
	ff, fc, cache, s := roundSetup(t, 1)
	var arrived atomic.Int64
	ff.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/repo-00/labels", Delay: 300 * time.Millisecond, Before: func() {
		if err := ff.CreateRepo("acme", "late"); err != nil {
			t.Error(err)
		}
		arrived.Store(time.Now().UnixNano())
	}})
	pass := &reconciler.Pass{Forge: fc, Cache: cache, Interval: time.Hour,
		Arrived: func() time.Time { return time.Unix(0, arrived.Load()) }}
	rds := rounds.NewStore[Repo]()
	sync := func(d time.Duration) reconciler.SetResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		res, err := labelPass(ctx, s, pass, rds)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := sync(500 * time.Millisecond); !res.Unfinished {
		t.Fatalf("pass out of time with a repository arrived: %+v, want the round unfinished", res)
	}
	res := sync(time.Minute)
	if res.Unfinished || res.Members != 2 || res.InSync != 2 {
		t.Fatalf("next pass: %+v, want both repositories in sync", res)
	}
	if labels := ff.Labels(forge.RepoScope("acme", "late")); len(labels) != 2 {
		t.Fatalf("labels of the late repository: %v; want the set's 2", labels)
	}
}
