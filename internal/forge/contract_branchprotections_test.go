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
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The branchProtection behaviours are what a branch protection kind relies on,
// probed on Gitea 1.26.4 (and 1.25.5, 1.24.6) before the fake learnt
// them. TestContract runs them.
var _ = registerBehaviours("branchProtection", []behaviour{
	{"branchprotections/create keeps every field; priority as sent or MAX+1; contexts and file patterns as sent", contractBPCreate, nil},
	{"branchprotections/rule names: exact case, taken is 403, empty is 400, globs escaped in the path", contractBPNames, nil},
	{"branchprotections/allow-lists: users need write (approvals read), teams the repository, else dropped; unknown is 422; read back as stored, by name, once", contractBPAllowLists, nil},
	{"branchprotections/PATCH: only what is sent; allow-list switches only under enable_* true; [] clears; unknown is 404", contractBPEdit, nil},
	{"branchprotections/a user's repository ignores team lists, unknown teams included", contractBPUserRepo, nil},
	{"branchprotections/archived repository: writes are 423 (DELETE a 500 before 1.26)", contractBPArchived, nil},
	{"branchprotections/unknown repository is 404; raw slash in the path by version", contractBPNotFound, nil},
	{"branchprotections/the fake as Gitea 1.24 and 1.25", contractBPOldFake, needFake},
	{"branchprotections/Gitea drops apply_to_admins (Forgejo's), on create and PATCH, without an error", contractBPGiteaApplyToAdmins, nil},
	// No live Forgejo runs here: this case holds the fake's Forgejo flavour
	// to Forgejo's source (internal/forge/branchprotections.go names it).
	{"branchprotections/the fake as Forgejo: apply_to_admins kept; priority, force push and block_admin_merge_override dropped", contractBPForgejoFake, needFake},
})

// bpScene is an organization's repository with users and teams of each
// standing. Logins and team names sort the same by bytes and by creation,
// so that the order Gitea 1.24 lists users in (by id) is the order of
// 1.25 and later (by name, bytes: upper case first).
type bpScene struct {
	org, repo                string
	writer, reader, stranger string // collaborator write, collaborator read, no access
	// teams given the repository: zeta reads the code, alpha writes it,
	// issues has the issues only; norepo writes code but lacks the repository.
	zeta, alpha, issues, norepo string
	// bypass: the server answers the bypass allow-list (Gitea 1.27).
	bypass bool
}

func newBPScene(t *testing.T, tg *target) bpScene {
	sc := bpScene{org: tg.org(), bypass: hasBypass(tg)}
	sc.repo = tg.repo(sc.org)
	sc.writer, sc.reader, sc.stranger = tg.namedUser("Wr"), tg.namedUser("rd"), tg.namedUser("st")
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), sc.org, sc.repo, sc.writer, "write"))
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), sc.org, sc.repo, sc.reader, "read"))
	team := func(name, unit, mode string, withRepo bool) string {
		tm, err := tg.c.CreateTeam(ctx(t), sc.org, forge.CreateTeamOption{Name: name, UnitsMap: map[string]string{unit: mode}})
		mustNoErr(t, err)
		if withRepo {
			mustNoErr(t, tg.c.AddTeamRepo(ctx(t), tm.ID, sc.org, sc.repo))
		}
		return tm.Name
	}
	sc.zeta, sc.alpha = team("Zeta", "repo.code", "read", true), team("alpha", "repo.code", "write", true)
	sc.issues, sc.norepo = team("issues", "repo.issues", "write", true), team("norepo", "repo.code", "write", false)
	return sc
}

