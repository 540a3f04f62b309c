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

package controllers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Which team is Owners is the forge's answer (the team
// it reads with permission "owner"), not the Team's spec name. These run
// the Team's pass on the fake forge directly, with Teams admission refuses
// today (Owners among previousNames) but that may have been stored before
// the rule existed, or whose status.id was edited.

// ownersForge is a fake forge with organization acme, its Owners team
// (the site admin its member) and user bob, and a client of it.
func ownersForge(t *testing.T) (*fakeforge.Server, forge.Interface, forge.Team) {
	t.Helper()
	ff, fc, _ := testForge(t, "acme")
	ff.AddUser("bob")
	owners, ok := ff.Team("acme", "Owners")
	if !ok {
		t.Fatal("the fake made no Owners team")
	}
	if owners.Permission != "owner" {
		t.Fatalf("the fake reads the Owners team's permission as %q, Gitea as owner", owners.Permission)
	}
	return ff, fc, owners
}

func ownersTestTeam(name string, edit func(*forgev1.Team)) *forgev1.Team {
	t := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: strings.ToLower(name)}}
	t.Spec.Organization = "acme"
	t.Spec.Name = new(forgev1.TeamName(name))
	t.Spec.Members = []forgev1.OwnerName{"bob"}
	t.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
	if edit != nil {
		edit(t)
	}
	return t
}

// wantStall fails unless err stalls the resource with reason and a
// message containing every part.
func wantStall(t *testing.T, err error, reason string, parts ...string) {
	t.Helper()
	var le *reconciler.Error
	if !errors.As(err, &le) || le.Reason != reason {
		t.Fatalf("got %v, want a stall with reason %s", err, reason)
	}
	for _, p := range parts {
		if !strings.Contains(le.Message, p) {
			t.Errorf("message %q does not say %q", le.Message, p)
		}
	}
}

// wantOwnersUntouched fails unless no request wrote anything and the
// Owners team (by id) is still named Owners with the site admin only.
func wantOwnersUntouched(t *testing.T, ff *fakeforge.Server, owners forge.Team) {
	t.Helper()
	if w := ff.WriteRequests(); len(w) > 0 {
		t.Errorf("wrote to the forge: %v", w)
	}
	got, ok := ff.Team("acme", "Owners")
	if !ok || got.ID != owners.ID {
		t.Fatalf("the Owners team (id %d) is no longer named Owners: %v", owners.ID, ff.Teams("acme"))
	}
	if m := ff.TeamMembers("acme", "Owners"); !slices.Equal(m, []string{ff.Login()}) {
		t.Errorf("Owners' members are %v, want only %s", m, ff.Login())
	}
}

// TestTeamNotNamedOwnersNeverTakesOwners: a Team whose name is not Owners
// that finds the Owners team (under a previous name, by an edited
// status.id, or by its name after someone renamed Owners on the forge) is
// Stalled with reason Conflict and writes nothing: before, it renamed
// Owners, removed the owners it did not list and wrote its access.
func TestTeamNotNamedOwnersNeverTakesOwners(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(fc forge.Interface, owners forge.Team) *forgev1.Team
	}{
		{"Owners among previousNames", func(forge.Interface, forge.Team) *forgev1.Team {
			return ownersTestTeam("admins", func(t *forgev1.Team) { t.Spec.PreviousNames = []forgev1.TeamName{"Owners"} })
		}},
		{"status.id of the Owners team", func(_ forge.Interface, owners forge.Team) *forgev1.Team {
			return ownersTestTeam("platform", func(t *forgev1.Team) { t.Status.ID = owners.ID })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ff, fc, owners := ownersForge(t)
			tm := tc.setup(fc, owners)
			ff.ClearRequests()
			e := &teamExt{obj: tm, fc: fc}
			_, err := e.Observe(context.Background())
			wantStall(t, err, forgev1.ReasonConflict, "Owners team", "acme", `"Owners"`)
			wantOwnersUntouched(t, ff, owners)
		})
	}
}

