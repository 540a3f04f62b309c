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
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The tagProtection behaviours are what the TagProtection kind relies on, read
// in Gitea's routers/api/v1/repo/tag.go and probed on 1.24.6 and 1.26.4
// before the fake learnt them. TestContract runs them.
var _ = registerBehaviours("tagProtection", []behaviour{
	{"tagprotections/create, list, get, edit, delete by id; a pattern is trimmed, taken is 403, empty 400", contractTagLifecycle, nil},
	{"tagprotections/allow-lists: any case, read back as stored; unknown is 422; only those with access shown", contractTagAllowLists, nil},
	{"tagprotections/a user's repository ignores team lists, unknown teams included", contractTagUserRepo, nil},
	{"tagprotections/archived repository: POST and PATCH 423, DELETE allowed", contractTagArchived, nil},
	{"tagprotections/other repository's id and unknown repository are 404", contractTagNotFound, nil},
	{"tagprotections/the fake as Gitea 1.22 has no routes", contractTagMissing, needFake},
})

func contractTagLifecycle(t *testing.T, tg *target) {
	sc := newBPScene(t, tg)
	all, err := tg.c.ListTagProtections(ctx(t), sc.org, sc.repo)
	mustNoErr(t, err)
	if all == nil || len(all) != 0 {
		t.Fatalf("a new repository's tag protections: %#v", all)
	}
	made, err := tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{
		NamePattern: "  v*  ", WhitelistUsernames: []string{sc.writer}})
	mustNoErr(t, err)
	want := forge.TagProtection{ID: made.ID, NamePattern: "v*", WhitelistUsernames: []string{sc.writer}, WhitelistTeams: []string{}}
	if d := cmp.Diff(want, *made); d != "" {
		t.Fatalf("created (-want +got):\n%s", d)
	}
	got, err := tg.c.GetTagProtection(ctx(t), sc.org, sc.repo, made.ID)
	mustNoErr(t, err)
	if d := cmp.Diff(want, *got); d != "" {
		t.Fatalf("read (-want +got):\n%s", d)
	}
	// The pattern is the key, compared exactly: a taken one is 403 (also
	// when sent with spaces), another case is another protection.
	_, err = tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: " v* ", WhitelistUsernames: []string{sc.writer}})
	wantKind(t, err, forge.KindForbidden)
	wantStatus(t, err, http.StatusForbidden, "Tag protection already exist")
	upper, err := tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "V*", WhitelistTeams: []string{sc.alpha}})
	mustNoErr(t, err)
	_, err = tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "  ", WhitelistUsernames: []string{sc.writer}})
	wantStatus(t, err, http.StatusBadRequest, "name_pattern are empty")
	_, err = tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "x*"})
	wantStatus(t, err, http.StatusBadRequest, "both whitelist_usernames and whitelist_teams are empty")
	// Neither glob nor regular expression is checked: an invalid one is kept.
	bad, err := tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "/[/", WhitelistUsernames: []string{sc.writer}})
	mustNoErr(t, err)
	if bad.NamePattern != "/[/" {
		t.Fatalf("an invalid regular expression: %+v", bad)
	}
	all, err = tg.c.ListTagProtections(ctx(t), sc.org, sc.repo)
	mustNoErr(t, err)
	var ids []int64
	for _, p := range all {
		ids = append(ids, p.ID)
	}
	if d := cmp.Diff([]int64{made.ID, upper.ID, bad.ID}, ids); d != "" {
		t.Fatalf("listing by id (-want +got):\n%s", d)
	}
	// PATCH changes what is sent: [] clears a list; the pattern may be
	// renamed onto a taken one (no check there).
	edited, err := tg.c.EditTagProtection(ctx(t), sc.org, sc.repo, made.ID, forge.EditTagProtectionOption{
		WhitelistTeams: &[]string{sc.zeta}})
	mustNoErr(t, err)
	if d := cmp.Diff(forge.TagProtection{ID: made.ID, NamePattern: "v*", WhitelistUsernames: []string{sc.writer}, WhitelistTeams: []string{sc.zeta}}, *edited); d != "" {
		t.Fatalf("teams edited (-want +got):\n%s", d)
	}
	edited, err = tg.c.EditTagProtection(ctx(t), sc.org, sc.repo, made.ID, forge.EditTagProtectionOption{
		WhitelistUsernames: &[]string{}, WhitelistTeams: &[]string{}})
	mustNoErr(t, err)
	if len(edited.WhitelistUsernames) != 0 || len(edited.WhitelistTeams) != 0 {
		t.Fatalf("lists cleared: %+v", edited)
	}
	edited, err = tg.c.EditTagProtection(ctx(t), sc.org, sc.repo, bad.ID, forge.EditTagProtectionOption{NamePattern: ptr(" v* ")})
	mustNoErr(t, err)
	if edited.NamePattern != " v* " {
		t.Fatalf("pattern edited as sent: %+v", edited)
	}
	mustNoErr(t, tg.c.DeleteTagProtection(ctx(t), sc.org, sc.repo, made.ID))
	_, err = tg.c.GetTagProtection(ctx(t), sc.org, sc.repo, made.ID)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteTagProtection(ctx(t), sc.org, sc.repo, made.ID), forge.KindNotFound)
	_, err = tg.c.EditTagProtection(ctx(t), sc.org, sc.repo, made.ID, forge.EditTagProtectionOption{NamePattern: ptr("w*")})
	wantKind(t, err, forge.KindNotFound)
	if before(tg, 1, 25) {
		wantStatus(t, err, http.StatusNotFound, "The target couldn't be found.")
	} else {
		wantStatus(t, err, http.StatusNotFound, "not found")
	}
}

