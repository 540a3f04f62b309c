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
	"strings"
	"time"
)

// Repositories, GET|PATCH|DELETE /repos/{o}/{r}, POST /orgs/{org}/repos,
// /user/repos and /repos/{template}/generate, a user's, GET
// /users/{u}/repos, by id, GET /repositories/{id}, their topics and their
// direct collaborators; an organization's are listed in orgrepos.go. The
// contract suite (contract_repos_test.go) holds their behaviour on the
// fake and the live releases.

// Repository holds the repository fields the operator needs: the
// settings the Repository kind manages, each as GET /repos/{o}/{r} and the
// organization's listing report it (verified on Gitea 1.24.6 to 1.27.3
// by the contract suite: the listing carries every setting and the
// topics, so at rest no repository is read on its own).
type Repository struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	FullName    string `json:"full_name"`
	Owner       *User  `json:"owner"`
	Private     bool   `json:"private"`
	HTMLURL     string `json:"html_url"`
	CloneURL    string `json:"clone_url"`
	SSHURL      string `json:"ssh_url"`
	HasProjects bool   `json:"has_projects"`
	// Archived repositories are listed too; the forge still accepts label,
	// hook, topic, collaborator and settings writes there.
	Archived bool `json:"archived"`
	Empty    bool `json:"empty"`
	// ObjectFormat is sha1 or sha256 (the hash naming the repository's git
	// objects, so its blob ids: BlobID), in the listing too.
	ObjectFormat string `json:"object_format_name"`

	Description     string `json:"description"`
	Website         string `json:"website"`
	Template        bool   `json:"template"`
	DefaultBranch   string `json:"default_branch"`
	HasIssues       bool   `json:"has_issues"`
	HasWiki         bool   `json:"has_wiki"`
	HasPullRequests bool   `json:"has_pull_requests"`
	HasReleases     bool   `json:"has_releases"`
	HasPackages     bool   `json:"has_packages"`
	HasActions      bool   `json:"has_actions"`
	// HasCode came with Gitea 1.25 (the code unit on or off); older
	// releases answer none, read as false.
	HasCode                   bool `json:"has_code"`
	AllowMergeCommits         bool `json:"allow_merge_commits"`
	AllowRebase               bool `json:"allow_rebase"`
	AllowRebaseExplicit       bool `json:"allow_rebase_explicit"`
	AllowSquashMerge          bool `json:"allow_squash_merge"`
	AllowFastForwardOnlyMerge bool `json:"allow_fast_forward_only_merge"`
	AllowManualMerge          bool `json:"allow_manual_merge"`
	AutodetectManualMerge     bool `json:"autodetect_manual_merge"`
	AllowRebaseUpdate         bool `json:"allow_rebase_update"`
	// AllowMergeUpdate and DefaultUpdateStyle (merge or rebase) came with
	// Gitea 1.27: how a pull request's branch is brought up to date.
	AllowMergeUpdate              bool   `json:"allow_merge_update"`
	DefaultUpdateStyle            string `json:"default_update_style"`
	DefaultMergeStyle             string `json:"default_merge_style"`
	DefaultDeleteBranchAfterMerge bool   `json:"default_delete_branch_after_merge"`
	DefaultAllowMaintainerEdit    bool   `json:"default_allow_maintainer_edit"`
	IgnoreWhitespaceConflicts     bool   `json:"ignore_whitespace_conflicts"`
	// Topics, lower case and sorted, also in the organization's listing
	// (Gitea 1.24.6 to 1.27.3): sets select by them with no read per
	// repository.
	Topics []string `json:"topics"`
	// UpdatedAt is when the repository last moved, also in the
	// organization's listing: Gitea moves it on every push and commit
	// (services/repository/push.go and the files service call
	// UpdateRepositoryUpdatedTime) and on a topics change, not on an edit
	// of the repository's settings nor on a transfer (probed on Gitea 1.24.6
	// and 1.27.3). Whole seconds. The file kinds list a branch's tree only
	// for a repository whose UpdatedAt moved since their last check.
	UpdatedAt time.Time `json:"updated_at"`
	// Permissions are the caller's own access to the repository: the forge
	// answers each caller its own (convert.ToRepo with the doer's access
	// mode) on GET /repos/{o}/{r}, GET /repositories/{id} and the
	// listings, and the creator's (all true) on a create. nil from a forge
	// that omits them.
	Permissions *RepoPermissions `json:"permissions,omitempty"`
}

