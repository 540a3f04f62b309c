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

package forge_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The issue behaviours are what LabelSet relies on: listing an organization's
// repositories, archived ones, issues and pull requests by label, and
// adding labels to them. TestContract runs them.
var _ = registerBehaviours("issue", []behaviour{
	{"repos/org listing: id order, archived listed, Link paging", contractOrgRepos, nil},
	{"repos/org listing: private ones counted but hidden, short pages mid-list", contractOrgReposHidden, nil},
	{"repos/archive and unarchive; label writes allowed, issue create 423", contractRepoArchive, nil},
	{"issues/create takes label ids only, drops unknown ids", contractIssueCreate, nil},
	{"issues/list by label: PRs included, state, newest first, paging", contractIssueList, nil},
	{"issues/list label filter: unresolved dropped, duplicates ANDed, repo labels only", contractIssueLabelFilter, nil},
	{"issues/list for a label name with a comma lists all", contractIssueCommaLabel, nil},
	{"issues/add labels: ids or names, ignored cases, 404", contractIssueAddLabels, nil},
	{"issues/add exclusive label replaces its scope", contractIssueExclusive, nil},
	{"issues/an issue's labels: sorted by name, not paged, 404 for an unknown number", contractIssueGetLabels, nil},
	{"issues/label rename keeps it on issues, delete removes it", contractIssueLabelRenameDelete, nil},
})

// label creates a label in the repository.
func (tg *target) label(org, repo, name string, exclusive bool) forge.Label {
	tg.t.Helper()
	l, err := tg.c.CreateLabel(ctx(tg.t), forge.RepoScope(org, repo), forge.CreateLabelOption{Name: name, Color: "#00aabb", Exclusive: exclusive})
	if err != nil {
		tg.t.Fatalf("create label %q: %v", name, err)
	}
	return *l
}

// issue opens an issue with labels and returns its number.
func (tg *target) issue(org, repo, title string, labels ...forge.Label) int64 {
	tg.t.Helper()
	is, err := tg.c.CreateIssue(ctx(tg.t), org, repo, forge.CreateIssueOption{Title: title, Labels: labelIDs(labels)})
	if err != nil {
		tg.t.Fatalf("create issue %q: %v", title, err)
	}
	return is.Number
}

// initRepo creates a repository with a first commit on main (a pull
// request needs one), removed after the test.
func (tg *target) initRepo(org string) string {
	tg.t.Helper()
	name := uniqueName("repo")
	if _, err := tg.c.CreateOrgRepo(ctx(tg.t), org, forge.CreateRepoOption{Name: name, AutoInit: true, DefaultBranch: "main"}); err != nil {
		tg.t.Fatalf("create repo: %v", err)
	}
	tg.t.Cleanup(func() { _ = tg.c.DeleteRepo(ctx(tg.t), org, name) })
	return name
}

// pull opens a pull request with labels and returns its number. On a live
// server it takes a branch with a commit; the fake keeps no git data and
// opens it directly.
func (tg *target) pull(org, repo, title string, labels ...forge.Label) int64 {
	tg.t.Helper()
	if !tg.live {
		n, err := tg.fake.AddPullRequest(org, repo, title, labelIDs(labels)...)
		if err != nil {
			tg.t.Fatal(err)
		}
		return n
	}
	branch := uniqueName("b")
	base := "/api/v1/repos/" + org + "/" + repo
	tg.rawJSON(http.MethodPost, base+"/branches", map[string]string{"new_branch_name": branch, "old_branch_name": "main"}, nil)
	tg.rawJSON(http.MethodPost, base+"/contents/"+branch+".txt", map[string]string{
		"content": base64.StdEncoding.EncodeToString([]byte(title)), "branch": branch, "message": title,
	}, nil)
	var out struct {
		Number int64 `json:"number"`
	}
	tg.rawJSON(http.MethodPost, base+"/pulls", map[string]any{"title": title, "head": branch, "base": "main", "labels": labelIDs(labels)}, &out)
	return out.Number
}

