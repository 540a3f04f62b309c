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

package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Milestones, GET|POST /repos/{o}/{r}/milestones and
// GET|PATCH|DELETE .../milestones/{id}.
//
// What the forge does, read in Gitea's routers/api/v1/repo/milestone.go,
// routers/api/v1/api.go, routers/common/deadline.go and issue_filter.go,
// models/issues/milestone.go and milestone_list.go and
// services/convert/issue.go (ToAPIMilestone), probed on 1.24.6, 1.25.5,
// 1.26.4 and 1.27.3 and held by the contract suite
// (contract_milestones_test.go) on the fake and the live releases; the
// fake (internal/fakeforge/handlers_milestones.go) answers the same:
//
//   - Access: anyone who reads the repository lists and reads; writes need
//     a writer of its issues or pull requests (reqRepoWriter). The token
//     scope is the issue category. No archive check: an archived
//     repository's milestones are created, edited and deleted as any
//     other's (no 423).
//   - Listing: paged (page, limit, at most 50 a page), X-Total-Count, no
//     Link; ordered by due date (none first), then title, not by id.
//     ?state= filters: "all" lists every milestone, "closed" the closed.
//     Unset, 1.24 and 1.25 list every milestone and 1.26 and later only
//     the open ones (any other value: open ones from 1.26, all before), so
//     the client always asks state=all. ?name= keeps the titles holding
//     the text, in any case.
//   - POST: 201 with the milestone. The title is trimmed and not checked:
//     empty and taken titles are accepted (titles are no key to the forge).
//     A state "closed" creates it closed (closed_at now); any other state
//     is open. due_on is RFC 3339, kept to the second as sent (answered in
//     UTC); another form is 422 "[]: parsing time ...".
//   - PATCH: a title sent non-empty replaces (trimmed), an empty one is
//     ignored; a description sent replaces ("" clears); a state sent closes
//     ("closed", closed_at now when it was open) or else reopens (any other
//     value, closed_at then null). due_on is always written: unsent or null
//     clears the due date, and a date sent is kept as 23:59:59 of its day
//     (the day in the offset it was sent with) in the server's time zone,
//     not as sent. An edit that should keep the due date sends it again:
//     the wanted day, as the date read back, sent again, is a day later
//     on a server west of UTC.
//   - {id} is tried as an id of the repository (strconv base 0) and, when
//     no milestone of the repository has that id, as an exact title
//     (the first such): GET, PATCH and DELETE of a missing id reach a
//     milestone titled as the number if there is one. GetMilestone and
//     EditMilestone refuse an answer of another id.
//   - GET, PATCH, DELETE of another repository's id, an unknown id or
//     title: 404 (1.24: "The target couldn't be found."; later: "not
//     found"). DELETE is 204. An unknown repository is 404 on every route.
//   - The answer: id, title, description, state (open|closed),
//     open_issues, closed_issues, created_at, updated_at, closed_at (null
//     unless closed), due_on (null when none).

