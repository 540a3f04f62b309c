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
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Repositories as Gitea 1.24 to 1.26 serve them (probed on 1.26.4, see
// forge-behaviour.md and the contract suite): settings read back by GET and
// in the organization's listing, renames in place with a 301 from the old
// path, topics lower-cased and checked (and served with each repository in
// the organization's listing, "topics":[] for none, on 1.24.6 to 1.27.3 alike:
// sets select by topics from it), direct collaborators without their
// permission in the list. Writes to an archived repository are not refused
// on these routes.

// repoSettings are the settings PATCH /repos/{o}/{r} changes one by one.
type repoSettings struct {
	website, defaultBranch, defaultMergeStyle                                              string
	template                                                                               bool
	hasIssues, hasWiki, hasPullRequests, hasProjects, hasReleases, hasPackages, hasActions bool
	allowMergeCommits, allowRebase, allowRebaseExplicit, allowSquashMerge                  bool
	allowFastForwardOnlyMerge, allowManualMerge, autodetectManualMerge, allowRebaseUpdate  bool
	defaultDeleteBranchAfterMerge, defaultAllowMaintainerEdit, ignoreWhitespaceConflicts   bool
	// hasCode is answered from Gitea 1.25, allowMergeUpdate and
	// defaultUpdateStyle from 1.27 (repoFieldsJSON).
	hasCode, allowMergeUpdate bool
	defaultUpdateStyle        string
}

// defaultRepoSettings are a new repository's, as Gitea makes it.
func defaultRepoSettings() repoSettings {
	return repoSettings{
		defaultBranch: "main", defaultMergeStyle: "merge",
		hasIssues: true, hasWiki: true, hasPullRequests: true, hasProjects: true,
		hasReleases: true, hasPackages: true, hasActions: true,
		allowMergeCommits: true, allowRebase: true, allowRebaseExplicit: true, allowSquashMerge: true,
		allowFastForwardOnlyMerge: true, allowRebaseUpdate: true, defaultAllowMaintainerEdit: true,
		hasCode: true, allowMergeUpdate: true, defaultUpdateStyle: "merge",
	}
}

// repoJSON is r as Gitea answers it to the caller: with the caller's own
// access in "permissions" (convert.ToRepo with the doer's access mode, on
// GET /repos/{o}/{r}, GET /repositories/{id}, the listings and an edit).
func (c *rc) repoJSON(r *repo) map[string]any {
	out := c.s.repoFieldsJSON(r)
	out["permissions"] = c.repoPermissions(r)
	return out
}

// ownedRepoJSON is r as Gitea answers it with an owner's access (all three
// permissions): the answer to a create or a generate, and the repository
// of a webhook delivery.
func (s *Server) ownedRepoJSON(r *repo) map[string]any {
	out := s.repoFieldsJSON(r)
	out["permissions"] = map[string]any{"admin": true, "push": true, "pull": true}
	return out
}

// repoPermissions is the caller's own access to r as "permissions" says
// it (probed on Gitea 1.27.3): admin for whom the fake lets administer it
// (isRepoAdmin: a site admin, an owner of its organization, the owner of a
// user's repository), push also for a collaborator or a member of a team
// given the repository with write to its code, pull for whoever sees it
// (an anonymous caller too, on a public repository).
func (c *rc) repoPermissions(r *repo) map[string]any {
	admin := c.isRepoAdmin(r)
	push := admin || c.doer != nil && modeRank[c.s.userUnitMode(r, c.doer, "repo.code")] >= modeRank["write"]
	return map[string]any{"admin": admin, "push": push, "pull": push || c.canSeeRepo(r)}
}

// repoFieldsJSON is r as Gitea answers it, but for "permissions", which
// depend on the caller (repoJSON, ownedRepoJSON).
func (s *Server) repoFieldsJSON(r *repo) map[string]any {
	fr := s.repoToForge(r)
	out := map[string]any{
		"id": fr.ID, "name": fr.Name, "full_name": fr.FullName, "description": fr.Description,
		"owner":   map[string]any{"id": fr.Owner.ID, "login": fr.Owner.Login, "username": fr.Owner.Login},
		"private": fr.Private, "html_url": fr.HTMLURL, "clone_url": fr.CloneURL, "ssh_url": fr.SSHURL,
		"empty": fr.Empty, "archived": fr.Archived, "topics": fr.Topics, "object_format_name": "sha1",
		"website": fr.Website, "template": fr.Template, "default_branch": fr.DefaultBranch,
		"updated_at": fr.UpdatedAt.Format(time.RFC3339),
		"has_issues": fr.HasIssues, "has_wiki": fr.HasWiki, "has_pull_requests": fr.HasPullRequests,
		"has_projects": fr.HasProjects, "has_releases": fr.HasReleases, "has_packages": fr.HasPackages,
		"has_actions": fr.HasActions, "allow_merge_commits": fr.AllowMergeCommits, "allow_rebase": fr.AllowRebase,
		"allow_rebase_explicit": fr.AllowRebaseExplicit, "allow_squash_merge": fr.AllowSquashMerge,
		"allow_fast_forward_only_merge": fr.AllowFastForwardOnlyMerge, "allow_rebase_update": fr.AllowRebaseUpdate,
		"default_merge_style":               fr.DefaultMergeStyle,
		"default_delete_branch_after_merge": fr.DefaultDeleteBranchAfterMerge,
		"default_allow_maintainer_edit":     fr.DefaultAllowMaintainerEdit,
		"ignore_whitespace_conflicts":       fr.IgnoreWhitespaceConflicts,
	}
	if !s.versionBefore(1, 25) {
		// 1.24 writes the two manual-merge settings but answers neither
		// (its api.Repository lacks them).
		out["has_code"], out["allow_manual_merge"], out["autodetect_manual_merge"] = fr.HasCode, fr.AllowManualMerge, fr.AutodetectManualMerge
	}
	if !s.versionBefore(1, 27) {
		out["allow_merge_update"], out["default_update_style"] = fr.AllowMergeUpdate, fr.DefaultUpdateStyle
	}
	return out
}

// versionBefore tells whether the fake reports a Gitea release before
// major.minor; Forgejo counts as before every Gitea release that added
// something (it has none of the fields gated on this), an unstamped
// version as the default release.
func (s *Server) versionBefore(major, minor int) bool {
	flavor, semver, ok := forge.ParseVersion(s.version)
	if !ok {
		flavor, semver, _ = forge.ParseVersion(DefaultVersion)
	}
	if flavor == forge.FlavorForgejo {
		return true
	}
	var ma, mi int
	_, _ = fmt.Sscanf(semver, "%d.%d", &ma, &mi)
	return ma < major || (ma == major && mi < minor)
}

type createRepoReq struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	Private       bool   `json:"private"`
	Template      bool   `json:"template"`
	AutoInit      bool   `json:"auto_init"`
	DefaultBranch string `json:"default_branch"`
	Gitignores    string `json:"gitignores"`
	License       string `json:"license"`
	Readme        string `json:"readme"`
}