// fullRule sets every field; its lists hold only names the forge keeps.
func fullRule(sc bpScene, name string) forge.BranchProtection {
	return forge.BranchProtection{
		RuleName: name, Priority: 7,
		EnablePush: true, EnablePushWhitelist: true, PushWhitelistUsernames: []string{sc.writer},
		PushWhitelistTeams: []string{sc.zeta, sc.alpha}, PushWhitelistDeployKeys: true,
		EnableForcePush: true, EnableForcePushAllowlist: true, ForcePushAllowlistUsernames: []string{sc.writer},
		ForcePushAllowlistTeams: []string{sc.alpha}, ForcePushAllowlistDeployKeys: true,
		EnableMergeWhitelist: true, MergeWhitelistUsernames: []string{sc.writer}, MergeWhitelistTeams: []string{sc.zeta},
		EnableStatusCheck: true, StatusCheckContexts: []string{"ci/z", "ci/a", "ci/z"},
		RequiredApprovals: 2, EnableApprovalsWhitelist: true, ApprovalsWhitelistUsernames: []string{sc.writer, sc.reader},
		ApprovalsWhitelistTeams: []string{sc.zeta, sc.alpha},
		BlockOnRejectedReviews:  true, BlockOnOfficialReviewRequests: true, BlockOnOutdatedBranch: true,
		DismissStaleApprovals: true, IgnoreStaleApprovals: true, RequireSignedCommits: true,
		ProtectedFilePatterns: "*.md; docs/**", UnprotectedFilePatterns: " a.txt ;b.txt ", BlockAdminMergeOverride: true,
		BypassAllowlistUsernames: bypassList(sc.bypass), BypassAllowlistTeams: bypassList(sc.bypass),
	}
}

// emptyRule is a rule as the forge answers one created with a name only:
// lists [] except status_check_contexts, null.
// From Gitea 1.27 the bypass lists are answered too, [] when empty.
func emptyRule(tg *target, name string, priority int64) forge.BranchProtection {
	e := []string{}
	return forge.BranchProtection{RuleName: name, Priority: priority,
		PushWhitelistUsernames: e, PushWhitelistTeams: e, ForcePushAllowlistUsernames: e, ForcePushAllowlistTeams: e,
		MergeWhitelistUsernames: e, MergeWhitelistTeams: e, ApprovalsWhitelistUsernames: e, ApprovalsWhitelistTeams: e,
		BypassAllowlistUsernames: bypassList(hasBypass(tg)), BypassAllowlistTeams: bypassList(hasBypass(tg))}
}

// hasBypass: the bypass allow-list exists from Gitea 1.27 (not on Forgejo).
func hasBypass(tg *target) bool {
	flavor, semver := tg.version()
	return flavor == "gitea" && atLeast(semver, 1, 27)
}

// bypassList is an empty bypass list as a server that has them answers it
// ([]), nil on one that has none.
func bypassList(has bool) []string {
	if has {
		return []string{}
	}
	return nil
}

func ruleNamed(t *testing.T, tg *target, org, repo, name string) *forge.BranchProtection {
	t.Helper()
	all, err := tg.c.ListBranchProtections(ctx(t), org, repo)
	mustNoErr(t, err)
	for i := range all {
		if all[i].RuleName == name {
			return &all[i]
		}
	}
	return nil
}

func ruleNames(all []forge.BranchProtection) []string {
	out := []string{}
	for _, bp := range all {
		out = append(out, bp.RuleName)
	}
	return out
}

func wantStatus(t *testing.T, err error, status int, msg string) {
	t.Helper()
	var fe *forge.Error
	if !errors.As(err, &fe) || fe.StatusCode != status || !strings.Contains(fe.Message, msg) {
		t.Fatalf("want %d %q, got %v", status, msg, err)
	}
}

