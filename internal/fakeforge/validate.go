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
	"math/rand/v2"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The rules below follow Gitea's: the binding layer reports only the first
// failing rule as "[GoFieldName]: Rule".

var (
	validUsername   = regexp.MustCompile(`^[\da-zA-Z][-.\w]*$`)
	invalidUsername = regexp.MustCompile(`[-._]{2,}|[-._]$`)
	alphaDashDot    = regexp.MustCompile(`^[-.\w]+$`)
	colorPattern    = regexp.MustCompile(`^#([0-9a-f]{3}|[0-9a-f]{6})$`)
)

var reservedUsernames = map[string]bool{
	".": true, "..": true, ".well-known": true, "admin": true, "api": true, "assets": true,
	"attachments": true, "avatar": true, "avatars": true, "captcha": true, "commits": true,
	"debug": true, "error": true, "explore": true, "favicon.ico": true, "ghost": true,
	"issues": true, "login": true, "manifest.json": true, "metrics": true, "milestones": true,
	"new": true, "notifications": true, "org": true, "pulls": true, "raw": true, "repo": true,
	"repo-avatars": true, "robots.txt": true, "search": true, "serviceworker.js": true,
	"ssh_info": true, "swagger.v1.json": true, "user": true, "v2": true, "gitea-actions": true,
}

var reservedUserPatterns = []string{"*.keys", "*.gpg", "*.rss", "*.atom", "*.png"}

var reservedRepoNames = map[string]bool{".": true, "..": true, "-": true}

var reservedRepoPatterns = []string{"*.git", "*.wiki", "*.rss", "*.atom"}

func isValidUsername(name string) bool {
	return validUsername.MatchString(name) && !invalidUsername.MatchString(name)
}

// isValidURL is Gitea's validation.IsValidURL: an absolute http(s) URL.
func isValidURL(raw string) bool {
	u, err := url.ParseRequestURI(raw)
	if err != nil || u.Host == "" {
		return false
	}
	if p := u.Port(); p != "" {
		for _, c := range p {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return u.Scheme == "http" || u.Scheme == "https"
}

func maxSize(s string, n int) bool { return utf8.RuneCountInString(s) <= n }

// nameReserved reports Gitea's message for a reserved name or pattern, "" if usable.
func nameReserved(name string, names map[string]bool, patterns []string) string {
	lower := strings.ToLower(name)
	if names[lower] {
		return "name is reserved [name: " + name + "]"
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, lower); ok {
			return "name pattern is not allowed [pattern: " + p + "]"
		}
	}
	return ""
}

// normalizeColor trims, lower-cases, adds '#', checks #rgb/#rrggbb and
// expands to six digits; it returns the digits without '#'.
func normalizeColor(c string) (string, bool, string) {
	c = strings.ToLower(strings.TrimSpace(c))
	if !strings.HasPrefix(c, "#") {
		c = "#" + c
	}
	if !colorPattern.MatchString(c) {
		return "", false, "invalid color: " + c
	}
	d := c[1:]
	if len(d) == 3 {
		d = string([]byte{d[0], d[0], d[1], d[1], d[2], d[2]})
	}
	return d, true, ""
}

var hookTypes = map[string]bool{
	"gitea": true, "gogs": true, "slack": true, "discord": true, "dingtalk": true,
	"telegram": true, "msteams": true, "feishu": true, "wechatwork": true, "packagist": true,
	"matrix": true,
}

var simpleEvents = []string{
	"create", "push", "delete", "fork", "repository", "wiki", "release", "package", "status",
	"workflow_run", "workflow_job",
}

var issueEvents = []string{"issue_assign", "issue_label", "issue_milestone", "issue_comment"}

var pullEvents = []string{
	"pull_request_assign", "pull_request_label", "pull_request_milestone", "pull_request_comment",
	"pull_request_review", "pull_request_review_request", "pull_request_sync",
}

// expandEvents applies Gitea's rules: empty means push; names match
// case-insensitively; "issues" and "pull_request" stand for their groups,
// "issues_only"/"pull_request_only" for the single event; unknown names drop.
func expandEvents(in []string) []string {
	if len(in) == 0 {
		in = []string{"push"}
	}
	has := map[string]bool{}
	for _, e := range in {
		has[strings.ToLower(strings.TrimSpace(e))] = true
	}
	var out []string
	for _, e := range simpleEvents {
		if has[e] {
			out = append(out, e)
		}
	}
	if has["issues_only"] || has["issues"] {
		out = append(out, "issues")
	}
	for _, e := range issueEvents {
		if has[e] || has["issues"] {
			out = append(out, e)
		}
	}
	if has["pull_request_only"] || has["pull_request"] {
		out = append(out, "pull_request")
	}
	for _, e := range pullEvents {
		if has[e] || has["pull_request"] {
			out = append(out, e)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// expandEvents expands as the server's release does: Gitea before 1.25 has
// no workflow_run event and drops it like any unknown name.
func (c *rc) expandEvents(in []string) []string {
	out := expandEvents(in)
	if forge.NewServer(c.s.version).Lacks(forge.GateWorkflowRunEvent) {
		out = slices.DeleteFunc(out, func(e string) bool { return e == "workflow_run" })
	}
	return out
}

// shuffled returns the events in random order, as the forge lists them.
func shuffled(events []string) []string {
	out := append([]string{}, events...)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// isValidSlackChannel: non-empty after trimming, and not just "#".
func isValidSlackChannel(ch string) bool {
	ch = strings.TrimSpace(ch)
	switch len(ch) {
	case 0:
		return false
	case 1:
		return ch[0] != '#'
	}
	return true
}

// paging reads page (1-based, <=0 means 1) and limit (<=0 means 30, cut to 50).
func paging(q url.Values) (page, limit int) {
	page = atoiDefault(q.Get("page"))
	if strings.HasPrefix(q.Get("page"), "-") || page <= 0 {
		page = 1
	}
	limit = atoiDefault(q.Get("limit"))
	if strings.HasPrefix(q.Get("limit"), "-") || limit <= 0 {
		limit = 30
	}
	if limit > 50 {
		limit = 50
	}
	return page, limit
}

// pageOf cuts one page out of n items: the half-open range [from, to).
// servePage answers one page of items, the request's page and limit, each
// written by toJSON; an item toJSON answers nil for is counted in the
// headers but not shown (a repository the caller may not see, as Gitea
// cuts the page before it filters). link says whether Link goes with
// X-Total-Count.
func servePage[T any](c *rc, items []T, link bool, toJSON func(T) map[string]any) {
	page, limit := paging(c.r.URL.Query())
	from, to := pageOf(len(items), page, limit)
	out := []map[string]any{}
	for _, it := range items[from:to] {
		if j := toJSON(it); j != nil {
			out = append(out, j)
		}
	}
	c.setPaging(len(items), page, limit, link)
	c.json(http.StatusOK, out)
}

func pageOf(n, page, limit int) (from, to int) {
	from = (page - 1) * limit
	if from > n || from < 0 {
		return n, n
	}
	to = from + limit
	if to > n {
		to = n
	}
	return from, to
}