// knownLicenses are the license templates the fake has; Gitea has hundreds.
var knownLicenses = []string{"Apache-2.0", "MIT", "BSD-3-Clause", "GPL-3.0-only", "MPL-2.0"}

// createRepoFor is POST /orgs/{org}/repos and POST /user/repos: auto_init
// makes a first commit (not empty) on default_branch (default "main"); an
// unknown license with auto_init is a 500 from the template loader, and
// nothing is made. Settings beyond these are not taken on create.
func (s *Server) createRepoFor(c *rc, r *repo) {
	var req createRepoReq
	if !c.bind(&req) {
		return
	}
	r.name, r.description, r.private = req.Name, req.Description, req.Private
	if status, msg := s.checkNewRepo(r); status != 0 {
		c.error(status, msg)
		return
	}
	if req.AutoInit && req.License != "" && !slices.Contains(knownLicenses, req.License) {
		c.error(http.StatusInternalServerError, fmt.Sprintf("initRepository: prepareRepoCommit: getLicense[%s]: GetLicense[%s]: file does not exist", req.License, req.License))
		return
	}
	r.settings = defaultRepoSettings()
	r.settings.template = req.Template
	if req.DefaultBranch != "" {
		r.settings.defaultBranch = req.DefaultBranch
	}
	r.empty = !req.AutoInit
	s.addRepo(r)
	c.json(http.StatusCreated, s.ownedRepoJSON(r))
}

