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
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The newField behaviours are the fields later releases added, each checked on
// the release the server is: it keeps them from the release that has them
// (Gitea 1.25: has_code; 1.27: the bypass allow-list, team visibility,
// the update styles) and an older one neither answers nor applies them (it
// drops an unknown JSON field without a word, which is why the operator
// gates them before writing). On the fake each is checked at 1.27, 1.26
// and 1.24 as well. TestContract runs them.
var _ = registerBehaviours("newField", []behaviour{
	{"releases/bypass allow-list: kept under its switch from 1.27, ignored before", contractBypassAllowlist, nil},
	{"releases/team visibility: private by default from 1.27, ignored before", contractTeamVisibility, nil},
	{"releases/has_code from 1.25, update styles from 1.27 (checked together), ignored before", contractRepoNewSettings, nil},
	{"releases/allow_manual_merge and autodetect_manual_merge answered from 1.25 (1.24 takes them unseen)", contractRepoManualMerge, nil},
})

// onReleases runs check on the target, and on the fake at each release
// whose answers differ here.
func onReleases(t *testing.T, tg *target, check func(*testing.T, *target)) {
	check(t, tg)
	if !tg.live {
		for _, v := range []string{"1.27.3", "1.26.4", "1.24.6", "15.0.3+gitea-1.22.0"} {
			t.Run(v, func(t *testing.T) { check(t, newTarget(t, fakeforge.WithVersion(v))) })
		}
	}
}

func contractBypassAllowlist(t *testing.T, tg *target) {
	onReleases(t, tg, func(t *testing.T, tg *target) {
		sc := newBPScene(t, tg)
		has := hasBypass(tg)
		// A create reads the lists only under the switch.
		got, err := tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "off",
			BypassAllowlistUsernames: []string{sc.writer}, BypassAllowlistTeams: []string{sc.alpha}})
		mustNoErr(t, err)
		if got.EnableBypassAllowlist || len(got.BypassAllowlistUsernames) != 0 || len(got.BypassAllowlistTeams) != 0 {
			t.Fatalf("lists without the switch kept: %+v", got)
		}
		got, err = tg.c.CreateBranchProtection(ctx(t), sc.org, sc.repo, forge.BranchProtection{RuleName: "main",
			EnableBypassAllowlist: true, BypassAllowlistUsernames: []string{sc.writer, sc.reader}, BypassAllowlistTeams: []string{sc.alpha, sc.norepo}})
		mustNoErr(t, err)
		wantUsers, wantTeams := bypassList(has), bypassList(has)
		if has {
			// Kept as the other allow-lists: writers and teams with the repository.
			wantUsers, wantTeams = []string{sc.writer}, []string{sc.alpha}
		}
		if got.EnableBypassAllowlist != has || !cmp.Equal(got.BypassAllowlistUsernames, wantUsers) || !cmp.Equal(got.BypassAllowlistTeams, wantTeams) {
			t.Fatalf("created: enable %v users %q teams %q; want %v %q %q", got.EnableBypassAllowlist,
				got.BypassAllowlistUsernames, got.BypassAllowlistTeams, has, wantUsers, wantTeams)
		}
		// A PATCH replaces a list sent; turning the switch off empties both.
		got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
			BypassAllowlistTeams: &[]string{sc.zeta}})
		mustNoErr(t, err)
		if has && (!cmp.Equal(got.BypassAllowlistTeams, []string{sc.zeta}) || !cmp.Equal(got.BypassAllowlistUsernames, []string{sc.writer})) {
			t.Fatalf("after a PATCH of the teams: %+v", got)
		}
		got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
			EnableBypassAllowlist: new(false)})
		mustNoErr(t, err)
		if got.EnableBypassAllowlist || len(got.BypassAllowlistUsernames) != 0 || len(got.BypassAllowlistTeams) != 0 {
			t.Fatalf("after the switch went off: %+v", got)
		}
		got, err = tg.c.EditBranchProtection(ctx(t), sc.org, sc.repo, "main", forge.EditBranchProtectionOption{
			EnableBypassAllowlist: new(true), BypassAllowlistUsernames: &[]string{sc.writer}})
		mustNoErr(t, err)
		if got.EnableBypassAllowlist != has || (has && !cmp.Equal(got.BypassAllowlistUsernames, []string{sc.writer})) {
			t.Fatalf("after the switch came back: %+v", got)
		}
	})
}

