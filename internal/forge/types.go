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
	"fmt"
	"strings"
	"time"
)

// User is the forge's view of an account (GET /user, repository owners,
// the admin listing). IsAdmin, Active, ProhibitLogin, LoginName and
// SourceID read false, zero or "" unless the caller is the site admin or
// the user; Email is "" to an anonymous caller. The forge does not report
// must_change_password.
type User struct {
	ID            int64  `json:"id"`
	Login         string `json:"login"`
	FullName      string `json:"full_name,omitempty"`
	Email         string `json:"email,omitempty"`
	IsAdmin       bool   `json:"is_admin"`
	Restricted    bool   `json:"restricted,omitempty"`
	Active        bool   `json:"active,omitempty"`
	ProhibitLogin bool   `json:"prohibit_login,omitempty"`
	Visibility    string `json:"visibility,omitempty"`
	LoginName     string `json:"login_name,omitempty"`
	SourceID      int64  `json:"source_id,omitempty"`
}

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

// Scope names where labels and runners live: a repository (Owner and Repo)
// or an organization (Repo empty).
type Scope struct {
	Owner, Repo string
}

// RepoScope is the scope of repository owner/repo.
func RepoScope(owner, repo string) Scope { return Scope{Owner: owner, Repo: repo} }

// OrgScope is the scope of organization org.
func OrgScope(org string) Scope { return Scope{Owner: org} }

// InstanceScope is the whole forge (the site admin's /admin routes): only
// runner registration tokens are asked for in it.
var InstanceScope = Scope{}

// IsOrg reports whether the scope is an organization.
func (s Scope) IsOrg() bool { return s.Repo == "" }

// IsInstance reports whether the scope is the whole forge.
func (s Scope) IsInstance() bool { return s == InstanceScope }

// String gives "acme" for an organization and "acme/web" for a repository.
func (s Scope) String() string {
	if s.IsInstance() {
		return "the instance"
	}
	if s.IsOrg() {
		return s.Owner
	}
	return s.Owner + "/" + s.Repo
}

// describe names the scope for messages: "organization acme", "repository acme/web".
func (s Scope) describe() string {
	if s.IsOrg() {
		return "organization " + s.Owner
	}
	return "repository " + s.String()
}

// ParseScope reads "acme" (organization) or "acme/web" (repository).
func ParseScope(s string) (Scope, error) {
	owner, repo, found := strings.Cut(s, "/")
	if owner == "" || (found && (repo == "" || strings.Contains(repo, "/"))) {
		return Scope{}, fmt.Errorf("invalid scope %q: want \"org\" or \"owner/repo\"", s)
	}
	return Scope{Owner: owner, Repo: repo}, nil
}

// The route templates of the two scopes, under /api/v1.
const (
	OrgRoute  = "/orgs/{org}"
	RepoRoute = "/repos/{owner}/{repo}"
)

// routePrefix gives the route template and the concrete path prefix of the
// scope, e.g. "/repos/{owner}/{repo}" and "/repos/acme/web".
func (s Scope) routePrefix() (string, []any) {
	if s.IsOrg() {
		return OrgRoute, []any{s.Owner}
	}
	return RepoRoute, []any{s.Owner, s.Repo}
}

// forgeID gives the id of an object the forge answered with; doJSON
// refuses ids <= 0.
func (o *User) forgeID() int64       { return o.ID }
func (o *Repository) forgeID() int64 { return o.ID }

// BranchProtection is a branch protection rule of a repository as the forge
// keeps it (GET /repos/{o}/{r}/branch_protections). Gitea's API gives rules
// no id: the rule name is the key. branchprotections.go records how the
// forge stores and answers each field.
type BranchProtection struct {
	RuleName                     string   `json:"rule_name"`
	Priority                     int64    `json:"priority"`
	EnablePush                   bool     `json:"enable_push"`
	EnablePushWhitelist          bool     `json:"enable_push_whitelist"`
	PushWhitelistUsernames       []string `json:"push_whitelist_usernames"`
	PushWhitelistTeams           []string `json:"push_whitelist_teams"`
	PushWhitelistDeployKeys      bool     `json:"push_whitelist_deploy_keys"`
	EnableForcePush              bool     `json:"enable_force_push"`
	EnableForcePushAllowlist     bool     `json:"enable_force_push_allowlist"`
	ForcePushAllowlistUsernames  []string `json:"force_push_allowlist_usernames"`
	ForcePushAllowlistTeams      []string `json:"force_push_allowlist_teams"`
	ForcePushAllowlistDeployKeys bool     `json:"force_push_allowlist_deploy_keys"`
	EnableMergeWhitelist         bool     `json:"enable_merge_whitelist"`
	MergeWhitelistUsernames      []string `json:"merge_whitelist_usernames"`
	MergeWhitelistTeams          []string `json:"merge_whitelist_teams"`
	// The bypass allow-list came with Gitea 1.27 (who may push past the
	// rule's checks); older releases neither answer nor read it. The forge
	// reads its lists only while enable_bypass_allowlist is (or is sent)
	// true, and an edit that leaves it false clears them.
	EnableBypassAllowlist         bool     `json:"enable_bypass_allowlist"`
	BypassAllowlistUsernames      []string `json:"bypass_allowlist_usernames"`
	BypassAllowlistTeams          []string `json:"bypass_allowlist_teams"`
	EnableStatusCheck             bool     `json:"enable_status_check"`
	StatusCheckContexts           []string `json:"status_check_contexts"`
	RequiredApprovals             int64    `json:"required_approvals"`
	EnableApprovalsWhitelist      bool     `json:"enable_approvals_whitelist"`
	ApprovalsWhitelistUsernames   []string `json:"approvals_whitelist_username"`
	ApprovalsWhitelistTeams       []string `json:"approvals_whitelist_teams"`
	BlockOnRejectedReviews        bool     `json:"block_on_rejected_reviews"`
	BlockOnOfficialReviewRequests bool     `json:"block_on_official_review_requests"`
	BlockOnOutdatedBranch         bool     `json:"block_on_outdated_branch"`
	DismissStaleApprovals         bool     `json:"dismiss_stale_approvals"`
	IgnoreStaleApprovals          bool     `json:"ignore_stale_approvals"`
	RequireSignedCommits          bool     `json:"require_signed_commits"`
	ProtectedFilePatterns         string   `json:"protected_file_patterns"`
	UnprotectedFilePatterns       string   `json:"unprotected_file_patterns"`
	BlockAdminMergeOverride       bool     `json:"block_admin_merge_override"`
	// ApplyToAdmins is Forgejo's alone (its modules/structs/repo_branch.go):
	// Gitea neither sends nor reads it, and reads back false.
	ApplyToAdmins bool `json:"apply_to_admins"`
}