func contractTagAllowLists(t *testing.T, tg *target) {
	sc := newBPScene(t, tg)
	// Unknown users are checked before teams; nothing is written.
	nouser, noteam := uniqueName("nouser"), uniqueName("noteam")
	_, err := tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "v*",
		WhitelistUsernames: []string{sc.writer, nouser}, WhitelistTeams: []string{noteam}})
	wantKind(t, err, forge.KindValidation)
	wantStatus(t, err, http.StatusUnprocessableEntity, "user does not exist [uid: 0, name: "+nouser+"]")
	_, err = tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "v*",
		WhitelistUsernames: []string{sc.writer}, WhitelistTeams: []string{noteam}})
	wantStatus(t, err, http.StatusUnprocessableEntity, "team does not exist [org_id ")
	wantStatus(t, err, http.StatusUnprocessableEntity, "team_id 0, name: "+noteam+"]")
	all, err := tg.c.ListTagProtections(ctx(t), sc.org, sc.repo)
	mustNoErr(t, err)
	if len(all) != 0 {
		t.Fatalf("refused creates wrote: %+v", all)
	}
	// Names resolve in any case and read back as stored. A read
	// collaborator counts (read access to pull requests); a stranger and a
	// team without the repository, or with issues only, are kept but not
	// shown.
	made, err := tg.c.CreateTagProtection(ctx(t), sc.org, sc.repo, forge.CreateTagProtectionOption{NamePattern: "v*",
		WhitelistUsernames: []string{strings.ToUpper(sc.writer), sc.reader, sc.stranger, sc.writer},
		WhitelistTeams:     []string{strings.ToUpper(sc.zeta), sc.alpha, sc.issues, sc.norepo}})
	mustNoErr(t, err)
	if d := cmp.Diff(sorted([]string{sc.writer, sc.reader}), sorted(made.WhitelistUsernames)); d != "" {
		t.Fatalf("users read back (-want +got):\n%s", d)
	}
	if d := cmp.Diff(sorted([]string{sc.zeta, sc.alpha}), sorted(made.WhitelistTeams)); d != "" {
		t.Fatalf("teams read back (-want +got):\n%s", d)
	}
	got, err := tg.c.GetTagProtection(ctx(t), sc.org, sc.repo, made.ID)
	mustNoErr(t, err)
	// PATCH checks teams before users; nothing is written on a 422.
	_, err = tg.c.EditTagProtection(ctx(t), sc.org, sc.repo, made.ID, forge.EditTagProtectionOption{
		WhitelistUsernames: &[]string{nouser}, WhitelistTeams: &[]string{noteam}})
	wantStatus(t, err, http.StatusUnprocessableEntity, "team does not exist")
	_, err = tg.c.EditTagProtection(ctx(t), sc.org, sc.repo, made.ID, forge.EditTagProtectionOption{
		WhitelistUsernames: &[]string{nouser}, WhitelistTeams: &[]string{sc.alpha}})
	wantStatus(t, err, http.StatusUnprocessableEntity, "user does not exist [uid: 0, name: "+nouser+"]")
	again, err := tg.c.GetTagProtection(ctx(t), sc.org, sc.repo, made.ID)
	mustNoErr(t, err)
	if d := cmp.Diff(got, again); d != "" {
		t.Fatalf("refused edits wrote (-want +got):\n%s", d)
	}
}

