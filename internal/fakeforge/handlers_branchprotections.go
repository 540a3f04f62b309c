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
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Branch protection rules as Gitea serves them (routers/api/v1/repo/
// branch.go, models/git/protected_branch.go, services/convert; probed on
// 1.24.6, 1.25.5 and 1.26.4; the full list is atop
// internal/forge/branchprotections.go). In short: repository admins only;
// rules keyed by their exact name (403 "Branch protection already exist",
// 400 for an empty one, 404 "not found" for an unknown one); every field
// kept on create, but for the enable_* chain; priority MAX+1 when 0;
// allow-lists resolved in any case (422 for the first unknown user, then
// team), users without write (approvals: without read to pull requests)
// and teams without the repository dropped silently, read back in stored
// case, once, by name in bytes (1.24: users by id); team lists ignored on
// a user's repository; PATCH changes what is sent, allow-list switches
// only under their enable_* sent true (1.24: force-push users only with
// force_push_allowlist_deploy_keys); archived: 423 on writes (1.24 and
// 1.25: DELETE a 500 after the look-up); the name one path segment on
// 1.24 and 1.25, the rest of the path on 1.26.
//
// Reporting a Forgejo version (WithVersion("15.0.3+gitea-1.22.0")), the
// fake serves the rule as Forgejo does (its modules/structs/repo_branch.go
// and routers/api/v1/repo/branch.go): no priority, force-push fields or
// block_admin_merge_override, which are ignored when sent and absent from
// answers; apply_to_admins kept on create and changed by a PATCH that
// sends it. Gitea ignores apply_to_admins and never answers it. Both drop
// unknown JSON fields without a word, as their binding does. There is no
// live Forgejo here: the contract suite holds the fake's Forgejo answers
// only to what that source says.
//
// Gitea 1.27 added the bypass allow-list (enable_bypass_allowlist,
// bypass_allowlist_usernames, bypass_allowlist_teams; its
// routers/api/v1/repo/branch.go): a create reads the lists only when
// enable_bypass_allowlist is true; a PATCH replaces a list sent and then
// empties both when the switch ends false; the lists keep writers and
// teams with access, as the other allow-lists do. Older releases and
// Forgejo neither answer the fields nor read them.

// branchRule is one rule as the forge stores it: allow-lists hold ids.
type branchRule struct {
	row      // a repository's; the id is the creation order, the listing's last tie-break
	name     string
	priority int64

	canPush, enableWhitelist, whitelistDeployKeys                        bool
	canForcePush, enableForcePushAllowlist, forcePushAllowlistDeployKeys bool
	enableMergeWhitelist, enableStatusCheck, enableApprovalsWhitelist    bool

	whitelistUsers, forcePushUsers, mergeUsers, approvalsUsers []int64
	whitelistTeams, forcePushTeams, mergeTeams, approvalsTeams []int64

	// statusCheckContexts are kept as sent: order, repeats, and nil (read
	// back as null) when never sent.
	statusCheckContexts []string
	requiredApprovals   int64

	blockOnRejectedReviews, blockOnOfficialReviewRequests, blockOnOutdatedBranch bool
	dismissStaleApprovals, ignoreStaleApprovals, requireSignedCommits            bool
	blockAdminMergeOverride                                                      bool
	applyToAdmins                                                                bool // Forgejo only

	// Gitea 1.27 and later.
	enableBypassAllowlist    bool
	bypassUsers, bypassTeams []int64

	protectedFilePatterns, unprotectedFilePatterns string
	created, updated                               time.Time
}

// isGlobRule: a rule name holding one of these is a glob (IsRuleNameSpecial).
func isGlobRule(name string) bool { return strings.ContainsAny(name, `*?\[]{}`) }

// bpRes serves the rules of a repository: its admins only (404 for the
// repository, then 401 without a token, then 403 for a non-admin); a rule
// found by its exact name (SQLite compares branch_name with case, MySQL
// would not); the listing every rule in one array, no paging and no
// X-Total-Count.
var bpRes = &resource[*branchRule]{
	route: forge.RouteOf("branch protections"), scopes: []string{forge.RepoRoute},
	table:   func(st *state) *table[*branchRule] { return st.branchRules },
	may:     (*rc).administers,
	missing: func(c *rc, _ owner, _ *branchRule) { c.ruleNotFound() },
	named:   func(b *branchRule, name string) bool { return b.name == name },
	rest:    true,
	routed:  (*rc).ruleRouted,
	order:   func(_ *rc, bs []*branchRule) ([]*branchRule, bool) { return sortedRules(bs), true },
	page: func(c *rc, bs []*branchRule) {
		out := []map[string]any{}
		for _, b := range bs {
			out = append(out, c.s.ruleJSON(b))
		}
		c.json(http.StatusOK, out)
	},
	json: func(c *rc, b *branchRule) map[string]any { return c.s.ruleJSON(b) },
}

// ruleRouted checks the {name...} of the route finds a route on this
// release. Gitea 1.24 and 1.25 route {name} as one segment: a raw slash in
// it (release/* unescaped) finds no route there; 1.26 routes the rest of
// the path (*) and takes both forms.
func (c *rc) ruleRouted() bool {
	if c.s.versionIs("1.24.") || c.s.versionIs("1.25.") {
		escaped := c.r.URL.EscapedPath()
		if i := strings.Index(escaped, "/branch_protections/"); i >= 0 && strings.Contains(escaped[i+len("/branch_protections/"):], "/") {
			c.routeNotFound()
			return false
		}
	}
	return true
}

// bpTarget resolves the repository of a rule's route and checks its name
// finds a route.
func (c *rc) bpTarget(verb string) (*repo, bool) {
	ow, ok := bpRes.scope(c, verb)
	if !ok || !c.ruleRouted() {
		return nil, false
	}
	return c.s.st.repos[ow.id], true
}

// notArchived is the forge's mustNotBeArchived middleware: 423 (1.24
// names the repository as its log string does; 1.27 names none: "repo is
// archived").
func (c *rc) notArchived(r *repo) bool {
	if r.archived {
		name := c.s.ownerName(r) + "/" + r.name
		switch {
		case c.fl == flavorGitea127:
			name = "repo" // 1.27.3 names no repository
		case c.s.versionIs("1.24."):
			name = fmt.Sprintf("<Repository %d:%s>", r.id, name)
		}
		c.error(http.StatusLocked, name+" is archived")
		return false
	}
	return true
}

// ruleNotFound answers an unknown rule name: "not found", or on 1.24 the
// locale's sentence.
func (c *rc) ruleNotFound() {
	msg := "not found"
	if c.s.versionIs("1.24.") {
		msg = "The target couldn't be found."
	}
	c.error(http.StatusNotFound, msg)
}

// ---- JSON ----

func (s *Server) ruleJSON(b *branchRule) map[string]any {
	r := s.st.repos[b.owner.id]
	readers, teams := s.prReaders(r), s.teamReaders(r)
	userNames := func(ids []int64) []string {
		out := []string{}
		for _, u := range readers {
			if slices.Contains(ids, u.id) {
				out = append(out, u.login)
			}
		}
		return out
	}
	teamNames := func(ids []int64) []string {
		out := []string{}
		for _, t := range teams {
			if slices.Contains(ids, t.id) {
				out = append(out, t.name)
			}
		}
		return out
	}
	branchName := b.name
	if isGlobRule(b.name) {
		branchName = ""
	}
	var contexts any
	if b.statusCheckContexts != nil {
		contexts = slices.Clone(b.statusCheckContexts)
	}
	out := map[string]any{
		"branch_name": branchName, "rule_name": b.name, "priority": b.priority,
		"enable_push": b.canPush, "enable_push_whitelist": b.enableWhitelist,
		"push_whitelist_usernames": userNames(b.whitelistUsers), "push_whitelist_teams": teamNames(b.whitelistTeams),
		"push_whitelist_deploy_keys": b.whitelistDeployKeys,
		"enable_force_push":          b.canForcePush, "enable_force_push_allowlist": b.enableForcePushAllowlist,
		"force_push_allowlist_usernames": userNames(b.forcePushUsers), "force_push_allowlist_teams": teamNames(b.forcePushTeams),
		"force_push_allowlist_deploy_keys": b.forcePushAllowlistDeployKeys,
		"enable_merge_whitelist":           b.enableMergeWhitelist,
		"merge_whitelist_usernames":        userNames(b.mergeUsers), "merge_whitelist_teams": teamNames(b.mergeTeams),
		"enable_status_check": b.enableStatusCheck, "status_check_contexts": contexts,
		"required_approvals": b.requiredApprovals, "enable_approvals_whitelist": b.enableApprovalsWhitelist,
		"approvals_whitelist_username": userNames(b.approvalsUsers), "approvals_whitelist_teams": teamNames(b.approvalsTeams),
		"block_on_rejected_reviews":         b.blockOnRejectedReviews,
		"block_on_official_review_requests": b.blockOnOfficialReviewRequests,
		"block_on_outdated_branch":          b.blockOnOutdatedBranch,
		"dismiss_stale_approvals":           b.dismissStaleApprovals, "ignore_stale_approvals": b.ignoreStaleApprovals,
		"require_signed_commits":  b.requireSignedCommits,
		"protected_file_patterns": b.protectedFilePatterns, "unprotected_file_patterns": b.unprotectedFilePatterns,
		"block_admin_merge_override": b.blockAdminMergeOverride,
		"created_at":                 b.created.Format(time.RFC3339), "updated_at": b.updated.Format(time.RFC3339),
	}
	if flavorOf(s.version) == flavorGitea127 {
		out["enable_bypass_allowlist"] = b.enableBypassAllowlist
		out["bypass_allowlist_usernames"], out["bypass_allowlist_teams"] = userNames(b.bypassUsers), teamNames(b.bypassTeams)
	}
	if flavorOf(s.version) == flavorForgejo {
		for _, k := range []string{"priority", "enable_force_push", "enable_force_push_allowlist", "force_push_allowlist_usernames",
			"force_push_allowlist_teams", "force_push_allowlist_deploy_keys", "block_admin_merge_override"} {
			delete(out, k)
		}
		out["apply_to_admins"] = b.applyToAdmins
	}
	return out
}

// sortedRules orders a repository's rules as the listing does: by
// priority, plain names before globs, then by creation.
func sortedRules(out []*branchRule) []*branchRule {
	slices.SortStableFunc(out, func(a, b *branchRule) int {
		if a.priority != b.priority {
			return cmp.Compare(a.priority, b.priority)
		}
		if ga, gb := isGlobRule(a.name), isGlobRule(b.name); ga != gb {
			if ga {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.id, b.id)
	})
	return out
}

// ---- handlers ----

type createRuleReq struct {
	BranchName string `json:"branch_name"`
	forge.BranchProtection
}

// allowLists resolves the eight allow-lists of a create, users first, as
// the forge does; teams only for an organization's repository (a user's
// repository ignores them, unknown names included).
func (c *rc) allowLists(r *repo, users, teams [4][]string) (u, t [4][]int64, ok bool) {
	for i := range users {
		if u[i], ok = c.userIDs(users[i]); !ok {
			return u, t, false
		}
	}
	if r.orgID != 0 {
		for i := range teams {
			if t[i], ok = c.teamIDs(r, teams[i]); !ok {
				return u, t, false
			}
		}
	}
	return u, t, true
}

// createBranchProtection is POST .../branch_protections: 201 with the rule
// as stored. Checks in order: the body, the archive (423), an empty name
// (400), a taken name (403), unknown users then teams (422).
func (s *Server) createBranchProtection(c *rc) {
	ow, ok := bpRes.scope(c, "create")
	if !ok {
		return
	}
	r := s.st.repos[ow.id]
	var req createRuleReq
	if !c.bind(&req) || !c.notArchived(r) {
		return
	}
	f := req.BranchProtection
	name := f.RuleName
	if name == "" {
		name = req.BranchName
	}
	if name == "" {
		c.error(http.StatusBadRequest, "both rule_name and branch_name are empty")
		return
	}
	if _, taken := s.st.branchRules.first(ow, func(b *branchRule) bool { return b.name == name }); taken {
		c.error(http.StatusForbidden, "Branch protection already exist")
		return
	}
	forgejo := c.fl == flavorForgejo
	if forgejo {
		// Forgejo's create option has none of these: dropped unread, the
		// force-push lists' names never looked up.
		f.Priority, f.EnableForcePush, f.BlockAdminMergeOverride = 0, false, false
		f.ForcePushAllowlistUsernames, f.ForcePushAllowlistTeams = nil, nil
	} else {
		f.ApplyToAdmins = false // Gitea's has no apply_to_admins
	}
	users, teams, ok := c.allowLists(r,
		[4][]string{f.PushWhitelistUsernames, f.ForcePushAllowlistUsernames, f.MergeWhitelistUsernames, f.ApprovalsWhitelistUsernames},
		[4][]string{f.PushWhitelistTeams, f.ForcePushAllowlistTeams, f.MergeWhitelistTeams, f.ApprovalsWhitelistTeams})
	if !ok {
		return
	}
	var bypassUsers, bypassTeams []int64
	if c.fl == flavorGitea127 && f.EnableBypassAllowlist {
		// Read after the other lists, users then teams, and only under
		// the switch.
		if bypassUsers, ok = c.userIDs(f.BypassAllowlistUsernames); !ok {
			return
		}
		if r.orgID != 0 {
			if bypassTeams, ok = c.teamIDs(r, f.BypassAllowlistTeams); !ok {
				return
			}
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	push, force := f.EnablePush, f.EnablePush && f.EnableForcePush
	b := &branchRule{
		row: row{owner: ow}, name: name, priority: f.Priority,
		canPush: push, enableWhitelist: push && f.EnablePushWhitelist,
		whitelistDeployKeys: push && f.EnablePushWhitelist && f.PushWhitelistDeployKeys,
		canForcePush:        force, enableForcePushAllowlist: force && f.EnableForcePushAllowlist,
		forcePushAllowlistDeployKeys: force && f.EnableForcePushAllowlist && f.ForcePushAllowlistDeployKeys,
		enableMergeWhitelist:         f.EnableMergeWhitelist, enableStatusCheck: f.EnableStatusCheck,
		statusCheckContexts:      f.StatusCheckContexts,
		enableApprovalsWhitelist: f.EnableApprovalsWhitelist, requiredApprovals: max(f.RequiredApprovals, 0),
		blockOnRejectedReviews: f.BlockOnRejectedReviews, blockOnOfficialReviewRequests: f.BlockOnOfficialReviewRequests,
		blockOnOutdatedBranch: f.BlockOnOutdatedBranch, dismissStaleApprovals: f.DismissStaleApprovals,
		ignoreStaleApprovals: f.IgnoreStaleApprovals, requireSignedCommits: f.RequireSignedCommits,
		protectedFilePatterns: f.ProtectedFilePatterns, unprotectedFilePatterns: f.UnprotectedFilePatterns,
		blockAdminMergeOverride: f.BlockAdminMergeOverride, applyToAdmins: f.ApplyToAdmins, created: now, updated: now,
		enableBypassAllowlist: c.fl == flavorGitea127 && f.EnableBypassAllowlist,
	}
	s.storeAllowLists(r, b, users, teams)
	b.bypassUsers, b.bypassTeams = s.keepWriters(r, bypassUsers), s.keepTeams(r, bypassTeams)
	if b.priority == 0 && !forgejo {
		// A new rule without a priority goes after the others: MAX+1.
		for _, o := range s.st.branchRules.in(ow) {
			b.priority = max(b.priority, o.priority)
		}
		b.priority++
	}
	s.st.branchRules.add(b)
	c.json(http.StatusCreated, s.ruleJSON(b))
}

// storeAllowLists keeps of each list who may be in it.
func (s *Server) storeAllowLists(r *repo, b *branchRule, users, teams [4][]int64) {
	b.whitelistUsers, b.forcePushUsers = s.keepWriters(r, users[0]), s.keepWriters(r, users[1])
	b.mergeUsers, b.approvalsUsers = s.keepWriters(r, users[2]), s.keepPRReaders(r, users[3])
	b.whitelistTeams, b.forcePushTeams = s.keepTeams(r, teams[0]), s.keepTeams(r, teams[1])
	b.mergeTeams, b.approvalsTeams = s.keepTeams(r, teams[2]), s.keepTeams(r, teams[3])
}

// The PATCH body is the client's forge.EditBranchProtectionOption: what
// is not sent (or is null) decodes as nil, as the forge's own option does.

// names is a list of the body: nil when not sent.
func names(p *[]string) []string {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []string{}
	}
	return *p
}

// applyToggles applies the push and force-push switches the way the forge
// does: an allow-list switch only under its enable_* sent true in the same
// PATCH, its deploy-keys switch only under both.
func applyToggles(req *forge.EditBranchProtectionOption, b *branchRule) {
	if req.EnablePush != nil {
		b.canPush = *req.EnablePush
		if !b.canPush {
			b.enableWhitelist, b.whitelistDeployKeys = false, false
		} else if req.EnablePushWhitelist != nil {
			b.enableWhitelist = *req.EnablePushWhitelist
			if !b.enableWhitelist {
				b.whitelistDeployKeys = false
			} else {
				set(&b.whitelistDeployKeys, req.PushWhitelistDeployKeys)
			}
		}
	}
	if req.EnableForcePush != nil {
		b.canForcePush = *req.EnableForcePush
		if !b.canForcePush {
			b.enableForcePushAllowlist, b.forcePushAllowlistDeployKeys = false, false
		} else if req.EnableForcePushAllowlist != nil {
			b.enableForcePushAllowlist = *req.EnableForcePushAllowlist
			if !b.enableForcePushAllowlist {
				b.forcePushAllowlistDeployKeys = false
			} else {
				set(&b.forcePushAllowlistDeployKeys, req.ForcePushAllowlistDeployKeys)
			}
		}
	}
}

// editBranchProtection is PATCH .../branch_protections/{name}: 423 when
// archived (before the look-up), 404 for an unknown name, then only what
// is sent changes; a list sent replaces the list (users, then teams,
// checked as on create); required_approvals below 0 is ignored.
func (s *Server) editBranchProtection(c *rc) {
	r, ok := c.bpTarget("edit")
	if !ok {
		return
	}
	var req forge.EditBranchProtectionOption
	if !c.bind(&req) || !c.notArchived(r) {
		return
	}
	b, ok := bpRes.lookup(c, owner{repo: true, id: r.id})
	if !ok {
		return
	}
	if c.fl == flavorForgejo {
		// Forgejo's edit option has none of these: dropped unread.
		req.Priority, req.EnableForcePush, req.EnableForcePushAllowlist, req.ForcePushAllowlistDeployKeys = nil, nil, nil, nil
		req.ForcePushAllowlistUsernames, req.ForcePushAllowlistTeams, req.BlockAdminMergeOverride = nil, nil, nil
	} else {
		req.ApplyToAdmins = nil // nor Gitea's apply_to_admins
	}
	if c.fl != flavorGitea127 {
		// Before Gitea 1.27 (and on Forgejo) there is no bypass allow-list.
		req.EnableBypassAllowlist, req.BypassAllowlistUsernames, req.BypassAllowlistTeams = nil, nil, nil
	}
	next := *b
	applyToggles(&req, &next)
	set(&next.priority, req.Priority)
	set(&next.enableMergeWhitelist, req.EnableMergeWhitelist)
	set(&next.enableStatusCheck, req.EnableStatusCheck)
	if req.StatusCheckContexts != nil {
		next.statusCheckContexts = names(req.StatusCheckContexts)
	}
	if req.RequiredApprovals != nil && *req.RequiredApprovals >= 0 {
		next.requiredApprovals = *req.RequiredApprovals
	}
	set(&next.enableApprovalsWhitelist, req.EnableApprovalsWhitelist)
	set(&next.blockOnRejectedReviews, req.BlockOnRejectedReviews)
	set(&next.blockOnOfficialReviewRequests, req.BlockOnOfficialReviewRequests)
	set(&next.dismissStaleApprovals, req.DismissStaleApprovals)
	set(&next.ignoreStaleApprovals, req.IgnoreStaleApprovals)
	set(&next.requireSignedCommits, req.RequireSignedCommits)
	set(&next.protectedFilePatterns, req.ProtectedFilePatterns)
	set(&next.unprotectedFilePatterns, req.UnprotectedFilePatterns)
	set(&next.blockOnOutdatedBranch, req.BlockOnOutdatedBranch)
	set(&next.blockAdminMergeOverride, req.BlockAdminMergeOverride)
	set(&next.applyToAdmins, req.ApplyToAdmins)
	set(&next.enableBypassAllowlist, req.EnableBypassAllowlist)

	forcePushUsersSent := req.ForcePushAllowlistUsernames != nil
	if s.versionIs("1.24.") {
		// Gitea 1.24 reads the force-push user list only when
		// force_push_allowlist_deploy_keys is sent (it tests that field).
		forcePushUsersSent = req.ForcePushAllowlistDeployKeys != nil
	}
	userLists := []struct {
		sent  bool
		names []string
		dst   *[]int64
		keep  func(*repo, []int64) []int64
	}{
		{req.PushWhitelistUsernames != nil, names(req.PushWhitelistUsernames), &next.whitelistUsers, s.keepWriters},
		{forcePushUsersSent, names(req.ForcePushAllowlistUsernames), &next.forcePushUsers, s.keepWriters},
		{req.MergeWhitelistUsernames != nil, names(req.MergeWhitelistUsernames), &next.mergeUsers, s.keepWriters},
		{req.ApprovalsWhitelistUsernames != nil, names(req.ApprovalsWhitelistUsernames), &next.approvalsUsers, s.keepPRReaders},
		{req.BypassAllowlistUsernames != nil, names(req.BypassAllowlistUsernames), &next.bypassUsers, s.keepWriters},
	}
	for _, l := range userLists {
		if !l.sent {
			continue
		}
		ids, ok := c.userIDs(l.names)
		if !ok {
			return
		}
		*l.dst = l.keep(r, ids)
	}
	if r.orgID != 0 {
		for _, l := range []struct {
			names []string
			dst   *[]int64
		}{
			{names(req.PushWhitelistTeams), &next.whitelistTeams}, {names(req.ForcePushAllowlistTeams), &next.forcePushTeams},
			{names(req.MergeWhitelistTeams), &next.mergeTeams}, {names(req.ApprovalsWhitelistTeams), &next.approvalsTeams},
			{names(req.BypassAllowlistTeams), &next.bypassTeams},
		} {
			if l.names == nil {
				continue
			}
			ids, ok := c.teamIDs(r, l.names)
			if !ok {
				return
			}
			*l.dst = s.keepTeams(r, ids)
		}
	}
	if !next.enableBypassAllowlist {
		// Gitea 1.27 empties the bypass lists of a rule left without it.
		next.bypassUsers, next.bypassTeams = nil, nil
	}
	next.updated = time.Now().UTC().Truncate(time.Second)
	*b = next
	c.json(http.StatusOK, s.ruleJSON(b))
}

// deleteBranchProtection is DELETE .../branch_protections/{name}: 204, 404
// for an unknown name. An archived repository: 423 from Gitea 1.26 (a
// middleware, before the look-up); 1.24 and 1.25 have no middleware there
// and the store refuses after the look-up, a 500.
func (s *Server) deleteBranchProtection(c *rc) {
	r, ok := c.bpTarget("delete")
	if !ok {
		return
	}
	old := s.versionIs("1.24.") || s.versionIs("1.25.")
	if !old && !c.notArchived(r) {
		return
	}
	b, ok := bpRes.lookup(c, owner{repo: true, id: r.id})
	if !ok {
		return
	}
	if r.archived {
		msg := ""
		if c.doer.admin {
			msg = fmt.Sprintf("<Repository %d:%s/%s> is archived", r.id, s.ownerName(r), r.name)
		}
		c.error(http.StatusInternalServerError, msg)
		return
	}
	s.st.branchRules.remove(b.id)
	c.noContent()
}

func (s *Server) branchProtectionRoutes(h func(string, func(*rc))) {
	bpRes.serve(h, onCollection("POST", s.createBranchProtection), onItem("PATCH", s.editBranchProtection),
		onItem("DELETE", s.deleteBranchProtection))
}

// BranchProtections gives a repository's rules as the listing answers
// them (tests only).
func (s *Server) BranchProtections(ownerName, repoName string) []forge.BranchProtection {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	out := []forge.BranchProtection{}
	for _, b := range sortedRules(s.st.branchRules.in(owner{repo: true, id: r.id})) {
		var bp forge.BranchProtection
		data, _ := json.Marshal(s.ruleJSON(b))
		_ = json.Unmarshal(data, &bp)
		out = append(out, bp)
	}
	return out
}

var _ = registerRoutes((*Server).branchProtectionRoutes)
