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
	"slices"
)

// Tag protections, GET|POST /repos/{o}/{r}/tag_protections and
// GET|PATCH|DELETE .../tag_protections/{id}.
//
// What the forge does, read in Gitea's routers/api/v1/repo/tag.go,
// routers/api/v1/api.go, models/git/protected_tag.go,
// models/user/user.go (GetUserIDsByNames), models/organization/team.go
// (GetTeamIDsByNames) and services/convert/convert.go (ToTagProtection),
// identical in 1.24.6, 1.25.5 and 1.26.4, and held by the contract suite
// (contract_tagprotections_test.go) on the fake and the live releases; the
// fake (internal/fakeforge/handlers_tagprotections.go) answers the same:
//
//   - The API came with Gitea 1.23.0 (#31295); an older release answers
//     its routes with a plain-text 404 (KindRouteNotFound). Forgejo took
//     it in too (its routers/api/v1/api.go has the same routes, with
//     quota checks), from a release not verified here.
//   - Access: repository admins only, the listing included (reqToken,
//     reqAdmin), as for branch protections.
//   - Listing: one JSON array of every protection, never paged, by id.
//   - POST checks, in order: the body; the archive (423); the pattern,
//     trimmed, empty is 400 "name_pattern are empty"; both lists empty is
//     400 "both whitelist_usernames and whitelist_teams are empty"; a
//     pattern taken (compared exactly) is 403 "Tag protection already
//     exist"; then users, then teams, resolved in any case, the first
//     unknown 422 "user does not exist [uid: 0, name: <as sent>]" or
//     "team does not exist [org_id <id>, team_id 0, name: <as sent>]".
//     The pattern is not validated (a glob, or /regex/ between slashes;
//     an invalid one is stored and matches nothing).
//   - A user's repository ignores the team list, unknown names included,
//     and reads it back [].
//   - Stored lists are ids, kept as sent; an answer lists only the users
//     with read access to the repository's pull requests and the teams with
//     read access to its code or pull requests, by name as stored (their
//     own case), once each, in the order of that access listing: a user
//     without access is kept but not shown. That listing is Gitea's access
//     table: on a public repository a collaborator added with read only is
//     not in it (RecalculateUserAccess records write and above there) until
//     the repository's accesses are recalculated whole (a team given the
//     repository, for one), so such a user may stay hidden (probed on
//     1.26.4; the fake shows every collaborator, a gap it keeps).
//   - PATCH: 423 when archived, then 404 for an id of no protection of the
//     repository; a field sent replaces (name_pattern as sent, untrimmed,
//     and without the duplicate check; a list [] clears it, null is not
//     sent); teams before users; unknown names 422 and nothing written.
//   - GET, PATCH, DELETE of another repository's id, or of an unknown or
//     non-numeric one: 404. DELETE is 204 and has no archive check.

// TagProtection is a tag protection of a repository as the forge answers
// it (GET /repos/{o}/{r}/tag_protections): who may create and delete the
// tags matching the pattern. tagprotections.go records what the forge
// keeps and shows.
type TagProtection struct {
	ID                 int64    `json:"id"`
	NamePattern        string   `json:"name_pattern"`
	WhitelistUsernames []string `json:"whitelist_usernames"`
	WhitelistTeams     []string `json:"whitelist_teams"`
}

// CreateTagProtectionOption is the body of POST .../tag_protections.
type CreateTagProtectionOption struct {
	NamePattern        string   `json:"name_pattern"`
	WhitelistUsernames []string `json:"whitelist_usernames"`
	WhitelistTeams     []string `json:"whitelist_teams"`
}

// EditTagProtectionOption is the body of PATCH .../tag_protections/{id}:
// nil fields are not sent; a non-nil list pointer to an empty list is sent
// as [] (clears it).
type EditTagProtectionOption struct {
	NamePattern        *string   `json:"name_pattern,omitempty"`
	WhitelistUsernames *[]string `json:"whitelist_usernames,omitempty"`
	WhitelistTeams     *[]string `json:"whitelist_teams,omitempty"`
}

// TagProtectionsClient manages the tag protections of a repository.
type TagProtectionsClient interface {
	// ListTagProtections lists every protection at once (the forge does
	// not page this list).
	ListTagProtections(ctx context.Context, owner, repo string) ([]TagProtection, error)
	// GetTagProtection reads one protection; another repository's id is 404.
	GetTagProtection(ctx context.Context, owner, repo string, id int64) (*TagProtection, error)
	// CreateTagProtection: a taken pattern is 403 (KindForbidden), both
	// lists empty 400, an unknown user or team 422, an archived repository 423.
	CreateTagProtection(ctx context.Context, owner, repo string, opt CreateTagProtectionOption) (*TagProtection, error)
	// EditTagProtection changes what opt sends; an unknown id is 404.
	EditTagProtection(ctx context.Context, owner, repo string, id int64, opt EditTagProtectionOption) (*TagProtection, error)
	// DeleteTagProtection: an unknown id is 404.
	DeleteTagProtection(ctx context.Context, owner, repo string, id int64) error
}

var _ TagProtectionsClient = (*Client)(nil)