func contractTagUserRepo(t *testing.T, tg *target) {
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	r, err := tg.c.CreateUserRepo(ctx(t), forge.CreateRepoOption{Name: uniqueName("mine")})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteRepo(context.Background(), me.Login, r.Name) })
	got, err := tg.c.CreateTagProtection(ctx(t), me.Login, r.Name, forge.CreateTagProtectionOption{NamePattern: "v*",
		WhitelistUsernames: []string{me.Login}, WhitelistTeams: []string{uniqueName("noteam"), "Owners"}})
	mustNoErr(t, err)
	if d := cmp.Diff(forge.TagProtection{ID: got.ID, NamePattern: "v*", WhitelistUsernames: []string{me.Login}, WhitelistTeams: []string{}}, *got); d != "" {
		t.Fatalf("a user's repository (-want +got):\n%s", d)
	}
	// Teams alone are not "both empty" to the check, and are then dropped.
	only, err := tg.c.CreateTagProtection(ctx(t), me.Login, r.Name, forge.CreateTagProtectionOption{NamePattern: "w*",
		WhitelistTeams: []string{uniqueName("noteam")}})
	mustNoErr(t, err)
	if len(only.WhitelistUsernames) != 0 || len(only.WhitelistTeams) != 0 {
		t.Fatalf("teams only on a user's repository: %+v", only)
	}
	got, err = tg.c.EditTagProtection(ctx(t), me.Login, r.Name, got.ID, forge.EditTagProtectionOption{WhitelistTeams: &[]string{uniqueName("noteam")}})
	mustNoErr(t, err)
	if len(got.WhitelistTeams) != 0 || len(got.WhitelistUsernames) != 1 {
		t.Fatalf("teams edited on a user's repository: %+v", got)
	}
}

func contractTagArchived(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	made, err := tg.c.CreateTagProtection(ctx(t), org, repo, forge.CreateTagProtectionOption{NamePattern: "v*", WhitelistUsernames: []string{me.Login}})
	mustNoErr(t, err)
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(true)})
	mustNoErr(t, err)
	locked := archivedMessage(tg, org, repo)
	_, err = tg.c.CreateTagProtection(ctx(t), org, repo, forge.CreateTagProtectionOption{NamePattern: "w*", WhitelistUsernames: []string{me.Login}})
	wantStatus(t, err, http.StatusLocked, locked)
	_, err = tg.c.EditTagProtection(ctx(t), org, repo, made.ID, forge.EditTagProtectionOption{NamePattern: ptr("w*")})
	wantStatus(t, err, http.StatusLocked, locked)
	_, err = tg.c.EditTagProtection(ctx(t), org, repo, made.ID+1000, forge.EditTagProtectionOption{NamePattern: ptr("w*")})
	wantStatus(t, err, http.StatusLocked, locked)
	all, err := tg.c.ListTagProtections(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 1 || all[0].NamePattern != "v*" {
		t.Fatalf("an archived repository's tag protections: %+v", all)
	}
	// DELETE has no archive guard.
	mustNoErr(t, tg.c.DeleteTagProtection(ctx(t), org, repo, made.ID))
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(false)})
	mustNoErr(t, err)
}

func contractTagNotFound(t *testing.T, tg *target) {
	org := tg.org()
	repo, other := tg.repo(org), tg.repo(org)
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	made, err := tg.c.CreateTagProtection(ctx(t), org, repo, forge.CreateTagProtectionOption{NamePattern: "v*", WhitelistUsernames: []string{me.Login}})
	mustNoErr(t, err)
	_, err = tg.c.GetTagProtection(ctx(t), org, other, made.ID)
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.EditTagProtection(ctx(t), org, other, made.ID, forge.EditTagProtectionOption{NamePattern: ptr("w*")})
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteTagProtection(ctx(t), org, other, made.ID), forge.KindNotFound)
	_, err = tg.c.ListTagProtections(ctx(t), org, uniqueName("nosuch"))
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.CreateTagProtection(ctx(t), org, uniqueName("nosuch"), forge.CreateTagProtectionOption{NamePattern: "v*", WhitelistUsernames: []string{me.Login}})
	wantKind(t, err, forge.KindNotFound)
	status, _ := tg.raw(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/tag_protections/abc", nil)
	if status != http.StatusNotFound {
		t.Fatalf("a non-numeric id: %d", status)
	}
	got, err := tg.c.GetTagProtection(ctx(t), org, repo, made.ID)
	mustNoErr(t, err)
	if got.NamePattern != "v*" {
		t.Fatalf("still there: %+v", got)
	}
}

// contractTagMissing: a release without the API answers its routes with
// a plain-text 404.
func contractTagMissing(t *testing.T, tg *target) {
	for _, v := range []string{"1.22.6", "1.22.0+dev-5-gabcdef"} {
		t.Run(v, func(t *testing.T) {
			old := newTarget(t)
			org := old.org()
			repo := old.repo(org)
			old.fake.SetVersion(v)
			_, err := old.c.ListTagProtections(ctx(t), org, repo)
			wantKind(t, err, forge.KindRouteNotFound)
			_, err = old.c.CreateTagProtection(ctx(t), org, repo, forge.CreateTagProtectionOption{NamePattern: "v*", WhitelistUsernames: []string{"x"}})
			wantKind(t, err, forge.KindRouteNotFound)
		})
	}
}
