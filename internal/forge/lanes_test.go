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
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// laneForge is a forge answering every label listing with none, counting
// the listings, and a client of it at qps and burst 2 (its drift lane at
// qps/2, burst 1).
func laneForge(t *testing.T, qps float64) (*Snapshots, *atomic.Int64) {
	t.Helper()
	var lists atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lists.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[]"))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{Name: t.Name(), URL: srv.URL, Token: "t", QPS: qps, Burst: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Forget(t.Name()) })
	return NewSnapshots(c), &lists
}

// TestDriftLane: routine checks read through a lane of half the forge's
// rate. A check whose turn comes within a second waits for it; one whose
// turn is later reads nothing and is told when it comes, holding it: on
// its turn it reads without asking again. Creates and updates (foreground
// reads) never wait for the lane.
func TestDriftLane(t *testing.T) {
	ctx := context.Background()
	check := func(s *Snapshots, repo string, turn time.Time) error {
		_, err := s.Reading(&ReadPolicy{MaxAge: time.Hour, Background: true, Turn: turn}).ListLabels(ctx, RepoScope("acme", repo))
		return err
	}

	t.Run("a turn within a second is waited for", func(t *testing.T) {
		s, lists := laneForge(t, 4) // lane: 2 a second, burst 1
		start := time.Now()
		for _, r := range []string{"a", "b"} {
			if err := check(s, r, time.Time{}); err != nil {
				t.Fatalf("check of %s: %v", r, err)
			}
		}
		if waited := time.Since(start); waited < 400*time.Millisecond {
			t.Errorf("two checks read within %s, want the second half a second later (its turn)", waited)
		}
		if n := lists.Load(); n != 2 {
			t.Errorf("%d listings, want 2", n)
		}
	})

	t.Run("a later turn is kept for the check", func(t *testing.T) {
		s, lists := laneForge(t, 1) // lane: one every 2 s
		if err := check(s, "a", time.Time{}); err != nil {
			t.Fatalf("first check: %v", err)
		}
		err := check(s, "b", time.Time{})
		var te *TurnError
		if !errors.As(err, &te) || !errors.Is(err, ErrYield) {
			t.Fatalf("second check: %v, want its later turn (a TurnError, ErrYield)", err)
		}
		if d := time.Until(te.At); d < 1500*time.Millisecond || d > 2500*time.Millisecond {
			t.Errorf("second check's turn in %s, want about 2 s", d)
		}
		if n := lists.Load(); n != 1 {
			t.Fatalf("%d listings, want 1: a check told to wait reads nothing", n)
		}
		// Creates and updates do not queue behind the checks.
		before := time.Now()
		if _, err := s.Reading(&ReadPolicy{MaxAge: time.Hour}).ListLabels(ctx, RepoScope("acme", "c")); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(before); d > 500*time.Millisecond {
			t.Errorf("a foreground read waited %s behind the drift lane", d)
		}
		// On its turn the check reads at once, on the turn it holds; the
		// next check's turn comes one turn after it (the held turn was not
		// asked for again).
		time.Sleep(time.Until(te.At))
		if err := check(s, "b", te.At); err != nil {
			t.Fatalf("second check on its turn: %v", err)
		}
		err = check(s, "d", time.Time{})
		var next *TurnError
		if !errors.As(err, &next) {
			t.Fatalf("a check after it: %v, want a later turn", err)
		}
		if gap := next.At.Sub(te.At); gap < 1500*time.Millisecond || gap > 2500*time.Millisecond {
			t.Errorf("next turn %s after the held one, want one turn (2 s)", gap)
		}
	})
}

// TestDriftLaneTrees: a branch's tree, read afresh by the one check that
// compares it (never kept), still waits for its turn in the drift lane
// like the kept listings, and counts in the drift load.
func TestDriftLaneTrees(t *testing.T) {
	ctx := context.Background()
	s, lists := laneForge(t, 1) // lane: one every 2 s
	check := s.Reading(&ReadPolicy{MaxAge: time.Hour, Background: true})
	if _, err := check.ListLabels(ctx, RepoScope("acme", "web")); err != nil {
		t.Fatalf("first check: %v", err)
	}
	_, err := check.ListTree(ctx, "acme", "web", "main")
	var te *TurnError
	if !errors.As(err, &te) || !errors.Is(err, ErrYield) {
		t.Fatalf("tree listing of a check right after another: %v, want its later turn (a TurnError, ErrYield)", err)
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("%d requests, want 1: a tree listing told to wait reads nothing", n)
	}
	if l := DriftLoad(t.Name()); l.Scopes != 2 {
		t.Errorf("drift load %+v, want 2 scopes: the labels and the tree", l)
	}
}

