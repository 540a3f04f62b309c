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

package rounds

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

type name string

func (n name) String() string { return string(n) }

// A round goes on across passes until every repository is compared; the
// next one begins an interval after it began, and tells the last round's
// failures until it reaches those repositories again.
func TestRoundGoesOnThenBeginsAnew(t *testing.T) {
	s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "std", UID: "u", Generation: 1}}
	pass := &reconciler.Pass{Interval: time.Hour}
	store := NewStore[name]()
	now := time.Now()
	repos := []name{"acme/API", "acme/web"}

	rd := store.Begin(s, true, pass, now)
	rd.Record("acme/api", &reconciler.MemberFailure{Member: "acme/api", Reason: "Rejected"})
	if rd.Complete(repos) {
		t.Fatal("round complete with acme/web not compared")
	}
	// The next pass goes on with the same round; the failure is tried again.
	rd = store.Begin(s, true, pass, now.Add(time.Minute))
	if rd.Done("acme/api") || !rd.Started().Equal(now) {
		t.Errorf("second pass: acme/api done %v, round began %v; want it tried again in the round begun %v", rd.Done("acme/api"), rd.Started(), now)
	}
	rd.Record("acme/api", nil)
	rd.Record("ACME/web", &reconciler.MemberFailure{Member: "acme/web", Reason: "Rejected"})
	if !rd.Complete(repos) {
		t.Fatal("round not complete with every repository compared (names compared without case)")
	}
	// Within the interval a pass keeps the round: what is in sync stays
	// done, the failure is tried again.
	rd = store.Begin(s, true, pass, now.Add(2*time.Minute))
	if !rd.Started().Equal(now) || !rd.Done("acme/api") || rd.Done("acme/web") {
		t.Errorf("a pass within the interval: round began %v, acme/api done %v, acme/web done %v; want the round begun %v, only acme/api done",
			rd.Started(), rd.Done("acme/api"), rd.Done("acme/web"), now)
	}
	rd.Record("acme/web", &reconciler.MemberFailure{Member: "acme/web", Reason: "Rejected"})
	// After it, a new round tells the last one's outcome until it gets there.
	rd = store.Begin(s, true, pass, now.Add(2*time.Hour))
	if rd.Done("acme/web") {
		t.Error("a new round holds the last one's outcomes as done")
	}
	if f, known := rd.Outcome("acme/web"); !known || f == nil {
		t.Errorf("new round: outcome of acme/web %v (known %v), want the last round's failure", f, known)
	}
	// A resource re-made under its name begins anew, telling nothing.
	s.UID = "v"
	if _, known := store.Begin(s, true, pass, now.Add(2*time.Hour)).Outcome("acme/web"); known {
		t.Error("a re-made resource was told the old one's outcomes")
	}
}

// The removals a repository's comparison decided on (removals Report)
// are told until a later comparison decides again, across passes and
// rounds of one spec: a comparison that failed before deciding them
// leaves them as they were.
func TestRoundKeepsRemovals(t *testing.T) {
	s := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "std", UID: "u", Generation: 1}}
	pass := &reconciler.Pass{Interval: time.Hour}
	store := NewStore[name]()
	now := time.Now()
	stale := forgev1.PendingRemoval{Repository: "acme/web", Kind: "Label", Name: "stale"}

	rd := store.Begin(s, true, pass, now)
	rd.Record("acme/web", nil)
	rd.RecordRemovals("acme/web", []forgev1.PendingRemoval{stale})
	rd.Complete([]name{"acme/web"})
	if got := rd.Removals("ACME/web"); len(got) != 1 || got[0] != stale {
		t.Errorf("removals of acme/web %v, want [%v]", got, stale)
	}
	rd = store.Begin(s, true, pass, now.Add(2*time.Hour))
	rd.Record("acme/web", &reconciler.MemberFailure{Member: "acme/web", Reason: "ForgeError"})
	if got := rd.Removals("acme/web"); len(got) != 1 {
		t.Errorf("a new round whose comparison failed before deciding tells %v, want the last ones", got)
	}
	rd.RecordRemovals("acme/web", nil)
	if got := rd.Removals("acme/web"); len(got) != 0 {
		t.Errorf("acme/web decided again with nothing pending tells %v", got)
	}
	s.Generation = 2
	rd = store.Begin(s, true, pass, now.Add(2*time.Hour))
	rd.RecordRemovals("acme/web", []forgev1.PendingRemoval{stale})
	s.Generation = 3
	if got := store.Begin(s, true, pass, now.Add(2*time.Hour)).Removals("acme/web"); len(got) != 0 {
		t.Errorf("a changed spec was told the old one's removals: %v", got)
	}
}

// A repository changed on the forge after the round compared it (a push)
// is compared again by the next pass, and no other repository: the
// round's others stay done. A pass that began before Recompare does not
// undo it; a new round compares everything anyway.
func TestRecompareForgetsOneRepository(t *testing.T) {
	s := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "platform", UID: "u", Generation: 1}}
	key := types.NamespacedName{Namespace: "team", Name: "platform"}
	pass := &reconciler.Pass{Interval: time.Hour}
	store := NewStore[name]()
	now := time.Now()
	repos := []name{"acme/api", "acme/web"}

	rd := store.Begin(s, true, pass, now)
	rd.Record("acme/api", nil)
	store.Recompare(key, name("ACME/web")) // pushed while the pass compares
	rd.Record("acme/web", nil)
	if !rd.Complete(repos) {
		t.Fatal("round not complete with every repository compared")
	}
	rd = store.Begin(s, true, pass, now.Add(time.Minute))
	if !rd.Started().Equal(now) {
		t.Errorf("a push began a new round (began %v, want %v)", rd.Started(), now)
	}
	if rd.Done("acme/web") || !rd.Done("acme/api") {
		t.Errorf("after a push to acme/web: web done %v, api done %v; want only api done", rd.Done("acme/web"), rd.Done("acme/api"))
	}
	if f, known := rd.Outcome("acme/web"); known && f != nil {
		t.Errorf("acme/web told %v before it is compared again", f)
	}
	rd.Record("acme/web", nil)
	if rd = store.Begin(s, true, pass, now.Add(2*time.Minute)); !rd.Done("acme/web") {
		t.Error("a push is compared again once, not by every later pass")
	}
	store.Forget(key)
	store.Recompare(key, name("acme/web"))
	if rd = store.Begin(s, true, pass, now.Add(3*time.Minute)); rd.Done("acme/api") || rd.Done("acme/web") {
		t.Error("a forgotten set's first pass began with repositories done")
	}
}
