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
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// OrgReposClient lists the repositories of an organization.
type OrgReposClient interface {
	// ListOrgRepos lists every repository of org the caller can see,
	// archived ones included (Repository.Archived says which).
	ListOrgRepos(ctx context.Context, org string) ([]Repository, error)
}

// RepoFixturesClient changes repositories and issues the way a person would;
// tests and demos use it to set a scene, the operator never does.
type RepoFixturesClient interface {
	// ArchiveRepo archives (or un-archives) a repository.
	ArchiveRepo(ctx context.Context, owner, repo string, archived bool) (*Repository, error)
	// CreateIssue opens an issue; the forge refuses it in an archived
	// repository with 423 Locked.
	CreateIssue(ctx context.Context, owner, repo string, opt CreateIssueOption) (*Issue, error)
}

var (
	_ OrgReposClient     = (*Client)(nil)
	_ RepoFixturesClient = (*Client)(nil)
)

// ListOrgRepos implements OrgReposClient.
//
// The forge pages the organization's repositories in the database and only
// then drops the ones the caller may not see, while X-Total-Count and Link
// count them all: a page can be short, or even empty, in the middle of the
// list. So the walk follows the Link header's rel="next" (computed from the
// full count and the page size the server really used); without a Link it
// stops once it has seen as many repositories as X-Total-Count says (so
// nothing was hidden and nothing follows), else at the first empty page.
func (c *Client) ListOrgRepos(ctx context.Context, org string) ([]Repository, error) {
	cl := call{op: "list repositories of organization " + org, method: http.MethodGet, route: "/orgs/{org}/repos", args: []any{org}}
	return settled(ctx, c, cl, func() ([]Repository, int, error) { return c.walkOrgRepos(ctx, cl) })
}

// walkOrgRepos walks the organization's repositories once, and says how
// many pages it read.
func (c *Client) walkOrgRepos(ctx context.Context, cl call) ([]Repository, int, error) {
	seen := map[int64]bool{}
	all := []Repository{}
	// The same bounds as every listing: pages, items and bytes.
	budget := &listBudget{c: c, cl: cl}
	for page := 1; ; page++ {
		if err := budget.page(); err != nil {
			return nil, 0, err
		}
		pc := cl
		pc.query = url.Values{"page": {strconv.Itoa(page)}, "limit": {strconv.Itoa(PageSize)}}
		resp, err := c.do(ctx, pc)
		if err != nil {
			return nil, 0, err
		}
		if err := budget.read(resp.body); err != nil {
			return nil, 0, err
		}
		var items []Repository
		if err := json.Unmarshal(resp.body, &items); err != nil {
			return nil, 0, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("decode page %d: %w", page, err)})
		}
		if err := budget.decoded(len(items)); err != nil {
			return nil, 0, err
		}
		fresh := 0
		for _, r := range items {
			// A repository created or deleted during the walk shifts the
			// pages by one: an item seen twice is kept once.
			if !seen[r.ID] {
				seen[r.ID] = true
				all = append(all, r)
				fresh++
			}
		}
		link := resp.header.Get("Link")
		if link != "" {
			if !hasNextLink(link) {
				break
			}
			continue
		}
		if len(items) == 0 || fresh == 0 {
			// No Link: the end is the first empty page (or a server that
			// ignores paging and serves the same page again).
			break
		}
		if total, err := strconv.Atoi(resp.header.Get("X-Total-Count")); err == nil && len(seen) >= total {
			// Every repository the count holds (hidden ones included) is
			// here: nothing can follow. Gitea sends no Link when all fit
			// in one page, so this saves a request for the empty page
			// after every organization of up to a page of repositories.
			break
		}
	}
	return all, budget.pages, nil
}

// hasNextLink reports whether an RFC 8288 Link header has rel="next".
func hasNextLink(header string) bool {
	for _, part := range strings.Split(header, ",") {
		for _, param := range strings.Split(part, ";")[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(param), "=")
			if strings.EqualFold(k, "rel") && strings.EqualFold(strings.Trim(v, `"`), "next") {
				return true
			}
		}
	}
	return false
}

// ArchiveRepo implements RepoFixturesClient. Archiving an archived
// repository is a no-op 200.
func (c *Client) ArchiveRepo(ctx context.Context, owner, repo string, archived bool) (*Repository, error) {
	out := &Repository{}
	verb := "archive"
	if !archived {
		verb = "unarchive"
	}
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("%s repository %s/%s", verb, owner, repo), http.MethodPatch, "")
	cl.body = map[string]bool{"archived": archived}
	if _, err := c.doJSON(ctx, cl, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- cached through Snapshots: one listing per organization, in the
// repositories' store (repositories.go) ----

func (s *Snapshots) ListOrgRepos(ctx context.Context, org string) ([]Repository, error) {
	return repositories.cache(s).list(ctx, s, orgReposKey(org), func(ctx context.Context) ([]Repository, error) {
		return s.Interface.ListOrgRepos(ctx, org)
	})
}