// Milestone is a milestone of a repository as the forge answers it.
type Milestone struct {
	ID          int64  `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// State is open or closed.
	State string `json:"state"`
	// DueOn is nil when the milestone has no due date.
	DueOn *time.Time `json:"due_on"`
	// ClosedAt is nil unless the milestone is closed.
	ClosedAt *time.Time `json:"closed_at"`
}

// CreateMilestoneOption is the body of POST .../milestones.
type CreateMilestoneOption struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	// DueOn is kept to the second as sent; nil: no due date.
	DueOn *time.Time `json:"due_on,omitempty"`
	// State "closed" creates a closed milestone; anything else an open one.
	State string `json:"state,omitempty"`
}

// EditMilestoneOption is the body of PATCH .../milestones/{id}: nil
// fields are not sent, but DueOn always is, the forge clearing the due
// date of an edit without one; it keeps 23:59:59 of DueOn's day.
type EditMilestoneOption struct {
	// Title replaces the title unless empty (the forge ignores "").
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	// State "closed" closes, anything else reopens.
	State *string    `json:"state,omitempty"`
	DueOn *time.Time `json:"due_on"`
}

// MilestonesClient manages the milestones of a repository.
type MilestonesClient interface {
	// ListMilestones lists every milestone, open and closed.
	ListMilestones(ctx context.Context, owner, repo string) ([]Milestone, error)
	// GetMilestone reads one milestone by id; another repository's id is
	// 404 (KindNotFound), and so is an answer of another milestone.
	GetMilestone(ctx context.Context, owner, repo string, id int64) (*Milestone, error)
	// CreateMilestone: a taken title is accepted (two milestones).
	CreateMilestone(ctx context.Context, owner, repo string, opt CreateMilestoneOption) (*Milestone, error)
	// EditMilestone changes what opt sends, and the due date always; an
	// unknown id is 404.
	EditMilestone(ctx context.Context, owner, repo string, id int64, opt EditMilestoneOption) (*Milestone, error)
	// DeleteMilestone: an unknown id is 404.
	DeleteMilestone(ctx context.Context, owner, repo string, id int64) error
}

var _ MilestonesClient = (*Client)(nil)

var milestones = declare(&resource[Milestone]{noun: "milestone", plural: "milestones",
	path: "/milestones", item: "/{id}", of: true,
	key: func(m Milestone) int64 { return m.ID }, clone: cloneMilestone})

func cloneMilestone(m Milestone) Milestone {
	for _, t := range []**time.Time{&m.DueOn, &m.ClosedAt} {
		if *t != nil {
			v := **t
			*t = &v
		}
	}
	return m
}

// ListMilestones implements MilestonesClient: the listing of state "all",
// as the forge lists only the open ones unasked from 1.26.
func (c *Client) ListMilestones(ctx context.Context, owner, repo string) ([]Milestone, error) {
	cl := milestones.call(RepoScope(owner, repo), http.MethodGet, "list", milestones.plural)
	cl.query = url.Values{"state": {"all"}}
	return milestones.listing(ctx, c, cl)
}

// GetMilestone implements MilestonesClient.
func (c *Client) GetMilestone(ctx context.Context, owner, repo string, id int64) (*Milestone, error) {
	cl := milestones.call(RepoScope(owner, repo), http.MethodGet, "get", milestones.one(id), id)
	m, err := milestones.fetchKept(ctx, c, cl)
	if err == nil && m.ID != id {
		// The forge looked the missing id up as a title.
		return nil, c.fail(cl, &Error{Kind: KindNotFound,
			Err: fmt.Errorf("no milestone %d: the forge answered milestone %d, titled %q", id, m.ID, m.Title)})
	}
	return m, err
}

// CreateMilestone implements MilestonesClient.
func (c *Client) CreateMilestone(ctx context.Context, owner, repo string, opt CreateMilestoneOption) (*Milestone, error) {
	cl := milestones.call(RepoScope(owner, repo), http.MethodPost, "create", milestones.one(opt.Title))
	cl.body = opt
	return milestones.fetchKept(ctx, c, cl)
}

// EditMilestone implements MilestonesClient. An answer of another id
// means the forge found no milestone id and edited the one titled as the
// number: that is refused, so the caller reads again.
func (c *Client) EditMilestone(ctx context.Context, owner, repo string, id int64, opt EditMilestoneOption) (*Milestone, error) {
	cl := milestones.call(RepoScope(owner, repo), http.MethodPatch, "edit", milestones.one(id), id)
	cl.body = opt
	m, err := milestones.fetchKept(ctx, c, cl)
	if err == nil && m.ID != id {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse,
			Err: fmt.Errorf("no milestone %d: the forge edited milestone %d, titled %q, instead", id, m.ID, m.Title)})
	}
	return m, err
}

// DeleteMilestone implements MilestonesClient.
func (c *Client) DeleteMilestone(ctx context.Context, owner, repo string, id int64) error {
	return milestones.delete(ctx, c, RepoScope(owner, repo), id)
}

// ---- cached through Snapshots: one listing per repository (every state),
// milestones kept by id; creates and edits answer the milestone, which
// replaces it ----

func (s *Snapshots) ListMilestones(ctx context.Context, owner, repo string) ([]Milestone, error) {
	return listIn(ctx, s, milestones, RepoScope(owner, repo), func(ctx context.Context, sc Scope) ([]Milestone, error) {
		return s.Interface.ListMilestones(ctx, sc.Owner, sc.Repo)
	})
}

func (s *Snapshots) GetMilestone(ctx context.Context, owner, repo string, id int64) (*Milestone, error) {
	return getIn(ctx, s, milestones, RepoScope(owner, repo), id,
		func(ctx context.Context, sc Scope, id int64) (*Milestone, error) {
			return s.Interface.GetMilestone(ctx, sc.Owner, sc.Repo, id)
		},
		func(ctx context.Context, sc Scope) ([]Milestone, error) {
			return s.ListMilestones(ctx, sc.Owner, sc.Repo)
		})
}

func (s *Snapshots) CreateMilestone(ctx context.Context, owner, repo string, opt CreateMilestoneOption) (*Milestone, error) {
	return milestones.cache(s).answer(RepoScope(owner, repo))(s.Interface.CreateMilestone(ctx, owner, repo, opt))
}

func (s *Snapshots) EditMilestone(ctx context.Context, owner, repo string, id int64, opt EditMilestoneOption) (*Milestone, error) {
	return milestones.cache(s).answer(RepoScope(owner, repo))(s.Interface.EditMilestone(ctx, owner, repo, id, opt))
}

func (s *Snapshots) DeleteMilestone(ctx context.Context, owner, repo string, id int64) error {
	return milestones.cache(s).deleted(RepoScope(owner, repo), id)(s.Interface.DeleteMilestone(ctx, owner, repo, id))
}
