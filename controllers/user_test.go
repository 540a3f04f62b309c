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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

func TestUserChanges(t *testing.T) {
	have := &forge.User{ID: 7, Login: "ci-bot", Email: "ci-bot@example.com", FullName: "CI", Visibility: "public", Active: true}
	cases := []struct {
		name   string
		spec   forgev1.UserSpec
		want   forge.EditUserOption
		fields []string
	}{
		{"unset fields are not managed", forgev1.UserSpec{Email: "ci-bot@example.com"}, forge.EditUserOption{}, nil},
		{"the email is compared without case, as the forge keeps it",
			forgev1.UserSpec{Email: "CI-Bot@Example.com"}, forge.EditUserOption{}, nil},
		{"each differing field is sent",
			forgev1.UserSpec{Email: "bot@example.com", FullName: new("Bot"), Visibility: new("private"),
				Restricted: new(true), Admin: new(true), Active: new(false), ProhibitLogin: new(true)},
			forge.EditUserOption{Email: new("bot@example.com"), FullName: new("Bot"), Visibility: "private",
				Restricted: new(true), Admin: new(true), Active: new(false), ProhibitLogin: new(true)},
			[]string{"active", "admin", "email", "fullName", "prohibitLogin", "restricted", "visibility"}},
		{"equal set fields are not sent",
			forgev1.UserSpec{Email: "ci-bot@example.com", FullName: new("CI"), Visibility: new("public"),
				Restricted: new(false), Admin: new(false), Active: new(true), ProhibitLogin: new(false)},
			forge.EditUserOption{}, nil},
		{"an empty full name clears it", forgev1.UserSpec{Email: "ci-bot@example.com", FullName: new("")},
			forge.EditUserOption{FullName: new("")}, []string{"fullName"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opt, changes := userChanges(tc.spec, have)
			if d := cmp.Diff(tc.want, opt); d != "" {
				t.Errorf("edit (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.fields, reconciler.Fields(changes)); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
		})
	}
}

// usersForge is a forge of a few accounts whose credentials belong to
// nobody among them.
type usersForge struct {
	forge.Interface
	users []forge.User
}

func (f *usersForge) ListUsers(context.Context) ([]forge.User, error) { return f.users, nil }

func (f *usersForge) CurrentUser(context.Context) (*forge.User, error) {
	return &forge.User{ID: 1, Login: "root", IsAdmin: true}, nil
}

// userPass runs a pass of User u as the loop does, through the fake forge
// of r over HTTP: the connection recorded login and id (both empty: not
// recorded yet), and ClusterForge cf decides whether u's namespace may
// have site administrators. A deleted u deletes (deletionPolicy Delete)
// what Observe found. It returns what Observe found and the pass's error.
func userPass(r *rollbackRig, u *forgev1.User, login string, id int64, cf *forgev1.ClusterForge) (reconciler.Observation, error) {
	ctx := context.Background()
	p := (&reconciler.Pass{Forge: r.fc, Reader: r.reader, Login: login, UserID: id}).
		WithAdmins(func(context.Context) (claims.Permission, error) {
			return claims.PermitsAdmins(cf, u.Namespace, nil, u.ForgeOwners()), nil
		})
	e, err := userKind{digests: r.digests, sent: secrets.NewSent()}.Connect(ctx, u, p)
	if err != nil {
		return reconciler.Observation{}, err
	}
	obs, err := e.Observe(ctx)
	if err != nil {
		return obs, err
	}
	switch {
	case !u.DeletionTimestamp.IsZero():
		if obs.Exists {
			err = e.Delete(ctx, obs)
		}
	case !obs.Exists:
		obs, err = e.Create(ctx)
	case len(obs.Changes) > 0:
		err = e.Update(ctx, obs)
	}
	return obs, err
}

// siteAdmins is a ClusterForge whose entry for namespace team manages the
// accounts named ci-* and, with grant, site administrators among them.
func siteAdmins(grant bool) *forgev1.ClusterForge {
	return &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "shared"},
		Spec: forgev1.ClusterForgeSpec{Tenants: []forgev1.ClusterForgeTenant{{Namespaces: []string{"team"},
			Owners: []forgev1.OwnerGlob{"ci-*", "forge-*"}, SiteAdmin: true, GrantAdmin: grant}}}}
}

