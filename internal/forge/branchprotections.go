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

// Branch protection rules, GET|POST /repos/{o}/{r}/branch_protections and
// PATCH|DELETE .../branch_protections/{name}.
//
// What the forge does, verified live on Gitea 1.24.6, 1.25.5 and 1.26.4
// (the contract suite and a probe, SQLite) and read in their source; the
// fake (internal/fakeforge/handlers_branchprotections.go) answers the same,
// as each release when it reports one:
//
//   - Access: repository admins only, the listing included: no token is
//     401 "token is required", a non-admin 403 "user should be an owner or
//     a collaborator with admin write of a repository"; an unknown
//     repository 404 "not found", an unknown owner 404 "GetUserByName".
//   - Listing: one JSON array, never paged (page and limit are ignored, no
//     X-Total-Count), ordered by priority, then plain names before globs,
//     then creation time in seconds (rules made in one second: no fixed
//     order). Lists in answers are [] when empty, never null, except
//     status_check_contexts: null until sent.
//   - Names: rule_name is the key, compared exactly (SQLite: "main" and
//     "MAIN" are two rules, PATCH of "Main" is 404). A taken name on POST
//     is 403 "Branch protection already exist"; an empty one 400 "both
//     rule_name and branch_name are empty"; an unknown name on PATCH or
//     DELETE 404 "not found" (1.24: "The target couldn't be found.").
//     branch_name in answers is the rule name, "" for a glob (a name
//     holding one of *?\[]{}).
//   - The name in the path is one escaped segment (release%2F%2A): 1.26
//     routes the rest of the path and takes a raw slash too; 1.24 and 1.25
//     route one segment, so release/* unescaped finds no route (plain-text
//     404, KindRouteNotFound).
//   - Create keeps every field as sent (force_push_allowlist_*, priority,
//     block_admin_merge_override included: no field is ignored on any of
//     the three releases), except the switches' chain: enable_push_whitelist
//     and push_whitelist_deploy_keys need enable_push, enable_force_push
//     needs enable_push, its allow-list and deploy keys need it in turn.
//     Allow-list names are kept whatever the switches say.
//   - priority: as sent; 0 or not sent is MAX(priority)+1 among the
//     repository's rules (the first is 1). PATCH sets any value, 0
//     included. POST .../branch_protections/priority ({"ids": [...]})
//     renumbers rules 1..n in the order of their ids, which the API never
//     shows: the client has no call for it.
//   - required_approvals below 0: 0 on create, ignored on PATCH.
//   - status_check_contexts are kept as sent: order and repeats.
//     protected_file_patterns and unprotected_file_patterns are kept
//     verbatim ("*.md; docs/**", " a.txt ;b.txt "): the forge splits on
//     ";", trims and lower-cases only when it matches files.
//   - Allow-lists: users and teams resolve in any case. Users are checked
//     before teams, lists in the order push, force push, merge, approvals;
//     the first unknown is 422 "user does not exist [uid: 0, name: <as
//     sent>]" or "team does not exist [org_id <id>, team_id 0, name: <as
//     sent>]", and nothing is written. Dropped without a word: push, force
//     push and merge users without write access to the code (a read
//     collaborator, a stranger to a public repository, an organization's
//     name); approvals users without read access to pull requests through
//     collaboration, a team or ownership; teams not given the repository
//     or without read access to its code or pull requests.
//   - Read back, users come with the case they were created with, once
//     each, ordered by name in bytes (upper case first; 1.24: by account
//     id), and only while they have read access to pull requests: a user
//     whose collaboration ends leaves every list. Teams by name in bytes.
//   - A user's repository ignores the team lists, unknown names included,
//     and reads them back [].
//   - PATCH changes what is sent; a list sent replaces the list ([] clears
//     it, null is not sent). enable_push_whitelist is applied only with
//     enable_push: true in the same PATCH, push_whitelist_deploy_keys only
//     with both true; enable_push: false clears both. The same holds for
//     enable_force_push, enable_force_push_allowlist and
//     force_push_allowlist_deploy_keys; force push needs no push on PATCH.
//     1.24 reads force_push_allowlist_usernames only when
//     force_push_allowlist_deploy_keys is sent: the list alone is ignored,
//     the deploy-keys switch alone clears it (fixed in 1.25).
//   - An archived repository: POST and PATCH are 423 "<owner>/<repo> is
//     archived" (1.24: "<Repository <id>:<owner>/<repo>> is archived";
//     1.27: "repo is archived"),
//     PATCH before the name is looked up; label writes are accepted there,
//     these are not. DELETE is 423 on 1.26; 1.24 and 1.25 look the name
//     up (404) and then fail with 500 "<Repository <id>:<owner>/<repo>> is
//     archived" (the message only for site admins). 423 is KindUnknown:
//     read Error.StatusCode. The listing still answers.
//
// Forgejo (no live server here; read in its source, the mirror
// creator-signal/fork-forgejo-forgejo of codeberg.org/forgejo/forgejo,
// modules/structs/repo_branch.go and routers/api/v1/repo/branch.go, 11.x
// to 16.x) keeps the rule without priority, the force-push fields and
// block_admin_merge_override (none is in its BranchProtection, create or
// edit option), and has apply_to_admins, which Gitea lacks: kept as sent
// on create, changed by a PATCH that sends it. Both bind JSON with
// go-chi/binding, encoding/json without DisallowUnknownFields
// (gitea.com/go-chi/binding binding.go, Bind): a field the server lacks is
// dropped without a word (Gitea 1.26.4 modules/structs/repo_branch.go has
// no apply_to_admins either), so a write could not tell; the controllers
// decide from the server's flavor before writing (controllers
// ruleUnsupported). The fake serves each flavor so.

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

