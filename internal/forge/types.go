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
func (o *User) forgeID() int64 { return o.ID }