// RepoPermissions is what the authenticated user may do in a repository:
// administer it (its settings, hooks and collaborators), push to its code,
// pull its code. A stranger to a public repository has pull only, a team
// member or collaborator with write push and pull, an organization owner,
// the owner of a user's repository and a site admin all three (probed on
// Gitea 1.27.3).
type RepoPermissions struct {
	Admin bool `json:"admin"`
	Push  bool `json:"push"`
	Pull  bool `json:"pull"`
}

// CreateRepoOption is the body of POST /orgs/{org}/repos and POST /user/repos.
// The forge ignores default_merge_style and the other settings here: they
// are set by an edit after the create.
type CreateRepoOption struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Private       bool   `json:"private,omitempty"`
	Template      bool   `json:"template,omitempty"`
	AutoInit      bool   `json:"auto_init,omitempty"`
	DefaultBranch string `json:"default_branch,omitempty"`
	Gitignores    string `json:"gitignores,omitempty"`
	License       string `json:"license,omitempty"`
	Readme        string `json:"readme,omitempty"`
	ObjectFormat  string `json:"object_format_name,omitempty"`
	TrustModel    string `json:"trust_model,omitempty"`
}

// GenerateRepoOption is the body of POST /repos/{template}/generate: a
// repository made from a template, copying the parts set true (at least
// one, or the forge answers 422 "must select at least one template item").
// Owner is an organization the token may create repositories in, or the
// token's own user. The object format and trust model are the
// template's; the forge takes no auto-init, gitignores, license or README
// here. protected_branch is singular in Gitea's API (1.24 to 1.26).
type GenerateRepoOption struct {
	Owner             string `json:"owner"`
	Name              string `json:"name"`
	Description       string `json:"description,omitempty"`
	DefaultBranch     string `json:"default_branch,omitempty"`
	Private           bool   `json:"private,omitempty"`
	GitContent        bool   `json:"git_content,omitempty"`
	Topics            bool   `json:"topics,omitempty"`
	GitHooks          bool   `json:"git_hooks,omitempty"`
	Webhooks          bool   `json:"webhooks,omitempty"`
	Avatar            bool   `json:"avatar,omitempty"`
	Labels            bool   `json:"labels,omitempty"`
	ProtectedBranches bool   `json:"protected_branch,omitempty"`
}

// EditRepoOption is the body of PATCH /repos/{o}/{r}: only the fields sent
// change. "name" renames in place (same id; the old path answers 301 to
// the new one). The forge takes any default_merge_style string, even one
// it does not know (verified on Gitea 1.26.4): admission checks it.
type EditRepoOption struct {
	Name                          *string `json:"name,omitempty"`
	Description                   *string `json:"description,omitempty"`
	Website                       *string `json:"website,omitempty"`
	Private                       *bool   `json:"private,omitempty"`
	Template                      *bool   `json:"template,omitempty"`
	Archived                      *bool   `json:"archived,omitempty"`
	DefaultBranch                 *string `json:"default_branch,omitempty"`
	HasIssues                     *bool   `json:"has_issues,omitempty"`
	HasWiki                       *bool   `json:"has_wiki,omitempty"`
	HasPullRequests               *bool   `json:"has_pull_requests,omitempty"`
	HasProjects                   *bool   `json:"has_projects,omitempty"`
	HasReleases                   *bool   `json:"has_releases,omitempty"`
	HasPackages                   *bool   `json:"has_packages,omitempty"`
	HasActions                    *bool   `json:"has_actions,omitempty"`
	HasCode                       *bool   `json:"has_code,omitempty"`
	AllowMergeCommits             *bool   `json:"allow_merge_commits,omitempty"`
	AllowRebase                   *bool   `json:"allow_rebase,omitempty"`
	AllowRebaseExplicit           *bool   `json:"allow_rebase_explicit,omitempty"`
	AllowSquashMerge              *bool   `json:"allow_squash_merge,omitempty"`
	AllowFastForwardOnlyMerge     *bool   `json:"allow_fast_forward_only_merge,omitempty"`
	AllowManualMerge              *bool   `json:"allow_manual_merge,omitempty"`
	AutodetectManualMerge         *bool   `json:"autodetect_manual_merge,omitempty"`
	AllowRebaseUpdate             *bool   `json:"allow_rebase_update,omitempty"`
	AllowMergeUpdate              *bool   `json:"allow_merge_update,omitempty"`
	DefaultUpdateStyle            *string `json:"default_update_style,omitempty"`
	DefaultMergeStyle             *string `json:"default_merge_style,omitempty"`
	DefaultDeleteBranchAfterMerge *bool   `json:"default_delete_branch_after_merge,omitempty"`
	DefaultAllowMaintainerEdit    *bool   `json:"default_allow_maintainer_edit,omitempty"`
	IgnoreWhitespaceConflicts     *bool   `json:"ignore_whitespace_conflicts,omitempty"`
}

