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

// Package rounds keeps a set kind's round: what the passes of a set
// resource (a LabelSet, a BranchProtectionSet) found in each of its
// repositories since the round began, and the clock that tells a pass when
// to stop between repositories. It serves the set kinds of package
// controllers; it imports only the API types and the loop's vocabulary.
//
// A round begins with the set's first pass, when its spec changes, when a
// reconcile is requested, and an interval after the last round began once
// that one is complete. Within a round a repository is compared (and
// brought to the spec) once; a repository that failed is tried again by
// every pass, as the loop's backoff brings them. So a set whose passes are
// cut short by the reconcile timeout, or stop to stay within it, under a
// forge budget shared with many others, goes on where it stopped instead
// of listing every repository again: each pass adds to the round, and no
// repository is redone in it. Rounds live in the manager's memory; after a
// restart the first pass begins a new one.
package rounds

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Store holds the current round of each set resource of one kind, over
// repositories R (named by their String, compared without case).
type Store[R fmt.Stringer] struct {
	mu sync.Mutex
	by map[types.NamespacedName]*Round[R]
	// recompare holds, by set resource, the repositories (lower case) its
	// next pass compares again though its round compared them already
	// (Recompare).
	recompare map[types.NamespacedName]map[string]bool
}

// NewStore is an empty Store.
func NewStore[R fmt.Stringer]() *Store[R] {
	return &Store[R]{by: map[types.NamespacedName]*Round[R]{}, recompare: map[types.NamespacedName]map[string]bool{}}
}