// BranchProtectionsClient manages the branch protection rules of a
// repository, keyed by rule name (a branch name or a glob such as
// release/*; compared exactly on SQLite, as verified). Repository admins
// only, listing included (403 otherwise); an unknown repository is 404.
// What the forge keeps of each field is in branchprotections.go.
type BranchProtectionsClient interface {
	// ListBranchProtections lists every rule at once (the forge does not
	// page this list).
	ListBranchProtections(ctx context.Context, owner, repo string) ([]BranchProtection, error)
	// CreateBranchProtection sends every field of bp (POST); an existing
	// rule name is refused with 403 "Branch protection already exist"
	// (KindForbidden, not a conflict), an empty one with 400; an unknown user
	// or team in an allow-list is 422. An archived repository is 423.
	CreateBranchProtection(ctx context.Context, owner, repo string, bp BranchProtection) (*BranchProtection, error)
	// EditBranchProtection changes what opt sends; an unknown rule name is
	// 404, an archived repository 423.
	EditBranchProtection(ctx context.Context, owner, repo, name string, opt EditBranchProtectionOption) (*BranchProtection, error)
	// DeleteBranchProtection: an unknown rule name is 404; an archived
	// repository is 423 from Gitea 1.26, 500 before.
	DeleteBranchProtection(ctx context.Context, owner, repo, name string) error
}

var _ BranchProtectionsClient = (*Client)(nil)

// The name is one escaped path segment (release%2F%2A): Gitea 1.24 and
// 1.25 route {name} as one segment and would not match a raw slash; 1.26
// takes both. The forge unescapes it.
var branchProtections = declare(&resource[BranchProtection]{noun: "branch protection", plural: "branch protections", path: "/branch_protections", item: "/{name}",
	key: nameID[BranchProtection](func(bp BranchProtection) string { return bp.RuleName }), clone: cloneRule})

func cloneRule(bp BranchProtection) BranchProtection {
	for _, l := range []*[]string{&bp.PushWhitelistUsernames, &bp.PushWhitelistTeams, &bp.ForcePushAllowlistUsernames,
		&bp.ForcePushAllowlistTeams, &bp.MergeWhitelistUsernames, &bp.MergeWhitelistTeams, &bp.StatusCheckContexts,
		&bp.ApprovalsWhitelistUsernames, &bp.ApprovalsWhitelistTeams, &bp.BypassAllowlistUsernames, &bp.BypassAllowlistTeams} {
		*l = slices.Clone(*l)
	}
	return bp
}