// ReposClient manages repositories, their topics and direct collaborators.
type ReposClient interface {
	GetRepo(ctx context.Context, owner, repo string) (*Repository, error)
	// GetRepoByID reads a repository by id (GET /repositories/{id}),
	// wherever it lives now.
	GetRepoByID(ctx context.Context, id int64) (*Repository, error)
	// ListUserRepos lists the repositories user owns that the caller can
	// see (GET /users/{u}/repos), for an owner that is not an organization.
	ListUserRepos(ctx context.Context, user string) ([]Repository, error)
	// CreateOrgRepo answers a taken name (any case) with 409 (KindConflict).
	CreateOrgRepo(ctx context.Context, org string, opt CreateRepoOption) (*Repository, error)
	CreateUserRepo(ctx context.Context, opt CreateRepoOption) (*Repository, error)
	// GenerateRepo makes repository opt.Owner/opt.Name from the template
	// repository template ("owner/name"). The forge answers 404 for a
	// template it does not have (or the token cannot read) and for an
	// unknown opt.Owner, 422 for a repository not marked as a template and
	// for no part chosen, 409 for a taken name, 403 for an owner the token
	// may not create in. Its answer lists no topics, even copied ones:
	// read the repository again for them.
	GenerateRepo(ctx context.Context, template string, opt GenerateRepoOption) (*Repository, error)
	// EditRepo renames in place with opt.Name; a taken name is 422.
	EditRepo(ctx context.Context, owner, repo string, opt EditRepoOption) (*Repository, error)
	DeleteRepo(ctx context.Context, owner, repo string) error
	// SetRepoTopics replaces the topics (PUT .../topics); the forge lower-cases
	// them and refuses invalid ones or more than 25 with 422.
	SetRepoTopics(ctx context.Context, owner, repo string, topics []string) error
	// ListCollaborators lists the direct collaborators (users, without
	// their permission: the forge reports none in the list).
	ListCollaborators(ctx context.Context, owner, repo string) ([]User, error)
	// GetCollaboratorPermission is user's effective permission (none, read,
	// write, admin or owner): teams and organization ownership included,
	// so never a direct collaborator's drift; export writes it.
	GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error)
	// SetCollaborator adds user, or changes their permission in place
	// (PUT .../collaborators/{u}); an unknown user is 422.
	SetCollaborator(ctx context.Context, owner, repo, user, permission string) error
	RemoveCollaborator(ctx context.Context, owner, repo, user string) error
}

var _ ReposClient = (*Client)(nil)

// repositories are listed by calls of their own (ListOrgRepos,
// ListUserRepos); the declaration makes their store.
var repositories = &resource[Repository]{noun: "repository", plural: "repositories",
	key: func(r Repository) int64 { return r.ID }, clone: cloneRepo}

func cloneRepo(r Repository) Repository {
	r.Topics = slices.Clone(r.Topics)
	if r.Owner != nil {
		o := *r.Owner
		r.Owner = &o
	}
	return r
}

func (o *Repository) forgeID() int64 { return o.ID }

// GetRepo implements ReposClient.
func (c *Client) GetRepo(ctx context.Context, owner, repo string) (*Repository, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("get repository %s/%s", owner, repo), http.MethodGet, "")
	return fetch[Repository](ctx, c, cl)
}

