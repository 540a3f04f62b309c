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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The organization behaviours are what the Organization kind relies on.
// TestContract runs them.
var _ = registerBehaviours("organization", []behaviour{
	{"orgs/create get edit delete", contractOrgLifecycle, nil},
	{"orgs/the user's list holds private ones as GET answers them", contractOrgListMine, nil},
	{"orgs/name rules", contractOrgNameRules, nil},
	{"orgs/duplicate name is 422, case-insensitive", contractOrgDuplicate, nil},
	{"orgs/visibility and website rules", contractOrgFieldRules, nil},
	{"orgs/edit changes only what is sent", contractOrgEditPartial, nil},
	{"orgs/delete refused while repositories remain", contractOrgDeleteWithRepos, nil},
	{"orgs/blocks by name without case; refusals; blocked users kept out of teams and collaborations", contractOrgBlocks, nil},
})

func contractOrgLifecycle(t *testing.T, tg *target) {
	name := uniqueName("ct")
	created, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{
		Name: name, FullName: "Acme Corp", Email: "ops@acme.example", Description: "d",
		Website: "https://acme.example", Location: "Mars", Visibility: "limited",
		RepoAdminChangeTeamAccess: true,
	})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })
	want := forge.Organization{
		ID: created.ID, Name: name, FullName: "Acme Corp", Email: "ops@acme.example", Description: "d",
		Website: "https://acme.example", Location: "Mars", Visibility: "limited", RepoAdminChangeTeamAccess: true,
	}
	if diff := cmp.Diff(want, *created); diff != "" {
		t.Fatalf("created org (-want +got):\n%s", diff)
	}
	got, err := tg.c.GetOrg(ctx(t), strings.ToUpper(name)) // names are case-insensitive
	mustNoErr(t, err)
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Fatalf("got org (-want +got):\n%s", diff)
	}
	mustNoErr(t, tg.c.DeleteOrg(ctx(t), name))
	_, err = tg.c.GetOrg(ctx(t), name)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteOrg(ctx(t), name), forge.KindNotFound)
}

func contractOrgListMine(t *testing.T, tg *target) {
	var names []string
	for _, vis := range []string{"public", "limited", "private"} {
		name := uniqueName("mine")
		_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name, FullName: "F " + vis, Description: "d",
			Website: "https://acme.example", Location: "Mars", Visibility: vis})
		mustNoErr(t, err)
		t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })
		names = append(names, name)
	}
	mine, err := tg.c.ListMyOrgs(ctx(t))
	mustNoErr(t, err)
	for _, name := range names {
		got, err := tg.c.GetOrg(ctx(t), name)
		mustNoErr(t, err)
		i := slices.IndexFunc(mine, func(o forge.Organization) bool { return o.Name == name })
		if i < 0 {
			t.Fatalf("organization %s (%s) is not in the user's list", name, got.Visibility)
		}
		if diff := cmp.Diff(*got, mine[i]); diff != "" {
			t.Fatalf("listed %s differs from GET (-get +list):\n%s", name, diff)
		}
	}
	mustNoErr(t, tg.c.DeleteOrg(ctx(t), names[0]))
	mine, err = tg.c.ListMyOrgs(ctx(t))
	mustNoErr(t, err)
	if slices.ContainsFunc(mine, func(o forge.Organization) bool { return o.Name == names[0] }) {
		t.Fatalf("deleted organization %s still listed", names[0])
	}
}

func contractOrgNameRules(t *testing.T, tg *target) {
	cases := map[string]string{
		"-lead":    "[UserName]: invalid username",
		"trail-":   "[UserName]: invalid username",
		"dou..ble": "[UserName]: invalid username",
		"sp ace":   "[UserName]: invalid username",
		strings.Replace(uniqueName("a"), "-", "_", 1): "", // one "_" inside is fine
		strings.Repeat("a", 41):                       "[UserName]: MaxSize",
		"":                                            "[UserName]: Required",
		"api":                                         "name is reserved",
		"Explore":                                     "name is reserved",
		"acme.keys":                                   "name pattern is not allowed",
	}
	for name, msg := range cases {
		org, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name})
		if msg == "" {
			mustNoErr(t, err)
			_ = tg.c.DeleteOrg(ctx(t), org.Name)
			continue
		}
		if err == nil {
			_ = tg.c.DeleteOrg(ctx(t), name)
		}
		wantRejected(t, err, msg)
	}
}

