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
	"strings"
)

// IssuesClient reads issues and pull requests by label and adds labels to
// them: what moving issues from one label to another needs.
type IssuesClient interface {
	// ListIssuesWithLabel lists the open and closed issues and pull
	// requests of a repository filtered by the label name, newest first.
	//
	// The forge resolves the name among the repository's own labels only.
	// A name that resolves to nothing drops the filter (every issue comes
	// back), and several labels of that name are ANDed (only issues
	// carrying all of them come back): callers must check each issue's
	// Labels for the label id they mean. The forge splits the filter on
	// commas, so a name with a comma is not sent as a filter: every issue
	// comes back. On a database that compares names without case (MySQL),
	// "Bug" and "bug" both resolve and are ANDed: when the repository has
	// labels whose names differ only in case, list with a name that
	// resolves to nothing (e.g. ",") and filter by id.
	ListIssuesWithLabel(ctx context.Context, owner, repo, label string) ([]Issue, error)
	// AddIssueLabels adds labels by id to issue (or pull request) number
	// and returns the issue's labels afterwards. Labels already present,
	// unknown ids and labels of another repository are ignored. Adding an
	// exclusive scoped label removes the issue's other labels of that
	// scope. An unknown number is KindNotFound.
	AddIssueLabels(ctx context.Context, owner, repo string, number int64, ids []int64) ([]Label, error)
}

var _ IssuesClient = (*Client)(nil)

// Issue mirrors the forge's Issue object; a pull request is an issue with
// PullRequest set (one number sequence for both).
type Issue struct {
	ID          int64            `json:"id"`
	Number      int64            `json:"number"`
	Title       string           `json:"title"`
	State       string           `json:"state"`
	Labels      []Label          `json:"labels"`
	PullRequest *PullRequestMeta `json:"pull_request"`
}

// PullRequestMeta is what an issue listing says of a pull request.
type PullRequestMeta struct {
	Merged bool `json:"merged"`
	Draft  bool `json:"draft"`
}

// IsPull reports whether the issue is a pull request.
func (i Issue) IsPull() bool { return i.PullRequest != nil }

// HasLabel reports whether the issue carries the label id.
func (i Issue) HasLabel(id int64) bool {
	for _, l := range i.Labels {
		if l.ID == id {
			return true
		}
	}
	return false
}

// CreateIssueOption is the body of POST /repos/{o}/{r}/issues. Labels takes
// ids only (the forge refuses names with 422) and drops unknown ids.
type CreateIssueOption struct {
	Title  string  `json:"title"`
	Body   string  `json:"body,omitempty"`
	Labels []int64 `json:"labels,omitempty"`
	// Closed opens the issue closed.
	Closed bool `json:"closed,omitempty"`
}

// ListIssuesWithLabel implements IssuesClient.
func (c *Client) ListIssuesWithLabel(ctx context.Context, owner, repo, label string) ([]Issue, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("list issues with label %q in %s/%s", label, owner, repo), http.MethodGet, "/issues")
	// type is left out: the forge then lists pull requests too.
	cl.query = url.Values{"state": {"all"}}
	if !strings.Contains(label, ",") {
		cl.query.Set("labels", label)
	}
	return listAll(ctx, c, cl, decodeArray[Issue], func(i Issue) int64 { return i.ID })
}

// AddIssueLabels implements IssuesClient.
func (c *Client) AddIssueLabels(ctx context.Context, owner, repo string, number int64, ids []int64) ([]Label, error) {
	out := []Label{}
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("add labels %v to issue #%d in %s/%s", ids, number, owner, repo), http.MethodPost, "/issues/{index}/labels", number)
	if ids == nil {
		ids = []int64{}
	}
	cl.body = map[string][]int64{"labels": ids}
	if _, err := c.doJSON(ctx, cl, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateIssue implements RepoFixturesClient.
func (c *Client) CreateIssue(ctx context.Context, owner, repo string, opt CreateIssueOption) (*Issue, error) {
	out := &Issue{}
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("create issue %q in %s/%s", opt.Title, owner, repo), http.MethodPost, "/issues")
	cl.body = opt
	if _, err := c.doJSON(ctx, cl, out); err != nil {
		return nil, err
	}
	return out, nil
}
