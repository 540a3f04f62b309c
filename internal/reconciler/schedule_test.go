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
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// 1,000 objects created in the same instant check spread over the
// interval, each at the same phase whichever pass computes it.
func TestScheduleSpreadsChecksOverTheInterval(t *testing.T) {
	s := newSchedule()
	interval := 30 * time.Second
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	buckets := make([]int, 10)
	for i := range 1000 {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("label-%d", i)}
		uid := types.UID(fmt.Sprintf("uid-%04d", i))
		d := s.next(key, uid, interval, time.Time{}, now)
		if d < interval/2 || d >= interval*3/2 {
			t.Fatalf("next check of %s in %s, want within [%s, %s)", key.Name, d, interval/2, interval*3/2)
		}
		at := now.Add(d)
		buckets[int(at.Sub(now.Add(interval/2))/(interval/10))]++
		// A later pass (a watch event, a check run late) keeps the phase:
		// its next check is a whole number of intervals after this one.
		later := now.Add(d + 3*time.Second)
		d2 := s.next(key, uid, interval, time.Time{}, later)
		if got := later.Add(d2).Sub(at); got != interval {
			t.Fatalf("check after the one at %s comes %s later, want one interval", at, got)
		}
	}
	for i, n := range buckets {
		if n < 50 || n > 150 {
			t.Fatalf("tenth %d of the interval holds %d of 1000 checks, want about 100: %v", i, n, buckets)
		}
	}
}

// An object read from a listing checks when the listing comes of age, so
// that the objects of a scope check together on a fresh listing.
func TestScheduleFollowsTheListingRead(t *testing.T) {
	s := newSchedule()
	interval := 30 * time.Second
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		listed time.Time
		want   time.Duration
	}{
		{now, interval}, // listed by this pass
		{now.Add(-20 * time.Second), 10 * time.Second},             // a listing another object took
		{now.Add(-interval + 100*time.Millisecond), minCheckDelay}, // about to expire: not at once
	} {
		key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint(i)}
		if got := s.next(key, types.UID(fmt.Sprint(i)), interval, c.listed, now); got != c.want {
			t.Errorf("listed %s before: next check in %s, want %s", now.Sub(c.listed), got, c.want)
		}
	}
}

func TestScheduleRoutineWindow(t *testing.T) {
	s := newSchedule()
	key := types.NamespacedName{Namespace: "ns", Name: "bug"}
	interval := 10 * time.Second
	now := time.Now()
	if s.routine(key, interval, now) {
		t.Fatal("a resource never scheduled is not a routine check")
	}
	due := now.Add(s.next(key, "uid", interval, time.Time{}, now))
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{due.Add(-time.Millisecond), false}, // before due: an event brought it
		{due, true},                         // the check itself
		{due.Add(maxDeferral*interval - time.Second), true},  // deferred, still routine
		{due.Add(maxDeferral*interval + time.Second), false}, // deferred long enough: runs as any pass
	} {
		if got := s.routine(key, interval, c.at); got != c.want {
			t.Errorf("routine at due%+v = %t, want %t", c.at.Sub(due), got, c.want)
		}
	}
	s.forget(key)
	if s.routine(key, interval, due) {
		t.Fatal("routine after forget")
	}
}

func TestScheduleChangedBefore(t *testing.T) {
	s := newSchedule()
	created := time.Date(2026, 11, 22, 12, 0, 7, 0, time.UTC) // cut to the second
	key := types.NamespacedName{Namespace: "ns", Name: "bug"}
	label := &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bug", Generation: 1,
		CreationTimestamp: metav1.NewTime(created)}}
	if got := s.changedBefore(key, label); !got.Equal(created.Add(time.Second)) {
		t.Fatalf("creation not seen: %s, want the second after the timestamp", got)
	}

	// Seen now: the time it was seen, when that is earlier.
	label.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
	before := time.Now()
	if !s.seenPredicate().Create(event.CreateEvent{Object: label}) {
		t.Fatal("the predicate filtered a creation")
	}
	if got := s.changedBefore(key, label); got.Before(before) || got.After(time.Now()) {
		t.Fatalf("creation seen at about %s: %s, want that time", before, got)
	}

	// A spec change seen: the time it was seen.
	changed := label.DeepCopy()
	changed.Generation = 2
	before = time.Now()
	if !s.seenPredicate().Update(event.UpdateEvent{ObjectOld: label, ObjectNew: changed}) {
		t.Fatal("the predicate filtered an update")
	}
	if got := s.changedBefore(key, changed); got.Before(before) || got.After(time.Now()) {
		t.Fatalf("change seen at about %s: %s, want that time", before, got)
	}
	// A generation it has not seen (the pass read it first): now.
	newer := changed.DeepCopy()
	newer.Generation = 3
	before = time.Now()
	if got := s.changedBefore(key, newer); got.Before(before) {
		t.Fatalf("unseen generation: %s, want now", got)
	}
}
