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
	"net/http"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// TestSummaryWords covers the words of a pass that wrote: the set's own
// objects with their verbs, other objects (Count) in a fixed order, the
// writes told across repositories (Across), and the number of each noun.
func TestSummaryWords(t *testing.T) {
	var o Outcome
	o.Updated = 3
	o.Count("gave", 1, "team access", "team accesses")
	o.Count("added", 2, "topic", "topics")
	var takeBack, two Outcome
	takeBack.Across("took back team ops's access to")
	two.Across("took back team ops's access to")
	two.Across("took back team qa's access to")
	var sum Outcome
	for _, x := range []*Outcome{&o, &takeBack, &two} {
		sum.add(x)
	}
	cases := []struct {
		got, want string
	}{
		{summaryOf(2, o, "setting", "settings"), "2 repositories: updated 3 settings, gave 1 team access, added 2 topics"},
		{summaryOf(0, takeBack, "setting", "settings"), "took back team ops's access to 1 repository"},
		{summaryOf(1, sum, "setting", "settings"),
			"1 repository: updated 3 settings, gave 1 team access, added 2 topics; took back team ops's access to 2 repositories; took back team qa's access to 1 repository"},
		{appliedOf(1, Outcome{Updated: 4, counts: []count{{"gave", "team access", "team accesses", 1}}}, "setting", "settings"),
			"1 repository governed: 4 settings, 1 team access"},
		{appliedOf(3, Outcome{Created: 5, Updated: 1, Deleted: 1}, "label", "labels"), "3 repositories governed: 6 labels, deleted 1 label"},
		{appliedOf(1, Outcome{Created: 1}, "file", "files"), "1 repository governed: 1 file"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	if sum.Acts() != 3 || sum.counted() != 6 || !takeBack.wrote() || takeBack.counted() != 0 {
		t.Errorf("tally: acts %d, counted %d, take-back wrote %t counted %d", sum.Acts(), sum.counted(), takeBack.wrote(), takeBack.counted())
	}
}

// TestSetTellsNewlyGoverned: a repository the set's record
// (status.matched) lacks is newly governed (SetResult.Applied), a write
// to one it lists is a change (SetResult.Changes); a set without a record
// yet (its first pass) tells changes; a newcomer whose first comparison
// failed is still newly governed by the pass that brings it to the spec.
func TestSetTellsNewlyGoverned(t *testing.T) {
	ff, fc, cache, s := roundSetup(t, 2)
	rds := rounds.NewStore[Repo]()
	pass := &reconciler.Pass{Forge: forge.Fresh(fc), Cache: cache, Interval: time.Hour, Afresh: true}
	ctx := context.Background()
	run := func(what string) reconciler.SetResult {
		t.Helper()
		res, err := labelPass(ctx, s, pass, rds)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return res
	}
	expect := func(what string, res reconciler.SetResult, changes, applied string) {
		t.Helper()
		if res.Changes != changes || res.Applied != applied {
			t.Errorf("%s: changes %q, applied %q; want %q, %q", what, res.Changes, res.Applied, changes, applied)
		}
	}
	expect("first pass, no record", run("first pass"), "2 repositories: created 4 labels", "")

	if err := ff.CreateRepo("acme", "new"); err != nil {
		t.Fatal(err)
	}
	expect("a repository made on the forge", run("new repository"), "", "1 repository governed: 2 labels")

	labels, err := fc.ListLabels(ctx, forge.RepoScope("acme", "repo-00"))
	if err != nil || len(labels) != 2 {
		t.Fatalf("labels of repo-00: %v, %v", labels, err)
	}
	if err := fc.DeleteLabel(ctx, forge.RepoScope("acme", "repo-00"), labels[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := ff.CreateRepo("acme", "late"); err != nil {
		t.Fatal(err)
	}
	ff.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/late/labels", Status: http.StatusBadGateway})
	res := run("drift and a newcomer failing")
	expect("drift in a governed repository, a newcomer failing", res, "1 repository: created 1 label", "")
	if len(res.Failures) != 1 || res.Failures[0].Member != "acme/late" {
		t.Fatalf("failures %+v, want acme/late", res.Failures)
	}
	expect("the newcomer brought to the spec a pass later", run("newcomer again"), "", "1 repository governed: 2 labels")
	expect("at rest", run("at rest"), "", "")
}
