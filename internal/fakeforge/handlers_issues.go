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

// Organization repository listing, repository archiving, and issues with
// their labels, as Gitea 1.26 serves them (routers/api/v1/user/repo.go,
// routers/api/v1/repo/{repo,issue,issue_label}.go, models/issues/issue_label.go).

import (
	"cmp"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// issue is an issue or a pull request: Gitea numbers both in one sequence.
type issue struct {
	id      int64
	number  int64
	title   string
	body    string
	closed  bool
	pull    bool
	labels  []int64 // ids; a deleted label is dropped when read (issueLabels)
	created time.Time
}

func (s *Server) issueRoutes(h func(string, func(*rc))) {
	h("GET /api/v1/orgs/{org}/repos", s.listOrgRepos)
	h("GET /api/v1/repos/{owner}/{repo}/issues", s.listIssues)
	h("POST /api/v1/repos/{owner}/{repo}/issues", s.createIssue)
	h("GET /api/v1/repos/{owner}/{repo}/issues/{index}/labels", s.getIssueLabels)
	h("POST /api/v1/repos/{owner}/{repo}/issues/{index}/labels", s.addIssueLabels)
}

// getIssueLabels is GET /repos/{o}/{r}/issues/{index}/labels: the issue's
// labels sorted by name, one plain array (no paging headers); an unknown
// number is 404 (Gitea's ListIssueLabels).
func (s *Server) getIssueLabels(c *rc) {
	r := c.repo()
	if r == nil {
		return
	}
	n, err := strconv.ParseInt(c.r.PathValue("index"), 10, 64)
	if err != nil || n < 1 || n > int64(len(r.issues)) {
		c.error(http.StatusNotFound, "not found")
		return
	}
	out := []map[string]any{}
	for _, l := range s.issueLabels(r.issues[n-1]) {
		out = append(out, s.labelJSON(l))
	}
	c.json(http.StatusOK, out)
}

// listOrgRepos pages the organization's repositories in id order the way
// Gitea does: the page is cut from every repository (private ones too when
// the caller is signed in), then the ones the caller cannot see are
// dropped. X-Total-Count and Link count them all, so a page can come back
// short in the middle of the list. Archived repositories are listed.
func (s *Server) listOrgRepos(c *rc) {
	o := c.org()
	if o == nil {
		return
	}
	all := sortedByID(s.st.repos, func(r *repo) bool { return r.orgID == o.id && (c.doer != nil || !r.private) })
	servePage(c, all, true, func(r *repo) map[string]any {
		if !c.canSeeRepo(r) {
			return nil
		}
		return c.repoJSON(r)
	})
}

// issueLabels gives the labels on an issue, sorted by name like Gitea's
// GetLabelsByIssueID. A deleted label is gone from every issue; a renamed
// one keeps its id and so stays.
func (s *Server) issueLabels(is *issue) []*label {
	var out []*label
	for _, id := range is.labels {
		if l, ok := s.st.labels.at(id); ok {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b *label) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id))
	})
	return out
}

func (is *issue) has(id int64) bool { return slices.Contains(is.labels, id) }

func (s *Server) issueJSON(r *repo, is *issue) map[string]any {
	labels := []map[string]any{}
	for _, l := range s.issueLabels(is) {
		labels = append(labels, s.labelJSON(l))
	}
	state := "open"
	if is.closed {
		state = "closed"
	}
	web := s.root + "/" + s.ownerName(r) + "/" + r.name
	out := map[string]any{
		"id": is.id, "number": is.number, "title": is.title, "body": is.body, "state": state,
		"labels": labels, "pull_request": nil, "html_url": web + "/issues/" + strconv.FormatInt(is.number, 10),
		"created_at": is.created.UTC().Format(time.RFC3339), "updated_at": is.created.UTC().Format(time.RFC3339),
		"repository": map[string]any{"id": r.id, "name": r.name, "owner": s.ownerName(r), "full_name": s.ownerName(r) + "/" + r.name},
	}
	if is.pull {
		out["html_url"] = web + "/pulls/" + strconv.FormatInt(is.number, 10)
		out["pull_request"] = map[string]any{"merged": false, "merged_at": nil, "draft": false, "html_url": out["html_url"]}
	}
	return out
}