// GetRepoByID implements ReposClient.
func (c *Client) GetRepoByID(ctx context.Context, id int64) (*Repository, error) {
	cl := call{op: fmt.Sprintf("get repository %d", id), method: http.MethodGet, route: "/repositories/{id}", args: []any{id}}
	return fetch[Repository](ctx, c, cl)
}

// ListUserRepos implements ReposClient.
func (c *Client) ListUserRepos(ctx context.Context, user string) ([]Repository, error) {
	cl := call{op: "list repositories of user " + user, method: http.MethodGet, route: "/users/{user}/repos", args: []any{user}}
	return listAll(ctx, c, cl, decodeArray[Repository], func(r Repository) int64 { return r.ID })
}

// CreateOrgRepo implements ReposClient.
func (c *Client) CreateOrgRepo(ctx context.Context, org string, opt CreateRepoOption) (*Repository, error) {
	cl := call{op: fmt.Sprintf("create repository %q in organization %s", opt.Name, org), method: http.MethodPost, route: "/orgs/{org}/repos", args: []any{org}, body: opt}
	return fetch[Repository](ctx, c, cl)
}

// CreateUserRepo implements ReposClient.
func (c *Client) CreateUserRepo(ctx context.Context, opt CreateRepoOption) (*Repository, error) {
	cl := call{op: fmt.Sprintf("create repository %q for the current user", opt.Name), method: http.MethodPost, route: "/user/repos", body: opt}
	return fetch[Repository](ctx, c, cl)
}

// GenerateRepo implements ReposClient.
func (c *Client) GenerateRepo(ctx context.Context, template string, opt GenerateRepoOption) (*Repository, error) {
	owner, name, _ := strings.Cut(template, "/")
	cl := scopedCall(RepoScope(owner, name), fmt.Sprintf("create repository %s/%s from template %s", opt.Owner, opt.Name, template), http.MethodPost, "/generate")
	cl.body = opt
	return fetch[Repository](ctx, c, cl)
}

// EditRepo implements ReposClient.
func (c *Client) EditRepo(ctx context.Context, owner, repo string, opt EditRepoOption) (*Repository, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("edit repository %s/%s", owner, repo), http.MethodPatch, "")
	cl.body = opt
	return fetch[Repository](ctx, c, cl)
}

// DeleteRepo implements ReposClient.
func (c *Client) DeleteRepo(ctx context.Context, owner, repo string) error {
	_, err := c.do(ctx, scopedCall(RepoScope(owner, repo), fmt.Sprintf("delete repository %s/%s", owner, repo), http.MethodDelete, ""))
	return err
}

// SetRepoTopics implements ReposClient.
func (c *Client) SetRepoTopics(ctx context.Context, owner, repo string, topics []string) error {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("set topics of %s/%s", owner, repo), http.MethodPut, "/topics")
	if topics == nil {
		topics = []string{}
	}
	cl.body = map[string][]string{"topics": topics}
	_, err := c.do(ctx, cl)
	return err
}

// ListCollaborators implements ReposClient.
func (c *Client) ListCollaborators(ctx context.Context, owner, repo string) ([]User, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("list collaborators of %s/%s", owner, repo), http.MethodGet, "/collaborators")
	return listAll(ctx, c, cl, decodeArray[User], func(u User) int64 { return u.ID })
}

// GetCollaboratorPermission implements ReposClient.
func (c *Client) GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error) {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("get the permission of %s in %s/%s", user, owner, repo), http.MethodGet, "/collaborators/{user}/permission", user)
	out, err := fetch[struct {
		Permission string `json:"permission"`
	}](ctx, c, cl)
	if err != nil {
		return "", err
	}
	return out.Permission, nil
}

// SetCollaborator implements ReposClient.
func (c *Client) SetCollaborator(ctx context.Context, owner, repo, user, permission string) error {
	cl := scopedCall(RepoScope(owner, repo), fmt.Sprintf("set collaborator %s of %s/%s to %s", user, owner, repo, permission), http.MethodPut, "/collaborators/{user}", user)
	cl.body = map[string]string{"permission": permission}
	_, err := c.do(ctx, cl)
	return err
}