func contractBPCreate(t *testing.T, tg *target) {
	sc := newBPScene(t, tg)
	all, err := tg.c.ListBranchProtections(ctx(t), sc.org, sc.repo)
	mustNoErr(t, err)
	if all == nil || len(all) != 0 {
		t.Fatalf("a new repository's rules: %#v", all)
	}
	// Without a priority the first rule gets 1, each next MAX+1.
	got, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "main"})
	mustNoErr(t, err)
	if d := cmp.Diff(emptyRule(tg, "main", 1), *got); d != "" {
		t.Fatalf("a rule with a name only (-want +got):\n%s", d)
	}
	// Every field is kept as sent on create (force-push allow-lists too),
	// contexts in order with repeats, file patterns untouched.
	want := fullRule(sc, "release/*")
	got, err = tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, want)
	mustNoErr(t, err)
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("a rule with every field (-sent +answered):\n%s", d)
	}
	if listed := ruleNamed(t, tg, sc.org, sc.repo, "release/*"); listed == nil || !cmp.Equal(want, *listed) {
		t.Fatalf("listed: %s", cmp.Diff(want, listed))
	}
	next, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "next", RequiredApprovals: -3})
	mustNoErr(t, err)
	if next.Priority != 8 || next.RequiredApprovals != 0 {
		t.Fatalf("after priority 7: priority %d, required approvals %d", next.Priority, next.RequiredApprovals)
	}
	// Force push needs push on create: enable_force_push alone is dropped.
	fp, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "fp",
		EnableForcePush: true, EnableForcePushAllowlist: true, ForcePushAllowlistDeployKeys: true, EnablePushWhitelist: true,
		ForcePushAllowlistUsernames: []string{sc.writer}})
	mustNoErr(t, err)
	if fp.EnableForcePush || fp.EnableForcePushAllowlist || fp.ForcePushAllowlistDeployKeys || fp.EnablePushWhitelist ||
		!cmp.Equal(fp.ForcePushAllowlistUsernames, []string{sc.writer}) {
		t.Fatalf("force push without push: %+v", fp)
	}
	// Listed by priority, then plain names before globs, then by creation
	// time in seconds (rules made within one second have no fixed order).
	zero := int64(0)
	_, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "release/*", forge.EditBranchProtectionOption{Priority: &zero})
	mustNoErr(t, err)
	for _, name := range []string{"feat/*", "hotfix"} {
		_, err = tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: name, Priority: 2})
		mustNoErr(t, err)
	}
	all, err = tg.c.ListBranchProtections(ctx(t), sc.org, sc.repo)
	mustNoErr(t, err)
	if d := cmp.Diff([]string{"release/*", "main", "hotfix", "feat/*", "next", "fp"}, ruleNames(all)); d != "" {
		t.Fatalf("listing order (-want +got):\n%s", d)
	}
	if all[0].Priority != 0 || all[4].Priority != 8 || all[5].Priority != 9 {
		t.Fatalf("priorities: %d %d %d", all[0].Priority, all[4].Priority, all[5].Priority)
	}
}

func contractBPNames(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	_, err := tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "main"})
	mustNoErr(t, err)
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "main", Priority: 5})
	wantKind(t, err, forge.KindForbidden)
	wantStatus(t, err, http.StatusForbidden, "Branch protection already exist")
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{})
	wantRejected(t, err, "both rule_name and branch_name are empty")
	// Rule names compare with case (SQLite; MySQL's collation would not).
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "MAIN"})
	mustNoErr(t, err)
	_, err = tg.c.EditBranchProtection(ctx(t), org, repo, "Main", forge.EditBranchProtectionOption{Priority: ptr(int64(3))})
	wantKind(t, err, forge.KindNotFound)
	got, err := tg.c.EditBranchProtection(ctx(t), org, repo, "MAIN", forge.EditBranchProtectionOption{Priority: ptr(int64(3))})
	mustNoErr(t, err)
	if got.RuleName != "MAIN" || got.Priority != 3 {
		t.Fatalf("edited MAIN: %+v", got)
	}
	// Globs and slashes go in one escaped path segment.
	for _, name := range []string{"release/*", "feature/**/v[0-9]?", "a b"} {
		_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: name})
		mustNoErr(t, err)
		got, err = tg.c.EditBranchProtection(ctx(t), org, repo, name, forge.EditBranchProtectionOption{RequiredApprovals: ptr(int64(1))})
		mustNoErr(t, err)
		if got.RuleName != name || got.RequiredApprovals != 1 {
			t.Fatalf("edited %q: %+v", name, got)
		}
		mustNoErr(t, tg.c.DeleteBranchProtection(ctx(t), org, repo, name))
	}
	mustNoErr(t, tg.c.DeleteBranchProtection(ctx(t), org, repo, "main"))
	wantKind(t, tg.c.DeleteBranchProtection(ctx(t), org, repo, "main"), forge.KindNotFound)
	all, err := tg.c.ListBranchProtections(ctx(t), org, repo)
	mustNoErr(t, err)
	if d := cmp.Diff([]string{"MAIN"}, ruleNames(all)); d != "" {
		t.Fatalf("left (-want +got):\n%s", d)
	}
}