// ListBranchProtections implements BranchProtectionsClient. The forge
// answers every rule in one array, ignoring page and limit, so one request
// is made; it is held to the listing bounds all the same.
func (c *Client) ListBranchProtections(ctx context.Context, owner, repo string) ([]BranchProtection, error) {
	cl := branchProtections.call(RepoScope(owner, repo), http.MethodGet, "list", branchProtections.plural)
	all, err := listUnpaged[BranchProtection](ctx, c, cl)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(all))
	for _, bp := range all {
		// The name is the key: a rule without one, or one listed twice,
		// could not be told apart from another.
		if bp.RuleName == "" || seen[bp.RuleName] {
			return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the list holds a rule named %q twice or without a name", bp.RuleName)})
		}
		seen[bp.RuleName] = true
	}
	return all, nil
}

// CreateBranchProtection implements BranchProtectionsClient.
func (c *Client) CreateBranchProtection(ctx context.Context, owner, repo string, bp BranchProtection) (*BranchProtection, error) {
	cl := branchProtections.call(RepoScope(owner, repo), http.MethodPost, "create", branchProtections.one(bp.RuleName))
	cl.body = bp
	return c.fetchRule(ctx, cl)
}

// EditBranchProtection implements BranchProtectionsClient. A list pointer
// to a nil list is sent as [] (clears the list): the forge takes null as
// not sent.
func (c *Client) EditBranchProtection(ctx context.Context, owner, repo, name string, opt EditBranchProtectionOption) (*BranchProtection, error) {
	for _, l := range []**[]string{&opt.PushWhitelistUsernames, &opt.PushWhitelistTeams, &opt.ForcePushAllowlistUsernames,
		&opt.ForcePushAllowlistTeams, &opt.MergeWhitelistUsernames, &opt.MergeWhitelistTeams, &opt.StatusCheckContexts,
		&opt.ApprovalsWhitelistUsernames, &opt.ApprovalsWhitelistTeams, &opt.BypassAllowlistUsernames, &opt.BypassAllowlistTeams} {
		if *l != nil && **l == nil {
			*l = &[]string{}
		}
	}
	cl := branchProtections.call(RepoScope(owner, repo), http.MethodPatch, "edit", branchProtections.one(name), name)
	cl.body = opt
	return c.fetchRule(ctx, cl)
}

// DeleteBranchProtection implements BranchProtectionsClient.
func (c *Client) DeleteBranchProtection(ctx context.Context, owner, repo, name string) error {
	return branchProtections.delete(ctx, c, RepoScope(owner, repo), name)
}

// fetchRule makes a write that answers the rule; an answer without a rule
// name is refused, as the name is what the rule is kept by.
func (c *Client) fetchRule(ctx context.Context, cl call) (*BranchProtection, error) {
	bp, err := fetch[BranchProtection](ctx, c, cl)
	if err != nil {
		return nil, err
	}
	if bp.RuleName == "" {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the forge answered a rule without a name")})
	}
	return bp, nil
}

// ---- cached through Snapshots: one listing per repository, rules kept by
// name; creates and edits answer the rule, which replaces it ----

func (s *Snapshots) ListBranchProtections(ctx context.Context, owner, repo string) ([]BranchProtection, error) {
	return listIn(ctx, s, branchProtections, RepoScope(owner, repo), func(ctx context.Context, sc Scope) ([]BranchProtection, error) {
		return s.Interface.ListBranchProtections(ctx, sc.Owner, sc.Repo)
	})
}

func (s *Snapshots) CreateBranchProtection(ctx context.Context, owner, repo string, bp BranchProtection) (*BranchProtection, error) {
	return branchProtections.cache(s).answer(RepoScope(owner, repo))(s.Interface.CreateBranchProtection(ctx, owner, repo, bp))
}

func (s *Snapshots) EditBranchProtection(ctx context.Context, owner, repo, name string, opt EditBranchProtectionOption) (*BranchProtection, error) {
	return branchProtections.cache(s).answer(RepoScope(owner, repo))(s.Interface.EditBranchProtection(ctx, owner, repo, name, opt))
}

func (s *Snapshots) DeleteBranchProtection(ctx context.Context, owner, repo, name string) error {
	return branchProtections.cache(s).deleted(RepoScope(owner, repo), branchProtections.key(BranchProtection{RuleName: name}))(
		s.Interface.DeleteBranchProtection(ctx, owner, repo, name))
}