// Recompare has the next pass of the set resource key compare r again,
// whatever its round did: something on the forge changed r (a push the
// Receiver delivered) after the round compared it. Only r: the round's
// other repositories stay done. It takes effect when that pass begins, so
// that a pass running meanwhile, which may have read r before the change,
// does not undo it.
func (rs *Store[R]) Recompare(key types.NamespacedName, r R) {
	if rs == nil {
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.recompare[key] == nil {
		rs.recompare[key] = map[string]bool{}
	}
	rs.recompare[key][keyOf(r)] = true
}

// Round is one set resource's round.
type Round[R fmt.Stringer] struct {
	uid        types.UID // of the resource: one re-made under its name begins anew
	generation int64
	write      bool
	started    time.Time
	finished   bool // every repository compared: the next round is due an interval after started
	// this round's outcomes by repository (lower case): nil is in sync.
	found map[string]*reconciler.MemberFailure
	// the last round's, told until this round reaches the repository.
	before map[string]*reconciler.MemberFailure
	// removals by repository (lower case): what the last comparison that
	// decided them planned and did not make (removals Report), kept across
	// passes and rounds of one spec, so that a comparison that failed
	// before it decided them (a listing that failed) leaves them as told.
	removals map[string][]forgev1.PendingRemoval
	// left by repository (lower case): what the last comparison of it left
	// to other resources holding it, kept as removals are.
	left map[string][]forgev1.SetYield
	// fresh holds the repositories (lower case) the set newly covers and
	// has not compared without a failure yet: what a later pass writes
	// there is still their first governing, though the set's record lists
	// them by then. Kept across rounds and specs of one resource.
	fresh map[string]bool
}

// Begin returns the round obj's pass at now goes on with, beginning a new
// one when it is due; without a Store (plan) a round of this pass alone.
// The failures of the round are tried again.
func (rs *Store[R]) Begin(obj forgev1.Managed, write bool, pass *reconciler.Pass, now time.Time) *Round[R] {
	fresh := &Round[R]{uid: obj.GetUID(), generation: obj.GetGeneration(), write: write, started: now,
		found: map[string]*reconciler.MemberFailure{}, removals: map[string][]forgev1.PendingRemoval{},
		left: map[string][]forgev1.SetYield{}, fresh: map[string]bool{}}
	if rs == nil || pass == nil {
		return fresh
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	rd := rs.by[key]
	due := rd == nil || rd.uid != obj.GetUID() || rd.generation != obj.GetGeneration() || rd.write != write || pass.Afresh ||
		(rd.finished && !now.Before(rd.started.Add(pass.Interval)))
	if due {
		if rd != nil && rd.uid == obj.GetUID() {
			fresh.fresh = rd.fresh
		}
		if rd != nil && rd.uid == obj.GetUID() && rd.generation == obj.GetGeneration() && rd.write == write {
			// What the last round found is told until this one gets
			// there; what the old spec found says nothing of this one.
			fresh.before = make(map[string]*reconciler.MemberFailure, len(rd.before)+len(rd.found))
			for k, v := range rd.before {
				fresh.before[k] = v
			}
			for k, v := range rd.found {
				fresh.before[k] = v
			}
			fresh.removals, fresh.left = rd.removals, rd.left
		}
		rs.by[key] = fresh
		delete(rs.recompare, key) // a new round compares every repository
		return fresh
	}
	for k, f := range rd.found {
		if f != nil || rs.recompare[key][k] {
			delete(rd.found, k) // tried again
		}
	}
	delete(rs.recompare, key)
	return rd
}

// Forget drops the round of a set resource that is gone
// (reconciler.Forgetter).
func (rs *Store[R]) Forget(key types.NamespacedName) {
	if rs == nil {
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.by, key)
	delete(rs.recompare, key)
}

// Started is when the round began.
func (rd *Round[R]) Started() time.Time { return rd.started }

func keyOf(r fmt.Stringer) string { return strings.ToLower(r.String()) }

// Done reports whether this round compared r already.
func (rd *Round[R]) Done(r R) bool {
	_, ok := rd.found[keyOf(r)]
	return ok
}

// Record keeps what r's comparison found (nil: in sync).
func (rd *Round[R]) Record(r R, f *reconciler.MemberFailure) { rd.found[keyOf(r)] = f }

// RecordRemovals keeps the removals r's comparison decided on and did not
// make (removals Report; none is a decision too), until a later
// comparison of r decides again.
func (rd *Round[R]) RecordRemovals(r R, removals []forgev1.PendingRemoval) {
	rd.removals[keyOf(r)] = removals
}

// RecordLeft keeps what r's comparison left to other resources holding
// it (none: nothing), until a later comparison of r.
func (rd *Round[R]) RecordLeft(r R, left []forgev1.SetYield) {
	if len(left) == 0 {
		delete(rd.left, keyOf(r))
		return
	}
	rd.left[keyOf(r)] = left
}

// MarkFresh marks r newly covered by the set and not yet compared
// without a failure (fresh), or no longer so.
func (rd *Round[R]) MarkFresh(r R, fresh bool) {
	if fresh {
		rd.fresh[keyOf(r)] = true
		return
	}
	delete(rd.fresh, keyOf(r))
}

// Fresh reports whether r is marked newly covered (MarkFresh).
func (rd *Round[R]) Fresh(r R) bool { return rd.fresh[keyOf(r)] }

// Left is what the last comparison of r left to other resources.
func (rd *Round[R]) Left(r R) []forgev1.SetYield { return rd.left[keyOf(r)] }

// Removals are the removals the last comparison of r that decided them
// planned and did not make.
func (rd *Round[R]) Removals(r R) []forgev1.PendingRemoval { return rd.removals[keyOf(r)] }

// Outcome is what the round, or else the last one, found in r; known is
// false when neither compared it yet.
func (rd *Round[R]) Outcome(r R) (f *reconciler.MemberFailure, known bool) {
	if f, ok := rd.found[keyOf(r)]; ok {
		return f, true
	}
	f, ok := rd.before[keyOf(r)]
	return f, ok
}

// Complete reports whether the round compared every one of repos, and
// marks it finished when it did: the next round is due an interval after
// this one began.
func (rd *Round[R]) Complete(repos []R) bool {
	for _, r := range repos {
		if !rd.Done(r) {
			return false
		}
	}
	rd.finished = true
	return true
}

// Clock says whether a pass has time for one more repository before its
// deadline: it keeps back twice the longest repository so far, and at
// least an eighth of the pass's time, so that a pass stops between
// repositories rather than in one. The first repository of a pass is
// always done.
type Clock struct {
	deadline time.Time
	reserve  time.Duration
	slowest  time.Duration
	did      int
}

// NewClock is the clock of a pass begun at start under ctx's deadline.
func NewClock(ctx context.Context, start time.Time) *Clock {
	c := &Clock{}
	if d, ok := ctx.Deadline(); ok {
		c.deadline, c.reserve = d, d.Sub(start)/8
	}
	return c
}

// Enough reports whether the pass has time for one more repository.
func (c *Clock) Enough() bool {
	if c.deadline.IsZero() || c.did == 0 {
		return true
	}
	return time.Until(c.deadline) > max(c.reserve, 2*c.slowest)
}

// Took records that one repository took d.
func (c *Clock) Took(d time.Duration) {
	c.did++
	c.slowest = max(c.slowest, d)
}
