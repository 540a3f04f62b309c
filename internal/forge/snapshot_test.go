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

package forge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// labelForge is a forge holding the labels of one repository, counting
// the calls that reach it. A listing can be held (hold) to race writes
// against it.
type labelForge struct {
	Interface // nil: any other call panics

	mu       sync.Mutex
	labels   []Label
	nextID   int64
	lists    atomic.Int64
	gets     atomic.Int64
	failNext error
	hold     chan struct{} // when set, a listing waits for it to close
	listing  chan struct{} // closed when a held listing has read the labels
	busy     atomic.Bool
}

func (f *labelForge) Busy() bool { return f.busy.Load() }

func (f *labelForge) ListLabels(ctx context.Context, _ Scope) ([]Label, error) {
	f.lists.Add(1)
	f.mu.Lock()
	out := append([]Label(nil), f.labels...)
	hold, listing := f.hold, f.listing
	f.mu.Unlock()
	if hold != nil {
		close(listing)
		<-hold
	}
	return out, nil
}

func (f *labelForge) GetLabel(_ context.Context, _ Scope, id int64) (*Label, error) {
	f.gets.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.labels {
		if l.ID == id {
			return &l, nil
		}
	}
	return nil, &Error{Op: "get label", Kind: KindNotFound, StatusCode: 404}
}

func (f *labelForge) CreateLabel(_ context.Context, _ Scope, opt CreateLabelOption) (*Label, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	l := Label{ID: f.nextID, Name: opt.Name, Color: opt.Color}
	f.labels = append(f.labels, l)
	if err := f.failNext; err != nil {
		f.failNext = nil
		return nil, err // created, but the answer is lost
	}
	return &l, nil
}

func (f *labelForge) EditLabel(_ context.Context, _ Scope, id int64, opt EditLabelOption) (*Label, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.labels {
		if f.labels[i].ID == id {
			if opt.Name != nil {
				f.labels[i].Name = *opt.Name
			}
			l := f.labels[i]
			return &l, nil
		}
	}
	return nil, &Error{Op: "edit label", Kind: KindNotFound, StatusCode: 404}
}

func (f *labelForge) DeleteLabel(_ context.Context, _ Scope, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.labels {
		if f.labels[i].ID == id {
			f.labels = append(f.labels[:i], f.labels[i+1:]...)
			break
		}
	}
	return nil
}

// external changes the forge behind the operator's back.
func (f *labelForge) external(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	f.labels = append(f.labels, Label{ID: f.nextID, Name: name})
}

var web = RepoScope("acme", "web")

func names(ls []Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func TestSnapshotsOneListingServesTheScope(t *testing.T) {
	f := &labelForge{}
	f.external("bug")
	f.external("docs")
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Minute})
	ctx := context.Background()

	for range 20 {
		l, err := s.GetLabel(ctx, web, 2)
		if err != nil || l.Name != "docs" {
			t.Fatalf("GetLabel(2) = %v, %v; want docs", l, err)
		}
	}
	if _, err := s.GetLabel(ctx, web, 99); !IsNotFound(err) {
		t.Fatalf("GetLabel(99) error = %v, want not found", err)
	}
	all, err := s.ListLabels(ctx, web)
	if err != nil || len(all) != 2 {
		t.Fatalf("ListLabels = %v, %v", names(all), err)
	}
	// One listing serves every read it holds; a miss is confirmed by one
	// GET (a listing can miss an object that moved between its pages).
	if lists, gets := f.lists.Load(), f.gets.Load(); lists != 1 || gets != 1 {
		t.Fatalf("forge calls: %d listings, %d GETs; want one listing for 22 reads and one GET for the miss", lists, gets)
	}
	// Other scopes have listings of their own.
	if _, err := s.ListLabels(ctx, RepoScope("acme", "api")); err != nil {
		t.Fatal(err)
	}
	if got := f.lists.Load(); got != 2 {
		t.Fatalf("listings = %d, want 2 after a second scope", got)
	}
}