// labelUsable: Gitea silently drops a label that is neither the
// repository's own nor one of its owner organization's.
func (s *Server) labelUsable(r *repo, l *label) bool {
	return l.owner == (owner{repo: true, id: r.id}) || (r.orgID != 0 && l.owner == owner{id: r.orgID})
}

// exclusiveScope is Gitea's Label.ExclusiveScope: for an exclusive label
// the name up to its last '/', unless that '/' is first or last.
func exclusiveScope(l *label) string {
	if !l.exclusive {
		return ""
	}
	i := strings.LastIndex(l.name, "/")
	if i <= 0 || i == len(l.name)-1 {
		return ""
	}
	return l.name[:i]
}

// listIssues is GET /repos/{o}/{r}/issues with the filters the operator
// uses. state: "all", "closed", anything else open. type: "issues" or
// "pulls", anything else both. labels: a comma list of names looked up
// among the repository's own labels only (not the org's, not ids); names
// that resolve to nothing are discarded, and if none resolves there is no
// label filter at all. Every resolved id must be on the issue (AND), so two
// labels of one name match only issues carrying both. Newest first.
func (s *Server) listIssues(c *rc) {
	r := c.repo()
	if r == nil {
		return
	}
	q := c.r.URL.Query()
	var want []int64
	names := strings.Split(q.Get("labels"), ",")
	for _, l := range s.st.labels.in(owner{repo: true, id: r.id}) {
		if slices.ContainsFunc(names, func(n string) bool { return n == l.name || (s.foldLabelNames && strings.EqualFold(n, l.name)) }) {
			want = append(want, l.id)
		}
	}
	var hits []*issue
	for _, is := range r.issues {
		switch {
		case q.Get("state") == "closed" && !is.closed,
			q.Get("state") != "closed" && q.Get("state") != "all" && is.closed,
			q.Get("type") == "issues" && is.pull,
			q.Get("type") == "pulls" && !is.pull:
			continue
		}
		all := true
		for _, id := range want {
			if !is.has(id) {
				all = false
			}
		}
		if all {
			hits = append(hits, is)
		}
	}
	slices.SortFunc(hits, func(a, b *issue) int {
		return cmp.Or(b.created.Compare(a.created), cmp.Compare(b.id, a.id))
	})
	servePage(c, hits, true, func(is *issue) map[string]any { return s.issueJSON(r, is) })
}

// addIssue opens an issue or pull request with the label ids that are
// usable in the repository (others dropped silently). Creation applies no
// exclusive-scope rule: Gitea's NewIssue inserts every valid label.
func (s *Server) addIssue(r *repo, title, body string, pull bool, labelIDs []int64) *issue {
	is := &issue{id: s.st.next("issue"), number: int64(len(r.issues)) + 1, title: title, body: body, pull: pull, created: time.Now()}
	for _, id := range labelIDs {
		if l, ok := s.st.labels.at(id); ok && s.labelUsable(r, l) && !is.has(id) {
			is.labels = append(is.labels, id)
		}
	}
	r.issues = append(r.issues, is)
	return is
}

// createIssue is POST /repos/{o}/{r}/issues: token, then the archive guard
// (423 "{o}/{r} is archived"), then binding ("labels" takes ids only: a
// name fails to decode, 422), then "[Title]: Required".
func (s *Server) createIssue(c *rc) {
	r := c.repo()
	if r == nil || !c.requireToken() {
		return
	}
	if !c.notArchived(r) {
		return
	}
	var req struct {
		Title  string  `json:"title"`
		Body   string  `json:"body"`
		Labels []int64 `json:"labels"`
		Closed bool    `json:"closed"`
	}
	if !c.bind(&req) {
		return
	}
	if req.Title == "" {
		c.validation("[Title]: Required")
		return
	}
	is := s.addIssue(r, req.Title, req.Body, false, req.Labels)
	is.closed = req.Closed
	c.json(http.StatusCreated, s.issueJSON(r, is))
}