func labelIDs(ls []forge.Label) []int64 {
	ids := []int64{}
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	return ids
}

func labelNames(ls []forge.Label) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// numbers gives the issue numbers in the order listed, "p" marking a pull request.
func numbers(is []forge.Issue) string {
	var b []string
	for _, i := range is {
		s := fmt.Sprint(i.Number)
		if i.IsPull() {
			s += "p"
		}
		b = append(b, s)
	}
	return strings.Join(b, ",")
}

func wantLabels(t *testing.T, what string, got []forge.Label, want ...string) {
	t.Helper()
	if g := labelNames(got); !slices.Equal(g, want) {
		t.Fatalf("%s: labels %q, want %q", what, g, want)
	}
}

// issueLabels reads an issue's labels back from the label listing.
func issueByNumber(t *testing.T, is []forge.Issue, n int64) forge.Issue {
	t.Helper()
	for _, i := range is {
		if i.Number == n {
			return i
		}
	}
	t.Fatalf("issue #%d not listed in %s", n, numbers(is))
	return forge.Issue{}
}

// ---- repositories ----

func contractOrgRepos(t *testing.T, tg *target) {
	org := tg.org()
	empty, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	if len(empty) != 0 {
		t.Fatalf("new org lists %d repositories", len(empty))
	}
	var names []string
	for range 3 {
		names = append(names, tg.repo(org))
	}
	_, err = tg.c.ArchiveRepo(ctx(t), org, names[1], true)
	mustNoErr(t, err)
	repos, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	var got []string
	for i, r := range repos {
		got = append(got, r.Name)
		if r.Archived != (i == 1) || r.FullName != org+"/"+r.Name {
			t.Fatalf("repository %d: %+v", i, r)
		}
	}
	if !slices.Equal(got, names) {
		t.Fatalf("listed %q, want %q in creation order", got, names)
	}

	// Pages of 2: X-Total-Count and Link, past the end [].
	status, body := tg.raw(http.MethodGet, "/api/v1/orgs/"+org+"/repos?limit=2&page=2", nil)
	if status != http.StatusOK || !strings.Contains(string(body), names[2]) || strings.Contains(string(body), names[0]) {
		t.Fatalf("page 2 of 2: %d %s", status, body)
	}
	h := tg.rawHeader("/api/v1/orgs/" + org + "/repos?limit=2&page=1")
	if h.Get("X-Total-Count") != "3" || !strings.Contains(h.Get("Link"), `rel="next"`) || !strings.Contains(h.Get("Link"), `rel="last"`) {
		t.Fatalf("page 1 headers: total %q link %q", h.Get("X-Total-Count"), h.Get("Link"))
	}
	h = tg.rawHeader("/api/v1/orgs/" + org + "/repos?limit=2&page=2")
	if strings.Contains(h.Get("Link"), `rel="next"`) || !strings.Contains(h.Get("Link"), `rel="prev"`) {
		t.Fatalf("last page Link: %q", h.Get("Link"))
	}
	if status, body := tg.raw(http.MethodGet, "/api/v1/orgs/"+org+"/repos?limit=2&page=3", nil); status != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Fatalf("past the end: %d %s", status, body)
	}

	_, err = tg.c.ListOrgRepos(ctx(t), uniqueName("missing"))
	wantKind(t, err, forge.KindNotFound)
}