// A pass reads through a view bound to its policy (Reading); Fresh of that
// view lists afresh and still records, in the pass's policy, what it read.
func TestSnapshotsFreshViewListsAfresh(t *testing.T) {
	f := &labelForge{}
	f.external("bug")
	pass := &ReadPolicy{MaxAge: time.Hour}
	s := NewSnapshots(f)
	view, ctx := s.Reading(pass), context.Background()
	if _, err := view.ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	first := pass.OldestListing()
	if first.IsZero() {
		t.Fatal("the pass's policy recorded no listing")
	}
	f.external("drift")
	all, err := view.ListLabels(ctx, web)
	if err != nil || len(all) != 1 || f.lists.Load() != 1 {
		t.Fatalf("within max age: %v, %v, %d listings; want the kept listing", names(all), err, f.lists.Load())
	}
	all, err = Fresh(view).ListLabels(ctx, web)
	if err != nil || len(all) != 2 || f.lists.Load() != 2 {
		t.Fatalf("fresh: %v, %v, %d listings; want a new listing with the drift", names(all), err, f.lists.Load())
	}
	if !pass.OldestListing().Equal(first) {
		t.Fatal("the fresh read changed the pass's oldest listing")
	}
	// What the fresh view listed serves the pass's view too.
	if all, _ := view.ListLabels(ctx, web); len(all) != 2 || f.lists.Load() != 2 {
		t.Fatalf("after the fresh listing: %v, %d listings", names(all), f.lists.Load())
	}
	if got := Fresh(f); got != Interface(f) {
		t.Fatal("Fresh of a client that keeps no listings is not the client itself")
	}
}

// A lenient view (a guard's) takes a listing up to its times the pass's
// MaxAge old; one that started before ListedAfter still does not serve it.
func TestSnapshotsLenientViewTakesOlderListings(t *testing.T) {
	f := &labelForge{}
	f.external("bug")
	ctx := context.Background()
	s := NewSnapshots(f)
	view := s.Reading(&ReadPolicy{MaxAge: 50 * time.Millisecond})
	if _, err := view.ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	if _, err := Lenient(view, 10).ListLabels(ctx, web); err != nil || f.lists.Load() != 1 {
		t.Fatalf("lenient read: %v, %d listings; want the kept listing", err, f.lists.Load())
	}
	if _, err := view.ListLabels(ctx, web); err != nil || f.lists.Load() != 2 {
		t.Fatalf("the pass's own read: %v, %d listings; want a new listing past its MaxAge", err, f.lists.Load())
	}
	later := s.Reading(&ReadPolicy{MaxAge: time.Hour, ListedAfter: time.Now().Add(time.Millisecond)})
	time.Sleep(2 * time.Millisecond)
	if _, err := Lenient(later, 10).ListLabels(ctx, web); err != nil || f.lists.Load() != 3 {
		t.Fatalf("lenient read of a newer resource: %v, %d listings; want a listing after ListedAfter", err, f.lists.Load())
	}
	if got := Lenient(s.Reading(&ReadPolicy{}), 10); got.(*Snapshots).pol().MaxAge != 0 {
		t.Fatal("a lenient view of a fresh policy does not list afresh")
	}
}

func TestSnapshotsNeverOlderThanMaxAge(t *testing.T) {
	f := &labelForge{}
	f.external("bug")
	s := NewSnapshots(f)
	short, ctx := s.Reading(&ReadPolicy{MaxAge: 20 * time.Millisecond}), context.Background()
	if _, err := short.ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	f.external("drift") // someone adds a label on the forge
	time.Sleep(30 * time.Millisecond)
	all, err := short.ListLabels(ctx, web)
	if err != nil || len(all) != 2 {
		t.Fatalf("after max age: %v, %v; want the external label seen", names(all), err)
	}
	if got := f.lists.Load(); got != 2 {
		t.Fatalf("listings = %d, want 2", got)
	}
	// Without a policy every read goes to the forge, GETs as GETs.
	if _, err := s.GetLabel(ctx, web, 1); err != nil {
		t.Fatal(err)
	}
	if got := f.gets.Load(); got != 1 {
		t.Fatalf("GETs = %d, want 1 without a policy", got)
	}
}