// EditBranchProtectionOption is the body of PATCH
// /repos/{o}/{r}/branch_protections/{name}: nil fields are not sent; a
// non-nil list pointer to an empty list is sent as [] (clears it). The
// forge applies enable_push_whitelist (and push_whitelist_deploy_keys)
// only when the same PATCH sends enable_push: true, and
// enable_force_push_allowlist (and force_push_allowlist_deploy_keys) only
// with enable_force_push: true. Gitea 1.24 reads
// force_push_allowlist_usernames only when force_push_allowlist_deploy_keys
// is sent too (and clears the list when only the latter is): send both.
type EditBranchProtectionOption struct {
	Priority                      *int64    `json:"priority,omitempty"`
	EnablePush                    *bool     `json:"enable_push,omitempty"`
	EnablePushWhitelist           *bool     `json:"enable_push_whitelist,omitempty"`
	PushWhitelistUsernames        *[]string `json:"push_whitelist_usernames,omitempty"`
	PushWhitelistTeams            *[]string `json:"push_whitelist_teams,omitempty"`
	PushWhitelistDeployKeys       *bool     `json:"push_whitelist_deploy_keys,omitempty"`
	EnableForcePush               *bool     `json:"enable_force_push,omitempty"`
	EnableForcePushAllowlist      *bool     `json:"enable_force_push_allowlist,omitempty"`
	ForcePushAllowlistUsernames   *[]string `json:"force_push_allowlist_usernames,omitempty"`
	ForcePushAllowlistTeams       *[]string `json:"force_push_allowlist_teams,omitempty"`
	ForcePushAllowlistDeployKeys  *bool     `json:"force_push_allowlist_deploy_keys,omitempty"`
	EnableMergeWhitelist          *bool     `json:"enable_merge_whitelist,omitempty"`
	MergeWhitelistUsernames       *[]string `json:"merge_whitelist_usernames,omitempty"`
	MergeWhitelistTeams           *[]string `json:"merge_whitelist_teams,omitempty"`
	EnableBypassAllowlist         *bool     `json:"enable_bypass_allowlist,omitempty"`
	BypassAllowlistUsernames      *[]string `json:"bypass_allowlist_usernames,omitempty"`
	BypassAllowlistTeams          *[]string `json:"bypass_allowlist_teams,omitempty"`
	EnableStatusCheck             *bool     `json:"enable_status_check,omitempty"`
	StatusCheckContexts           *[]string `json:"status_check_contexts,omitempty"`
	RequiredApprovals             *int64    `json:"required_approvals,omitempty"`
	EnableApprovalsWhitelist      *bool     `json:"enable_approvals_whitelist,omitempty"`
	ApprovalsWhitelistUsernames   *[]string `json:"approvals_whitelist_username,omitempty"`
	ApprovalsWhitelistTeams       *[]string `json:"approvals_whitelist_teams,omitempty"`
	BlockOnRejectedReviews        *bool     `json:"block_on_rejected_reviews,omitempty"`
	BlockOnOfficialReviewRequests *bool     `json:"block_on_official_review_requests,omitempty"`
	BlockOnOutdatedBranch         *bool     `json:"block_on_outdated_branch,omitempty"`
	DismissStaleApprovals         *bool     `json:"dismiss_stale_approvals,omitempty"`
	IgnoreStaleApprovals          *bool     `json:"ignore_stale_approvals,omitempty"`
	RequireSignedCommits          *bool     `json:"require_signed_commits,omitempty"`
	ProtectedFilePatterns         *string   `json:"protected_file_patterns,omitempty"`
	UnprotectedFilePatterns       *string   `json:"unprotected_file_patterns,omitempty"`
	BlockAdminMergeOverride       *bool     `json:"block_admin_merge_override,omitempty"`
	ApplyToAdmins                 *bool     `json:"apply_to_admins,omitempty"`
}
