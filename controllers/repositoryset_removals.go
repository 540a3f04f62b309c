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

package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/forge"
)

// What a RepositorySet takes back: the access it recorded giving teams it
// no longer lists (removals Apply), or lists as pending (removals Report);
// in a released repository (deletionPolicy Delete); and everywhere when
// the set is deleted. Settings and topics always stay.

// dropped are the recorded grants of teams the spec no longer gives
// access: a grant whose team no listed name resolves to. A listed name
// the forge does not know (yet) keeps the grant of that name: nothing is
// taken back on a failed lookup.
func (e *repositorySet) dropped(ctx context.Context) ([]forgev1.TeamGrant, error) {
	var out []forgev1.TeamGrant
	for _, g := range e.obj.Status.TeamGrants {
		ts, err := e.orgTeams(ctx, g.Organization)
		if err != nil {
			return nil, err
		}
		listed := false
		for _, name := range e.obj.Spec.Teams {
			t := teamNamed(ts, string(name))
			if (t != nil && t.ID == g.ID) || (t == nil && strings.EqualFold(string(name), g.Team)) {
				listed = true
			}
		}
		if !listed {
			out = append(out, g)
		}
	}
	return out, nil
}

// takeBackDropped takes back, in r (its repository id), the access the set
// gave teams it no longer lists, unless another resource wants it kept.
func (e *repositorySet) takeBackDropped(ctx context.Context, o *sets.Outcome, r sets.Repo, id int64, write bool) {
	drop, err := e.dropped(ctx)
	if err != nil {
		o.FailErr(err)
		return
	}
	for _, g := range drop {
		if !slices.Contains(g.RepositoryIDs, id) {
			continue
		}
		if err := e.takeBack(ctx, o, r, g, id, write); err != nil {
			o.FailErr(err)
			return
		}
	}
}

// reportDropped lists, with removals Report, the access the set gave
// teams it no longer lists in repository id that their listings, taken in
// this pass, still show, and takes none back: the repository's pending
// removals, which the set's status lists as every set kind's.
func (e *repositorySet) reportDropped(ctx context.Context, o *sets.Outcome, id int64) {
	drop, err := e.dropped(ctx)
	if err != nil {
		o.FailErr(err)
		return
	}
	var items []forgev1.PendingRemoval
	for _, g := range drop {
		if !slices.Contains(g.RepositoryIDs, id) {
			continue
		}
		have, i, err := e.stillHas(ctx, g, id)
		if err != nil {
			o.FailErr(err)
			return
		}
		if i >= 0 {
			items = append(items, forgev1.PendingRemoval{Repository: g.Organization + "/" + have[i].Name, Kind: "TeamAccess", Name: g.Team})
		}
	}
	o.ReportRemovals(items...)
}

