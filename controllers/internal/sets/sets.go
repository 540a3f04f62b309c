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

// Package sets is the machinery every set kind (LabelSet,
// BranchProtectionSet, FileSet, RepositorySet) runs on: which repositories
// a set applies to (names, or an organization listed afresh with include,
// exclude and topics, archived ones skipped), its round of them across
// passes, one outcome per repository folded into the loop's SetResult and
// the status every set reports, the deletion of objects a set does not
// list, and the release of repositories that stopped matching, from the
// set's own record of what it matched (release.go). A kind brings only
// what is its own: how one repository is brought to the spec, and who
// else claims its objects. It serves the set kinds of package controllers
// and imports, of the kinds' shared pieces, only rounds and words.
package sets

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// Set is a set resource's repositories, for one pass. A set kind's pass
// embeds it and uses Forge, Cache and Release; the rest is the machinery's.
type Set struct {
	obj forgev1.Managed
	sel forgev1.RepositorySelector
	// Forge is the pass's client of the forge; Cache the manager's cache,
	// which the kinds read the resources that claim their objects from.
	Forge forge.Interface
	Cache client.Reader
	// noun and nouns name the set's objects in Events: "label", "labels".
	noun, nouns string
	// rounds keeps the set's round of its repositories across passes
	// (nil: a round of this pass alone; plan compares each set once); pass
	// is the loop's, for the interval, a requested reconcile and arrivals.
	rounds *rounds.Store[Repo]
	pass   *reconciler.Pass
	// listed holds the names (lower case) of the last listing of the
	// organization's repositories, archived and unselected ones too.
	listed map[string]bool
	// seen holds, by id, every repository the last listings gave (archived
	// and unselected ones too); partial is set when a listing of a named
	// repository's owner failed: then no repository is released.
	seen    map[int64]Repo
	partial bool
	// Release is how the kind removes its objects from a repository the
	// set released under deletionPolicy Delete (release.go); nil: the
	// kind releases without removing.
	Release Releaser
}

// Listed says whether the set's last listings gave the repository of id
// (archived and unselected ones too), or could not tell (a listing that
// failed): what the set keeps a record of (status.checked).
func (rs *Set) Listed(id int64) bool {
	_, ok := rs.seen[id]
	return ok || rs.partial || rs.seen == nil
}

// New is the repositories of set obj for one pass of the loop.
func New(obj forgev1.Managed, sel forgev1.RepositorySelector, pass *reconciler.Pass, rounds *rounds.Store[Repo], noun, nouns string) Set {
	return Set{obj: obj, sel: sel, Forge: pass.Forge, Cache: pass.Cache, noun: noun, nouns: nouns, rounds: rounds, pass: pass}
}