func contractBPAllowLists(t *testing.T, tg *target) {
	sc := newBPScene(t, tg)
	// Users resolve in any case and come back as stored, sorted, once;
	// those without write to the code (approvals: without read) are dropped
	// without a word. Teams need the repository and read to its code or
	// pull requests.
	got, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "main",
		PushWhitelistUsernames:      []string{strings.ToUpper(sc.writer), sc.reader, sc.stranger, sc.writer, sc.org},
		MergeWhitelistUsernames:     []string{sc.reader},
		ApprovalsWhitelistUsernames: []string{sc.stranger, sc.reader, strings.ToLower(sc.writer)},
		PushWhitelistTeams:          []string{strings.ToUpper(sc.alpha), sc.issues, sc.zeta, sc.norepo, sc.alpha},
		ApprovalsWhitelistTeams:     []string{sc.norepo},
	})
	mustNoErr(t, err)
	want := emptyRule(tg, "main", 1)
	want.PushWhitelistUsernames = []string{sc.writer}
	want.ApprovalsWhitelistUsernames = []string{sc.writer, sc.reader}
	want.PushWhitelistTeams = []string{sc.zeta, sc.alpha}
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("allow-lists (-want +got):\n%s", d)
	}
	// The first unknown user, then the first unknown team, is a 422 and
	// nothing is made.
	nobody, noteam := uniqueName("Nobody"), uniqueName("NoTeam")
	_, err = tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "x",
		MergeWhitelistTeams: []string{noteam}, ApprovalsWhitelistUsernames: []string{nobody}})
	wantRejected(t, err, "user does not exist [uid: 0, name: "+nobody+"]")
	_, err = tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "x",
		MergeWhitelistTeams: []string{noteam}})
	wantRejected(t, err, "team does not exist [org_id ")
	wantRejected(t, err, ", team_id 0, name: "+noteam+"]")
	_, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		PushWhitelistUsernames: &[]string{nobody}})
	wantRejected(t, err, "user does not exist")
	if r := ruleNamed(t, tg, sc.org, sc.repo, "x"); r != nil {
		t.Fatalf("a refused create made %+v", r)
	}
	if r := ruleNamed(t, tg, sc.org, sc.repo, "main"); r == nil || !cmp.Equal(want, *r) {
		t.Fatalf("a refused edit changed the rule: %s", cmp.Diff(want, r))
	}
	// A user given write later is kept when sent again.
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), sc.org, sc.repo, sc.reader, "write"))
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		MergeWhitelistUsernames: &[]string{sc.reader}})
	mustNoErr(t, err)
	if !cmp.Equal(got.MergeWhitelistUsernames, []string{sc.reader}) || !cmp.Equal(got.PushWhitelistUsernames, []string{sc.writer}) {
		t.Fatalf("after write was given: merge %q push %q", got.MergeWhitelistUsernames, got.PushWhitelistUsernames)
	}
	// Users are read back by name in bytes (upper case first); Gitea 1.24
	// lists them by account id instead.
	first, second := tg.namedUser("zw"), tg.namedUser("Ma")
	for _, u := range []string{first, second} {
		mustNoErr(t, tg.c.SetCollaborator(ctx(t), sc.org, sc.repo, u, "write"))
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		MergeWhitelistUsernames: &[]string{first, second}})
	mustNoErr(t, err)
	wantOrder := []string{second, first}
	if before(tg, 1, 25) {
		wantOrder = []string{first, second}
	}
	if d := cmp.Diff(wantOrder, got.MergeWhitelistUsernames); d != "" {
		t.Fatalf("read-back order (-want +got):\n%s", d)
	}
	// A user whose access goes is no longer read back.
	mustNoErr(t, tg.c.RemoveCollaborator(ctx(t), sc.org, sc.repo, sc.writer))
	r := ruleNamed(t, tg, sc.org, sc.repo, "main")
	if r == nil || len(r.PushWhitelistUsernames) != 0 || !cmp.Equal(r.ApprovalsWhitelistUsernames, []string{sc.reader}) {
		t.Fatalf("after the writer left: %+v", r)
	}
}