// rawHeader GETs path and returns the response headers of a 200.
func (tg *target) rawHeader(path string) http.Header {
	tg.t.Helper()
	req, err := http.NewRequestWithContext(ctx(tg.t), http.MethodGet, tg.root+path, nil)
	if err != nil {
		tg.t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+tg.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tg.t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tg.t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return resp.Header
}

func contractRepoArchive(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	l := tg.label(org, repo, "before", false)
	n := tg.issue(org, repo, "opened before archiving", l)

	r, err := tg.c.ArchiveRepo(ctx(t), org, repo, true)
	mustNoErr(t, err)
	if !r.Archived {
		t.Fatalf("archive answered %+v", r)
	}
	r, err = tg.c.ArchiveRepo(ctx(t), org, repo, true)
	mustNoErr(t, err)
	if !r.Archived {
		t.Fatal("archiving twice un-archived")
	}
	// A PATCH without "archived" leaves it as it is.
	tg.rawJSON(http.MethodPatch, "/api/v1/repos/"+org+"/"+repo, map[string]string{"description": "frozen"}, nil)
	r, err = tg.c.GetRepo(ctx(t), org, repo)
	mustNoErr(t, err)
	if !r.Archived {
		t.Fatal("a PATCH without archived un-archived the repository")
	}

	// Label writes go through in an archived repository...
	sc := forge.RepoScope(org, repo)
	created, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "after", Color: "#123"})
	mustNoErr(t, err)
	_, err = tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Description: ptr("edited")})
	mustNoErr(t, err)
	got, err := tg.c.AddIssueLabels(ctx(t), org, repo, n, []int64{created.ID})
	mustNoErr(t, err)
	wantLabels(t, "labels added in an archived repository", got, "after", "before")
	mustNoErr(t, tg.c.DeleteLabel(ctx(t), sc, created.ID))

	// ...opening an issue does not.
	_, err = tg.c.CreateIssue(ctx(t), org, repo, forge.CreateIssueOption{Title: "t"})
	var fe *forge.Error
	archived := archivedMessage(tg, org, repo)
	if !asError(err, &fe) || fe.StatusCode != http.StatusLocked || !strings.HasSuffix(fe.Message, archived) {
		t.Fatalf("create issue in an archived repository: %v", err)
	}

	r, err = tg.c.ArchiveRepo(ctx(t), org, repo, false)
	mustNoErr(t, err)
	if r.Archived {
		t.Fatal("unarchive answered archived")
	}
	tg.issue(org, repo, "opened after unarchiving")
}

// ---- issues ----

func contractIssueCreate(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	a := tg.label(org, repo, "a", false)
	other := tg.repo(org)
	foreign := tg.label(org, other, "foreign", false)
	is, err := tg.c.CreateIssue(ctx(t), org, repo, forge.CreateIssueOption{Title: "first", Labels: []int64{a.ID, 99999999, foreign.ID}})
	mustNoErr(t, err)
	if is.Number != 1 || is.State != "open" || is.IsPull() {
		t.Fatalf("created issue: %+v", is)
	}
	wantLabels(t, "created with a, an unknown id and another repository's label", is.Labels, "a")
	if is.Labels[0].ID != a.ID || is.Labels[0].Color != "00aabb" {
		t.Fatalf("issue label: %+v", is.Labels[0])
	}

	status, body := tg.raw(http.MethodPost, "/api/v1/repos/"+org+"/"+repo+"/issues", map[string]any{"title": "by name", "labels": []string{"a"}})
	// The JSON decoder's wording differs between releases ("cannot unmarshal
	// string" in 1.26, "cannot unmarshal number \"" in 1.24 and 1.25).
	if status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "cannot unmarshal") {
		t.Fatalf("labels by name on create: %d %s", status, body)
	}
	_, err = tg.c.CreateIssue(ctx(t), org, repo, forge.CreateIssueOption{})
	wantRejected(t, err, "[Title]: Required")
	_, err = tg.c.CreateIssue(ctx(t), org, uniqueName("missing"), forge.CreateIssueOption{Title: "t"})
	wantKind(t, err, forge.KindNotFound)
}