// TestTeamFindsOwnersRenamedOnTheForge: the Owners team renamed on the
// forge (the API allows it) is still Owners (its permission stays owner):
// a Team of its new name is Stalled (Conflict) and writes nothing, and a
// new team named Owners that is not the owner team is not taken for it.
func TestTeamFindsOwnersRenamedOnTheForge(t *testing.T) {
	ff, fc, owners := ownersForge(t)
	ctx := context.Background()
	if _, err := fc.EditTeam(ctx, "acme", owners.ID, forge.EditTeamOption{Name: "admins"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "Owners",
		UnitsMap: map[string]string{"repo.code": "read"}}); err != nil {
		t.Fatal(err)
	}
	ff.ClearRequests()

	_, err := (&teamExt{obj: ownersTestTeam("admins", nil), fc: fc}).Observe(ctx)
	wantStall(t, err, forgev1.ReasonConflict, "Owners team", `"admins"`)

	o := ownersTestTeam("Owners", nil)
	_, err = (&teamExt{obj: o, fc: fc}).Observe(ctx)
	wantStall(t, err, forgev1.ReasonConflict, "not", "Owners team")

	o.Status.ID = owners.ID // the Owners Team had adopted it before the rename
	_, err = (&teamExt{obj: o, fc: fc}).Observe(ctx)
	wantStall(t, err, forgev1.ReasonConflict, `"admins"`, "never renames")
	if w := ff.WriteRequests(); len(w) > 0 {
		t.Errorf("wrote to the forge: %v", w)
	}
	if m := ff.TeamMembers("acme", "admins"); !slices.Equal(m, []string{ff.Login()}) {
		t.Errorf("the Owners team's members are %v, want only %s", m, ff.Login())
	}
}

// TestTeamDeletingLeavesOwners: deleting a Team (deletionPolicy Delete)
// that finds the Owners team, whatever its spec name, leaves the team
// on the forge with a Warning Orphaned Event. Before, a Team not named
// Owners deleted it.
func TestTeamDeletingLeavesOwners(t *testing.T) {
	for _, name := range []string{"platform", "Owners"} {
		t.Run(name, func(t *testing.T) {
			ff, fc, owners := ownersForge(t)
			tm := ownersTestTeam(name, func(t *forgev1.Team) {
				t.Status.ID = owners.ID
				t.DeletionTimestamp = &metav1.Time{Time: metav1.Now().Time}
			})
			ff.ClearRequests()
			e := &teamExt{obj: tm, fc: fc}
			obs, err := e.Observe(context.Background())
			if err != nil {
				t.Fatalf("observing for the deletion: %v", err)
			}
			err = e.Delete(context.Background(), obs)
			var left *reconciler.Left
			if !errors.As(err, &left) {
				t.Fatalf("Delete: got %v, want the team left", err)
			}
			if left.Event.Reason != forgev1.ReasonOrphaned || left.Event.Type != "Warning" || !strings.Contains(left.Event.Note, "never deleted") {
				t.Errorf("Event %+v, want a Warning Orphaned saying it is never deleted", left.Event)
			}
			wantOwnersUntouched(t, ff, owners)
		})
	}
}

// TestOwnersTeamNeverRenamedNorEmptied: a Team named Owners in another
// case does not rename the forge's Owners team (Gitea knows it by the exact
// name Owners), and a pass that would remove its last member removes
// nobody and stalls (Rejected) instead of failing on the forge's 500.
func TestOwnersTeamNeverRenamedNorEmptied(t *testing.T) {
	ff, fc, owners := ownersForge(t)
	ctx := context.Background()
	o := ownersTestTeam("OWNERS", func(t *forgev1.Team) {
		t.Spec.Members = []forgev1.OwnerName{"nobody"}
	})
	e := &teamExt{obj: o, fc: fc}
	obs, err := e.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(obs.Diff, "name") {
		t.Errorf("diff %v: the Owners team's name would be written", obs.Diff)
	}
	ff.ClearRequests()
	err = e.Update(ctx, obs)
	wantStall(t, err, forgev1.ReasonRejected, "last member", ff.Login())
	for _, r := range ff.WriteRequests() {
		if r.Method != "PUT" || !strings.HasSuffix(r.Path, "/members/nobody") {
			t.Errorf("wrote %s %s: only the addition of nobody may be tried", r.Method, r.Path)
		}
	}
	if got, ok := ff.Team("acme", "Owners"); !ok || got.ID != owners.ID {
		t.Fatalf("the Owners team was renamed: %v", ff.Teams("acme"))
	}
	if m := ff.TeamMembers("acme", "Owners"); !slices.Equal(m, []string{ff.Login()}) {
		t.Errorf("Owners' members are %v, want only %s", m, ff.Login())
	}
	if len(o.Status.Failures) != 1 || o.Status.Failures[0].Member != "nobody" {
		t.Errorf("status.failures %v, want nobody", o.Status.Failures)
	}
}
