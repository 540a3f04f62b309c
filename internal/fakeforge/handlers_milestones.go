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
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Milestones as Gitea serves them: read in routers/api/v1/repo/milestone.go
// (ListMilestones, GetMilestone, CreateMilestone, EditMilestone,
// DeleteMilestone, getMilestoneByIDOrName), routers/api/v1/api.go (reads
// for whoever reads the repository, writes for its writers, no archive
// check), routers/common (ParseAPIDeadlineToEndOfDay,
// ParseIssueFilterStateIsClosed from 1.26), models/issues/milestone.go and
// milestone_list.go (titles trimmed; listed by due date, then title) and
// services/convert/issue.go (ToAPIMilestone), the same in 1.24.6 to 1.27.3
// but for the listing's default state; the full list is atop
// internal/forge/milestones.go. The server's time zone, which an edit's
// due date is the end of the day in, is UTC here. Not modelled: an {id} in
// another base than ten (Gitea reads "0x5" as 5).

// milestone is one milestone as the forge stores it: no due date is a
// deadline of 0.
type milestone struct {
	row
	title, description string
	deadline           int64 // Unix seconds; <= 0 is none
	closed             bool
	closedAt           time.Time
	created, updated   time.Time
}

// milestoneRes serves a repository's milestones: anyone who reads the
// repository reads them, its writers write; listed by due date (none
// first) then title, paged with X-Total-Count only; a missing id is looked
// up as a title.
var milestoneRes = &resource[*milestone]{
	route: forge.RouteOf("milestones"), scopes: []string{forge.RepoRoute},
	table: milestoneTable.of,
	may: func(c *rc, _ *org, r *repo, verb string) bool {
		return reads(verb) || c.requireRepoWriter(r)
	},
	// APIErrorNotFound without a message, as for a rule.
	missing:    func(c *rc, _ owner, _ *milestone) { c.ruleNotFound() },
	named:      func(m *milestone, title string) bool { return m.title == title },
	idThenName: true,
	order: func(c *rc, ms []*milestone) ([]*milestone, bool) {
		q := c.r.URL.Query()
		state := q.Get("state")
		if c.giteaBefore(26) && state != "open" && state != "closed" {
			state = "all" // before 1.26 only open and closed filter
		}
		name := strings.ToUpper(q.Get("name"))
		ms = slices.DeleteFunc(ms, func(m *milestone) bool {
			if name != "" && !strings.Contains(strings.ToUpper(m.title), name) {
				return true
			}
			switch state {
			case "all":
				return false
			case "closed":
				return !m.closed
			}
			return m.closed
		})
		slices.SortStableFunc(ms, func(a, b *milestone) int {
			return cmp.Or(cmp.Compare(max(a.deadline, 0), max(b.deadline, 0)), cmp.Compare(a.title, b.title))
		})
		return ms, true
	},
	json: func(_ *rc, m *milestone) map[string]any { return milestoneJSON(m) },
}

// milestoneJSON is ToAPIMilestone: closed_at only while closed, due_on
// only for a deadline after 1970.
func milestoneJSON(m *milestone) map[string]any {
	out := map[string]any{
		"id": m.id, "title": m.title, "description": m.description, "state": "open",
		"open_issues": 0, "closed_issues": 0,
		"created_at": m.created.Format(time.RFC3339), "updated_at": m.updated.Format(time.RFC3339),
		"closed_at": nil, "due_on": nil,
	}
	if m.closed {
		out["state"] = "closed"
		out["closed_at"] = m.closedAt.Format(time.RFC3339)
	}
	if m.deadline > 0 {
		out["due_on"] = time.Unix(m.deadline, 0).UTC().Format(time.RFC3339)
	}
	return out
}

// milestoneReq is CreateMilestoneOption and EditMilestoneOption: a due
// date that is not RFC 3339 fails the binding (422).
type milestoneReq struct {
	Title       string     `json:"title"`
	Description *string    `json:"description"`
	State       *string    `json:"state"`
	Deadline    *time.Time `json:"due_on"`
}

// createMilestone is POST .../milestones: 201, the title trimmed and
// unchecked (empty and taken ones too), the due date kept as sent, closed
// when the state is "closed".
func (s *Server) createMilestone(c *rc) {
	ow, ok := milestoneRes.scope(c, "create")
	if !ok {
		return
	}
	var req milestoneReq
	if !c.bind(&req) {
		return
	}
	now := time.Now().UTC().Truncate(time.Second)
	m := &milestone{row: row{owner: ow}, title: strings.TrimSpace(req.Title), created: now, updated: now}
	if req.Description != nil {
		m.description = *req.Description
	}
	if req.Deadline != nil {
		m.deadline = req.Deadline.Unix()
	}
	if req.State != nil && *req.State == "closed" {
		m.closed, m.closedAt = true, now
	}
	milestoneTable.of(&s.st).add(m)
	c.json(http.StatusCreated, milestoneJSON(m))
}

// editMilestone is PATCH .../milestones/{id}: the body is bound before
// the milestone is looked up; a non-empty title replaces (trimmed), a
// description sent replaces, the due date is always written (none unless
// sent: the end of its day), a state sent closes ("closed") or reopens.
func (s *Server) editMilestone(c *rc) {
	ow, ok := milestoneRes.scope(c, "edit")
	if !ok {
		return
	}
	var req milestoneReq
	if !c.bind(&req) {
		return
	}
	m, ok := milestoneRes.lookup(c, ow)
	if !ok {
		return
	}
	now := time.Now().UTC().Truncate(time.Second)
	if req.Title != "" {
		m.title = strings.TrimSpace(req.Title)
	}
	if req.Description != nil {
		m.description = *req.Description
	}
	m.deadline = endOfDay(req.Deadline)
	if req.State != nil {
		closed := *req.State == "closed"
		if closed && !m.closed {
			m.closedAt = now
		}
		m.closed = closed
	}
	m.updated = now
	c.json(http.StatusOK, milestoneJSON(m))
}

// endOfDay is ParseAPIDeadlineToEndOfDay: none for nil or the zero time,
// else 23:59:59 of t's day (in t's own offset) in the server's time zone.
func endOfDay(t *time.Time) int64 {
	if t == nil || t.IsZero() || t.Unix() == 0 {
		return 0
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 23, 59, 59, 0, time.UTC).Unix()
}

// milestoneTable holds the repositories' milestones.
var milestoneTable = kindTable[*milestone]()

var _ = registerRoutes((*Server).milestoneRoutes)

func (s *Server) milestoneRoutes(h func(string, func(*rc))) {
	milestoneRes.serve(h, onCollection("POST", s.createMilestone), onItem("PATCH", s.editMilestone))
}

// Milestones gives a repository's milestones, open and closed, by id
// (tests only).
func (s *Server) Milestones(ownerName, repoName string) []forge.Milestone {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	out := []forge.Milestone{}
	for _, m := range milestoneTable.of(&s.st).in(owner{repo: true, id: r.id}) {
		got := forge.Milestone{ID: m.id, Title: m.title, Description: m.description, State: "open"}
		if m.closed {
			at := m.closedAt
			got.State, got.ClosedAt = "closed", &at
		}
		if m.deadline > 0 {
			due := time.Unix(m.deadline, 0).UTC()
			got.DueOn = &due
		}
		out = append(out, got)
	}
	return out
}
