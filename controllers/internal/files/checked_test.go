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

package files

import (
	"testing"
	"time"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

func checkPass(version string, every int) *reconciler.Pass {
	return &reconciler.Pass{Server: forge.NewServer(version), Interval: 30 * time.Second, FullCheckEvery: every}
}

// repos are n repositories of ids 1..n, updated at one time.
func repos(n int, at time.Time) []*forge.Repository {
	out := make([]*forge.Repository, n)
	for i := range out {
		out[i] = &forge.Repository{ID: int64(i + 1), UpdatedAt: at}
	}
	return out
}

// TestCheckedCadence: a repository whose record stands is not listed; one
// that moved is; each takes its complete check once every fullCheckEvery
// intervals, and the repositories take theirs in turns, a sixth of them
// in each interval at 6.
func TestCheckedCadence(t *testing.T) {
	const every = 6
	start := time.Unix(1_800_000_000, 0)
	updated := start.Add(-time.Hour)
	rs := repos(60, updated)
	var st *forgev1.CheckedRepositories
	listed := make([]int, 60) // intervals since each repository's last listing
	for interval := range 4 * every {
		now := start.Add(time.Duration(interval) * 30 * time.Second)
		c := NewChecked(st, "digest", checkPass("1.27.3", every), now)
		n := 0
		for i, r := range rs {
			if c.Stands(r) {
				listed[i]++
				continue
			}
			n++
			listed[i] = 0
			c.Checked(r)
		}
		switch {
		case interval == 0 && n != 60:
			t.Fatalf("first interval: %d listed, want every one (no record)", n)
		case interval > 0 && n != 60/every:
			t.Errorf("interval %d: %d listed, want %d (complete checks in turns)", interval, n, 60/every)
		}
		for i, l := range listed {
			if l >= every {
				t.Fatalf("interval %d: repository %d not listed for %d intervals", interval, i+1, l)
			}
		}
		st = c.Status(nil)
	}

	// A repository that moved is listed at once; the others stand.
	c := NewChecked(st, "digest", checkPass("1.27.3", every), start.Add(time.Duration(4*every)*30*time.Second))
	moved := &forge.Repository{ID: 7, UpdatedAt: updated.Add(time.Second)}
	if c.Stands(moved) {
		t.Error("a repository whose updated_at moved stands")
	}
	// Other files: the record is void.
	if c := NewChecked(st, "other", checkPass("1.27.3", every), start); c.Stands(rs[0]) || c.Stands(rs[1]) {
		t.Error("a record of other files stands")
	}
	// A forgotten repository (it was written) is listed.
	c.Forget(3)
	if c.Stands(rs[2]) {
		t.Error("a forgotten repository stands")
	}
	// A record a user could have made up from a spec: none is read but
	// status's; one that cannot be read is none.
	if c := NewChecked(&forgev1.CheckedRepositories{Files: "digest", Entries: "zz,1"}, "digest", checkPass("1.27.3", every), start); c.Stands(rs[0]) {
		t.Error("an unreadable record stands")
	}
}

// TestCheckedOff: at fullCheckEvery 1, for a reconcile requested, outside
// the loop (plan), on a release not known to move updated_at on a push
// (forge.GateUpdatedOnPush: Forgejo, a development build) and for a
// repository without updated_at, every check lists the tree.
func TestCheckedOff(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	r := &forge.Repository{ID: 5, UpdatedAt: at.Add(-time.Hour)}
	record := func(p *reconciler.Pass) *forgev1.CheckedRepositories {
		c := NewChecked(nil, "d", p, at)
		c.Checked(r)
		return c.Status(nil)
	}
	afresh := checkPass("1.27.3", 6)
	afresh.Afresh = true
	for name, p := range map[string]*reconciler.Pass{
		"fullCheckEvery 1": checkPass("1.27.3", 1), "a reconcile requested": afresh, "plan": nil,
		"Forgejo": checkPass("11.0.1+gitea-1.22.0", 6), "a development build": checkPass("dev", 6),
	} {
		c := NewChecked(record(checkPass("1.27.3", 6)), "d", p, at.Add(time.Second))
		if c.Stands(r) {
			t.Errorf("%s: the shortcut is on", name)
		}
		if c.Spread() != 1 {
			t.Errorf("%s: spread %d, want 1", name, c.Spread())
		}
	}
	on := NewChecked(record(checkPass("1.27.3", 6)), "d", checkPass("1.27.3", 6), at.Add(time.Second))
	if !on.Stands(r) || on.Spread() != 6 {
		t.Errorf("Gitea 1.27.3 at 6: stands %t, spread %d", on.Stands(r), on.Spread())
	}
	if on.Stands(&forge.Repository{ID: 5}) {
		t.Error("a repository without updated_at stands")
	}
}

// TestCheckedBound: the record keeps within the CRD's bound on
// status.checked.entries, recording the repositories of the lowest ids;
// those of the repositories gone are dropped.
func TestCheckedBound(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	c := NewChecked(nil, "d", checkPass("1.27.3", 6), at)
	const n = 40_000
	for i := range n {
		c.Checked(&forge.Repository{ID: int64(1000 + i*7), UpdatedAt: at.Add(-time.Duration(i) * time.Minute)})
	}
	st := c.Status(nil)
	if len(st.Entries) > maxCheckedEntries {
		t.Fatalf("entries of %d bytes, over the bound of %d", len(st.Entries), maxCheckedEntries)
	}
	if st.Count < 10_000 || st.Count >= n {
		t.Fatalf("%d of %d recorded within the bound", st.Count, n)
	}
	back := NewChecked(st, "d", checkPass("1.27.3", 6), at.Add(time.Second))
	if len(back.by) != int(st.Count) {
		t.Fatalf("read back %d of %d", len(back.by), st.Count)
	}
	first := &forge.Repository{ID: 1000, UpdatedAt: at}
	last := &forge.Repository{ID: int64(1000 + (n-1)*7), UpdatedAt: at.Add(-time.Duration(n-1) * time.Minute)}
	if !back.Stands(first) || back.Stands(last) {
		t.Errorf("the lowest id stands %t (want true), the highest %t (want false: over the bound)", back.Stands(first), back.Stands(last))
	}
	if got := back.Status(func(id int64) bool { return id == 1000 }); got.Count != 1 {
		t.Errorf("kept %d, want the one still listed", got.Count)
	}
	if back.Status(func(int64) bool { return false }) != nil {
		t.Error("a record of nothing is kept")
	}
}
