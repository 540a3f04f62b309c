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

package fakeforge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Who may be in an allow-list of a branch or tag protection, and how the
// names sent are resolved to the ids a rule stores.

// teamHasRepo: the team is given the repository (team_repo), directly or
// by including all of its organization's.
func teamHasRepo(t *team, r *repo) bool {
	return t.owner.id == r.orgID && (t.repos[r.id] || t.includesAll)
}

// teamUnitMode is a team's access to a unit: admin and Owners have all.
func teamUnitMode(t *team, unit string) string {
	if t.mode != "none" {
		return "admin"
	}
	return t.units[unit]
}

var modeRank = map[string]int{"": 0, "none": 0, "read": 1, "write": 2, "admin": 3, "owner": 4}

// teamReaders are the organization's teams with read access to the
// repository's code or pull requests (GetTeamsWithAccessToAnyRepoUnit), by
// name as the database orders it (bytes: upper case first). Only these can
// be in a team allow-list; a user's repository has none.
func (s *Server) teamReaders(r *repo) []*team {
	var out []*team
	if r.orgID == 0 {
		return nil
	}
	for _, t := range s.st.teams.rows {
		if teamHasRepo(t, r) && (modeRank[teamUnitMode(t, "repo.code")] >= 1 || modeRank[teamUnitMode(t, "repo.pulls")] >= 1) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *team) int { return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(a.id, b.id)) })
	return out
}

// userUnitMode is u's access to a unit of the repository counting only
// what is given explicitly: the site admin and a user repository's owner
// have all; then a collaborator's permission and the teams u is in.
func (s *Server) userUnitMode(r *repo, u *user, unit string) string {
	if u.admin || (r.orgID == 0 && r.userID == u.id) {
		return "owner"
	}
	best := r.collaborators[u.id]
	for _, t := range s.st.teams.rows {
		if teamHasRepo(t, r) && t.members[u.id] && modeRank[teamUnitMode(t, unit)] > modeRank[best] {
			best = teamUnitMode(t, unit)
		}
	}
	return best
}

// prReaders are the users with explicit read access to the repository's
// pull requests (GetUsersWithUnitAccess): collaborators, members of teams
// given the repository, a user repository's owner; not the site admin as
// such. Read-backs list only these; approvals allow-lists keep only these.
// Ordered by name as the database does (bytes), by id on Gitea 1.24.
func (s *Server) prReaders(r *repo) []*user {
	var out []*user
	for _, u := range s.users {
		if _, collab := r.collaborators[u.id]; collab || (r.orgID == 0 && r.userID == u.id) {
			out = append(out, u)
			continue
		}
		for _, t := range s.st.teams.rows {
			if teamHasRepo(t, r) && t.members[u.id] && modeRank[teamUnitMode(t, "repo.pulls")] >= 1 {
				out = append(out, u)
				break
			}
		}
	}
	if s.versionIs("1.24.") {
		slices.SortFunc(out, func(a, b *user) int { return cmp.Compare(a.id, b.id) })
	} else {
		slices.SortFunc(out, func(a, b *user) int { return strings.Compare(a.login, b.login) })
	}
	return out
}

// userIDs resolves login names as GetUserIDsByNames does: any case, in
// order, repeats kept; an organization's name resolves too (to an account
// that never has access, id 0). The first unknown is a 422.
func (c *rc) userIDs(names []string) ([]int64, bool) {
	ids := make([]int64, 0, len(names))
	for _, n := range names {
		if u := c.s.userByLogin(n); u != nil {
			ids = append(ids, u.id)
			continue
		}
		if c.s.orgByName(n) != nil {
			ids = append(ids, 0)
			continue
		}
		c.validation(fmt.Sprintf("user does not exist [uid: 0, name: %s]", n))
		return nil, false
	}
	return ids, true
}

// teamIDs resolves team names of the repository's organization (any
// case); the first unknown is a 422.
func (c *rc) teamIDs(r *repo, names []string) ([]int64, bool) {
	ids := make([]int64, 0, len(names))
	for _, n := range names {
		var found *team
		for _, t := range c.s.st.teams.in(owner{id: r.orgID}) {
			if strings.EqualFold(t.name, n) {
				found = t
			}
		}
		if found == nil {
			c.validation(fmt.Sprintf("team does not exist [org_id %d, team_id 0, name: %s]", r.orgID, n))
			return nil, false
		}
		ids = append(ids, found.id)
	}
	return ids, true
}

// keepWriters keeps the users with write access to the code, in the order
// sent (updateUserWhitelist: others are dropped without a word).
func (s *Server) keepWriters(r *repo, ids []int64) []int64 {
	out := []int64{}
	for _, id := range ids {
		if u := s.userByID(id); u != nil && modeRank[s.userUnitMode(r, u, "repo.code")] >= 2 {
			out = append(out, id)
		}
	}
	return out
}

// keepPRReaders keeps the users among prReaders (updateApprovalWhitelist).
func (s *Server) keepPRReaders(r *repo, ids []int64) []int64 {
	readers := s.prReaders(r)
	out := []int64{}
	for _, id := range ids {
		if slices.ContainsFunc(readers, func(u *user) bool { return u.id == id }) {
			out = append(out, id)
		}
	}
	return out
}

// keepTeams keeps the teams among teamReaders, in their order, once each
// (updateTeamWhitelist).
func (s *Server) keepTeams(r *repo, ids []int64) []int64 {
	out := []int64{}
	for _, t := range s.teamReaders(r) {
		if slices.Contains(ids, t.id) {
			out = append(out, t.id)
		}
	}
	return out
}

func (s *Server) userByID(id int64) *user {
	for _, u := range s.users {
		if u.id == id {
			return u
		}
	}
	return nil
}