// Run runs one pass of a set kind: it resolves the repositories, brings
// each to the spec with each (only comparing without write), and folds the
// outcomes into the SetResult and st, the status every set kind reports.
// A repository's failure never stops the others.
//
// A pass goes on with the set's round (package rounds): the repositories the
// round compared already are not compared again until the next round
// begins, an interval after this one began; a pass that runs short of
// time stops between repositories and the next goes on from there, so
// that every pass adds to what is done, however little of the forge's
// budget the set gets. A repository that became Ready as a Repository
// resource while the pass ran is listed and done in the same pass.
func (rs *Set) Run(ctx context.Context, write bool, st *forgev1.SetStatus,
	each func(ctx context.Context, r Repo) *Outcome) (reconciler.SetResult, error) {
	res := reconciler.SetResult{Noun: "repository", Nouns: "repositories"}
	start := time.Now()
	rd := rs.rounds.Begin(rs.obj, write, rs.pass, start)
	repos, failures, err := rs.Repositories(ctx)
	if err != nil {
		return res, err
	}
	w := &roundWork{rd: rd, clock: rounds.NewClock(ctx, start), write: write, each: each, newcomer: newcomers(st)}
	listed, relists := start, 0
	for {
		if err := w.compare(ctx, repos); err != nil {
			return res, err
		}
		// A repository made while the pass ran is done in it: list again
		// when one became Ready since the last listing began, or when a
		// Repository resource declares one the listing lacks.
		if w.unfinished || rs.pass == nil {
			break
		}
		arrived := rs.pass.Arrived != nil && rs.pass.Arrived().After(listed) || rs.declaredUnlisted(ctx)
		if !arrived {
			break
		}
		if relists == maxRelists || !w.clock.Enough() {
			// Repositories arrived that this pass has no time to list and
			// do: the set is not Ready for less than it selects, and the
			// next pass goes on at once.
			w.unfinished = true
			break
		}
		relists++
		listed = time.Now()
		fresh := *rs
		fresh.Forge = forge.Fresh(rs.Forge)
		if repos, failures, err = fresh.Repositories(ctx); err != nil {
			return res, err
		}
		rs.listed, rs.seen, rs.partial = fresh.listed, fresh.seen, fresh.partial
	}
	total, changed, unfinished := w.total, w.changed, w.unfinished
	// A repository newly covered that this pass did not reach is still
	// new to the pass that does, though the record lists it by then.
	for _, r := range repos {
		if !rd.Done(r) && w.newcomer(r) {
			rd.MarkFresh(r, true)
		}
	}

	// Named repositories that were not found count as matched, and failing.
	res.Members = len(repos) + len(failures)
	for _, r := range repos {
		f, known := rd.Outcome(r)
		switch {
		case !known:
			res.Pending++
		case f != nil:
			failures = append(failures, *f)
		}
	}
	res.Unfinished = unfinished || !rd.Complete(repos)
	res.Since = rd.Started()
	yielded, governed := yieldedIn(rd, repos)
	res.Yielded = governed
	res.InSync = res.Members - len(failures) - res.Pending - res.Yielded
	// Repositories that stopped matching are released; one whose release
	// failed is listed with the failures (and counts in neither number).
	var releaseFailures []reconciler.MemberFailure
	if res.Released, releaseFailures, err = rs.releaseLeft(ctx, write, st, repos, w.clock); err != nil {
		return res, err
	}
	failures = append(failures, releaseFailures...)
	slices.SortFunc(failures, func(a, b reconciler.MemberFailure) int { return strings.Compare(a.Member, b.Member) })
	res.Failures = failures
	if total.wrote() {
		res.Changes = summaryOf(changed, total, rs.noun, rs.nouns)
	}
	if w.applied.wrote() {
		res.Applied = appliedOf(w.governed, w.applied, rs.noun, rs.nouns)
	}

	shown := failures[:min(len(failures), maxFailures)]
	next := make([]forgev1.SetFailure, len(shown))
	for i, f := range shown {
		next[i] = forgev1.SetFailure{Repository: f.Member, Reason: f.Reason, Message: f.Message}
	}
	res.FailuresChanged = !slices.Equal(st.Failures, next)
	st.Failures, st.Failing = next, int32(len(failures))
	// The round's, as its failures are: a pass that compared some
	// repositories reports what the others' last comparison planned.
	var pending []forgev1.PendingRemoval
	for _, r := range repos {
		pending = append(pending, rd.Removals(r)...)
	}
	st.PendingRemovals = reconciler.PendingRemovals(pending)
	st.Repositories, st.InSync = int32(res.Members), int32(res.InSync)
	st.Yielded = yielded
	return res, nil
}

// roundWork is what one pass does of its set's round: it compares the
// repositories the round has not, while its clock allows, and keeps the
// outcomes in the round.
type roundWork struct {
	rd    *rounds.Round[Repo]
	clock *rounds.Clock
	write bool
	each  func(ctx context.Context, r Repo) *Outcome
	// newcomer says whether the set's record (status.matched, as the pass
	// began) lacks a repository: the set newly covers it.
	newcomer func(r Repo) bool
	// total sums the writes to repositories the set governed already,
	// changed counts those of them it counted writes in; applied and
	// governed are the same for the repositories it newly covers.
	// unfinished is set when the pass stopped short of repositories left.
	total, applied    Outcome
	changed, governed int
	unfinished        bool
}

// newcomers says, from the set's record of what it matched (status.matched)
// as a pass begins, which repositories the set newly covers: those the
// record lacks. Without a record (a set's first pass, or one made by an
// earlier version) none: the pass cannot tell.
func newcomers(st *forgev1.SetStatus) func(r Repo) bool {
	ids, ok := decodeMatched(st.Matched)
	return func(r Repo) bool {
		_, found := slices.BinarySearch(ids, r.ID)
		return ok && r.ID != 0 && !found
	}
}

