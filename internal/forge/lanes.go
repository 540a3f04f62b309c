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
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Drift checks and the forge's budget.
//
// A routine drift check (ReadPolicy.Background) reads through a lane of
// its own, at half the forge's rate, besides the forge's limiter: however
// many scopes are due, creates and updates always have the other half of
// the rate. A check whose turn in the lane comes within maxLaneWait waits
// for it in its pass; a later turn is kept for it (the lane's reservation
// is not given back) and the check is told when it comes (TurnError), so
// that it waits once, out of its worker, and is not asked again: the
// loop brings it back then, and its read goes through on the turn it
// holds (ReadPolicy.Turn).
//
// The scopes checks read, each once per sync interval, make the forge's
// drift load: listings a second. When it is more than the lane allows, a
// check of every scope takes more than one interval; DriftLoad says how
// many, the loop spaces checks that far apart (so that each finds its turn
// at once rather than queueing), the Forge's status and a metric say so.

// maxLaneWait is the longest a check waits for its lane's turn within its
// pass; a later turn is waited for out of the pass.
const maxLaneWait = time.Second

// TurnError is returned to a routine check whose turn in the forge's drift
// lane comes at At: it reads nothing now and comes back then, holding the
// turn (ReadPolicy.Turn). It is ErrYield.
type TurnError struct{ At time.Time }

func (e *TurnError) Error() string {
	return fmt.Sprintf("%s: the drift check's turn comes in %s", ErrYield, time.Until(e.At).Round(time.Millisecond))
}

func (e *TurnError) Is(target error) bool { return target == ErrYield }

// newLane is the drift lane of a forge limited to limit and burst: half
// of each, so that the few listings of one check (a set's organization,
// then its repositories) are taken together, as the check began.
func newLane(limit rate.Limit, burst int) *rate.Limiter {
	return rate.NewLimiter(laneLimit(limit), laneBurst(burst))
}

func laneBurst(burst int) int { return max(burst/2, 1) }

func laneLimit(limit rate.Limit) rate.Limit {
	if limit == rate.Inf {
		return rate.Inf
	}
	return limit / 2
}

// turn takes a drift check's turn in lane: at once, after waiting at most
// maxLaneWait, or a TurnError naming a later one, which is kept in seen
// for the check's pass. A check that holds a turn that has come takes it.
func turn(ctx context.Context, lane *rate.Limiter, seen *listingsSeen) error {
	now := time.Now()
	seen.mu.Lock()
	held := seen.turn
	var r *rate.Reservation
	wait := time.Duration(0)
	switch {
	case !held.IsZero() && now.Add(maxLaneWait).After(held):
		seen.turn, wait = time.Time{}, held.Sub(now)
	case !held.IsZero():
		seen.mu.Unlock()
		return &TurnError{At: held}
	default:
		r = lane.ReserveN(now, 1)
		if !r.OK() {
			seen.mu.Unlock()
			return nil
		}
		wait = r.DelayFrom(now)
		if wait > maxLaneWait {
			seen.turn = now.Add(wait)
			seen.mu.Unlock()
			return &TurnError{At: now.Add(wait)}
		}
	}
	seen.mu.Unlock()
	if err := sleep(ctx, wait); err != nil {
		if r != nil {
			r.Cancel()
		}
		return err
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// driftLoad is what a forge's drift checks ask of it: the scopes read
// and how often each is to be read.
type driftLoad struct {
	name    string // the forge's, for the metrics
	mu      sync.Mutex
	scopes  map[string]scopeUse
	stretch int // DriftLoad's last answer, for expiring scopes
	// The last answer, for the passes that ask within loadFresh of it
	// (every pass schedules its next check by it): it is worked out
	// again when a scope comes or reads more often, or the lane changes.
	last    Load
	lastAt  time.Time
	lastLim rate.Limit
	changed bool
}

// loadFresh is how long a drift load is answered without going over the
// scopes again, unless one came since: scopes go only after intervals.
const loadFresh = time.Second

type scopeUse struct {
	every time.Duration
	// spread: read once every spread intervals (ReadPolicy.Spread).
	spread int
	last   time.Time
}

// note records that scope is to be read every every (a reader's MaxAge),
// once every spread of those intervals.
func (d *driftLoad) note(scope string, every time.Duration, spread int, now time.Time) {
	if every <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.scopes == nil {
		d.scopes = map[string]scopeUse{}
	}
	u := d.scopes[scope]
	if u.every == 0 || every < u.every {
		u.every = every
		d.changed = true
	}
	if spread != u.spread {
		u.spread = spread
		d.changed = true
	}
	u.last = now
	d.scopes[scope] = u
}

// Load is a forge's drift load (DriftLoad).
type Load struct {
	// Scopes read by drift checks per interval (a scope read once every n
	// intervals counts 1/n, rounded up in all: the trees of a file kind
	// between its complete checks), and the listings a second one check
	// of each per interval asks.
	Scopes    int
	PerSecond float64
	// Intervals a check of every scope takes within the drift lane (half
	// the forge's rate): 1 while the lane has room, more when it has not.
	Intervals int
}

// load is the drift load against lane limit: scopes not read within
// twice their current spacing (and an interval) are gone.
func (d *driftLoad) load(limit rate.Limit, now time.Time) Load {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.changed && limit == d.lastLim && now.Sub(d.lastAt) < loadFresh && !d.lastAt.IsZero() {
		return d.last
	}
	stretch := max(d.stretch, 1)
	var l Load
	scopes := 0.0
	for k, u := range d.scopes {
		spread := max(u.spread, 1)
		if now.Sub(u.last) > time.Duration(2*stretch+1)*time.Duration(spread)*u.every {
			delete(d.scopes, k)
			continue
		}
		scopes += 1 / float64(spread)
		l.PerSecond += 1 / (float64(spread) * u.every.Seconds())
	}
	l.Scopes = int(math.Ceil(scopes - 1e-9))
	l.Intervals = 1
	if limit != rate.Inf && limit > 0 && l.PerSecond > float64(limit) {
		l.Intervals = int(math.Ceil(l.PerSecond / float64(limit)))
	}
	d.stretch = l.Intervals
	d.last, d.lastAt, d.lastLim, d.changed = l, now, limit, false
	driftCheckIntervals.WithLabelValues(d.name).Set(float64(l.Intervals))
	driftScopes.WithLabelValues(d.name).Set(float64(l.Scopes))
	return l
}

// DriftLoad is the drift load of the forge named name (Config.Name): the
// scopes its checks read and how many sync intervals a check of every one
// takes within the half of its rate checks may use.
func DriftLoad(name string) Load {
	limitersMu.Lock()
	b, ok := limiters[name]
	limitersMu.Unlock()
	if !ok {
		return Load{Intervals: 1}
	}
	return b.load.load(b.lane.Limit(), time.Now())
}

// CheckSpacing is how many sync intervals apart fc's drift checks are
// spaced: the drift load's Intervals (1 while checks fit in their half of
// the forge's rate), twice that while creates and updates wait for the
// budget, since a check then gives way to them for one more round.
func CheckSpacing(fc Interface) int {
	s, ok := fc.(*Snapshots)
	if !ok {
		return 1
	}
	c, ok := s.inner.(*Client)
	if !ok || c.load == nil {
		return 1
	}
	n := c.load.load(c.lane.Limit(), time.Now()).Intervals
	if c.writesWait() {
		n *= 2
	}
	return n
}
