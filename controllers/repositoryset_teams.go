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
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The team access a RepositorySet gives: the organizations' teams and
// their repository listings (each read once per pass), giving a listed
// team access to a repository, and the record in status.teamGrants of the
// access the set gave, the only access it ever takes back.

// orgTeams are the teams of org (the cached listing of the pass); nil and
// no error when org is no organization.
func (e *repositorySet) orgTeams(ctx context.Context, org string) ([]forge.Team, error) {
	key := strings.ToLower(org)
	if ts, ok := e.teams[key]; ok {
		return ts, nil
	}
	ts, err := e.Forge.ListTeams(ctx, org)
	if forge.IsNotFound(err) {
		ts, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	e.teams[key] = ts
	return ts, nil
}

// teamNamed finds team name among ts (the forge compares names without case).
func teamNamed(ts []forge.Team, name string) *forge.Team {
	for i := range ts {
		if strings.EqualFold(ts[i].Name, name) {
			return &ts[i]
		}
	}
	return nil
}

// reposOf lists team t's repositories once per pass, afresh: the listing
// is no snapshot, so the access the pass takes back is decided on a
// listing taken in the pass.
func (e *repositorySet) reposOf(ctx context.Context, id int64) ([]forge.Repository, error) {
	if rs, ok := e.teamRepos[id]; ok {
		return rs, nil
	}
	rs, err := e.Forge.ListTeamRepos(ctx, id)
	if err != nil {
		return nil, err
	}
	e.teamRepos[id] = rs
	return rs, nil
}

// syncTeams gives each listed team access to r: a team the forge lacks is
// TeamNotFound (never made); a team with every repository needs nothing;
// a Team resource listing its team's repositories says which it has (the
// set lists the repository it leaves out as a Conflict, never fighting
// it). Access given is recorded in status.teamGrants once the forge gave
// it: the record is the only access the set ever takes back.
func (e *repositorySet) syncTeams(ctx context.Context, o *sets.Outcome, r sets.Repo, found *forge.Repository, write bool) {
	if len(e.obj.Spec.Teams) == 0 {
		return
	}
	ts, err := e.orgTeams(ctx, r.Owner)
	if err != nil {
		o.FailErr(err)
		return
	}
	if ts == nil {
		o.Fail(forgev1.ReasonRejected, true, "%s is not an organization's repository: teams are given access only to an organization's", r)
		return
	}
	for _, name := range e.obj.Spec.Teams {
		t := teamNamed(ts, string(name))
		if t == nil {
			o.Fail(forgev1.ReasonTeamNotFound, false, "team %q not found in organization %s: the set gives access only to a team that exists", name, r.Owner)
			continue
		}
		if t.IncludesAllRepositories {
			continue // it has every repository of its organization, this one too
		}
		if th := e.holds.teamListedBy(r.Owner, t.Name); th != nil {
			if !th.repos[strings.ToLower(found.Name)] {
				o.Fail(forgev1.ReasonConflict, true, "the repositories of team %q are listed by %s, which does not list %s: add it there", t.Name, th.who, found.Name)
			} else {
				o.LeaveTo(th.who, "team "+t.Name)
			}
			continue
		}
		have, err := e.reposOf(ctx, t.ID)
		if err != nil {
			o.FailErr(err)
			return
		}
		if slices.ContainsFunc(have, func(x forge.Repository) bool { return x.ID == found.ID }) {
			continue
		}
		o.Diffs = append(o.Diffs, fmt.Sprintf("give team %q access", t.Name))
		if !write {
			continue
		}
		if err := e.Forge.AddTeamRepo(ctx, t.ID, r.Owner, found.Name); err != nil {
			o.FailErr(err)
			return
		}
		e.teamRepos[t.ID] = append(have, *found)
		e.recordGrant(r.Owner, t, found.ID)
		o.Count("gave", 1, "team access", "team accesses")
	}
}

// recordGrant records that the set gave team t of org access to the
// repository of id.
func (e *repositorySet) recordGrant(org string, t *forge.Team, id int64) {
	st := &e.obj.Status
	i := slices.IndexFunc(st.TeamGrants, func(g forgev1.TeamGrant) bool { return g.ID == t.ID })
	if i < 0 {
		st.TeamGrants = append(st.TeamGrants, forgev1.TeamGrant{Organization: org, Team: t.Name, ID: t.ID})
		i = len(st.TeamGrants) - 1
	}
	g := &st.TeamGrants[i]
	g.Team = t.Name
	if !slices.Contains(g.RepositoryIDs, id) {
		g.RepositoryIDs = append(g.RepositoryIDs, id)
	}
}

// forgetGrant drops the record of team id's access to repository repoID,
// into a new list: callers range over copies of the record while they
// take access back.
func (e *repositorySet) forgetGrant(id, repoID int64) {
	for i := range e.obj.Status.TeamGrants {
		g := &e.obj.Status.TeamGrants[i]
		if g.ID == id {
			g.RepositoryIDs = slices.DeleteFunc(slices.Clone(g.RepositoryIDs), func(x int64) bool { return x == repoID })
		}
	}
}

// tidyGrants drops empty records and sorts the rest.
func (e *repositorySet) tidyGrants() {
	st := &e.obj.Status
	st.TeamGrants = slices.DeleteFunc(st.TeamGrants, func(g forgev1.TeamGrant) bool { return len(g.RepositoryIDs) == 0 })
	for i := range st.TeamGrants {
		slices.Sort(st.TeamGrants[i].RepositoryIDs)
	}
	slices.SortFunc(st.TeamGrants, func(a, b forgev1.TeamGrant) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Organization), strings.ToLower(b.Organization)),
			cmp.Compare(strings.ToLower(a.Team), strings.ToLower(b.Team)), cmp.Compare(a.ID, b.ID))
	})
	if len(st.TeamGrants) == 0 {
		st.TeamGrants = nil
	}
}