func contractOrgDuplicate(t *testing.T, tg *target) {
	name := tg.org()
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: strings.ToUpper(name)})
	wantRejected(t, err, "user already exists")
	// Users and organizations share one namespace.
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	_, err = tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: me.Login})
	wantRejected(t, err, "user already exists")
}

func contractOrgFieldRules(t *testing.T, tg *target) {
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: uniqueName("ct"), Visibility: "secret"})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: uniqueName("ct"), Website: "ftp://acme.example"})
	wantKind(t, err, forge.KindValidation)
	name := uniqueName("ct")
	org, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })
	if org.Visibility != "public" {
		t.Fatalf("default visibility %q, want public", org.Visibility)
	}
	_, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Website: ptr("not a url")})
	wantKind(t, err, forge.KindValidation)
}

func contractOrgEditPartial(t *testing.T, tg *target) {
	orgEditPartial(t, tg)
	if !tg.live {
		orgEditPartial(t, newTarget(t, fakeforge.WithVersion("1.25.5")))
	}
}

func orgEditPartial(t *testing.T, tg *target) {
	name := uniqueName("ct")
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: name, FullName: "Full", Email: "a@b.example", Location: "Here", Visibility: "private"})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), name) })

	before, err := tg.c.GetOrg(ctx(t), name)
	mustNoErr(t, err)
	if !editsOnlySent(tg) {
		// Gitea 1.24 and 1.25 write full_name, description, website and
		// location empty when they are not sent; email and visibility stay.
		got, err := tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Description: ptr("new")})
		mustNoErr(t, err)
		if got.FullName != "" || got.Location != "" || got.Description != "new" || got.Visibility != "private" || got.Email != "a@b.example" {
			t.Fatalf("unsent fields on a release before 1.26: %+v", got)
		}
		_, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{FullName: ptr("Full"), Location: ptr("Here")})
		mustNoErr(t, err)
		before, err = tg.c.GetOrg(ctx(t), name)
		mustNoErr(t, err)
	}
	// What the operator sends (KeepUnsent) keeps them on every release.
	got, err := tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Description: ptr("new")}.KeepUnsent(before))
	mustNoErr(t, err)
	if got.FullName != "Full" || got.Location != "Here" || got.Description != "new" || got.Visibility != "private" {
		t.Fatalf("unsent fields changed: %+v", got)
	}
	// visibility "" is ignored; email "" clears from 1.26 and is ignored before.
	got, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Visibility: ptr(""), Email: ptr("")}.KeepUnsent(got))
	mustNoErr(t, err)
	wantEmail := ""
	if !editsOnlySent(tg) {
		wantEmail = "a@b.example"
	}
	if got.Visibility != "private" || got.Email != wantEmail || got.FullName != "Full" {
		t.Fatalf("after visibility \"\" and email \"\": %+v", got)
	}
	got, err = tg.c.EditOrg(ctx(t), name, forge.EditOrgOption{Visibility: ptr("public"), RepoAdminChangeTeamAccess: ptr(true)})
	mustNoErr(t, err)
	if got.Visibility != "public" || !got.RepoAdminChangeTeamAccess {
		t.Fatalf("after edit: %+v", got)
	}
}

func contractOrgDeleteWithRepos(t *testing.T, tg *target) {
	org := uniqueName("ct")
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: org})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), org) })
	repo := tg.repo(org)
	err = tg.c.DeleteOrg(ctx(t), org)
	wantKind(t, err, forge.KindServer)
	if _, err := tg.c.GetOrg(ctx(t), org); err != nil {
		t.Fatalf("org gone after a refused delete: %v", err)
	}
	mustNoErr(t, tg.c.DeleteRepo(ctx(t), org, repo))
	mustNoErr(t, tg.c.DeleteOrg(ctx(t), org))
}

