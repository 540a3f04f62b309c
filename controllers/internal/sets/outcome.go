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

// What one repository's comparison found and did (Outcome), and what a
// set leaves to others: status.yielded, and where another set holds.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Outcome is what one repository's pass found and did: the kind counts
// its writes and lists its would-be changes (Diffs) in it.
type Outcome struct {
	Created, Updated, Renamed, Merged, Deleted int
	problems                                   []problem
	Diffs                                      []string
	// Removes counts, of Diffs, those that would delete (or merge away) an
	// object: plan reports the set's action as a delete from it.
	Removes int
	// pending are the removals a set with removals Report did not make
	// (their repository filled in when left empty); decided is set once
	// they were decided on (ReportRemovals), none pending included: a
	// repository whose comparison failed before keeps its last ones.
	pending []forgev1.PendingRemoval
	decided bool
	// Yielded: a read gave way to other work (forge.ErrYield, a
	// forge.TurnError), which is no failure: the whole pass gives way.
	Yielded error
	// Cut: the pass ran out of time in this repository, which is no
	// failure: the next pass does it.
	Cut bool
	// left are the fields or paths the set leaves here to another
	// resource holding them, by that resource (LeaveTo).
	left map[string][]string
	// counts are the writes of objects the kind names otherwise than the
	// set's own (Count); across the writes it words itself (Across).
	counts []count
	across []string
}

// LeaveTo records that the set leaves items (fields, paths) in this
// repository to the resource who names (claims.HolderFor): no failure,
// but the repository is governed by that resource for them, and is not in
// the set's inSync (status.yielded says so).
func (o *Outcome) LeaveTo(who string, items ...string) {
	if len(items) == 0 {
		return
	}
	if o.left == nil {
		o.left = map[string][]string{}
	}
	o.left[who] = append(o.left[who], items...)
}

// leftIn is what o left, for repository r, sorted by holder and item.
func (o *Outcome) leftIn(r Repo) []forgev1.SetYield {
	out := make([]forgev1.SetYield, 0, len(o.left))
	for _, who := range slices.Sorted(maps.Keys(o.left)) {
		items := slices.Compact(slices.Sorted(slices.Values(o.left[who])))
		out = append(out, forgev1.SetYield{Repository: r.String(), Items: items[:min(len(items), maxYieldItems)], HeldBy: who})
	}
	return out
}

// maxYieldItems is the CRD's bound on a SetYield's items.
const maxYieldItems = 100

type problem struct {
	reason, message string
	stall           bool
}

// ReportRemovals records the removals a set with removals Report decided
// on in the repository and did not make (of its kinds of object; none is
// a decision too): the set's status.pendingRemovals lists them, and the
// loop tells when they change.
func (o *Outcome) ReportRemovals(items ...forgev1.PendingRemoval) {
	o.pending = append(o.pending, items...)
	o.decided = true
}

func (o *Outcome) wrote() bool {
	return o.counted() > 0 || len(o.across) > 0
}

// Fail records a problem of the repository: its reason, whether only a
// user's change cures it (stall), and its message.
func (o *Outcome) Fail(reason string, stall bool, format string, args ...any) {
	o.problems = append(o.problems, problem{reason: reason, message: fmt.Sprintf(format, args...), stall: stall})
}

// FailErr records a forge failure, classified as every kind does; a read
// that gave way is none.
func (o *Outcome) FailErr(err error) {
	c, ok := reconciler.Classify(err)
	if c.Yield {
		o.Yielded = err
		return
	}
	if errors.Is(err, forge.ErrOutOfTime) {
		o.Cut = true
		return
	}
	if !ok {
		c = reconciler.Class{State: conditions.Waiting, Reason: forgev1.ReasonForgeError, Message: err.Error()}
	}
	o.Fail(c.Reason, c.State == conditions.Stalled, "%s", c.Message)
}

// memberFailure folds a repository's problems into one failure: the reason
// of the first that a retry may cure, else of the first; stalled only when
// each needs a user's change.
func memberFailure(member string, ps []problem) reconciler.MemberFailure {
	f := reconciler.MemberFailure{Member: member, Reason: ps[0].reason, Stall: true}
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.message
		if !p.stall && f.Stall {
			f.Stall, f.Reason = false, p.reason
		}
	}
	f.Message = words.Bound(strings.Join(msgs, "; "))
	return f
}

// yieldedIn is what the round's last comparisons of repos left to other
// resources (status.yielded), and how many of those repositories are
// otherwise in sync (compared, with no failure): governed by others for
// what they hold, they are not in inSync.
func yieldedIn(rd *rounds.Round[Repo], repos []Repo) (*forgev1.SetYields, int) {
	out, governed := &forgev1.SetYields{}, 0
	for _, r := range repos {
		left := rd.Left(r)
		if len(left) == 0 {
			continue
		}
		out.Count++
		if f, known := rd.Outcome(r); known && f == nil {
			governed++
		}
		out.Items = append(out.Items, left...)
	}
	if out.Count == 0 {
		return nil, 0
	}
	out.Items = out.Items[:min(len(out.Items), maxFailures)]
	return out, governed
}

// HeldIn says where another set holds what it sets: in the repositories
// its selector picks that its own record (status.matched) says it applied
// to, by id. A set that recorded nothing holds nothing (claims.Recorded):
// what its spec selects is not a record.
func HeldIn(sel forgev1.RepositorySelector, st *forgev1.SetStatus) func(r Repo) bool {
	picks := Matches(sel)
	ids, ok := decodeMatched(st.Matched)
	return func(r Repo) bool {
		_, found := slices.BinarySearch(ids, r.ID)
		return ok && r.ID != 0 && found && picks(r)
	}
}