func contractBPEdit(t *testing.T, tg *target) {
	sc := newBPScene(t, tg)
	want := fullRule(sc, "main")
	_, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, want)
	mustNoErr(t, err)
	// Nothing sent, nothing changed.
	got, err := tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{})
	mustNoErr(t, err)
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("an empty PATCH (-want +got):\n%s", d)
	}
	// Gitea 1.24 reads force_push_allowlist_usernames only when
	// force_push_allowlist_deploy_keys is sent (it tests the wrong field):
	// the list alone is ignored, the deploy-keys switch alone clears it.
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		ForcePushAllowlistUsernames: &[]string{}})
	mustNoErr(t, err)
	if applied := len(got.ForcePushAllowlistUsernames) == 0; applied == before(tg, 1, 25) {
		t.Fatalf("force-push users sent alone: applied %v: %q", applied, got.ForcePushAllowlistUsernames)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		ForcePushAllowlistUsernames: &[]string{sc.writer}, ForcePushAllowlistDeployKeys: ptr(false)})
	mustNoErr(t, err)
	if !cmp.Equal(got.ForcePushAllowlistUsernames, []string{sc.writer}) || !got.ForcePushAllowlistDeployKeys {
		t.Fatalf("force-push users with the deploy-keys switch (applied only under enable_force_push): %+v", got)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		ForcePushAllowlistDeployKeys: ptr(true)})
	mustNoErr(t, err)
	if cleared := len(got.ForcePushAllowlistUsernames) == 0; cleared != before(tg, 1, 25) {
		t.Fatalf("the deploy-keys switch sent alone: force-push users cleared %v: %q", cleared, got.ForcePushAllowlistUsernames)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		ForcePushAllowlistUsernames: &[]string{sc.writer}, ForcePushAllowlistDeployKeys: ptr(true)})
	mustNoErr(t, err)
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("restored (-want +got):\n%s", d)
	}
	// Each field sent changes alone; [] clears a list; priority takes 0.
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		Priority: ptr(int64(0)), RequiredApprovals: ptr(int64(-1)), StatusCheckContexts: &[]string{},
		PushWhitelistTeams: new([]string), ProtectedFilePatterns: ptr(""), BlockAdminMergeOverride: ptr(false),
		ApprovalsWhitelistUsernames: &[]string{sc.reader},
	})
	mustNoErr(t, err)
	want.Priority, want.StatusCheckContexts, want.PushWhitelistTeams = 0, []string{}, []string{}
	want.ProtectedFilePatterns, want.BlockAdminMergeOverride = "", false
	want.ApprovalsWhitelistUsernames = []string{sc.reader}
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("after a partial PATCH (-want +got):\n%s", d)
	}
	// enable_push_whitelist (and its deploy keys) is applied only with
	// enable_push: true in the same PATCH; enable_push: false clears both.
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		EnablePushWhitelist: ptr(false), PushWhitelistDeployKeys: ptr(false),
		EnableForcePushAllowlist: ptr(false), ForcePushAllowlistDeployKeys: ptr(false)})
	mustNoErr(t, err)
	if !got.EnablePushWhitelist || !got.PushWhitelistDeployKeys || !got.EnableForcePushAllowlist || !got.ForcePushAllowlistDeployKeys {
		t.Fatalf("switches applied without enable_push / enable_force_push: %+v", got)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		EnablePush: ptr(true), PushWhitelistDeployKeys: ptr(false)})
	mustNoErr(t, err)
	if !got.EnablePushWhitelist || !got.PushWhitelistDeployKeys {
		t.Fatalf("deploy keys applied without enable_push_whitelist: %+v", got)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{EnablePush: ptr(false)})
	mustNoErr(t, err)
	if got.EnablePush || got.EnablePushWhitelist || got.PushWhitelistDeployKeys || !cmp.Equal(got.PushWhitelistUsernames, []string{sc.writer}) {
		t.Fatalf("push off: %+v", got)
	}
	// Force push is switched on without push by PATCH (not by create).
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
		EnableForcePush: ptr(true), EnableForcePushAllowlist: ptr(false)})
	mustNoErr(t, err)
	if got.EnablePush || !got.EnableForcePush || got.EnableForcePushAllowlist || got.ForcePushAllowlistDeployKeys {
		t.Fatalf("force push on, allow-list off: %+v", got)
	}
	_, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "nosuch", forge.EditBranchProtectionOption{Priority: ptr(int64(1))})
	wantKind(t, err, forge.KindNotFound)
	if before(tg, 1, 25) {
		wantStatus(t, err, http.StatusNotFound, "The target couldn't be found.")
	} else {
		wantStatus(t, err, http.StatusNotFound, "not found")
	}
}