// contractOrgBlocks: an organization's owner blocks and unblocks users by
// name, without case; blocking ends a user's collaborations on its
// repositories and keeps them out of its teams and collaborations; the
// forge refuses a user already blocked, a member, a site administrator
// and an organization (400), and an unknown user (404); unblocking one not
// blocked is 400. Probed alike on Gitea 1.24.6, 1.25.5, 1.26.4 and 1.27.3.
func contractOrgBlocks(t *testing.T, tg *target) {
	org := uniqueName("blk")
	_, err := tg.c.CreateOrg(ctx(t), forge.CreateOrgOption{Name: org})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteOrg(ctx(t), org) })
	bob, carol, dave := tg.user(), tg.user(), tg.user()
	blocked := func() []string {
		t.Helper()
		list, err := tg.c.ListOrgBlocks(ctx(t), org)
		mustNoErr(t, err)
		var out []string
		for _, u := range list {
			out = append(out, u.Login)
		}
		slices.Sort(out)
		return out
	}
	if got := blocked(); len(got) != 0 {
		t.Fatalf("a new organization blocks %v", got)
	}

	repo, err := tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: "r"})
	mustNoErr(t, err)
	t.Cleanup(func() { _ = tg.c.DeleteRepo(ctx(t), org, repo.Name) })
	mustNoErr(t, tg.c.SetCollaborator(ctx(t), org, repo.Name, bob, "write"))
	mustNoErr(t, tg.c.BlockOrgUser(ctx(t), org, strings.ToUpper(bob)))
	mustNoErr(t, tg.c.BlockOrgUser(ctx(t), org, carol))
	want := []string{bob, carol}
	slices.Sort(want)
	if got := blocked(); !slices.Equal(got, want) {
		t.Fatalf("blocked %v, want %v", got, want)
	}
	collaborators, err := tg.c.ListCollaborators(ctx(t), org, repo.Name)
	mustNoErr(t, err)
	if len(collaborators) != 0 {
		t.Fatalf("a blocked user stays a collaborator: %v", collaborators)
	}
	wantStatus(t, tg.c.SetCollaborator(ctx(t), org, repo.Name, bob, "write"), 403, "user is blocked")
	teams, err := tg.c.ListTeams(ctx(t), org)
	mustNoErr(t, err)
	wantStatus(t, tg.c.AddTeamMember(ctx(t), teams[0].ID, carol), 403, "user is blocked")

	wantStatus(t, tg.c.BlockOrgUser(ctx(t), org, bob), 400, "cannot block the user")
	mustNoErr(t, tg.c.AddTeamMember(ctx(t), teams[0].ID, dave))
	wantStatus(t, tg.c.BlockOrgUser(ctx(t), org, dave), 400, "cannot block the user")
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	wantStatus(t, tg.c.BlockOrgUser(ctx(t), org, me.Login), 400, "cannot block the user")
	wantStatus(t, tg.c.BlockOrgUser(ctx(t), org, org), 400, "cannot block an organization")
	wantKind(t, tg.c.BlockOrgUser(ctx(t), org, uniqueName("nosuch")), forge.KindNotFound)

	mustNoErr(t, tg.c.UnblockOrgUser(ctx(t), org, bob))
	wantStatus(t, tg.c.UnblockOrgUser(ctx(t), org, bob), 400, "cannot unblock the user")
	wantKind(t, tg.c.UnblockOrgUser(ctx(t), org, uniqueName("nosuch")), forge.KindNotFound)
	if got := blocked(); !slices.Equal(got, []string{carol}) {
		t.Fatalf("blocked %v after unblocking %s, want [%s]", got, bob, carol)
	}
	_, err = tg.c.ListOrgBlocks(ctx(t), uniqueName("nosuchorg"))
	wantKind(t, err, forge.KindNotFound)
}