// TestDriftLaneTeamsAndCollaborators: a team's members, a team's
// repositories and a repository's collaborators, read afresh by the one
// pass that compares them (never kept), each wait for their turn in the
// drift lane like the kept listings, and count in the drift load; a read
// afresh (Fresh, a guard before removals) counts in none.
func TestDriftLaneTeamsAndCollaborators(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		what string
		list func(Interface) error
	}{
		{"a team's members", func(fc Interface) error { _, err := fc.ListTeamMembers(ctx, 7); return err }},
		{"a team's repositories", func(fc Interface) error { _, err := fc.ListTeamRepos(ctx, 7); return err }},
		{"a repository's collaborators", func(fc Interface) error { _, err := fc.ListCollaborators(ctx, "acme", "web"); return err }},
	} {
		t.Run(c.what, func(t *testing.T) {
			t.Parallel()                // each its own forge and lane
			s, lists := laneForge(t, 1) // lane: one every 2 s
			check := s.Reading(&ReadPolicy{MaxAge: time.Hour, Background: true})
			if _, err := check.ListLabels(ctx, RepoScope("acme", "web")); err != nil {
				t.Fatalf("first check: %v", err)
			}
			err := c.list(check)
			var te *TurnError
			if !errors.As(err, &te) || !errors.Is(err, ErrYield) {
				t.Fatalf("listing of %s by a check right after another: %v, want its later turn (a TurnError, ErrYield)", c.what, err)
			}
			if n := lists.Load(); n != 1 {
				t.Errorf("%d requests, want 1: a listing told to wait reads nothing", n)
			}
			if l := DriftLoad(t.Name()); l.Scopes != 2 {
				t.Errorf("drift load %+v, want 2 scopes: the labels and %s", l, c.what)
			}
			// On its turn the check reads it, on the turn it holds.
			time.Sleep(time.Until(te.At))
			if err := c.list(s.Reading(&ReadPolicy{MaxAge: time.Hour, Background: true, Turn: te.At})); err != nil {
				t.Fatalf("listing of %s on its turn: %v", c.what, err)
			}
			if n := lists.Load(); n != 2 {
				t.Errorf("%d requests, want 2: the listing on its turn reached the forge", n)
			}
			// Afresh, by a pass that is no check: at once, counted in no load.
			if err := c.list(Fresh(s.Reading(&ReadPolicy{MaxAge: time.Hour}))); err != nil {
				t.Fatal(err)
			}
			if l := DriftLoad(t.Name()); l.Scopes != 2 {
				t.Errorf("drift load %+v after a read afresh, want still 2 scopes", l)
			}
		})
	}
}

// TestDriftLoad: the scopes checks read, each once per interval, against
// the drift lane's half of the rate: while they fit a check of every scope
// takes one interval; more scopes, more intervals, also in CheckSpacing.
func TestDriftLoad(t *testing.T) {
	// Reads record their scopes: three listings a second.
	s, _ := laneForge(t, 1000) // lane: 500 a second
	ctx := context.Background()
	for i := range 3 {
		if _, err := s.Reading(&ReadPolicy{MaxAge: time.Second}).ListLabels(ctx, RepoScope("acme", fmt.Sprintf("r%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if l := DriftLoad(t.Name()); l.Scopes != 3 || l.Intervals != 1 {
		t.Fatalf("load %+v, want 3 scopes in one interval", l)
	}

	// The arithmetic, at times of the test's choosing (reading 700 scopes
	// takes long enough on a busy machine for the first to expire).
	d := &driftLoad{name: t.Name() + "/arithmetic"}
	now := time.Unix(1_800_000_000, 0)
	for i := range 700 {
		d.note(fmt.Sprintf("r%d", i), 250*time.Millisecond, 1, now) // 2,800 a second
	}
	l := d.load(500, now)
	if l.Scopes != 700 || l.Intervals != 6 || l.PerSecond < 2799 || l.PerSecond > 2801 {
		t.Fatalf("load %+v, want 700 scopes at 2,800 a second, in 6 intervals", l)
	}
	// Scopes not read within twice their spacing and an interval go
	// (13 intervals of 250 ms, spaced 6); a load is worked out again at
	// most once a second (loadFresh).
	if l := d.load(500, now.Add(2*time.Second)); l.Scopes != 700 {
		t.Fatalf("load %+v, want the 700 scopes kept within 13 of their intervals", l)
	}
	if l := d.load(500, now.Add(13*250*time.Millisecond+time.Nanosecond)); l.Scopes != 0 || l.Intervals != 1 {
		t.Fatalf("load %+v, want every scope gone after 13 of their intervals", l)
	}

	// A pass's own calls do not space checks further; creates and updates
	// waiting for the rate do: a check gives way one more round. The
	// scopes are read every minute: 36,000 of them ask 600 a second.
	c := s.inner.(*Client)
	for i := range 36_000 {
		c.load.note(fmt.Sprintf("s%d", i), time.Minute, 1, time.Now())
	}
	view := s.Reading(&ReadPolicy{MaxAge: time.Minute})
	if n := CheckSpacing(view); n != 2 {
		t.Errorf("CheckSpacing = %d, want 2", n)
	}
	c.demand.waiting.Add(1)
	if n := CheckSpacing(view); n != 4 {
		t.Errorf("CheckSpacing while writes wait = %d, want 4", n)
	}
	c.demand.waiting.Add(-1)
	if DriftLoad("no such forge").Intervals != 1 {
		t.Error("an unknown forge has checks spaced")
	}
}

// TestDriftLoadSpread: the trees a file kind lists only where a
// repository moved, and every one at its complete check every n
// intervals, count 1/n each: 5,000 repositories of one organization at
// 10 minutes and the default rate (a lane of 5 a second) are 5,001 scopes
// in two intervals read every interval, 835 in one spread over 6.
func TestDriftLoadSpread(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		spread, scopes, intervals int
	}{{1, 5001, 2}, {6, 835, 1}} {
		d := &driftLoad{name: fmt.Sprintf("%s/%d", t.Name(), c.spread)}
		d.note("orgs\x00acme", 10*time.Minute, 1, now)
		for i := range 5000 {
			d.note(fmt.Sprintf("trees\x00acme/r%d", i), 10*time.Minute, c.spread, now)
		}
		if l := d.load(5, now); l.Scopes != c.scopes || l.Intervals != c.intervals {
			t.Errorf("spread %d: load %+v, want %d scopes in %d intervals", c.spread, l, c.scopes, c.intervals)
		}
		// A spread scope stays within twice its spread and an interval.
		if l := d.load(5, now.Add(time.Duration(3*c.spread)*10*time.Minute-time.Second)); c.spread > 1 && l.Scopes != 834 {
			t.Errorf("spread %d: load %+v three intervals on, want the trees kept", c.spread, l)
		}
	}
}