var onShared = forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: "shared"}}

// teamUser is a User of namespace team for login, its password from
// Secret ci and every field set other than the forge has them.
func teamUser(login string) *forgev1.User {
	return &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: strings.ToLower(login), UID: "uid-user"},
		Spec: forgev1.UserSpec{ManagedSpec: onShared, Username: forgev1.OwnerName(login), Email: "taken-over@example.com",
			FullName: new("Taken over"), Active: new(false), ProhibitLogin: new(true), Admin: new(false),
			MustChangePassword: new(true), DeletionPolicy: forgev1.DeletionPolicyDelete,
			PasswordSecretRef: &forgev1.SecretKeySelector{Name: "ci", Key: "value"}}}
}

// expectStall fails t unless err stalls with reason and says want.
func expectStall(t *testing.T, err error, reason, want string) {
	t.Helper()
	var le *reconciler.Error
	if !errors.As(err, &le) || le.State != conditions.Stalled || le.Reason != reason || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want Stalled %s saying %q", err, reason, want)
	}
}

// TestConnectionAccountProtected: a User naming the account the
// connection's credentials belong to, by login in any case (recorded by
// the connection's check, or asked of the forge when not recorded yet) or
// by id (status.id, or the id of the account found by name), is Stalled,
// Protected, and writes nothing at all: no password, email, name, flag,
// demotion, deletion (deletionPolicy Delete leaves the account, with a
// Warning Event, Protected), and no adoption (Observe finds nothing).
func TestConnectionAccountProtected(t *testing.T) {
	r := newRollbackRig(t)
	r.setSecret("Tenant-Chosen-Passw0rd")
	me, ok := r.ff.User(fakeforge.DefaultLogin)
	if !ok {
		t.Fatal("the fake has no site admin")
	}
	if _, err := r.fc.CreateUser(context.Background(), forge.CreateUserOption{Username: "ci-boss", Email: "ci-boss@example.com", Password: "Pw-ci-boss-12345"}); err != nil {
		t.Fatal(err)
	}
	boss, _ := r.ff.User("ci-boss")
	unchanged := func(t *testing.T) {
		t.Helper()
		if w := r.ff.WriteRequests(); len(w) != 0 {
			t.Fatalf("writes to the forge: %v", w)
		}
		if got, _ := r.ff.User(fakeforge.DefaultLogin); got != me {
			t.Fatalf("the connection's account changed: %+v, was %+v", got, me)
		}
	}
	for _, c := range []struct {
		name      string
		username  string
		statusID  int64
		login     string
		id        int64
		deleting  bool
		why       string
		connected bool
	}{
		{name: "its login in another case", username: strings.ToUpper(fakeforge.DefaultLogin), login: me.Login, id: me.ID,
			why: `its login is "` + fakeforge.DefaultLogin + `"`},
		{name: "its login, the connection's record not made yet", username: fakeforge.DefaultLogin,
			why: `its login is "` + fakeforge.DefaultLogin + `"`},
		{name: "its login, deleted under deletionPolicy Delete", username: fakeforge.DefaultLogin, statusID: me.ID,
			login: me.Login, id: me.ID, deleting: true, why: "its login is"},
		// The connection's account renamed to ci-boss since its check:
		// the login recorded is stale, the id is not.
		{name: "the id of the account found by name", username: "ci-boss", login: me.Login, id: boss.ID,
			why: `the account "ci-boss" found for this resource has its id`},
		{name: "the id of the account found by name, deleted", username: "ci-boss", login: me.Login, id: boss.ID,
			deleting: true, why: "has its id"},
		{name: "its id in status", username: "ci-other", statusID: me.ID, login: me.Login, id: me.ID,
			why: "status.id " + strconv.FormatInt(me.ID, 10) + " is its id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.ff.ClearRequests()
			u := teamUser(c.username)
			u.Status.ID = c.statusID
			if c.deleting {
				u.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			}
			obs, err := userPass(r, u, c.login, c.id, siteAdmins(true))
			if c.deleting {
				var left *reconciler.Left
				if !errors.As(err, &left) || left.Event.Type != corev1.EventTypeWarning || left.Event.Reason != forgev1.ReasonProtected ||
					!strings.Contains(left.Event.Note, c.why) || !strings.Contains(left.Event.Note, "left user") {
					t.Fatalf("deletion: got %v, want the account left, Protected", err)
				}
			} else {
				expectStall(t, err, forgev1.ReasonProtected, c.why)
				if !strings.Contains(err.Error(), `the account the credentials of ClusterForge "shared" belong to`) {
					t.Errorf("message %q does not say whose account it is", err)
				}
				if obs.Exists || obs.ID != 0 {
					t.Errorf("the account is adopted: %+v", obs)
				}
			}
			unchanged(t)
			if got, _ := r.ff.User("ci-boss"); got != boss {
				t.Fatalf("ci-boss changed: %+v", got)
			}
		})
	}

	// Another account of the same entry is managed: its fields and
	// password are written, and it is deleted.
	r.ff.ClearRequests()
	other := teamUser("ci-boss")
	other.Spec.Active, other.Spec.ProhibitLogin, other.Spec.MustChangePassword = nil, nil, nil
	if _, err := userPass(r, other, me.Login, me.ID, siteAdmins(false)); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.ff.User("ci-boss"); got.Email != "taken-over@example.com" || got.FullName != "Taken over" {
		t.Fatalf("another account is not managed: %+v", got)
	}
	other.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	if _, err := userPass(r, other, me.Login, me.ID, siteAdmins(false)); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.ff.User("ci-boss"); ok {
		t.Fatal("another account is not deleted")
	}
}