// compare does what the round has not done of repos. An error is a
// routine check's later turn in the forge's drift lane (no failure: the
// round keeps what is done, and the set's pass on its turn goes on).
func (w *roundWork) compare(ctx context.Context, repos []Repo) error {
	for _, r := range repos {
		if w.rd.Done(r) {
			continue
		}
		if !w.clock.Enough() {
			w.unfinished = true
			return nil
		}
		began := time.Now()
		o := w.each(ctx, r)
		if o.Yielded != nil {
			return o.Yielded
		}
		if o.Cut || ctx.Err() != nil {
			w.unfinished = true // out of time: this repository is done next pass
			return nil
		}
		w.clock.Took(time.Since(began))
		// A repository the set newly covers is newly governed until a
		// comparison of it has no failure.
		fresh := w.rd.Fresh(r) || w.newcomer(r)
		total, changed := &w.total, &w.changed
		if fresh {
			total, changed = &w.applied, &w.governed
		}
		total.add(o)
		if o.counted() > 0 {
			*changed++
		}
		w.rd.MarkFresh(r, fresh && len(o.problems) > 0)
		if !w.write && len(o.problems) == 0 && len(o.Diffs) > 0 {
			o.Fail(forgev1.ReasonDriftDetected, false, "%s", strings.Join(o.Diffs, ", "))
		}
		var f *reconciler.MemberFailure
		if len(o.problems) > 0 {
			mf := memberFailure(r.String(), o.problems)
			mf.Removes = o.Removes
			f = &mf
		}
		w.rd.Record(r, f)
		w.rd.RecordLeft(r, o.leftIn(r))
		if o.decided {
			for i := range o.pending {
				if o.pending[i].Repository == "" {
					o.pending[i].Repository = r.String()
				}
			}
			w.rd.RecordRemovals(r, o.pending)
		}
	}
	return nil
}

// maxRelists bounds how often one pass lists the set's repositories again
// for those made while it ran.
const maxRelists = 2

// declaredUnlisted reports whether a Repository resource of the set's
// server (in any namespace) that exists on the forge (it has an id) and
// that the selector picks is missing from the organization's last listing:
// that listing was taken before the resource made it. Named sets read their
// repositories afresh by name; only an organization's listing can lag.
func (rs *Set) declaredUnlisted(ctx context.Context) bool {
	if rs.sel.Organization == nil || rs.Cache == nil {
		return false
	}
	servers, err := claims.ServersOf(ctx, rs.Cache, rs.obj)
	if err != nil {
		return false
	}
	var all forgev1.RepositoryList
	if err := rs.Cache.List(ctx, &all); err != nil {
		return false
	}
	picks := Matches(rs.sel)
	for i := range all.Items {
		r := &all.Items[i]
		want := Repo{Owner: string(r.Spec.Owner), Name: r.RepoName()}
		if r.Status.ID == 0 || !r.DeletionTimestamp.IsZero() || !servers.Reach(r.Namespace, r.Spec.ForgeRef) || !picks(want) {
			continue
		}
		if !rs.listed[strings.ToLower(want.Name)] {
			return true
		}
	}
	return false
}

// maxFailures bounds status.failures (the CRD says so too).
const maxFailures = 20

// Repo is one matched repository, with its topics when a listing gave
// them (TopicsRead: see Matches).
type Repo struct {
	Owner, Name string
	Topics      []string
	TopicsRead  bool
	// ID is the forge's (0 when not read); archived as the listing said.
	ID       int64
	archived bool
}

// String is the repository's full name, owner/name.
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// Repositories resolves the set's repositories afresh: one repository
// listing per owner. Archived ones are skipped; named repositories that do
// not exist are failures.
func (rs *Set) Repositories(ctx context.Context) ([]Repo, []reconciler.MemberFailure, error) {
	sel := rs.sel
	if sel.Organization != nil {
		org := string(*sel.Organization)
		all, err := rs.Forge.ListOrgRepos(ctx, org)
		if err != nil {
			return nil, nil, reconciler.ParentMissing(err, "organization "+org)
		}
		var out []Repo
		rs.listed = make(map[string]bool, len(all))
		rs.seen, rs.partial = make(map[int64]Repo, len(all)), false
		picks := Matches(sel)
		for _, r := range all {
			rs.listed[strings.ToLower(r.Name)] = true
			// The listing carries each repository's topics: selecting by
			// them costs no read.
			rp := listedRepo(org, r)
			rs.seen[r.ID] = rp
			if !r.Archived && picks(rp) {
				out = append(out, rp)
			}
		}
		slices.SortFunc(out, func(a, b Repo) int { return strings.Compare(a.String(), b.String()) })
		return out, nil, nil
	}

	byOwner := map[string][]Repo{}
	var owners []string
	for _, n := range sel.Names {
		owner, name, _ := strings.Cut(string(n), "/")
		k := strings.ToLower(owner)
		if _, ok := byOwner[k]; !ok {
			owners = append(owners, k)
		}
		byOwner[k] = append(byOwner[k], Repo{Owner: owner, Name: name})
	}
	slices.Sort(owners)
	var out []Repo
	var failures []reconciler.MemberFailure
	rs.seen, rs.partial = map[int64]Repo{}, false
	for _, k := range owners {
		wanted := byOwner[k]
		listed, err := rs.ownerRepos(ctx, wanted)
		if c, _ := reconciler.Classify(err); c.Yield {
			return nil, nil, err // the whole pass gives way
		}
		if err != nil {
			rs.partial = true
			for _, w := range wanted {
				var o Outcome
				o.FailErr(err)
				failures = append(failures, memberFailure(w.String(), o.problems))
			}
			continue
		}
		for _, r := range listed {
			owner := wanted[0].Owner
			if r.Owner != nil {
				owner = r.Owner.Login
			}
			rs.seen[r.ID] = listedRepo(owner, r)
		}
		for _, w := range wanted {
			i := slices.IndexFunc(listed, func(r forge.Repository) bool { return strings.EqualFold(r.Name, w.Name) })
			switch {
			case i < 0:
				failures = append(failures, reconciler.MemberFailure{Member: w.String(), Reason: forgev1.ReasonParentNotFound,
					Message: fmt.Sprintf("repository %s not found on the forge; waiting for it to exist", w)})
			case !listed[i].Archived:
				// With its topics: another set's claim on it may depend on them.
				out = append(out, Repo{Owner: w.Owner, Name: w.Name, Topics: listed[i].Topics, TopicsRead: true, ID: listed[i].ID})
			}
		}
	}
	slices.SortFunc(out, func(a, b Repo) int { return strings.Compare(a.String(), b.String()) })
	return out, failures, nil
}