// repoByOldName finds the repository a renamed one's old path redirects to.
func (s *Server) repoByOldName(ownerName, name string) *repo {
	for _, r := range s.st.repos {
		if strings.EqualFold(s.ownerName(r), ownerName) && slices.Contains(r.oldNames, strings.ToLower(name)) ||
			slices.Contains(r.movedFrom, strings.ToLower(ownerName+"/"+name)) {
			return r
		}
	}
	return nil
}

// TransferRepo moves a repository to organization newOwner (tests only),
// as Gitea's POST /repos/{o}/{r}/transfer by a site admin does (probed on
// 1.27.3: 202 at once, the id and everything in the repository kept, the
// old path answering 301 to the new one, GET /repositories/{id} giving the
// new owner). The fake serves no transfer route.
func (s *Server) TransferRepo(ownerName, name, newOwner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, o := s.repoByName(ownerName, name), s.orgByName(newOwner)
	if r == nil || o == nil {
		return fmt.Errorf("transfer %s/%s to %s: no such repository or organization", ownerName, name, newOwner)
	}
	if s.repoByName(newOwner, name) != nil {
		return fmt.Errorf("transfer %s/%s to %s: the name is taken there", ownerName, name, newOwner)
	}
	r.movedFrom = append(r.movedFrom, strings.ToLower(s.ownerName(r)+"/"+r.name))
	r.orgID, r.userID = o.id, 0
	return nil
}

// redirectTo answers 301 to the same route of r's current path, as Gitea
// does for every method on a renamed repository's old path.
func (c *rc) redirectTo(r *repo) {
	old := "/api/v1/repos/" + c.r.PathValue("owner") + "/" + c.r.PathValue("repo")
	rest := strings.TrimPrefix(c.r.URL.Path, old)
	if len(rest) == len(c.r.URL.Path) {
		// The route matched case-insensitively; keep what follows the name.
		rest = c.r.URL.Path[len(old):]
	}
	loc := "/api/v1/repos/" + c.s.ownerName(r) + "/" + r.name + rest
	if c.r.URL.RawQuery != "" {
		loc += "?" + c.r.URL.RawQuery
	}
	c.w.Header().Set("Location", loc)
	c.w.WriteHeader(http.StatusMovedPermanently)
}

type editRepoReq struct {
	Name                          *string `json:"name"`
	Description                   *string `json:"description"`
	Website                       *string `json:"website"`
	Private                       *bool   `json:"private"`
	Template                      *bool   `json:"template"`
	Archived                      *bool   `json:"archived"`
	DefaultBranch                 *string `json:"default_branch"`
	HasIssues                     *bool   `json:"has_issues"`
	HasWiki                       *bool   `json:"has_wiki"`
	HasPullRequests               *bool   `json:"has_pull_requests"`
	HasProjects                   *bool   `json:"has_projects"`
	HasReleases                   *bool   `json:"has_releases"`
	HasPackages                   *bool   `json:"has_packages"`
	HasActions                    *bool   `json:"has_actions"`
	AllowMergeCommits             *bool   `json:"allow_merge_commits"`
	AllowRebase                   *bool   `json:"allow_rebase"`
	AllowRebaseExplicit           *bool   `json:"allow_rebase_explicit"`
	AllowSquashMerge              *bool   `json:"allow_squash_merge"`
	AllowFastForwardOnlyMerge     *bool   `json:"allow_fast_forward_only_merge"`
	AllowManualMerge              *bool   `json:"allow_manual_merge"`
	AutodetectManualMerge         *bool   `json:"autodetect_manual_merge"`
	AllowRebaseUpdate             *bool   `json:"allow_rebase_update"`
	DefaultMergeStyle             *string `json:"default_merge_style"`
	DefaultDeleteBranchAfterMerge *bool   `json:"default_delete_branch_after_merge"`
	DefaultAllowMaintainerEdit    *bool   `json:"default_allow_maintainer_edit"`
	IgnoreWhitespaceConflicts     *bool   `json:"ignore_whitespace_conflicts"`
	HasCode                       *bool   `json:"has_code"`
	AllowMergeUpdate              *bool   `json:"allow_merge_update"`
	DefaultUpdateStyle            *string `json:"default_update_style"`
}