func contractTeamVisibility(t *testing.T, tg *target) {
	onReleases(t, tg, func(t *testing.T, tg *target) {
		flavor, semver := tg.version()
		has := flavor == "gitea" && atLeast(semver, 1, 27)
		org := tg.org()
		units := map[string]string{"repo.code": "read"}
		plain, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "plain", UnitsMap: units})
		mustNoErr(t, err)
		limited, err := tg.c.CreateTeam(ctx(t), org, forge.CreateTeamOption{Name: "limited", UnitsMap: units, Visibility: "limited"})
		mustNoErr(t, err)
		want := func(v string) string {
			if has {
				return v
			}
			return "" // not answered
		}
		if plain.Visibility != want("private") || limited.Visibility != want("limited") {
			t.Fatalf("created: %q and %q, want %q and %q", plain.Visibility, limited.Visibility, want("private"), want("limited"))
		}
		// A PATCH without it leaves it; with it, changes it.
		edited, err := tg.c.EditTeam(ctx(t), org, limited.ID, forge.EditTeamOption{Description: new("d")})
		mustNoErr(t, err)
		if edited.Visibility != want("limited") {
			t.Fatalf("after an edit without it: %q", edited.Visibility)
		}
		edited, err = tg.c.EditTeam(ctx(t), org, limited.ID, forge.EditTeamOption{Visibility: new("public")})
		mustNoErr(t, err)
		if edited.Visibility != want("public") {
			t.Fatalf("after an edit to public: %q", edited.Visibility)
		}
		if listed := teamNamed(t, tg, org, "limited"); listed == nil || listed.Visibility != want("public") {
			t.Fatalf("listed: %+v", listed)
		}
		// Another value is refused where it is known, ignored elsewhere.
		_, err = tg.c.EditTeam(ctx(t), org, limited.ID, forge.EditTeamOption{Visibility: new("secret")})
		if has {
			wantKind(t, err, forge.KindValidation)
		} else {
			mustNoErr(t, err)
		}
		// The Owners team's stays as the forge made it.
		owners := teamNamed(t, tg, org, "owners")
		_, err = tg.c.EditTeam(ctx(t), org, owners.ID, forge.EditTeamOption{Visibility: new("private")})
		mustNoErr(t, err)
		if after := teamNamed(t, tg, org, "owners"); after.Visibility != want("limited") {
			t.Fatalf("the Owners team's visibility: %q, want %q", after.Visibility, want("limited"))
		}
	})
}

func contractRepoNewSettings(t *testing.T, tg *target) {
	onReleases(t, tg, func(t *testing.T, tg *target) {
		flavor, semver := tg.version()
		gitea := flavor == "gitea"
		hasCode, hasUpdate := gitea && atLeast(semver, 1, 25), gitea && atLeast(semver, 1, 27)
		org := tg.org()
		name := tg.repo(org)
		r, err := tg.c.GetRepo(ctx(t), org, name)
		mustNoErr(t, err)
		// A new repository: code on, merge updates allowed and the default.
		if r.HasCode != hasCode || r.AllowMergeUpdate != hasUpdate || (r.DefaultUpdateStyle == "merge") != hasUpdate {
			t.Fatalf("new: has_code %v allow_merge_update %v default_update_style %q", r.HasCode, r.AllowMergeUpdate, r.DefaultUpdateStyle)
		}
		r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{HasCode: new(false),
			AllowMergeUpdate: new(false), DefaultUpdateStyle: new("rebase")})
		mustNoErr(t, err)
		if r.HasCode || r.AllowMergeUpdate || (r.DefaultUpdateStyle == "rebase") != hasUpdate || !r.AllowRebaseUpdate {
			t.Fatalf("after the edit: has_code %v allow_merge_update %v default_update_style %q allow_rebase_update %v",
				r.HasCode, r.AllowMergeUpdate, r.DefaultUpdateStyle, r.AllowRebaseUpdate)
		}
		if !hasUpdate {
			return
		}
		// 1.27 checks the update settings together: the default must be on,
		// one style at least, merge or rebase; nothing of a refused PATCH's
		// units is written.
		_, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{AllowRebaseUpdate: new(false)})
		wantRejected(t, err, "at least one pull request branch update style must be enabled")
		_, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{AllowMergeUpdate: new(true), AllowRebaseUpdate: new(false)})
		wantRejected(t, err, "default update style must be enabled")
		_, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{DefaultUpdateStyle: new("squash")})
		wantRejected(t, err, "default update style must be merge or rebase")
		r, err = tg.c.GetRepo(ctx(t), org, name)
		mustNoErr(t, err)
		if r.AllowMergeUpdate || !r.AllowRebaseUpdate || r.DefaultUpdateStyle != "rebase" {
			t.Fatalf("refused edits changed it: %+v", r)
		}
		r, err = tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{AllowMergeUpdate: new(true), DefaultUpdateStyle: new("merge"), HasCode: new(true)})
		mustNoErr(t, err)
		if !r.AllowMergeUpdate || r.DefaultUpdateStyle != "merge" || !r.HasCode {
			t.Fatalf("back: %+v", r)
		}
	})
}

// contractRepoManualMerge: Gitea 1.24 writes the two manual-merge settings
// of an edit but answers neither, in GET as in the listing (its
// api.Repository lacks them; probed on 1.24.6): a spec setting one could
// never be seen applied there, so they are gated from 1.25.
func contractRepoManualMerge(t *testing.T, tg *target) {
	onReleases(t, tg, func(t *testing.T, tg *target) {
		flavor, semver := tg.version()
		answered := flavor == "gitea" && atLeast(semver, 1, 25)
		org := tg.org()
		name := tg.repo(org)
		r, err := tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{HasPullRequests: new(true),
			AllowManualMerge: new(true), AutodetectManualMerge: new(true)})
		mustNoErr(t, err)
		if r.AllowManualMerge != answered || r.AutodetectManualMerge != answered {
			t.Fatalf("edit answer: allow_manual_merge %v autodetect_manual_merge %v, want %v", r.AllowManualMerge, r.AutodetectManualMerge, answered)
		}
		all, err := tg.c.ListOrgRepos(ctx(t), org)
		mustNoErr(t, err)
		i := slices.IndexFunc(all, func(x forge.Repository) bool { return x.ID == r.ID })
		if i < 0 || all[i].AllowManualMerge != answered || all[i].AutodetectManualMerge != answered {
			t.Fatalf("listing: %+v, want the manual-merge settings %v", all, answered)
		}
	})
}