// TestSiteAdminsNeedGrantAdmin: a tenants entry with siteAdmin alone never
// makes, adopts or keeps a site administrator: a User with admin: true, or
// one whose account is an administrator on the forge, is Stalled,
// NotPermitted, and writes nothing (its deletion leaves the account, with
// a Warning Event); with grantAdmin on that entry it is managed.
func TestSiteAdminsNeedGrantAdmin(t *testing.T) {
	ctx := context.Background()
	r := newRollbackRig(t)
	r.setSecret("Tenant-Chosen-Passw0rd")
	me, _ := r.ff.User(fakeforge.DefaultLogin)
	if _, err := r.fc.CreateUser(ctx, forge.CreateUserOption{Username: "ci-admin", Email: "ci-admin@example.com", Password: "Pw-ci-admin-12345"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.fc.EditUser(ctx, "ci-admin", forge.EditUserOption{LoginName: "ci-admin", Admin: new(true)}); err != nil {
		t.Fatal(err)
	}
	admin, _ := r.ff.User("ci-admin")
	bot := func(login string, isAdmin *bool) *forgev1.User {
		return &forgev1.User{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: login, UID: "uid-" + types.UID(login)},
			Spec: forgev1.UserSpec{ManagedSpec: onShared, Username: forgev1.OwnerName(login), Email: login + "@example.org", Admin: isAdmin,
				DeletionPolicy: forgev1.DeletionPolicyDelete, PasswordSecretRef: &forgev1.SecretKeySelector{Name: "ci", Key: "value"}}}
	}
	for _, c := range []struct {
		name     string
		user     *forgev1.User
		deleting bool
		why      string
	}{
		{"admin: true on a new account", bot("ci-new", new(true)), false, "spec.admin is true"},
		{"adopting an administrator", bot("ci-admin", nil), false, `the account "ci-admin" is a site administrator on the forge`},
		{"demoting an administrator", bot("ci-admin", new(false)), false, "is a site administrator"},
		{"deleting an administrator", bot("ci-admin", nil), true, "is a site administrator"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.ff.ClearRequests()
			if c.deleting {
				c.user.Status.ID = admin.ID
				c.user.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			}
			obs, err := userPass(r, c.user, me.Login, me.ID, siteAdmins(false))
			if c.deleting {
				var left *reconciler.Left
				if !errors.As(err, &left) || left.Event.Reason != forgev1.ReasonNotPermitted || !strings.Contains(left.Event.Note, c.why) {
					t.Fatalf("deletion: got %v, want the account left, NotPermitted", err)
				}
			} else {
				expectStall(t, err, forgev1.ReasonNotPermitted, c.why)
				if !strings.Contains(err.Error(), "grantAdmin: true") {
					t.Errorf("message %q does not say what it needs", err)
				}
				if obs.Exists {
					t.Errorf("the account is adopted: %+v", obs)
				}
			}
			if w := r.ff.WriteRequests(); len(w) != 0 {
				t.Fatalf("writes to the forge: %v", w)
			}
			if _, ok := r.ff.User("ci-new"); ok {
				t.Fatal("ci-new is created")
			}
			if got, _ := r.ff.User("ci-admin"); got != admin {
				t.Fatalf("ci-admin changed: %+v, was %+v", got, admin)
			}
		})
	}

	// With grantAdmin: an administrator is made, adopted and kept.
	made := bot("ci-new", new(true))
	if _, err := userPass(r, made, me.Login, me.ID, siteAdmins(true)); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.ff.User("ci-new"); !got.IsAdmin {
		t.Fatalf("ci-new is not an administrator: %+v", got)
	}
	adopted := bot("ci-admin", nil)
	obs, err := userPass(r, adopted, me.Login, me.ID, siteAdmins(true))
	if err != nil || obs.ID != admin.ID {
		t.Fatalf("adopt ci-admin: %+v, %v", obs, err)
	}
	if got, _ := r.ff.User("ci-admin"); !got.IsAdmin || got.Email != "ci-admin@example.org" {
		t.Fatalf("ci-admin not managed: %+v", got)
	}
}