// updateStyles applies what Gitea 1.27 checks of the pull request update
// settings (PullRequestsConfig.ValidateUpdateSettings), only when one of
// them is sent: the default merge or rebase, at least one style on, the
// default among those on. A refusal is a 422 after the name, description
// and the other basic properties were written (updateBasicProperties
// comes first), with no unit changed.
func (c *rc) updateStyles(st *repoSettings, req *editRepoReq) bool {
	if req.AllowMergeUpdate == nil && req.AllowRebaseUpdate == nil && req.DefaultUpdateStyle == nil {
		return true
	}
	if req.HasPullRequests != nil && !*req.HasPullRequests {
		return true
	}
	next := *st
	set(&next.allowMergeUpdate, req.AllowMergeUpdate)
	set(&next.allowRebaseUpdate, req.AllowRebaseUpdate)
	set(&next.defaultUpdateStyle, req.DefaultUpdateStyle)
	allowed := (next.defaultUpdateStyle == "merge" && next.allowMergeUpdate) || (next.defaultUpdateStyle == "rebase" && next.allowRebaseUpdate)
	switch {
	case next.defaultUpdateStyle != "merge" && next.defaultUpdateStyle != "rebase":
		c.validation("default update style must be merge or rebase")
	case !next.allowMergeUpdate && !next.allowRebaseUpdate:
		c.validation("at least one pull request branch update style must be enabled")
	case !allowed:
		c.validation("default update style must be enabled")
	default:
		return true
	}
	return false
}

func set[V any](dst *V, src *V) {
	if src != nil {
		*dst = *src
	}
}

// editRepo is PATCH /repos/{o}/{r}. Repository admins only. Only the fields
// sent change; "name" renames in place (a taken name, any case, is 422),
// and the old name then redirects. It is not behind the archive guard: an
// archived repository takes every change (Gitea 1.26.4), archiving twice
// is a no-op. default_merge_style takes any string, as Gitea's does.
func (s *Server) editRepo(c *rc) {
	r := c.repo()
	if r == nil || !c.requireRepoAdmin(r) {
		return
	}
	var req editRepoReq
	if !c.bind(&req) {
		return
	}
	if req.Name != nil && *req.Name != r.name {
		renamed := &repo{name: *req.Name, orgID: r.orgID, userID: r.userID}
		status, msg := s.checkNewRepo(renamed)
		if status == http.StatusConflict && strings.EqualFold(*req.Name, r.name) {
			status = 0 // a change of case only
		}
		if status == http.StatusConflict {
			status, msg = http.StatusUnprocessableEntity, fmt.Sprintf("repository already exists [uname: %s, name: %s]", strings.ToLower(s.ownerName(r)), strings.ToLower(*req.Name))
		}
		if status != 0 {
			c.error(status, msg)
			return
		}
		if !strings.EqualFold(*req.Name, r.name) {
			r.oldNames = append(r.oldNames, strings.ToLower(r.name))
		}
		r.name = *req.Name
	}
	st := &r.settings
	if s.pullSettingsNeedUnit() && (req.HasPullRequests == nil || !*req.HasPullRequests) {
		// Gitea 1.25 applies them only with has_pull_requests: true.
		req.AllowMergeCommits, req.AllowRebase, req.AllowRebaseExplicit, req.AllowSquashMerge = nil, nil, nil, nil
		req.AllowFastForwardOnlyMerge, req.AllowManualMerge, req.AutodetectManualMerge, req.AllowRebaseUpdate = nil, nil, nil, nil
		req.DefaultMergeStyle, req.DefaultDeleteBranchAfterMerge, req.DefaultAllowMaintainerEdit, req.IgnoreWhitespaceConflicts = nil, nil, nil, nil
	}
	if s.versionBefore(1, 25) {
		req.HasCode = nil // no code unit switch before Gitea 1.25: dropped unread
	}
	if s.versionBefore(1, 27) {
		req.AllowMergeUpdate, req.DefaultUpdateStyle = nil, nil // nor these before 1.27
	}
	set(&r.description, req.Description)
	set(&r.private, req.Private)
	set(&st.website, req.Website)
	set(&st.template, req.Template)
	set(&st.defaultBranch, req.DefaultBranch)
	if !s.versionBefore(1, 27) && !c.updateStyles(st, &req) {
		return
	}
	set(&r.archived, req.Archived)
	set(&st.hasCode, req.HasCode)
	set(&st.allowMergeUpdate, req.AllowMergeUpdate)
	set(&st.defaultUpdateStyle, req.DefaultUpdateStyle)
	set(&st.hasIssues, req.HasIssues)
	set(&st.hasWiki, req.HasWiki)
	set(&st.hasPullRequests, req.HasPullRequests)
	set(&st.hasProjects, req.HasProjects)
	set(&st.hasReleases, req.HasReleases)
	set(&st.hasPackages, req.HasPackages)
	set(&st.hasActions, req.HasActions)
	set(&st.allowMergeCommits, req.AllowMergeCommits)
	set(&st.allowRebase, req.AllowRebase)
	set(&st.allowRebaseExplicit, req.AllowRebaseExplicit)
	set(&st.allowSquashMerge, req.AllowSquashMerge)
	set(&st.allowFastForwardOnlyMerge, req.AllowFastForwardOnlyMerge)
	set(&st.allowManualMerge, req.AllowManualMerge)
	set(&st.autodetectManualMerge, req.AutodetectManualMerge)
	set(&st.allowRebaseUpdate, req.AllowRebaseUpdate)
	set(&st.defaultMergeStyle, req.DefaultMergeStyle)
	set(&st.defaultDeleteBranchAfterMerge, req.DefaultDeleteBranchAfterMerge)
	set(&st.defaultAllowMaintainerEdit, req.DefaultAllowMaintainerEdit)
	set(&st.ignoreWhitespaceConflicts, req.IgnoreWhitespaceConflicts)
	c.json(http.StatusOK, c.repoJSON(r))
}