func contractIssueList(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.initRepo(org)
	a := tg.label(org, repo, "a", false)
	b := tg.label(org, repo, "b", false)
	i1 := tg.issue(org, repo, "one", a)
	i2 := tg.issue(org, repo, "two", a, b)
	closed, err := tg.c.CreateIssue(ctx(t), org, repo, forge.CreateIssueOption{Title: "three, closed", Labels: []int64{a.ID}, Closed: true})
	mustNoErr(t, err)
	i3 := closed.Number
	tg.issue(org, repo, "four, unlabelled")
	p5 := tg.pull(org, repo, "five, a pull request", a)

	got, err := tg.c.ListIssuesWithLabel(ctx(t), org, repo, "a")
	mustNoErr(t, err)
	want := fmt.Sprintf("%dp,%d,%d,%d", p5, i3, i2, i1)
	if numbers(got) != want {
		t.Fatalf("issues with a, state all: %s, want %s (newest first, the pull request included)", numbers(got), want)
	}
	if s := issueByNumber(t, got, i3).State; s != "closed" {
		t.Fatalf("closed issue state %q", s)
	}
	wantLabels(t, "issue two", issueByNumber(t, got, i2).Labels, "a", "b")
	if !issueByNumber(t, got, i2).HasLabel(b.ID) || issueByNumber(t, got, i1).HasLabel(b.ID) {
		t.Fatal("HasLabel disagrees with the labels listed")
	}

	// Without state the forge lists open ones; type=issues drops pull requests.
	var open, issuesOnly []forge.Issue
	tg.rawJSON(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/issues?labels=a", nil, &open)
	if numbers(open) != fmt.Sprintf("%dp,%d,%d", p5, i2, i1) {
		t.Fatalf("default state lists %s", numbers(open))
	}
	tg.rawJSON(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/issues?labels=a&state=all&type=issues", nil, &issuesOnly)
	if numbers(issuesOnly) != fmt.Sprintf("%d,%d,%d", i3, i2, i1) {
		t.Fatalf("type=issues lists %s", numbers(issuesOnly))
	}

	// Pages: X-Total-Count and Link.
	q := "/api/v1/repos/" + org + "/" + repo + "/issues?" + url.Values{"labels": {"a"}, "state": {"all"}, "limit": {"3"}}.Encode()
	h := tg.rawHeader(q + "&page=1")
	if h.Get("X-Total-Count") != "4" || !strings.Contains(h.Get("Link"), `rel="next"`) {
		t.Fatalf("page 1 headers: total %q link %q", h.Get("X-Total-Count"), h.Get("Link"))
	}
	var page2 []forge.Issue
	tg.rawJSON(http.MethodGet, q+"&page=2", nil, &page2)
	if numbers(page2) != fmt.Sprint(i1) {
		t.Fatalf("page 2 lists %s", numbers(page2))
	}

	_, err = tg.c.ListIssuesWithLabel(ctx(t), org, uniqueName("missing"), "a")
	wantKind(t, err, forge.KindNotFound)
}

func contractIssueLabelFilter(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	a := tg.label(org, repo, "a", false)
	dup1 := tg.label(org, repo, "dup", false)
	dup2 := tg.label(org, repo, "dup", false)
	orgLabel, err := tg.c.CreateLabel(ctx(t), forge.OrgScope(org), forge.CreateLabelOption{Name: "org-wide", Color: "#fff"})
	mustNoErr(t, err)
	i1 := tg.issue(org, repo, "a", a)
	i2 := tg.issue(org, repo, "dup once", dup1)
	i3 := tg.issue(org, repo, "dup twice", dup1, dup2)
	i4 := tg.issue(org, repo, "org label", *orgLabel)
	wantLabels(t, "issue with the org label", issueByNumber(t, list(t, tg, org, repo, "nothing-has-this"), i4).Labels, "org-wide")
	all := fmt.Sprintf("%d,%d,%d,%d", i4, i3, i2, i1)

	// The forge's filter, asked for directly.
	for _, tc := range []struct{ filter, want string }{
		{"nothing-has-this", all},              // unresolved: no filter at all
		{"org-wide", all},                      // org labels are not resolved
		{fmt.Sprint(a.ID), all},                // nor ids
		{"dup", fmt.Sprint(i3)},                // both "dup" labels ANDed
		{"a,nothing-has-this", fmt.Sprint(i1)}, // the unresolved name is discarded
		{"a,dup", ""},                          // resolved names ANDed
		{"A", all},                             // case matters (SQLite)
		{"", all},                              // no name: no filter
	} {
		var got []forge.Issue
		tg.rawJSON(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/issues?state=all&labels="+url.QueryEscape(tc.filter), nil, &got)
		if numbers(got) != tc.want {
			t.Errorf("labels=%s lists %q, want %q", tc.filter, numbers(got), tc.want)
		}
	}
	// Through the client: a name the forge cannot resolve, or two labels
	// of one name, must be caught by checking the label ids.
	if got := list(t, tg, org, repo, "dup"); numbers(got) != fmt.Sprint(i3) || !issueByNumber(t, got, i3).HasLabel(dup2.ID) {
		t.Fatalf("client, dup: %s", numbers(got))
	}
	if got := list(t, tg, org, repo, "org-wide"); numbers(got) != all || issueByNumber(t, got, i1).HasLabel(orgLabel.ID) {
		t.Fatalf("client, org-wide: %s", numbers(got))
	}
}

// A name with a comma cannot be a filter (the forge splits on commas):
// the client lists every issue and the caller finds the label by id.
func contractIssueCommaLabel(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	a := tg.label(org, repo, "a", false)
	comma := tg.label(org, repo, "a,b", false)
	i1 := tg.issue(org, repo, "comma", comma)
	i2 := tg.issue(org, repo, "a", a)
	got := list(t, tg, org, repo, "a,b")
	if numbers(got) != fmt.Sprintf("%d,%d", i2, i1) || !issueByNumber(t, got, i1).HasLabel(comma.ID) {
		t.Fatalf("issues for the label %q: %s", "a,b", numbers(got))
	}
	// Sent as a filter, the name would find only what carries "a".
	var raw []forge.Issue
	tg.rawJSON(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/issues?state=all&labels="+url.QueryEscape("a,b"), nil, &raw)
	if numbers(raw) != fmt.Sprint(i2) {
		t.Fatalf("labels=a,b as a raw filter lists %s", numbers(raw))
	}
}

func list(t *testing.T, tg *target, org, repo, label string) []forge.Issue {
	t.Helper()
	got, err := tg.c.ListIssuesWithLabel(ctx(t), org, repo, label)
	mustNoErr(t, err)
	return got
}

func contractIssueAddLabels(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.initRepo(org)
	a := tg.label(org, repo, "a", false)
	b := tg.label(org, repo, "b", false)
	c := tg.label(org, repo, "c", false)
	foreign := tg.label(org, tg.repo(org), "foreign", false)
	orgLabel, err := tg.c.CreateLabel(ctx(t), forge.OrgScope(org), forge.CreateLabelOption{Name: "org-wide", Color: "#fff"})
	mustNoErr(t, err)
	n := tg.issue(org, repo, "target", a)

	got, err := tg.c.AddIssueLabels(ctx(t), org, repo, n, []int64{a.ID, b.ID, 99999999, foreign.ID, orgLabel.ID})
	mustNoErr(t, err)
	wantLabels(t, "after adding a (present), b, an unknown id, a foreign label, an org label", got, "a", "b", "org-wide")
	got, err = tg.c.AddIssueLabels(ctx(t), org, repo, n, nil)
	mustNoErr(t, err)
	wantLabels(t, "after adding nothing", got, "a", "b", "org-wide")

	// Names work too (the repository's and its organization's), not mixed with ids.
	base := fmt.Sprintf("/api/v1/repos/%s/%s/issues/%d/labels", org, repo, n)
	var byName []forge.Label
	tg.rawJSON(http.MethodPost, base, map[string]any{"labels": []string{"c", "unknown"}}, &byName)
	wantLabels(t, "after adding c by name", byName, "a", "b", "c", "org-wide")
	if byName[2].ID != c.ID {
		t.Fatalf("c by name: %+v", byName[2])
	}
	status, body := tg.raw(http.MethodPost, base, map[string]any{"labels": []any{"a", b.ID}})
	if status != http.StatusBadRequest || !strings.Contains(string(body), "labels should be an array of strings or integers") {
		t.Fatalf("names and ids mixed: %d %s", status, body)
	}
	status, body = tg.raw(http.MethodPost, base, map[string]any{"labels": []any{true}})
	if status != http.StatusBadRequest || !strings.Contains(string(body), "a label must be an integer or a string") {
		t.Fatalf("a boolean label: %d %s", status, body)
	}

	// A pull request takes labels the same way.
	p := tg.pull(org, repo, "pull")
	got, err = tg.c.AddIssueLabels(ctx(t), org, repo, p, []int64{c.ID})
	mustNoErr(t, err)
	wantLabels(t, "pull request", got, "c")
	withC := list(t, tg, org, repo, "c")
	if numbers(withC) != fmt.Sprintf("%dp,%d", p, n) {
		t.Fatalf("issues with c: %s", numbers(withC))
	}

	_, err = tg.c.AddIssueLabels(ctx(t), org, repo, 999, []int64{a.ID})
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.AddIssueLabels(ctx(t), org, uniqueName("missing"), 1, []int64{a.ID})
	wantKind(t, err, forge.KindNotFound)
}

func contractIssueExclusive(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	bug := tg.label(org, repo, "kind/bug", true)
	feature := tg.label(org, repo, "kind/feature", true)
	open := tg.label(org, repo, "kind/open", false) // scoped name, not exclusive
	prio := tg.label(org, repo, "prio/high", true)
	n := tg.issue(org, repo, "scoped", feature, open, prio)
	wantLabels(t, "created", issueByNumber(t, list(t, tg, org, repo, "kind/feature"), n).Labels, "kind/feature", "kind/open", "prio/high")

	got, err := tg.c.AddIssueLabels(ctx(t), org, repo, n, []int64{bug.ID})
	mustNoErr(t, err)
	wantLabels(t, "after adding the exclusive kind/bug", got, "kind/bug", "kind/open", "prio/high")

	// Creation applies no such rule.
	both := tg.issue(org, repo, "both", bug, feature)
	wantLabels(t, "created with both kinds", issueByNumber(t, list(t, tg, org, repo, "kind/bug"), both).Labels, "kind/bug", "kind/feature")
}

func contractIssueLabelRenameDelete(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.initRepo(org)
	sc := forge.RepoScope(org, repo)
	old := tg.label(org, repo, "bug", false)
	keep := tg.label(org, repo, "keep", false)
	n := tg.issue(org, repo, "labelled", old, keep)
	p := tg.pull(org, repo, "pull", old)
	tg.issue(org, repo, "bystander")

	renamed, err := tg.c.EditLabel(ctx(t), sc, old.ID, forge.EditLabelOption{Name: ptr("kind/bug")})
	mustNoErr(t, err)
	if renamed.ID != old.ID || renamed.Name != "kind/bug" {
		t.Fatalf("renamed: %+v", renamed)
	}
	got := list(t, tg, org, repo, "kind/bug")
	if numbers(got) != fmt.Sprintf("%dp,%d", p, n) {
		t.Fatalf("issues with the renamed label: %s", numbers(got))
	}
	// Listed by name: "keep" sorts before "kind/bug" now.
	if l := issueByNumber(t, got, n).Labels; len(l) != 2 || l[1].ID != old.ID || l[1].Name != "kind/bug" {
		t.Fatalf("issue labels after rename: %+v", l)
	}
	// The old name resolves to nothing now: the filter is dropped.
	if all := list(t, tg, org, repo, "bug"); len(all) != 3 {
		t.Fatalf("labels=bug after the rename lists %s, want all three", numbers(all))
	}

	mustNoErr(t, tg.c.DeleteLabel(ctx(t), sc, old.ID))
	got = list(t, tg, org, repo, "keep")
	wantLabels(t, "after deleting the label", issueByNumber(t, got, n).Labels, "keep")
	all := list(t, tg, org, repo, "kind/bug")
	if pr := issueByNumber(t, all, p); len(pr.Labels) != 0 {
		t.Fatalf("pull request labels after deleting the label: %+v", pr.Labels)
	}
}

// memberTarget gives a target (client and token) of a signed-in user who is not a
// member of any organization: on a live server a new user made through the
// admin API, on the fake one configured at start.
func memberTarget(t *testing.T, tg *target) *target {
	t.Helper()
	if !tg.live {
		m := tg.sibling(t, fakeforge.WithUser("stranger", "stranger-token"))
		m.token = "stranger-token"
		m.c = m.client(forge.Config{Token: m.token})
		return m
	}
	name, password := tg.createUser("u")
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, tg.root+"/api/v1/users/"+name+"/tokens",
		strings.NewReader(`{"name":"contract","scopes":["read:organization","read:repository","read:issue"]}`))
	mustNoErr(t, err)
	req.SetBasicAuth(name, password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	mustNoErr(t, err)
	defer func() { _ = resp.Body.Close() }()
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&tok) != nil || tok.SHA1 == "" {
		t.Fatalf("token for %s: %d", name, resp.StatusCode)
	}
	m := &target{t: t, live: true, root: tg.root, token: tok.SHA1}
	m.c = m.client(forge.Config{Token: tok.SHA1})
	return m
}

// A private repository is counted in X-Total-Count and Link but cut from
// the page after paging: a stranger's page is short mid-list.
func contractOrgReposHidden(t *testing.T, tg *target) {
	org := tg.org()
	r1, r2, r3 := tg.repo(org), tg.repo(org), tg.repo(org)
	tg.rawJSON(http.MethodPatch, "/api/v1/repos/"+org+"/"+r2, map[string]bool{"private": true}, nil)
	m := memberTarget(t, tg)
	if !tg.live {
		// The stranger lives on a fresh fake: set the same scene there.
		if _, err := m.fake.CreateOrg(org); err != nil {
			t.Fatal(err)
		}
		for _, r := range []string{r1, r2, r3} {
			mustNoErr(t, m.fake.CreateRepo(org, r))
		}
		admin := &target{t: t, root: m.root, token: fakeforge.DefaultToken}
		admin.rawJSON(http.MethodPatch, "/api/v1/repos/"+org+"/"+r2, map[string]bool{"private": true}, nil)
	}
	var page1 []forge.Repository
	m.rawJSON(http.MethodGet, "/api/v1/orgs/"+org+"/repos?limit=2&page=1", nil, &page1)
	h := m.rawHeader("/api/v1/orgs/" + org + "/repos?limit=2&page=1")
	if len(page1) != 1 || page1[0].Name != r1 || h.Get("X-Total-Count") != "3" || !strings.Contains(h.Get("Link"), `rel="next"`) {
		t.Fatalf("stranger's page 1 of 2: %d repositories, total %q, link %q", len(page1), h.Get("X-Total-Count"), h.Get("Link"))
	}
	repos, err := m.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	if len(repos) != 2 || repos[0].Name != r1 || repos[1].Name != r3 {
		t.Fatalf("stranger lists %+v, want %s and %s", repos, r1, r3)
	}
}

// contractIssueGetLabels: GET /repos/{o}/{r}/issues/{index}/labels lists
// the labels an issue carries, sorted by name, as a plain array.
func contractIssueGetLabels(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	b, a := tg.label(org, repo, "b", false), tg.label(org, repo, "a", false)
	tg.label(org, repo, "unused", false)
	is, err := tg.c.CreateIssue(ctx(t), org, repo, forge.CreateIssueOption{Title: "t", Labels: []int64{b.ID, a.ID}})
	mustNoErr(t, err)
	bare, err := tg.c.CreateIssue(ctx(t), org, repo, forge.CreateIssueOption{Title: "bare"})
	mustNoErr(t, err)
	var got []forge.Label
	tg.rawJSON(http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/%s/issues/%d/labels", org, repo, is.Number), nil, &got)
	wantLabels(t, "an issue's labels", got, "a", "b")
	got = nil
	tg.rawJSON(http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/%s/issues/%d/labels", org, repo, bare.Number), nil, &got)
	if got == nil || len(got) != 0 {
		t.Fatalf("an issue without labels: %v, want []", got)
	}
	status, body := tg.raw(http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/%s/issues/999/labels", org, repo), nil)
	if status != http.StatusNotFound {
		t.Fatalf("unknown issue: %d %s", status, body)
	}
}