// TestUserRenamedOnTheForge: the account of status.id under another name
// is not written to, nor is another account adopted in its place.
func TestUserRenamedOnTheForge(t *testing.T) {
	f := &usersForge{users: []forge.User{{ID: 5, Login: "renamed"}, {ID: 6, Login: "ci-bot"}}}
	u := &forgev1.User{}
	u.Spec.Username, u.Status.ID = "ci-bot", 5
	e, err := userKind{}.Connect(context.Background(), u, &reconciler.Pass{Forge: f})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Observe(context.Background())
	var le *reconciler.Error
	if !errors.As(err, &le) || le.Reason != forgev1.ReasonConflict || !strings.Contains(err.Error(), `is named "renamed" on the forge now`) {
		t.Fatalf("observe a renamed account: %v", err)
	}
}

func TestRandomPassword(t *testing.T) {
	a, err := randomPassword()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := randomPassword()
	if a == b || len(a) < 40 || len(a) > 255 {
		t.Fatalf("random passwords %q and %q", a, b)
	}
}

// TestPlanUsers: plan reads users through the same observe and diff code:
// a missing user is created, one of that name in another case matching
// the spec is in sync (adoption writes nothing), a differing field is an
// update, a password whose Secret plan cannot read is unknown; nothing is
// written to the forge.
func TestPlanUsers(t *testing.T) {
	ctx := context.Background()
	ff, fc, url := testForge(t)
	ff.AddUser("CI-Existing")
	ff.AddUser("ci-drift")
	ff.ClearRequests()
	manifests := planObjects(t, `apiVersion: forge.forgeops.dev/v1beta1
kind: User
metadata: {name: new, namespace: team}
spec: {forgeRef: {kind: ClusterForge, name: shared}, username: ci-new, email: ci-new@example.com}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: User
metadata: {name: existing, namespace: team}
spec: {forgeRef: {kind: ClusterForge, name: shared}, username: ci-existing, email: ci-existing@example.com}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: User
metadata: {name: drift, namespace: team}
spec:
  forgeRef: {kind: ClusterForge, name: shared}
  username: ci-drift
  email: ci-drift@example.com
  fullName: Drift
  admin: true
  passwordSecretRef: {name: pw, key: password}`)
	_, got := planOnFake(ctx, fc, url, manifests)
	compareItems(t, map[string]plan.Item{
		"new":      {Action: plan.Create},
		"existing": {Action: plan.InSync},
		"drift": {Action: plan.Update, Changes: []plan.Change{
			{Field: "admin", Forge: "false", Spec: "true"},
			{Field: "fullName", Forge: `""`, Spec: `"Drift"`},
			{Field: "password", Forge: "(secret)", Spec: "unknown"},
		}},
	}, got)
	if w := ff.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}