// pullSettingsNeedUnit: Gitea 1.25 applies the pull request settings of a
// PATCH /repos/{o}/{r} only when the same PATCH sends has_pull_requests:
// true (1.24.6 and 1.26 apply them while the unit is on; probed on each).
func (s *Server) pullSettingsNeedUnit() bool { return s.versionIs("1.25.") }

// versionIs reports whether the fake reports a Gitea release starting with prefix.
func (s *Server) versionIs(prefix string) bool {
	flavor, semver, ok := forge.ParseVersion(s.version)
	return ok && flavor == forge.FlavorGitea && strings.HasPrefix(semver, prefix)
}

// getRepoByID is GET /repositories/{id}.
func (s *Server) getRepoByID(c *rc) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	r := s.st.repos[id]
	if err != nil || r == nil || !c.canSeeRepo(r) {
		c.notFound("")
		return
	}
	c.json(http.StatusOK, c.repoJSON(r))
}

// listUserRepos is GET /users/{user}/repos: the user's own repositories the
// caller can see, X-Total-Count and Link.
func (s *Server) listUserRepos(c *rc) {
	u := s.userByLogin(c.r.PathValue("user"))
	if u == nil {
		c.notFound("user redirect does not exist [name: " + strings.ToLower(c.r.PathValue("user")) + "]")
		return
	}
	all := sortedByID(s.st.repos, func(r *repo) bool { return r.userID == u.id && c.canSeeRepo(r) })
	servePage(c, all, true, c.repoJSON)
}

var topicPattern = regexp.MustCompile(`^[a-z0-9][-.a-z0-9]*$`)

// maxTopics is Gitea's limit of topics per repository.
const maxTopics = 25

// getTopics is GET /repos/{o}/{r}/topics.
func (s *Server) getTopics(c *rc) {
	if r := c.repo(); r != nil {
		c.w.Header().Set("X-Total-Count", strconv.Itoa(len(r.topics)))
		c.json(http.StatusOK, map[string]any{"topics": append([]string{}, r.topics...)})
	}
}

