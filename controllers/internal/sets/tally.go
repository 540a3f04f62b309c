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

// What a set's pass did, in words: the writes of each repository
// (Outcome's counts) summed over the pass, apart for the repositories the
// set newly covers (Applied) and those it governed already (drift
// corrected, or a spec change applied).

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/forgeops/forge-operator/controllers/internal/words"
)

// count is n writes, done as verb says ("gave", "added"), of objects
// named one or many.
type count struct {
	verb, one, many string
	n               int
}

// Count records n writes (verb: "gave", "added") of objects the kind
// names otherwise than the set's own: "gave 1 team access", "added 2
// topics".
func (o *Outcome) Count(verb string, n int, one, many string) {
	if n <= 0 {
		return
	}
	for i := range o.counts {
		if c := &o.counts[i]; c.verb == verb && c.one == one {
			c.n += n
			return
		}
	}
	o.counts = append(o.counts, count{verb: verb, one: one, many: many, n: n})
}

// Across records a write in the repository that the kind words itself, as
// a phrase the number of the pass's repositories it was made in completes:
// "took back team ops's access to" is told "took back team ops's access
// to 3 repositories".
func (o *Outcome) Across(phrase string) { o.across = append(o.across, phrase) }

// Acts counts the writes Across recorded.
func (o *Outcome) Acts() int { return len(o.across) }

// counted is how many writes of objects o counts (the set's own and
// Count's), Across's left out.
func (o *Outcome) counted() int {
	n := o.Created + o.Updated + o.Renamed + o.Merged + o.Deleted
	for _, c := range o.counts {
		n += c.n
	}
	return n
}

// add sums the writes of o into t, a pass's tally.
func (t *Outcome) add(o *Outcome) {
	t.Created += o.Created
	t.Updated += o.Updated
	t.Renamed += o.Renamed
	t.Merged += o.Merged
	t.Deleted += o.Deleted
	for _, c := range o.counts {
		t.Count(c.verb, c.n, c.one, c.many)
	}
	t.across = append(t.across, o.across...)
}

// others are t's counts of other objects than the set's own, in a fixed
// order: by noun, then verb.
func (t Outcome) others() []count {
	out := slices.Clone(t.counts)
	slices.SortFunc(out, func(a, b count) int { return cmp.Or(cmp.Compare(a.one, b.one), cmp.Compare(a.verb, b.verb)) })
	return out
}

// acrossText are t's Across writes, each with the number of repositories
// it was made in, in the order first made.
func (t Outcome) acrossText() []string {
	var order []string
	n := map[string]int{}
	for _, p := range t.across {
		if n[p] == 0 {
			order = append(order, p)
		}
		n[p]++
	}
	out := make([]string, len(order))
	for i, p := range order {
		out[i] = fmt.Sprintf("%s %s", p, repositories(n[p]))
	}
	return out
}

// repositories is "1 repository", "3 repositories".
func repositories(n int) string {
	return fmt.Sprintf("%d %s", n, words.Plural(n, "repository", "repositories"))
}

// summaryOf is the Event of a set's pass that wrote to repositories it
// governed already (repos of them counted writes), its objects named by
// noun1 and nouns: "3 repositories: created 12, updated 4, renamed 1,
// deleted 2 labels", "2 repositories: updated 3 settings, gave 1 team
// access; took back team ops's access to 1 repository".
func summaryOf(repos int, t Outcome, noun1, nouns string) string {
	var verbs []string
	for _, c := range []struct {
		verb string
		n    int
	}{{"created", t.Created}, {"updated", t.Updated}, {"renamed", t.Renamed}, {"merged", t.Merged}, {"deleted", t.Deleted}} {
		if c.n > 0 {
			verbs = append(verbs, fmt.Sprintf("%s %d", c.verb, c.n))
		}
	}
	var objects []string
	if own := t.Created + t.Updated + t.Renamed + t.Merged + t.Deleted; own > 0 {
		objects = append(objects, strings.Join(verbs, ", ")+" "+words.Plural(own, noun1, nouns))
	}
	for _, c := range t.others() {
		objects = append(objects, fmt.Sprintf("%s %d %s", c.verb, c.n, words.Plural(c.n, c.one, c.many)))
	}
	return said(repositories(repos)+": ", objects, t.acrossText())
}

// appliedOf is the Event of a set's pass that governed repositories it
// newly covers (repos of them counted writes), saying what it put in
// place there: "1 repository governed: 4 settings, 1 team access";
// deletions are told as such ("deleted 2 labels").
func appliedOf(repos int, t Outcome, noun1, nouns string) string {
	var objects []string
	if put := t.Created + t.Updated + t.Renamed + t.Merged; put > 0 {
		objects = append(objects, fmt.Sprintf("%d %s", put, words.Plural(put, noun1, nouns)))
	}
	for _, c := range t.others() {
		objects = append(objects, fmt.Sprintf("%d %s", c.n, words.Plural(c.n, c.one, c.many)))
	}
	if t.Deleted > 0 {
		objects = append(objects, fmt.Sprintf("deleted %d %s", t.Deleted, words.Plural(t.Deleted, noun1, nouns)))
	}
	return said(repositories(repos)+" governed: ", objects, t.acrossText())
}

// said is lead and the objects, then the writes told across repositories.
func said(lead string, objects, across []string) string {
	var parts []string
	if len(objects) > 0 {
		parts = append(parts, lead+strings.Join(objects, ", "))
	}
	return strings.Join(append(parts, across...), "; ")
}