// addIssueLabels is POST /repos/{o}/{r}/issues/{index}/labels
// {"labels": [...]}: ids or names, not both in one request (400 "labels
// should be an array of strings or integers"; another JSON type: 400 "a
// label must be an integer or a string"). Names resolve among the
// repository's labels and, for an organization's repository, the
// organization's. Unknown labels, other repositories' labels and labels
// already present are skipped; adding an exclusive scoped label first
// removes the issue's other labels of that scope. The archive guard does
// not apply. Answers 200 with the issue's labels afterwards; an unknown
// number is 404.
func (s *Server) addIssueLabels(c *rc) {
	r := c.repo()
	if r == nil || !c.requireToken() {
		return
	}
	var req struct {
		Labels []any `json:"labels"`
	}
	if !c.bind(&req) {
		return
	}
	n, err := strconv.ParseInt(c.r.PathValue("index"), 10, 64)
	if err != nil || n < 1 || n > int64(len(r.issues)) {
		c.error(http.StatusNotFound, "not found")
		return
	}
	is := r.issues[n-1]
	if !c.isRepoAdmin(r) {
		c.error(http.StatusForbidden, "write permission is required")
		return
	}
	var ids []int64
	var names []string
	for _, v := range req.Labels {
		switch rv := reflect.ValueOf(v); rv.Kind() {
		case reflect.Float64:
			ids = append(ids, int64(rv.Float()))
		case reflect.String:
			names = append(names, rv.String())
		default:
			c.error(http.StatusBadRequest, "a label must be an integer or a string")
			return
		}
	}
	if len(ids) > 0 && len(names) > 0 {
		c.error(http.StatusBadRequest, "labels should be an array of strings or integers")
		return
	}
	if len(names) > 0 {
		for _, l := range s.st.labels.where(func(l *label) bool { return s.labelUsable(r, l) }) {
			if slices.Contains(names, l.name) {
				ids = append(ids, l.id)
			}
		}
	}
	for _, id := range ids {
		l, ok := s.st.labels.at(id)
		if !ok || !s.labelUsable(r, l) || is.has(id) {
			continue
		}
		if scope := exclusiveScope(l); scope != "" {
			is.labels = slices.DeleteFunc(is.labels, func(other int64) bool {
				ol, ok := s.st.labels.at(other)
				return ok && exclusiveScope(ol) == scope
			})
		}
		is.labels = append(is.labels, id)
	}
	out := []map[string]any{}
	for _, l := range s.issueLabels(is) {
		out = append(out, s.labelJSON(l))
	}
	c.json(http.StatusOK, out)
}

// ---- Go-side scene setting ----

// AddPullRequest opens a pull request as POST .../pulls would once a
// branch with a commit exists (the fake keeps no git data): it takes the
// next issue number and the usable label ids. It fails in an archived
// repository, like the forge (423).
func (s *Server) AddPullRequest(ownerName, repoName, title string, labelIDs ...int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return 0, fmt.Errorf("add pull request: no repository %s/%s", ownerName, repoName)
	}
	if r.archived {
		return 0, fmt.Errorf("add pull request: %s/%s is archived", ownerName, repoName)
	}
	return s.addIssue(r, title, "", true, labelIDs).number, nil
}

// Issues returns a repository's issues and pull requests, newest first,
// with their labels.
func (s *Server) Issues(ownerName, repoName string) []forge.Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	var out []forge.Issue
	for i := len(r.issues) - 1; i >= 0; i-- {
		is := r.issues[i]
		fi := forge.Issue{ID: is.id, Number: is.number, Title: is.title, State: "open", Labels: []forge.Label{}}
		if is.closed {
			fi.State = "closed"
		}
		if is.pull {
			fi.PullRequest = &forge.PullRequestMeta{}
		}
		for _, l := range s.issueLabels(is) {
			fi.Labels = append(fi.Labels, s.labelToForge(l))
		}
		out = append(out, fi)
	}
	return out
}

// SetArchived archives or un-archives a repository; unknown is a no-op.
func (s *Server) SetArchived(ownerName, repoName string, archived bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.repoByName(ownerName, repoName); r != nil {
		r.archived = archived
	}
}

var _ = registerRoutes((*Server).issueRoutes)