// putTopics is PUT /repos/{o}/{r}/topics: the set replaced, each topic
// trimmed and lower-cased, repeats and empties dropped; one invalid (not
// [a-z0-9][-.a-z0-9]*, or over 35 characters) or more than 25 is 422.
func (s *Server) putTopics(c *rc) {
	r := c.repo()
	if r == nil || !c.requireRepoAdmin(r) {
		return
	}
	var req struct {
		Topics []string `json:"topics"`
	}
	if !c.bind(&req) {
		return
	}
	valid, invalid := []string{}, []string{}
	for _, t := range req.Topics {
		t = strings.TrimSpace(strings.ToLower(t))
		switch {
		case t == "" || slices.Contains(valid, t):
		case len(t) <= 35 && topicPattern.MatchString(t):
			valid = append(valid, t)
		default:
			invalid = append(invalid, t)
		}
	}
	if len(invalid) > 0 {
		c.json(http.StatusUnprocessableEntity, map[string]any{"invalidTopics": invalid, "message": "Topic names are invalid"})
		return
	}
	if len(valid) > maxTopics {
		c.json(http.StatusUnprocessableEntity, map[string]any{"invalidTopics": nil, "message": "Exceeding maximum number of topics per repo"})
		return
	}
	slices.Sort(valid)
	if !slices.Equal(r.topics, valid) {
		r.touch() // Gitea's topics save updates the repository's updated_unix
	}
	r.topics = valid
	c.noContent()
}

func (s *Server) repoRoutes(h func(string, func(*rc))) {
	h("GET /api/v1/repos/{owner}/{repo}", s.getRepo)
	h("PATCH /api/v1/repos/{owner}/{repo}", s.editRepo)
	h("DELETE /api/v1/repos/{owner}/{repo}", s.deleteRepo)
	h("POST /api/v1/orgs/{org}/repos", s.createOrgRepo)
	h("POST /api/v1/user/repos", s.createUserRepo)
	h("POST /api/v1/repos/{owner}/{repo}/generate", s.generateRepo)
	h("GET /api/v1/repositories/{id}", s.getRepoByID)
	h("GET /api/v1/users/{user}/repos", s.listUserRepos)
	h("GET /api/v1/repos/{owner}/{repo}/topics", s.getTopics)
	h("PUT /api/v1/repos/{owner}/{repo}/topics", s.putTopics)
}

// AddUser adds an account (no token: it never signs in) for collaborator
// and member tests; like WithUser it outlives Reset. Adding one twice is a
// no-op; adding one deleted through the admin API brings it back.
func (s *Server) AddUser(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.userByLogin(login) != nil {
		return
	}
	for _, u := range s.accounts {
		if strings.EqualFold(u.login, login) {
			s.users = append(s.users, u)
			return
		}
	}
	s.addAccount(&user{login: login})
}