var tagProtections = declare(&resource[TagProtection]{noun: "tag protection", plural: "tag protections",
	path: "/tag_protections", item: "/{id}", of: true,
	key: func(t TagProtection) int64 { return t.ID }, clone: cloneTagProtection})

func cloneTagProtection(t TagProtection) TagProtection {
	t.WhitelistUsernames = slices.Clone(t.WhitelistUsernames)
	t.WhitelistTeams = slices.Clone(t.WhitelistTeams)
	return t
}

// ListTagProtections implements TagProtectionsClient. The forge answers
// every protection in one array, ignoring page and limit, so one request
// is made; it is held to the listing bounds all the same.
func (c *Client) ListTagProtections(ctx context.Context, owner, repo string) ([]TagProtection, error) {
	cl := tagProtections.call(RepoScope(owner, repo), http.MethodGet, "list", tagProtections.plural)
	all, err := listUnpaged[TagProtection](ctx, c, cl)
	if err != nil {
		return nil, err
	}
	seen := make(map[int64]bool, len(all))
	for _, t := range all {
		if t.ID <= 0 || seen[t.ID] {
			return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the list holds tag protection id %d twice or an id <= 0", t.ID)})
		}
		seen[t.ID] = true
	}
	return all, nil
}

// GetTagProtection implements TagProtectionsClient.
func (c *Client) GetTagProtection(ctx context.Context, owner, repo string, id int64) (*TagProtection, error) {
	return tagProtections.fetchKept(ctx, c, tagProtections.call(RepoScope(owner, repo), http.MethodGet, "get", tagProtections.one(id), id))
}

// CreateTagProtection implements TagProtectionsClient. Nil lists are sent
// as [] (the forge reads null as empty too).
func (c *Client) CreateTagProtection(ctx context.Context, owner, repo string, opt CreateTagProtectionOption) (*TagProtection, error) {
	if opt.WhitelistUsernames == nil {
		opt.WhitelistUsernames = []string{}
	}
	if opt.WhitelistTeams == nil {
		opt.WhitelistTeams = []string{}
	}
	cl := tagProtections.call(RepoScope(owner, repo), http.MethodPost, "create", tagProtections.one(opt.NamePattern))
	cl.body = opt
	return tagProtections.fetchKept(ctx, c, cl)
}

// EditTagProtection implements TagProtectionsClient. A list pointer to a
// nil list is sent as [] (clears the list): the forge takes null as not
// sent.
func (c *Client) EditTagProtection(ctx context.Context, owner, repo string, id int64, opt EditTagProtectionOption) (*TagProtection, error) {
	for _, l := range []**[]string{&opt.WhitelistUsernames, &opt.WhitelistTeams} {
		if *l != nil && **l == nil {
			*l = &[]string{}
		}
	}
	cl := tagProtections.call(RepoScope(owner, repo), http.MethodPatch, "edit", tagProtections.one(id), id)
	cl.body = opt
	return tagProtections.fetchKept(ctx, c, cl)
}

// DeleteTagProtection implements TagProtectionsClient.
func (c *Client) DeleteTagProtection(ctx context.Context, owner, repo string, id int64) error {
	return tagProtections.delete(ctx, c, RepoScope(owner, repo), id)
}

// ---- cached through Snapshots: one listing per repository, protections
// kept by id; creates and edits answer the protection, which replaces it ----

func (s *Snapshots) ListTagProtections(ctx context.Context, owner, repo string) ([]TagProtection, error) {
	return listIn(ctx, s, tagProtections, RepoScope(owner, repo), func(ctx context.Context, sc Scope) ([]TagProtection, error) {
		return s.Interface.ListTagProtections(ctx, sc.Owner, sc.Repo)
	})
}

func (s *Snapshots) GetTagProtection(ctx context.Context, owner, repo string, id int64) (*TagProtection, error) {
	return getIn(ctx, s, tagProtections, RepoScope(owner, repo), id,
		func(ctx context.Context, sc Scope, id int64) (*TagProtection, error) {
			return s.Interface.GetTagProtection(ctx, sc.Owner, sc.Repo, id)
		},
		func(ctx context.Context, sc Scope) ([]TagProtection, error) {
			return s.ListTagProtections(ctx, sc.Owner, sc.Repo)
		})
}

func (s *Snapshots) CreateTagProtection(ctx context.Context, owner, repo string, opt CreateTagProtectionOption) (*TagProtection, error) {
	return tagProtections.cache(s).answer(RepoScope(owner, repo))(s.Interface.CreateTagProtection(ctx, owner, repo, opt))
}

func (s *Snapshots) EditTagProtection(ctx context.Context, owner, repo string, id int64, opt EditTagProtectionOption) (*TagProtection, error) {
	return tagProtections.cache(s).answer(RepoScope(owner, repo))(s.Interface.EditTagProtection(ctx, owner, repo, id, opt))
}

func (s *Snapshots) DeleteTagProtection(ctx context.Context, owner, repo string, id int64) error {
	return tagProtections.cache(s).deleted(RepoScope(owner, repo), id)(s.Interface.DeleteTagProtection(ctx, owner, repo, id))
}