func TestSnapshotsSeeTheirOwnWrites(t *testing.T) {
	f := &labelForge{}
	f.external("bug")
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	if _, err := s.ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	created, err := s.CreateLabel(ctx, web, CreateLabelOption{Name: "feature"})
	if err != nil {
		t.Fatal(err)
	}
	newName := "kind/bug"
	if _, err := s.EditLabel(ctx, web, 1, EditLabelOption{Name: &newName}); err != nil {
		t.Fatal(err)
	}
	all, _ := s.ListLabels(ctx, web)
	if got := names(all); len(got) != 2 || got[0] != "kind/bug" || got[1] != "feature" {
		t.Fatalf("after create and edit: %v, want [kind/bug feature]", got)
	}
	if err := s.DeleteLabel(ctx, web, created.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetLabel(ctx, web, created.ID); !IsNotFound(err) {
		t.Fatalf("deleted label read back: %v", err)
	}
	if got := f.lists.Load(); got != 1 {
		t.Fatalf("listings = %d, want 1: writes update the listing", got)
	}
}

// A create that lands while a listing is under way, and is missing from
// it, is still in the listing kept afterwards: an adoption look-up never
// misses what the operator just created.
func TestSnapshotsReplayWritesMadeDuringAListing(t *testing.T) {
	f := &labelForge{hold: make(chan struct{}), listing: make(chan struct{})}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	done := make(chan []Label)
	go func() {
		all, _ := s.ListLabels(ctx, web)
		done <- all
	}()
	<-f.listing // the listing has read the forge (empty)
	if _, err := s.CreateLabel(ctx, web, CreateLabelOption{Name: "bug"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	hold := f.hold
	f.hold = nil // later listings are not held
	f.mu.Unlock()
	close(hold)
	if first := <-done; len(first) != 1 {
		t.Fatalf("the listing under way returned %v, want the label created meanwhile", names(first))
	}
	all, err := s.ListLabels(ctx, web)
	if err != nil || len(all) != 1 || all[0].Name != "bug" {
		t.Fatalf("listing kept = %v, %v; want the label created during the listing", names(all), err)
	}
}

// A create whose answer is lost may have happened: the scope is listed
// again rather than trusted.
func TestSnapshotsDropTheListingAfterAFailedWrite(t *testing.T) {
	f := &labelForge{}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	if _, err := s.ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	f.failNext = &Error{Op: "create label", Kind: KindNetwork, Err: errors.New("connection reset")}
	if _, err := s.CreateLabel(ctx, web, CreateLabelOption{Name: "bug"}); err == nil {
		t.Fatal("create succeeded, want the lost answer")
	}
	all, err := s.ListLabels(ctx, web)
	if err != nil || len(all) != 1 {
		t.Fatalf("after a lost create: %v, %v; want the created label found", names(all), err)
	}
	if got := f.lists.Load(); got != 2 {
		t.Fatalf("listings = %d, want 2", got)
	}
}

func TestSnapshotsConcurrentReadersShareOneListing(t *testing.T) {
	f := &labelForge{hold: make(chan struct{}), listing: make(chan struct{})}
	f.external("bug")
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	var wg sync.WaitGroup
	results := make(chan error, 10)
	wg.Go(func() {
		_, err := s.GetLabel(ctx, web, 1)
		results <- err
	})
	<-f.listing
	for range 9 {
		wg.Go(func() {
			_, err := s.GetLabel(ctx, web, 1)
			results <- err
		})
	}
	time.Sleep(10 * time.Millisecond) // let the readers join the listing
	f.mu.Lock()
	hold := f.hold
	f.hold = nil
	f.mu.Unlock()
	close(hold)
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := f.lists.Load(); got != 1 {
		t.Fatalf("listings = %d, want 1 for 10 concurrent readers", got)
	}
}

func TestSnapshotsHandOutCopies(t *testing.T) {
	s := NewSnapshots(&hookForge{hooks: []Hook{{ID: 1, Type: "gitea", Config: map[string]string{"url": "https://ci"}, Events: []string{"push"}}}}).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	h, err := s.GetHook(ctx, OrgScope("acme"), 1)
	if err != nil {
		t.Fatal(err)
	}
	h.Config["url"] = "changed"
	h.Events[0] = "changed"
	again, _ := s.GetHook(ctx, OrgScope("acme"), 1)
	if again.Config["url"] != "https://ci" || again.Events[0] != "push" {
		t.Fatalf("a caller's change reached the listing: %+v", again)
	}
}

type hookForge struct {
	Interface
	hooks []Hook
}

func (f *hookForge) ListHooks(context.Context, Scope) ([]Hook, error) { return f.hooks, nil }

func TestClientCountsForegroundWaiters(t *testing.T) {
	// One token, the next one 100 s later: every wait below lasts until cancelled.
	c, err := New(Config{URL: "http://127.0.0.1:1", QPS: 0.01, Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.writesWait() {
		t.Fatal("writes wait before any call")
	}
	if err := c.wait(context.Background()); err != nil { // takes the one token
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waiting := make(chan error)
	go func() { waiting <- c.wait(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for !c.writesWait() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !c.writesWait() {
		t.Fatal("a foreground call waits for the budget, writesWait is false")
	}
	cancel()
	if err := <-waiting; err == nil {
		t.Fatal("a cancelled wait succeeded")
	}
	if c.writesWait() {
		t.Fatal("writes wait after the only waiting call ended")
	}
	bg, cancelBG := context.WithCancel(context.Background())
	go func() { waiting <- c.asBackground().(*Client).wait(bg) }()
	time.Sleep(20 * time.Millisecond)
	if c.writesWait() {
		t.Fatal("a background check counts as demand")
	}
	cancelBG()
	if err := <-waiting; err == nil {
		t.Fatal("a cancelled background wait succeeded")
	}
}

type orgForge struct {
	Interface
	lists, gets atomic.Int64
}

func (f *orgForge) ListMyOrgs(context.Context) ([]Organization, error) {
	f.lists.Add(1)
	return []Organization{{ID: 1, Name: "Acme", Description: "ours"}}, nil
}

func (f *orgForge) GetOrg(_ context.Context, name string) (*Organization, error) {
	f.gets.Add(1)
	if name == "public" {
		return &Organization{ID: 2, Name: "public"}, nil
	}
	return nil, &Error{Op: "get organization", Kind: KindNotFound, StatusCode: 404}
}

// Organizations of the user come from one listing; any other is read by
// name, since the listing holds only the user's own.
func TestSnapshotsOrganizations(t *testing.T) {
	f := &orgForge{}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	for range 5 {
		o, err := s.GetOrg(ctx, "acme") // names are case-insensitive
		if err != nil || o.Description != "ours" {
			t.Fatalf("GetOrg(acme) = %v, %v", o, err)
		}
	}
	if o, err := s.GetOrg(ctx, "public"); err != nil || o.ID != 2 {
		t.Fatalf("GetOrg(public) = %v, %v; want it read by name", o, err)
	}
	if _, err := s.GetOrg(ctx, "gone"); !IsNotFound(err) {
		t.Fatalf("GetOrg(gone) error = %v, want not found", err)
	}
	if l, g := f.lists.Load(), f.gets.Load(); l != 1 || g != 2 {
		t.Fatalf("listings %d, GETs %d; want 1 and 2", l, g)
	}
}

// sizedForge lists n labels in every scope.
type sizedForge struct {
	Interface
	n     int
	lists atomic.Int64
}

func (f *sizedForge) ListLabels(context.Context, Scope) ([]Label, error) {
	f.lists.Add(1)
	out := make([]Label, f.n)
	for i := range out {
		out[i] = Label{ID: int64(i + 1)}
	}
	return out, nil
}

// A Forge's listings keep at most MaxKeptItems objects in memory: past
// that, a listing serves its reader and is not kept.
func TestSnapshotsKeepABoundedNumberOfObjects(t *testing.T) {
	f := &sizedForge{n: MaxKeptItems*3/5 + 1}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	a, b := RepoScope("acme", "a"), RepoScope("acme", "b")
	for _, scope := range []Scope{a, b, a, b} {
		all, err := s.ListLabels(ctx, scope)
		if err != nil || len(all) != f.n {
			t.Fatalf("ListLabels(%s) = %d labels, %v", scope, len(all), err)
		}
	}
	// a is kept (read once), b is over the bound (read each time).
	if got := f.lists.Load(); got != 3 {
		t.Fatalf("listings = %d, want 3: the first scope kept, the second not", got)
	}
}

// bigForge lists n labels of size bytes each in every scope.
type bigForge struct {
	Interface
	n, size int
	lists   atomic.Int64
}

func (f *bigForge) ListLabels(_ context.Context, sc Scope) ([]Label, error) {
	f.lists.Add(1)
	out := make([]Label, f.n)
	for i := range out {
		out[i] = Label{ID: int64(i + 1), Name: sc.String(), Description: strings.Repeat("x", f.size)}
	}
	return out, nil
}

// A Forge's kept listings hold at most MaxKeptBytes, however few objects
// they are: past it, a listing serves its reader and is not kept.
func TestSnapshotsKeepABoundedNumberOfBytes(t *testing.T) {
	f := &bigForge{n: 4, size: 2 << 20} // 8 MiB a scope: four fit in 32 MiB
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	const scopes = 10
	for round := range 2 {
		for i := range scopes {
			if _, err := s.ListLabels(ctx, RepoScope("acme", fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		if kept := s.KeptBytes(); kept > MaxKeptBytes || kept < 3*8<<20 {
			t.Fatalf("round %d: %d bytes kept, want at most %d and the scopes that fit", round, kept, MaxKeptBytes)
		}
	}
	// The scopes kept are read once; the others on every read.
	kept := s.KeptBytes() / (8 << 20)
	if got, want := f.lists.Load(), scopes+(scopes-kept); got != want {
		t.Fatalf("listings = %d, want %d (%d scopes kept)", got, want, kept)
	}
	s.Close()
	if s.KeptBytes() != 0 {
		t.Fatalf("%d bytes kept after Close", s.KeptBytes())
	}
}

// The Snapshots of one manager share its budget: what one Forge keeps,
// another cannot, until the first gives it back.
func TestSnapshotsShareTheManagersBudget(t *testing.T) {
	manager := NewBudget(10 << 20)
	f := &bigForge{n: 4, size: 2 << 20}
	one, two := NewSnapshots(f).Within(manager), NewSnapshots(f).Within(manager)
	ctx, hour := context.Background(), &ReadPolicy{MaxAge: time.Hour}
	if _, err := one.Reading(hour).ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	if _, err := two.Reading(hour).ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	if one.KeptBytes() == 0 || two.KeptBytes() != 0 || manager.Used() != one.KeptBytes() {
		t.Fatalf("kept: one %d, two %d, manager %d; want the first only", one.KeptBytes(), two.KeptBytes(), manager.Used())
	}
	one.Close()
	if _, err := two.Reading(hour).ListLabels(ctx, web); err != nil {
		t.Fatal(err)
	}
	if two.KeptBytes() == 0 || manager.Used() != two.KeptBytes() {
		t.Fatalf("after the first closed: two %d, manager %d", two.KeptBytes(), manager.Used())
	}
}

// A scope nobody read for IdleAfter makes room for one being read; a scope
// still read is never evicted for another's sake.
func TestSnapshotsEvictIdleScopes(t *testing.T) {
	f := &bigForge{n: 4, size: 2 << 20}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	for i := range 4 {
		if _, err := s.ListLabels(ctx, RepoScope("acme", fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	// Scope 0 has not been read for a while.
	labels.cache(s).mu.Lock()
	labels.cache(s).entries[RepoScope("acme", "0").String()].read = time.Now().Add(-2 * IdleAfter)
	labels.cache(s).mu.Unlock()
	if _, err := s.ListLabels(ctx, RepoScope("acme", "new")); err != nil {
		t.Fatal(err)
	}
	labels.cache(s).mu.Lock()
	_, idle := labels.cache(s).entries[RepoScope("acme", "0").String()]
	fresh := labels.cache(s).entries[RepoScope("acme", "new").String()]
	labels.cache(s).mu.Unlock()
	if idle || fresh == nil || fresh.fetched.IsZero() || s.KeptBytes() > MaxKeptBytes {
		t.Fatalf("idle scope kept %v, new scope kept %v, %d bytes; want the idle one evicted for the new, within %d", idle, fresh != nil && !fresh.fetched.IsZero(), s.KeptBytes(), MaxKeptBytes)
	}
}

// actionsForge serves one scope's secrets and variables, counting listings.
type actionsForge struct {
	Interface
	mu        sync.Mutex
	secrets   []ActionsSecret
	variables []ActionsVariable
	lists     atomic.Int32
}

func (f *actionsForge) ListActionsSecrets(context.Context, Scope) ([]ActionsSecret, error) {
	f.lists.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.secrets), nil
}

func (f *actionsForge) PutActionsSecret(_ context.Context, _ Scope, name, _, description string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.secrets = append(f.secrets, ActionsSecret{Name: strings.ToUpper(name), Description: description})
	return nil
}

func (f *actionsForge) ListActionsVariables(context.Context, Scope) ([]ActionsVariable, error) {
	f.lists.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.variables), nil
}

func (f *actionsForge) CreateActionsVariable(_ context.Context, _ Scope, name, value, description string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.variables = append(f.variables, ActionsVariable{Name: strings.ToUpper(name), Data: value, Description: description})
	return nil
}

func (f *actionsForge) DeleteActionsVariable(_ context.Context, _ Scope, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.variables = slices.DeleteFunc(f.variables, func(v ActionsVariable) bool { return strings.EqualFold(v.Name, name) })
	return nil
}

// Actions writes answer no object: the listing records what was sent
// (names upper case, as the forge keeps them), so the second secret of a
// repository is not preceded by a second listing.
func TestSnapshotsActionsWritesKeepTheListing(t *testing.T) {
	f := &actionsForge{}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Hour})
	ctx := context.Background()
	for _, n := range []string{"deploy_token", "registry_password"} {
		if _, err := s.ListActionsSecrets(ctx, web); err != nil {
			t.Fatal(err)
		}
		if err := s.PutActionsSecret(ctx, web, n, "v", "d"); err != nil {
			t.Fatal(err)
		}
	}
	secrets, _ := s.ListActionsSecrets(ctx, web)
	if len(secrets) != 2 || secrets[0].Name != "DEPLOY_TOKEN" || secrets[1].Name != "REGISTRY_PASSWORD" {
		t.Fatalf("secrets after two puts: %+v", secrets)
	}
	for _, n := range []string{"go_version", "registry"} {
		if _, err := s.ListActionsVariables(ctx, web); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateActionsVariable(ctx, web, n, "1", ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteActionsVariable(ctx, web, "go_version"); err != nil {
		t.Fatal(err)
	}
	variables, _ := s.ListActionsVariables(ctx, web)
	if len(variables) != 1 || variables[0].Name != "REGISTRY" || variables[0].Data != "1" {
		t.Fatalf("variables after two creates and a delete: %+v", variables)
	}
	if n := f.lists.Load(); n != 2 {
		t.Fatalf("%d listings, want 2 (one of secrets, one of variables)", n)
	}
}