// ownerRepos reads the named repositories of one owner: from its
// organization's listing, or, for a user's repositories (no organization
// listing), one read each; a repository that does not exist is left out.
func (rs *Set) ownerRepos(ctx context.Context, wanted []Repo) ([]forge.Repository, error) {
	listed, err := rs.Forge.ListOrgRepos(ctx, wanted[0].Owner)
	if !forge.IsNotFound(err) {
		return listed, err
	}
	listed = nil
	for _, w := range wanted {
		r, err := rs.Forge.GetRepo(ctx, w.Owner, w.Name)
		if forge.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		listed = append(listed, *r)
	}
	return listed, nil
}

// selected applies include (every name when empty), then exclude.
func selected(name string, include, exclude []forgev1.RepositoryGlob) bool {
	match := func(globs []forgev1.RepositoryGlob) bool {
		return slices.ContainsFunc(globs, func(g forgev1.RepositoryGlob) bool {
			ok, _ := path.Match(string(g), name)
			return ok
		})
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
}

// Matches says whether a selector picks a repository: by organization,
// globs and topics (carriesTopics), or by name. A repository whose topics
// were not read (one a Repository resource names) is picked on organization
// and globs alone: that only makes the set list the organization afresh,
// where the topics decide.
func Matches(sel forgev1.RepositorySelector) func(r Repo) bool {
	if sel.Organization != nil {
		org := string(*sel.Organization)
		return func(r Repo) bool {
			return strings.EqualFold(r.Owner, org) && selected(r.Name, sel.Include, sel.Exclude) &&
				(!r.TopicsRead || carriesTopics(r.Topics, sel.Topics))
		}
	}
	return func(r Repo) bool {
		return slices.ContainsFunc(sel.Names, func(n forgev1.RepositoryName) bool { return strings.EqualFold(string(n), r.String()) })
	}
}

// RemoveListed deletes a set's objects from every matched repository
// (deletionPolicy Delete), from listings taken now: doomed lists, through
// fresh (a view of the set's client that lists afresh), those of r that the
// set lists and no other resource holds, del deletes one. A
// repository that would lose more than max loses none and the set keeps
// its finalizer (Stalled) until the limit is raised or the policy is
// Orphan; a repository that is gone has nothing left to delete.
func RemoveListed[T any](ctx context.Context, rs *Set, max int,
	doomed func(ctx context.Context, fresh forge.Interface, r Repo) ([]T, error), del func(ctx context.Context, r Repo, item T) error) (string, error) {
	fresh := *rs
	fresh.Forge = forge.Fresh(rs.Forge)
	repos, _, err := fresh.Repositories(ctx)
	if forge.IsNotFound(err) {
		// The organization is gone, and its objects with it: holding the
		// finalizer would block the set's deletion for ever.
		return fmt.Sprintf("the organization is gone; no %s to delete", rs.nouns), nil
	}
	if err != nil {
		return "", err
	}
	deleted, touched := 0, 0
	var errs []error
	var over []string
	for _, r := range repos {
		items, err := doomed(ctx, fresh.Forge, r)
		if err != nil {
			if !forge.IsNotFound(err) {
				errs = append(errs, err)
			}
			continue
		}
		if len(items) > max {
			over = append(over, fmt.Sprintf("%s (%d)", r, len(items)))
			continue
		}
		n := 0
		for _, it := range items {
			if err := del(ctx, r, it); err != nil && !forge.IsNotFound(err) {
				errs = append(errs, err)
				continue
			}
			n++
		}
		if n > 0 {
			deleted += n
			touched++
		}
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	if len(over) > 0 {
		return "", reconciler.Stall(forgev1.ReasonTooManyDeletions,
			"deleting the set would delete more than maxDeletionsPerRepository %d %s in %s; deleted none there (%d %s deleted elsewhere): raise the limit, or set deletionPolicy Orphan to leave them",
			max, rs.nouns, words.BoundList(over), deleted, rs.nouns)
	}
	return fmt.Sprintf("deleted %d %s of the set in %d of %d repositories", deleted, rs.nouns, touched, len(repos)), nil
}

// Unlisted is how a set kind deletes, in Authoritative mode, the objects
// of one repository it does not list.
type Unlisted[T any] struct {
	// Report: removals Report, which deletes none and lists them as
	// pending removals of Kind (Label, BranchProtection).
	Report bool
	Kind   string
	// Keep holds what stays: listed, preserved, or another resource's.
	Keep func(T) bool
	// Relist takes the repository's listing through fresh, a view of the
	// set's client that lists afresh: now, never a kept one.
	Relist func(ctx context.Context, fresh forge.Interface) ([]T, error)
	Name   func(T) string
	Del    func(ctx context.Context, item T) error
	Max    int
	Nouns  string
}

// DeleteUnlisted deletes, within u.Max, the objects of all that u.Keep
// does not keep, relisted through a fresh view of fc. Deletions decide on
// a listing taken now, after this pass's own writes, never on the kept
// one: an object renamed since (into a preserve pattern, say) is seen
// under its current name, and every object deleted is one just read. More
// than u.Max in the repository: none is deleted (TooManyDeletions).
// Without write it only reports. With u.Report it deletes none, whatever
// their number, and lists them in o.pending, decided as a deletion would
// be: on a fresh listing, and keeping what u.Keep keeps.
func DeleteUnlisted[T any](ctx context.Context, fc forge.Interface, o *Outcome, all []T, u Unlisted[T], write bool) {
	doomedOf := func(all []T) []T {
		return slices.DeleteFunc(slices.Clone(all), u.Keep)
	}
	doomed := doomedOf(all)
	if len(doomed) > 0 && write {
		fresh, err := u.Relist(ctx, forge.Fresh(fc))
		if err != nil {
			o.FailErr(err)
			return
		}
		doomed = doomedOf(fresh)
	}
	if u.Report {
		items := make([]forgev1.PendingRemoval, len(doomed))
		for i, d := range doomed {
			items[i] = forgev1.PendingRemoval{Kind: u.Kind, Name: u.Name(d)}
		}
		o.ReportRemovals(items...)
		return
	}
	if len(doomed) > u.Max {
		names := make([]string, len(doomed))
		for i, d := range doomed {
			names[i] = strconv.Quote(u.Name(d))
		}
		o.Fail(forgev1.ReasonTooManyDeletions, true, "would delete %d unlisted %s (%s), more than maxDeletionsPerRepository %d; deleted none",
			len(doomed), u.Nouns, words.BoundList(names), u.Max)
		return
	}
	for _, d := range doomed {
		o.Diffs = append(o.Diffs, fmt.Sprintf("delete %q", u.Name(d)))
		o.Removes++
		if !write {
			continue
		}
		if err := u.Del(ctx, d); err != nil && !forge.IsNotFound(err) {
			o.FailErr(err)
			return
		}
		o.Deleted++
	}
}

// RepoRefs is the RepoRefs of a set kind: the repositories it names, or
// every repository of the organization it selects from. (Archived members
// are skipped by the set itself.)
func RepoRefs(sel forgev1.RepositorySelector) []string {
	if sel.Organization != nil {
		return []string{string(*sel.Organization) + "/*"}
	}
	out := make([]string, 0, len(sel.Names))
	for _, n := range sel.Names {
		out = append(out, string(n))
	}
	return out
}

// Selects is the SelectsRepository of a set kind: a Repository resource
// that becomes Ready re-runs the sets that pick it, by organization and
// globs or by name. Its topics are not at hand here: a set selecting by
// topics is re-run on organization and globs, and its pass reads the
// topics afresh from the listing.
func Selects(sel forgev1.RepositorySelector, owner, name string) bool {
	return Matches(sel)(Repo{Owner: owner, Name: name})
}