func contractBPUserRepo(t *testing.T, tg *target) {
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	r, err := tg.c.CreateUserRepo(ctx(t), forge.CreateRepoOption{Name: uniqueName("mine")})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteRepo(context.Background(), me.Login, r.Name) })
	writer, stranger := tg.namedUser("Wr"), tg.namedUser("st")
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), me.Login, r.Name, writer, "write"))
	got, err := tg.c.CreateBranchProtection(ctx(t), me.Login, r.Name, forge.BranchProtection{RuleName: "main",
		PushWhitelistUsernames: []string{stranger, writer, me.Login}, PushWhitelistTeams: []string{uniqueName("noteam"), "Owners"},
		ApprovalsWhitelistUsernames: []string{stranger, me.Login}, MergeWhitelistTeams: []string{"Owners"}})
	mustNoErr(t, err)
	// The owner counts as a writer and a reader; the stranger does not.
	// (The order is by name from 1.25, by id on 1.24: compared as sets.)
	if !cmp.Equal(sorted(got.PushWhitelistUsernames), sorted([]string{writer, me.Login})) || len(got.PushWhitelistTeams) != 0 ||
		len(got.MergeWhitelistTeams) != 0 || !cmp.Equal(got.ApprovalsWhitelistUsernames, []string{me.Login}) {
		t.Fatalf("a user's repository: %+v", got)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), me.Login, r.Name, "main", forge.EditBranchProtectionOption{
		ApprovalsWhitelistTeams: &[]string{uniqueName("noteam")}})
	mustNoErr(t, err)
	if len(got.ApprovalsWhitelistTeams) != 0 {
		t.Fatalf("teams on a user's repository: %+v", got)
	}
}

func contractBPArchived(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	_, err := tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "main"})
	mustNoErr(t, err)
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(true)})
	mustNoErr(t, err)
	locked := archivedMessage(tg, org, repo)
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "dev"})
	wantStatus(t, err, http.StatusLocked, locked)
	_, err = tg.c.EditBranchProtection(ctx(t), org, repo, "main", forge.EditBranchProtectionOption{Priority: ptr(int64(2))})
	wantStatus(t, err, http.StatusLocked, locked)
	_, err = tg.c.EditBranchProtection(ctx(t), org, repo, "nosuch", forge.EditBranchProtectionOption{Priority: ptr(int64(2))})
	wantStatus(t, err, http.StatusLocked, locked)
	err = tg.c.DeleteBranchProtection(ctx(t), org, repo, "main")
	if before(tg, 1, 26) {
		// No archive guard on the route: the store refuses after the look-up.
		wantKind(t, err, forge.KindServer)
		wantStatus(t, err, http.StatusInternalServerError, " is archived")
		wantKind(t, tg.c.DeleteBranchProtection(ctx(t), org, repo, "nosuch"), forge.KindNotFound)
	} else {
		wantStatus(t, err, http.StatusLocked, locked)
		wantStatus(t, tg.c.DeleteBranchProtection(ctx(t), org, repo, "nosuch"), http.StatusLocked, locked)
	}
	all, err := tg.c.ListBranchProtections(ctx(t), org, repo)
	mustNoErr(t, err)
	if d := cmp.Diff([]string{"main"}, ruleNames(all)); d != "" {
		t.Fatalf("an archived repository's rules (-want +got):\n%s", d)
	}
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(false)})
	mustNoErr(t, err)
	mustNoErr(t, tg.c.DeleteBranchProtection(ctx(t), org, repo, "main"))
}