type generateRepoReq struct {
	Owner           string `json:"owner"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	DefaultBranch   string `json:"default_branch"`
	Private         bool   `json:"private"`
	GitContent      bool   `json:"git_content"`
	Topics          bool   `json:"topics"`
	GitHooks        bool   `json:"git_hooks"`
	Webhooks        bool   `json:"webhooks"`
	Avatar          bool   `json:"avatar"`
	Labels          bool   `json:"labels"`
	ProtectedBranch bool   `json:"protected_branch"`
}

// generateRepo is POST /repos/{o}/{r}/generate, as Gitea 1.24 to 1.26
// answer it (routers/api/v1/repo/repo.go Generate, services/repository
// template.go GenerateRepository; probed in the contract suite): the
// template not found (or not visible) is 404 before the token is asked
// for; a repository not marked as a template is 422 "this is not a
// template repo"; no part chosen is 422 "must select at least one
// template item"; an owner that is not the caller's own login (compared
// as sent, case and all) must exist (404 {"error": "request owner `x`
// does not exist"}), and the caller must be the site admin or, for an
// organization, allowed to create in it (403, probed with a user who may
// read the template but is no member); into the caller's own account it
// works; a taken name is 409.
//
// What it copies: topics, issue labels (name, colour, description,
// exclusive; not archived), webhooks (type, URL, content type, secret,
// events, branch filter, active, Slack settings; not the name nor the
// authorization header) and branch protection rules (whole). The fake has
// no git, no git hooks and no repository avatars: git content makes the
// repository non-empty on default_branch, or the template's default
// branch when none is sent (and leaves it empty from an empty template),
// git_hooks and avatar copy nothing. Without git content the repository
// is empty and its default branch is the one sent, "" when none is (a
// plain create would say "main"). The new repository is not a template,
// and its answer lists no topics even when they were copied (Gitea
// copies them after making the answer's object): a GET shows them. Gitea
// 1.24 answers no default branch either when none was sent (it sets the
// template's on a copy of the repository it read again).
func (s *Server) generateRepo(c *rc) {
	tmpl := c.repo()
	if tmpl == nil || !c.requireToken() {
		return
	}
	var req generateRepoReq
	if !c.bind(&req) {
		return
	}
	if !tmpl.settings.template {
		c.validation("this is not a template repo")
		return
	}
	if !(req.GitContent || req.Topics || req.GitHooks || req.Webhooks || req.Avatar || req.Labels || req.ProtectedBranch) {
		c.validation("must select at least one template item")
		return
	}
	r := &repo{userID: c.doer.id, name: req.Name, description: req.Description, private: req.Private}
	if req.Owner != c.doer.login {
		o := s.orgByName(req.Owner)
		u := s.userByLogin(req.Owner)
		switch {
		case o == nil && u == nil:
			c.json(http.StatusNotFound, map[string]any{"error": "request owner `" + req.Owner + "` does not exist"})
			return
		case o == nil && !c.doer.admin:
			c.error(http.StatusForbidden, "Only admin can generate repository for other user.")
			return
		case o == nil:
			r.userID = u.id
		case !c.isOrgOwner(o):
			c.error(http.StatusForbidden, "Given user is not allowed to create repository in organization.")
			return
		default:
			r.userID, r.orgID = 0, o.id
		}
	}
	if status, msg := s.checkNewRepo(r); status != 0 {
		c.error(status, msg)
		return
	}
	r.settings = defaultRepoSettings()
	r.settings.defaultBranch, r.empty = req.DefaultBranch, true
	if req.GitContent && !tmpl.empty {
		r.empty = false
		if r.settings.defaultBranch == "" {
			r.settings.defaultBranch = tmpl.settings.defaultBranch
		}
	}
	s.addRepo(r)
	answer := s.ownedRepoJSON(r)
	answer["topics"] = []string{}
	if req.DefaultBranch == "" && (s.versionIs("1.24.") || s.versionIs("1.25.")) {
		// They set the template's branch on a copy they read again.
		answer["default_branch"] = ""
	}
	s.copyTemplateParts(tmpl, r, req)
	c.json(http.StatusCreated, answer)
}

// copyTemplateParts copies into r what generateRepo copies of tmpl.
func (s *Server) copyTemplateParts(tmpl, r *repo, req generateRepoReq) {
	from, to := owner{repo: true, id: tmpl.id}, owner{repo: true, id: r.id}
	if req.Topics {
		r.topics = slices.Clone(tmpl.topics)
	}
	if req.Labels {
		for _, l := range s.st.labels.in(from) {
			s.st.labels.add(&label{row: row{owner: to}, name: l.name, color: l.color, description: l.description, exclusive: l.exclusive})
		}
	}
	if req.Webhooks {
		now := time.Now()
		for _, h := range s.st.hooks.in(from) {
			s.st.hooks.add(&hook{row: row{owner: to}, typ: h.typ, url: h.url, contentType: h.contentType, secret: h.secret,
				events: slices.Clone(h.events), active: h.active, branchFilter: h.branchFilter, slack: h.slack, created: now, updated: now})
		}
	}
	if req.GitContent && !tmpl.empty {
		// The template's default branch, as the new one's.
		if b := s.branches(tmpl)[tmpl.settings.defaultBranch]; b != nil {
			r.git = map[string]*gitBranch{}
			s.commitTo(r, r.settings.defaultBranch, "Initial commit", "", "", maps.Clone(b.files))
		}
	}
	if req.ProtectedBranch {
		now := time.Now()
		for _, b := range s.st.branchRules.in(from) {
			cp := *b
			cp.row = row{owner: to}
			cp.created, cp.updated = now, now
			s.st.branchRules.add(&cp)
		}
	}
}

var _ = registerRoutes((*Server).repoRoutes)
