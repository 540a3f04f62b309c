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

package reconciler

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// Drift checks: when they run and when they give way.
//
// An object observed from a listing (forge.Snapshots) checks again when
// that listing comes to its sync interval's age: the first object of the
// scope to check then takes the listing again and the others of the scope,
// checking at the same time, read it fresh. So every check sees the forge
// as it is, a scope costs one listing per interval, and the checks of
// objects created together are spread as the listings of their scopes are.
//
// An object read otherwise has a fixed phase within its sync interval,
// taken from its UID: objects created together check at times spread
// evenly over the interval instead of all at once, as ±10% jitter would
// have them. The phase is the same whichever pass computes the next check,
// so the extra passes that watch events cause do not move it.
//
// A pass that starts when the object's check is due, for an object that is
// Ready at its generation with nothing pending, is a routine check
// (background): its forge reads do not count as demand on the forge's rate
// budget, and they take turns in the forge's drift lane, half its rate
// (forge/lanes.go): a check whose turn comes later is told when
// (forge.TurnError) and comes back once then, holding it. It counts as
// routine for at most two intervals after it was due; from then on it is
// an ordinary pass. Checks are spaced as the forge's drift load allows
// (forge.CheckSpacing), so at rest they find their turns at once.

// minCheckDelay keeps an object read from a listing about to expire from
// checking again at once.
const minCheckDelay = time.Second

// maxDeferral is how long past its due time, in intervals, a check still
// counts as routine (reads through the drift lane); later it is an
// ordinary pass.
const maxDeferral = 2

type schedule struct {
	mu  sync.Mutex
	due map[types.NamespacedName]time.Time
	// seen is when the watch delivered each resource's creation or its
	// last change of generation (spec).
	seen map[types.NamespacedName]seenAt
	// turns are the drift lane's turns held by checks told to come back
	// for them (forge.TurnError).
	turns map[types.NamespacedName]time.Time
}

func newSchedule() *schedule {
	return &schedule{due: map[types.NamespacedName]time.Time{}, seen: map[types.NamespacedName]seenAt{},
		turns: map[types.NamespacedName]time.Time{}}
}

// holdTurn keeps the drift lane's turn at for the check of key.
func (s *schedule) holdTurn(key types.NamespacedName, at time.Time) {
	s.mu.Lock()
	s.turns[key] = at
	s.mu.Unlock()
}

// takeTurn hands the check of key the turn it holds (zero for none).
func (s *schedule) takeTurn(key types.NamespacedName) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.turns[key]
	delete(s.turns, key)
	return at
}

type seenAt struct {
	generation int64
	at         time.Time
}

// seenPredicate records when each resource's creation and each change of
// its spec reach the operator; it filters nothing.
func (s *schedule) seenPredicate() predicate.Predicate {
	record := func(o client.Object) {
		s.mu.Lock()
		s.seen[client.ObjectKeyFromObject(o)] = seenAt{generation: o.GetGeneration(), at: time.Now()}
		s.mu.Unlock()
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			if e.Object != nil {
				record(e.Object)
			}
			return true
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld != nil && e.ObjectNew != nil && e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				record(e.ObjectNew)
			}
			return true
		},
	}
}

// changedBefore is a time before which obj's current generation did not
// exist: when its creation or change was seen; for a first generation
// not seen (a restart lists every resource), the second after its
// creation timestamp (which is cut to whole seconds), whichever is
// earlier; for a later one not seen, now. A listing that started then
// holds everything made on the forge before the resource or its change.
func (s *schedule) changedBefore(key types.NamespacedName, obj client.Object) time.Time {
	s.mu.Lock()
	seen, ok := s.seen[key]
	s.mu.Unlock()
	bound := time.Now()
	if obj.GetGeneration() <= 1 {
		bound = obj.GetCreationTimestamp().Add(time.Second)
	}
	if ok && seen.generation == obj.GetGeneration() && seen.at.Before(bound) {
		return seen.at
	}
	return bound
}

// next is the delay until the object's next check, and records it as due:
// an interval after the listing it was read from was taken (listed), or
// else its phase's next slot at least half an interval from now.
func (s *schedule) next(key types.NamespacedName, uid types.UID, interval time.Duration, listed, now time.Time) time.Duration {
	at := nextSlot(phaseOf(uid, interval), interval, now)
	if !listed.IsZero() {
		at = listed.Add(interval)
		if soonest := now.Add(minCheckDelay); at.Before(soonest) {
			at = soonest
		}
	}
	s.mu.Lock()
	s.due[key] = at
	s.mu.Unlock()
	return at.Sub(now)
}

// setDue records the object's check as due at at.
func (s *schedule) setDue(key types.NamespacedName, at time.Time) {
	s.mu.Lock()
	s.due[key] = at
	s.mu.Unlock()
}

// routine reports whether a pass at now is the object's due check,
// within the time it may be deferred.
func (s *schedule) routine(key types.NamespacedName, interval time.Duration, now time.Time) bool {
	s.mu.Lock()
	due, ok := s.due[key]
	s.mu.Unlock()
	return ok && !now.Before(due) && now.Before(due.Add(maxDeferral*interval))
}

func (s *schedule) forget(key types.NamespacedName) {
	s.mu.Lock()
	delete(s.due, key)
	delete(s.seen, key)
	delete(s.turns, key)
	s.mu.Unlock()
}

// phaseOf places uid's checks within the interval.
func phaseOf(uid types.UID, interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	return time.Duration(h.Sum64() % uint64(interval))
}

// nextSlot is the first time at least half an interval after now whose
// offset within the interval is phase.
func nextSlot(phase, interval time.Duration, now time.Time) time.Time {
	if interval <= 0 {
		return now
	}
	base := now.Add(interval / 2)
	off := (phase - time.Duration(base.UnixNano()%int64(interval)) + interval) % interval
	return base.Add(off)
}

// yieldDelay is when a check that gave way without naming its turn (a
// plain forge.ErrYield; the drift lane names it, forge.TurnError) comes
// back: soon, spread so such checks do not return together.
func yieldDelay(interval time.Duration) time.Duration {
	d := min(2*time.Second, max(interval/20, 100*time.Millisecond))
	return d/2 + time.Duration(rand.Int64N(int64(d)))
}