func contractBPNotFound(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	_, err := tg.c.ListBranchProtections(ctx(t), org, uniqueName("nosuch"))
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.CreateBranchProtection(ctx(t), org, uniqueName("nosuch"), forge.BranchProtection{RuleName: "main"})
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteBranchProtection(ctx(t), uniqueName("noorg"), repo, "main"), forge.KindNotFound)
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "release/*"})
	mustNoErr(t, err)
	// Gitea 1.26 routes the rest of the path as the name; 1.24 and 1.25
	// route one segment, so an unescaped slash finds no route there.
	status, body := tg.raw(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/branch_protections/release/*", nil)
	if before(tg, 1, 26) {
		if status != http.StatusNotFound || !strings.Contains(string(body), "404 page not found") {
			t.Fatalf("raw slash: %d %s", status, body)
		}
	} else if status != http.StatusOK || !strings.Contains(string(body), `"rule_name":"release/*"`) {
		t.Fatalf("raw slash: %d %s", status, body)
	}
	status, _ = tg.raw(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/branch_protections/release%2F%2A", nil)
	if status != http.StatusOK {
		t.Fatalf("escaped: %d", status)
	}
}

// contractBPOldFake runs the version-dependent checks with the fake
// answering as Gitea 1.25.5 and 1.24.6.
func contractBPOldFake(t *testing.T, tg *target) {
	for _, v := range []string{"1.25.5", "1.24.6"} {
		t.Run(v, func(t *testing.T) {
			old := newTarget(t)
			old.fake.SetVersion(v)
			contractBPEdit(t, old)
			contractBPArchived(t, old)
			contractBPNotFound(t, old)
			contractBPAllowLists(t, old)
		})
	}
}

func contractBPGiteaApplyToAdmins(t *testing.T, tg *target) {
	sc := newBPScene(t, tg)
	got, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "main", ApplyToAdmins: true, RequiredApprovals: 1})
	mustNoErr(t, err)
	if got.ApplyToAdmins || got.RequiredApprovals != 1 {
		t.Fatalf("create with apply_to_admins: %+v", got)
	}
	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{ApplyToAdmins: ptr(true), RequiredApprovals: ptr(int64(2))})
	mustNoErr(t, err)
	if got.ApplyToAdmins || got.RequiredApprovals != 2 {
		t.Fatalf("PATCH with apply_to_admins: %+v", got)
	}
}

func contractBPForgejoFake(t *testing.T, _ *target) {
	tg := newTarget(t, fakeforge.WithVersion("15.0.3+gitea-1.22.0"))
	sc := newBPScene(t, tg)
	sent := fullRule(sc, "release/*")
	sent.ApplyToAdmins = true
	got, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, sent)
	mustNoErr(t, err)
	want := sent
	want.Priority, want.BlockAdminMergeOverride = 0, false
	want.EnableForcePush, want.EnableForcePushAllowlist, want.ForcePushAllowlistDeployKeys = false, false, false
	want.ForcePushAllowlistUsernames, want.ForcePushAllowlistTeams = nil, nil // absent from the answer
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("create (-want +answered):\n%s", d)
	}
	if listed := ruleNamed(t, tg, sc.org, sc.repo, "release/*"); listed == nil || !cmp.Equal(want, *listed) {
		t.Fatalf("listed: %s", cmp.Diff(want, listed))
	}
	// Forgejo never looks the force-push names up: an unknown one is no 422.
	_, err = tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "fp", EnablePush: true,
		EnableForcePush: true, EnableForcePushAllowlist: true, ForcePushAllowlistUsernames: []string{"no-such-user"}})
	mustNoErr(t, err)

	got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "release/*", forge.EditBranchProtectionOption{
		ApplyToAdmins: ptr(false), Priority: ptr(int64(3)), BlockAdminMergeOverride: ptr(true), EnableForcePush: ptr(true),
		ForcePushAllowlistUsernames: &[]string{sc.writer}})
	mustNoErr(t, err)
	want.ApplyToAdmins = false
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("PATCH (-want +answered):\n%s", d)
	}
}
