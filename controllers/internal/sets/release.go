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
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Released repositories: a repository that stops matching a set (excluded
// by a glob, a topic removed, transferred, archived, a name dropped, or
// deleted) is released by the set as if the set were deleted there. The
// set knows what it matched from its own record, status.matched (by
// forge id: a rename or a transfer keeps it), written by the operator
// alone; each pass that writes compares it with the repositories it
// matches now.
//
//   - No record (a set made by an earlier version, or a first pass): the
//     pass only records.
//   - A listing that failed, or a named repository's owner that could not
//     be listed: nothing is released; the record keeps what it held.
//   - Repositories that left are confirmed on a fresh listing (one more
//     listing, only when some left): one that matches there is kept.
//   - deletionPolicy Orphan: what the set wrote there stays. Delete: the
//     kind's releaser removes the set's objects there as its Remove does
//     (what no other resource holds, within maxDeletionsPerRepository,
//     from a listing taken now). An archived repository is frozen (the
//     forge refuses rule writes there, and deleting the set leaves
//     archived repositories alone too): it is released as it is. A
//     repository that is gone has nothing left to release.
//   - A release that fails stays in the record, is retried every pass and
//     is listed in status.failures under its repository's current name.
//   - Each pass's releases are one Normal Event Released naming them.

// Releaser is the hook a set kind implements to be released: it removes
// the set's objects from one repository as deleting the set does in each
// repository it matches. A kind sets Set.Release in its Sync; the
// pair its Remove gives RemoveListed makes one (Removal).
type Releaser interface {
	// RemoveIn deletes the set's objects in r, deciding on listings taken
	// through fresh (a view of the set's client that lists afresh), and
	// says how many it deleted; more than the kind's limit: none, and a
	// TooManyDeletions stall.
	RemoveIn(ctx context.Context, fresh forge.Interface, r Repo) (int, error)
	// RemovedNote says, for the Event Released, what RemoveIn did in
	// words of the kind: "deleted 2 files of the set", "took back 1 team
	// access the set gave; settings and topics stay".
	RemovedNote(n int) string
}

// forgetter is implemented by a set kind that records in its own status
// what it gave a repository (RepositorySet's team access): a release that
// removes nothing there (Orphan, an archived or a gone repository) drops
// that record, and what the set gave stays as the repository's own.
type forgetter interface {
	Forget(id int64)
}

// Removal is a kind's deletion of its objects in one repository: Doomed
// lists (through fresh) those of r the set lists and no other resource
// holds, Del deletes one; Max is maxDeletionsPerRepository.
type Removal[T any] struct {
	Max         int
	Noun, Nouns string
	Doomed      func(ctx context.Context, fresh forge.Interface, r Repo) ([]T, error)
	Del         func(ctx context.Context, r Repo, item T) error
}

func (s Removal[T]) RemovedNote(n int) string {
	return DeletedOfSet(n, s.Noun, s.Nouns)
}

// DeletedOfSet is the RemovedNote of a kind that deletes the set's
// objects: "deleted 1 label of the set".
func DeletedOfSet(n int, one, many string) string {
	return fmt.Sprintf("deleted %d %s of the set", n, words.Plural(n, one, many))
}

func (s Removal[T]) RemoveIn(ctx context.Context, fresh forge.Interface, r Repo) (int, error) {
	items, err := s.Doomed(ctx, fresh, r)
	if forge.IsNotFound(err) {
		return 0, nil // the repository is gone, and its objects with it
	}
	if err != nil {
		return 0, err
	}
	if len(items) > s.Max {
		return 0, reconciler.Stall(forgev1.ReasonTooManyDeletions,
			"released (no longer matched): it would lose %d %s of the set, more than maxDeletionsPerRepository %d; deleted none: raise the limit, or set deletionPolicy Orphan to leave them",
			len(items), s.Nouns, s.Max)
	}
	n := 0
	for _, it := range items {
		if err := s.Del(ctx, r, it); err != nil && !forge.IsNotFound(err) {
			return n, err
		}
		n++
	}
	return n, nil
}

// releaseLeft releases the repositories of the set's record that are not
// among matched (this pass's), and records what the set holds now in
// st.Matched. It answers the Event's note ("" when nothing was released)
// and the releases that failed. Without write it does nothing: a set that
// only observes wrote nothing to take back, and keeps its record for
// when it manages again.
func (rs *Set) releaseLeft(ctx context.Context, write bool, st *forgev1.SetStatus, matched []Repo, clock *rounds.Clock) (string, []reconciler.MemberFailure, error) {
	if !write {
		return "", nil, nil
	}
	now := idsOf(matched)
	rec, ok := decodeMatched(st.Matched)
	if !ok || rs.partial {
		// No record yet: this pass records. A partial listing: what it
		// did not see may still match, so nothing goes.
		if ok {
			now = union(rec, now)
		}
		st.Matched = encodeMatched(now)
		return "", nil, nil
	}
	left := minus(rec, now)
	if len(left) == 0 {
		st.Matched = encodeMatched(now)
		return "", nil, nil
	}
	// Confirmed on a listing taken now: one that matches there stays.
	fresh := *rs
	fresh.Forge = forge.Fresh(rs.Forge)
	again, _, err := fresh.Repositories(ctx)
	if c, _ := reconciler.Classify(err); c.Yield {
		return "", nil, err
	}
	if err != nil || fresh.partial {
		st.Matched = encodeMatched(union(rec, now))
		return "", nil, nil
	}
	still := idsOf(again)
	keep := union(now, intersect(left, still))
	left = minus(left, still)

	policy := rs.obj.GetDeletionPolicy()
	out := fresh.releaseEach(ctx, rs.Release, policy, left, clock)
	st.Matched = encodeMatched(union(keep, out.keep))
	return out.note(policy, rs), out.failures, nil
}

// removedNote says what the set's releaser removed: in its own words,
// else as the set's objects deleted.
func (rs *Set) removedNote(n int) string {
	if rs.Release == nil {
		return DeletedOfSet(n, rs.noun, rs.nouns)
	}
	return rs.Release.RemovedNote(n)
}

// releases are what one pass's releases did.
type releases struct {
	// names of the repositories released; keep, the ids still recorded
	// (failed, or left for a later pass).
	names    []string
	keep     []int64
	failures []reconciler.MemberFailure
	deleted  int
}

// releaseEach releases the repositories of ids, which stopped matching,
// as policy says, while the pass's clock allows.
func (rs *Set) releaseEach(ctx context.Context, rel Releaser, policy forgev1.DeletionPolicy, ids []int64, clock *rounds.Clock) releases {
	var out releases
	for i, id := range ids {
		r, found, err := rs.locate(ctx, id)
		if err == nil && found && policy == forgev1.DeletionPolicyDelete && !r.archived && rel != nil {
			err = forge.ErrOutOfTime
			if clock.Enough() {
				began := time.Now()
				var n int
				n, err = rel.RemoveIn(ctx, rs.Forge, r)
				clock.Took(time.Since(began))
				out.deleted += n
			}
		}
		if err != nil {
			if c, _ := reconciler.Classify(err); c.Yield || errors.Is(err, forge.ErrOutOfTime) || ctx.Err() != nil {
				// No failure: the rest is released in a later pass.
				out.keep = append(out.keep, ids[i:]...)
				return out
			}
			member := fmt.Sprintf("repository %d", id)
			if found {
				member = r.String()
			}
			out.failures = append(out.failures, releaseFailure(member, err))
			out.keep = append(out.keep, id)
			continue
		}
		if f, ok := rel.(forgetter); ok {
			f.Forget(id)
		}
		switch {
		case !found:
			out.names = append(out.names, fmt.Sprintf("repository %d (gone)", id))
		case r.archived:
			out.names = append(out.names, r.String()+" (archived, left as it is)")
		default:
			out.names = append(out.names, r.String())
		}
	}
	return out
}

// releaseFailure is a release that failed, listed under member.
func releaseFailure(member string, err error) reconciler.MemberFailure {
	var o Outcome
	o.FailErr(err)
	f := memberFailure(member, o.problems)
	if !strings.HasPrefix(f.Message, "released") {
		f.Message = words.Bound("released (no longer matched): " + f.Message)
	}
	return f
}

// note is the Released Event's: the repositories and what was done there,
// in the words of the set's objects (under Orphan) or of what its releaser
// removes (under Delete).
func (out releases) note(policy forgev1.DeletionPolicy, rs *Set) string {
	if len(out.names) == 0 {
		return ""
	}
	note := out.lead()
	if policy != forgev1.DeletionPolicyDelete {
		return note + fmt.Sprintf("; deletionPolicy %s: the %s the set wrote there stay", policy, rs.nouns)
	}
	return note + "; " + rs.removedNote(out.deleted)
}

// lead names the released repositories: "released acme/api".
func (out releases) lead() string {
	if len(out.names) > 1 {
		return fmt.Sprintf("released %d repositories: %s", len(out.names), words.BoundList(out.names))
	}
	return "released " + out.names[0]
}

// locate finds a recorded repository by id: in the listings just taken,
// else by id (transferred to an owner the set does not list, or whose
// name the set no longer names); found is false when it is gone.
func (rs *Set) locate(ctx context.Context, id int64) (Repo, bool, error) {
	if r, ok := rs.seen[id]; ok {
		return r, true, nil
	}
	got, err := rs.Forge.GetRepoByID(ctx, id)
	if forge.IsNotFound(err) {
		return Repo{}, false, nil
	}
	if err != nil {
		return Repo{}, false, err
	}
	owner := ""
	if got.Owner != nil {
		owner = got.Owner.Login
	} else if o, _, ok := strings.Cut(got.FullName, "/"); ok {
		owner = o
	}
	return listedRepo(owner, *got), true, nil
}

// idsOf are the ids of repos, ascending, each once; unread ids (0) left out.
func idsOf(repos []Repo) []int64 {
	out := make([]int64, 0, len(repos))
	for _, r := range repos {
		if r.ID > 0 {
			out = append(out, r.ID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// union, minus and intersect work on ascending lists of ids.
func union(a, b []int64) []int64 {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func minus(a, b []int64) []int64 {
	var out []int64
	for _, id := range a {
		if _, found := slices.BinarySearch(b, id); !found {
			out = append(out, id)
		}
	}
	return out
}

func intersect(a, b []int64) []int64 {
	var out []int64
	for _, id := range a {
		if _, found := slices.BinarySearch(b, id); found {
			out = append(out, id)
		}
	}
	return out
}

// maxMatchedIDs is the CRD's bound on status.matched.ids.
const maxMatchedIDs = 262144

// encodeMatched writes ascending ids as the record; nil when they do not
// fit (a set over more than some 50,000 repositories keeps no record, and
// releases nothing).
func encodeMatched(ids []int64) *forgev1.MatchedRepositories {
	var b strings.Builder
	prev := int64(0)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id-prev, 36))
		prev = id
	}
	if b.Len() > maxMatchedIDs {
		return nil
	}
	return &forgev1.MatchedRepositories{Count: int32(len(ids)), IDs: b.String()}
}

// decodeMatched reads the record; ok is false when there is none, or when
// it does not read back as ascending ids of its count (then it is treated
// as none: the pass records afresh and releases nothing).
func decodeMatched(m *forgev1.MatchedRepositories) ([]int64, bool) {
	if m == nil {
		return nil, false
	}
	if m.IDs == "" {
		return nil, m.Count == 0
	}
	parts := strings.Split(m.IDs, ",")
	if len(parts) != int(m.Count) {
		return nil, false
	}
	out := make([]int64, len(parts))
	prev := int64(0)
	for i, p := range parts {
		d, err := strconv.ParseInt(p, 36, 64)
		if err != nil || d <= 0 {
			return nil, false
		}
		prev += d
		out[i] = prev
	}
	return out, true
}