// stillHas finds repository id in the listing, taken in this pass, of the
// team of grant g: the listing and the repository's index in it, -1 when
// the team no longer has it. A team that is gone, or a repository it no
// longer has, drops the record: there is nothing left to take back.
func (e *repositorySet) stillHas(ctx context.Context, g forgev1.TeamGrant, id int64) ([]forge.Repository, int, error) {
	have, err := e.reposOf(ctx, g.ID)
	if forge.IsNotFound(err) {
		for _, x := range g.RepositoryIDs {
			e.forgetGrant(g.ID, x)
		}
		return nil, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	i := slices.IndexFunc(have, func(x forge.Repository) bool { return x.ID == id })
	if i < 0 {
		e.forgetGrant(g.ID, id)
	}
	return have, i, nil
}

// takeBack takes back the access recorded in grant g to repository id (r:
// the repository as the set selects it, for the resources that may want
// the access kept), from the team's listing taken in this pass: it removes
// the repository under the name that listing gives it now, and only if it
// is there. A team that is gone, or a repository it no longer has, only
// drops the record; a repository another resource wants the team to keep
// (another RepositorySet, a Team resource listing it) stays, and the
// record of it is dropped: the set gave it, another keeps it now. Without
// write it only says what it would do. Deleting the set and releasing a
// repository take access back through it.
func (e *repositorySet) takeBack(ctx context.Context, o *sets.Outcome, r sets.Repo, g forgev1.TeamGrant, id int64, write bool) error {
	have, i, err := e.stillHas(ctx, g, id)
	if err != nil || i < 0 {
		return err
	}
	now := have[i]
	if who := e.holds.wantsAccess(sets.Repo{Owner: g.Organization, Name: now.Name, Topics: r.Topics, TopicsRead: r.TopicsRead}, g.Organization, g.Team); who != "" {
		e.forgetGrant(g.ID, id)
		return nil
	}
	o.Diffs = append(o.Diffs, fmt.Sprintf("take back team %q's access", g.Team))
	o.Removes++
	if !write {
		return nil
	}
	if err := e.Forge.RemoveTeamRepo(ctx, g.ID, g.Organization, now.Name); err != nil && !forge.IsNotFound(err) {
		return err
	}
	e.teamRepos[g.ID] = slices.Delete(slices.Clone(have), i, i+1)
	e.forgetGrant(g.ID, id)
	if e.tookFrom != nil {
		e.tookFrom[g.ID] = true
	}
	o.Across(fmt.Sprintf("took back team %s's access to", g.Team))
	return nil
}

// takeBackIn takes back, in repository id (r: as the set selects it),
// every access the set recorded giving there, whichever team's: what a
// deletion with deletionPolicy Delete does in each repository, and what
// releasing a repository that left the selector does under Delete (under
// Orphan, a release only drops the record: forgetGrant).
// e.holds and e.teamRepos must be read (Sync and Remove read them).
func (e *repositorySet) takeBackIn(ctx context.Context, o *sets.Outcome, r sets.Repo, id int64, write bool) error {
	for _, g := range slices.Clone(e.obj.Status.TeamGrants) {
		if !slices.Contains(g.RepositoryIDs, id) {
			continue
		}
		if err := e.takeBack(ctx, o, r, g, id, write); err != nil {
			return err
		}
	}
	return nil
}

// RemoveIn releases repository r under deletionPolicy Delete: it takes
// back the access the set recorded giving there, as deleting the set does
// (the set's releaser). Settings and topics stay.
func (e *repositorySet) RemoveIn(ctx context.Context, _ forge.Interface, r sets.Repo) (int, error) {
	var o sets.Outcome
	err := e.takeBackIn(ctx, &o, r, r.ID, true)
	return o.Acts(), err
}

// RemovedNote: a release under Delete takes back team access, in the
// words of the Event of a deleted set; settings and topics stay.
func (e *repositorySet) RemovedNote(n int) string { return tookBack(n, "") }

// tookBack is what taking back n team accesses did, in the words of both
// the Released note and the Event of a deleted set: "took back 2 team
// accesses the set gave (1 team); settings and topics stay". from counts
// the teams, left out when "" (a release counts none).
func tookBack(n int, from string) string {
	if from != "" {
		from = " (" + from + ")"
	}
	return fmt.Sprintf("took back %d team %s the set gave%s; settings and topics stay", n, words.Plural(n, "access", "accesses"), from)
}

// Forget drops the record of the access the set gave in repository id,
// released without a removal: the access stays, no longer the set's.
func (e *repositorySet) Forget(id int64) {
	for _, g := range slices.Clone(e.obj.Status.TeamGrants) {
		e.forgetGrant(g.ID, id)
	}
}

// Remove takes back (deletionPolicy Delete) every access the set recorded
// giving, from the teams' listings taken now, leaving what another
// resource wants kept; settings and topics stay.
func (e *repositorySet) Remove(ctx context.Context) (string, error) {
	holds, err := e.readHolds(ctx)
	if err != nil {
		return "", err
	}
	e.holds = holds
	e.teamRepos = map[int64][]forge.Repository{}
	o := &sets.Outcome{}
	e.tookFrom = map[int64]bool{}
	var ids []int64
	for _, g := range e.obj.Status.TeamGrants {
		for _, id := range g.RepositoryIDs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		// Without its topics at hand, another set selecting by topics
		// counts as wanting the access: it is left rather than taken.
		org := ""
		if i := slices.IndexFunc(e.obj.Status.TeamGrants, func(g forgev1.TeamGrant) bool { return slices.Contains(g.RepositoryIDs, id) }); i >= 0 {
			org = e.obj.Status.TeamGrants[i].Organization
		}
		if err := e.takeBackIn(ctx, o, sets.Repo{Owner: org}, id, true); err != nil {
			return "", err
		}
	}
	e.tidyGrants()
	return tookBack(o.Acts(), fmt.Sprintf("%d %s", len(e.tookFrom), words.Plural(len(e.tookFrom), "team", "teams"))), nil
}