// RemoveCollaborator implements ReposClient.
func (c *Client) RemoveCollaborator(ctx context.Context, owner, repo, user string) error {
	_, err := c.do(ctx, scopedCall(RepoScope(owner, repo), fmt.Sprintf("remove collaborator %s of %s/%s", user, owner, repo), http.MethodDelete, "/collaborators/{user}", user))
	return err
}

// ---- cached through Snapshots: one listing per owner (organization or
// user); the direct collaborators are read afresh (afresh.go) ----

func orgReposKey(org string) string { return "org:" + strings.ToLower(org) }

func userReposKey(user string) string { return "user:" + strings.ToLower(user) }

func (s *Snapshots) ListUserRepos(ctx context.Context, user string) ([]Repository, error) {
	return repositories.cache(s).list(ctx, s, userReposKey(user), func(ctx context.Context) ([]Repository, error) {
		return s.Interface.ListUserRepos(ctx, user)
	})
}

// wroteRepo records a repository's new state in its owner's listing.
func (s *Snapshots) wroteRepo(owner string, r *Repository, err error) {
	repositories.cache(s).wrote(orgReposKey(owner), r, 0, err)
	repositories.cache(s).wrote(userReposKey(owner), r, 0, err)
}

// dropRepos forgets owner's listings: a write whose answer is not the
// repository (topics, a delete by name).
func (s *Snapshots) dropRepos(owner string) {
	repositories.cache(s).drop(orgReposKey(owner))
	repositories.cache(s).drop(userReposKey(owner))
}

func (s *Snapshots) CreateOrgRepo(ctx context.Context, org string, opt CreateRepoOption) (*Repository, error) {
	r, err := s.Interface.CreateOrgRepo(ctx, org, opt)
	s.wroteRepo(org, r, err)
	return r, err
}

func (s *Snapshots) CreateUserRepo(ctx context.Context, opt CreateRepoOption) (*Repository, error) {
	r, err := s.Interface.CreateUserRepo(ctx, opt)
	if err == nil && r.Owner != nil {
		s.wroteRepo(r.Owner.Login, r, nil)
	}
	return r, err
}

// GenerateRepo forgets the owner's listings rather than recording the
// answer, which lists no topics even when the template's were copied.
func (s *Snapshots) GenerateRepo(ctx context.Context, template string, opt GenerateRepoOption) (*Repository, error) {
	r, err := s.Interface.GenerateRepo(ctx, template, opt)
	s.dropRepos(opt.Owner)
	return r, err
}

func (s *Snapshots) EditRepo(ctx context.Context, owner, repo string, opt EditRepoOption) (*Repository, error) {
	r, err := s.Interface.EditRepo(ctx, owner, repo, opt)
	s.wroteRepo(owner, r, err)
	return r, err
}

func (s *Snapshots) DeleteRepo(ctx context.Context, owner, repo string) error {
	err := s.Interface.DeleteRepo(ctx, owner, repo)
	s.dropRepos(owner)
	return err
}

// SetRepoTopics records the new topics (lower-cased, as the forge keeps
// them) in the repository's entry of its owner's listings; the answer
// carries no repository, and dropping the listing instead made every
// adopted repository cost its organization a listing again.
func (s *Snapshots) SetRepoTopics(ctx context.Context, owner, repo string, topics []string) error {
	err := s.Interface.SetRepoTopics(ctx, owner, repo, topics)
	if err != nil {
		s.dropRepos(owner)
		return err
	}
	lower := make([]string, len(topics))
	for i, t := range topics {
		lower[i] = strings.ToLower(t)
	}
	for _, key := range []string{orgReposKey(owner), userReposKey(owner)} {
		r, ok := repositories.cache(s).find(key, func(r Repository) bool { return strings.EqualFold(r.Name, repo) })
		if !ok {
			repositories.cache(s).drop(key)
			continue
		}
		r.Topics = lower
		repositories.cache(s).wrote(key, &r, 0, nil)
	}
	return nil
}

func (s *Snapshots) ListCollaborators(ctx context.Context, owner, repo string) ([]User, error) {
	return afresh(ctx, s, "collaborators", scopeKey(RepoScope(owner, repo)), func(ctx context.Context) ([]User, error) {
		return s.Interface.ListCollaborators(ctx, owner, repo)
	})
}
