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
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Tag protections as Gitea serves them: read in routers/api/v1/repo/tag.go
// (ListTagProtection, GetTagProtection, CreateTagProtection,
// EditTagProtection, DeleteTagProtection), routers/api/v1/api.go (the
// routes: reqToken, reqAdmin; mustNotBeArchived on POST and PATCH only),
// models/git/protected_tag.go (kept as sent, found by exact pattern),
// models/user/user.go and models/organization/team.go (names in any case)
// and services/convert/convert.go (ToTagProtection: only users with read
// access to pull requests and teams with read access to the code or pull
// requests are shown), the same in 1.24.6, 1.25.5 and 1.26.4; the full
// list is atop internal/forge/tagprotections.go. Gitea before 1.23 has
// no such routes (the fake as Forgejo serves them, as Forgejo does now). Not modelled: Gitea hides a read
// collaborator of a public repository added after the repository's last
// full access recalculation; the fake shows every collaborator.

// tagRule is one tag protection as the forge stores it: allow-lists hold
// ids as resolved, whether or not the account can be shown.
type tagRule struct {
	row
	pattern          string
	users, teams     []int64
	created, updated time.Time
}

// tagRes serves a repository's tag protections: its admins only; the
// listing every protection in one array by id, no paging.
var tagRes = &resource[*tagRule]{
	route: forge.RouteOf("tag protections"), scopes: []string{forge.RepoRoute},
	table: func(st *state) *table[*tagRule] { return st.tagRules },
	served: func(s *Server) bool {
		flavor, semver, ok := forge.ParseVersion(s.version)
		if !ok {
			return true
		}
		var major, minor int
		_, _ = fmt.Sscanf(semver, "%d.%d", &major, &minor)
		return flavor != forge.FlavorGitea || major > 1 || minor >= 23
	},
	may:     (*rc).administers,
	missing: func(c *rc, _ owner, _ *tagRule) { c.ruleNotFound() },
	page: func(c *rc, ts []*tagRule) {
		out := []map[string]any{}
		for _, t := range ts {
			out = append(out, c.s.tagRuleJSON(t))
		}
		c.json(http.StatusOK, out)
	},
	json: func(c *rc, t *tagRule) map[string]any { return c.s.tagRuleJSON(t) },
}

// tagRuleJSON is ToTagProtection: of the stored ids, the users among
// prReaders and the teams among teamReaders, in their order.
func (s *Server) tagRuleJSON(t *tagRule) map[string]any {
	r := s.st.repos[t.owner.id]
	users, teams := []string{}, []string{}
	for _, u := range s.prReaders(r) {
		if slices.Contains(t.users, u.id) {
			users = append(users, u.login)
		}
	}
	for _, tm := range s.teamReaders(r) {
		if slices.Contains(t.teams, tm.id) {
			teams = append(teams, tm.name)
		}
	}
	return map[string]any{
		"id": t.id, "name_pattern": t.pattern, "whitelist_usernames": users, "whitelist_teams": teams,
		"created_at": t.created.Format(time.RFC3339), "updated_at": t.updated.Format(time.RFC3339),
	}
}

// createTagProtection is POST .../tag_protections: 201. Checks in order:
// the body, the archive (423), an empty pattern (400, after trimming),
// both lists empty (400), a taken pattern (403), users then teams (422;
// teams only in an organization's repository).
func (s *Server) createTagProtection(c *rc) {
	ow, ok := tagRes.scope(c, "create")
	if !ok {
		return
	}
	r := s.st.repos[ow.id]
	var req forge.CreateTagProtectionOption
	if !c.bind(&req) || !c.notArchived(r) {
		return
	}
	pattern := strings.TrimSpace(req.NamePattern)
	if pattern == "" {
		c.error(http.StatusBadRequest, "name_pattern are empty")
		return
	}
	if len(req.WhitelistUsernames) == 0 && len(req.WhitelistTeams) == 0 {
		c.error(http.StatusBadRequest, "both whitelist_usernames and whitelist_teams are empty")
		return
	}
	if _, taken := s.st.tagRules.first(ow, func(t *tagRule) bool { return t.pattern == pattern }); taken {
		c.error(http.StatusForbidden, "Tag protection already exist")
		return
	}
	users, ok := c.userIDs(req.WhitelistUsernames)
	if !ok {
		return
	}
	var teams []int64
	if r.orgID != 0 {
		if teams, ok = c.teamIDs(r, req.WhitelistTeams); !ok {
			return
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	t := s.st.tagRules.add(&tagRule{row: row{owner: ow}, pattern: pattern, users: users, teams: teams, created: now, updated: now})
	c.json(http.StatusCreated, s.tagRuleJSON(t))
}

// editTagProtection is PATCH .../tag_protections/{id}: 423 when archived
// (before the look-up), 404 for an id not of the repository, then what is
// sent replaces: the pattern as sent (no trim, no duplicate check), teams
// (ignored on a user's repository, where a list sent clears them), then
// users; an unknown name is 422 with nothing written.
func (s *Server) editTagProtection(c *rc) {
	ow, ok := tagRes.scope(c, "edit")
	if !ok {
		return
	}
	r := s.st.repos[ow.id]
	var req forge.EditTagProtectionOption
	if !c.bind(&req) || !c.notArchived(r) {
		return
	}
	t, ok := tagRes.lookup(c, ow)
	if !ok {
		return
	}
	next := *t
	if req.NamePattern != nil {
		next.pattern = *req.NamePattern
	}
	if req.WhitelistTeams != nil {
		next.teams = nil
		if r.orgID != 0 {
			if next.teams, ok = c.teamIDs(r, names(req.WhitelistTeams)); !ok {
				return
			}
		}
	}
	if req.WhitelistUsernames != nil {
		if next.users, ok = c.userIDs(names(req.WhitelistUsernames)); !ok {
			return
		}
	}
	next.updated = time.Now().UTC().Truncate(time.Second)
	*t = next
	c.json(http.StatusOK, s.tagRuleJSON(t))
}

func (s *Server) tagProtectionRoutes(h func(string, func(*rc))) {
	tagRes.serve(h, onCollection("POST", s.createTagProtection), onItem("PATCH", s.editTagProtection))
}

// TagProtections gives a repository's tag protections as the listing
// answers them (tests only).
func (s *Server) TagProtections(ownerName, repoName string) []forge.TagProtection {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	out := []forge.TagProtection{}
	for _, t := range s.st.tagRules.in(owner{repo: true, id: r.id}) {
		j := s.tagRuleJSON(t)
		out = append(out, forge.TagProtection{ID: t.id, NamePattern: t.pattern,
			WhitelistUsernames: j["whitelist_usernames"].([]string), WhitelistTeams: j["whitelist_teams"].([]string)})
	}
	return out
}

var _ = registerRoutes((*Server).tagProtectionRoutes)
