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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/reconciler"
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

func TestLockout(t *testing.T) {
	cases := []struct {
		opt  forge.EditUserOption
		want string
	}{
		{forge.EditUserOption{}, ""},
		{forge.EditUserOption{Admin: new(true), Active: new(true), ProhibitLogin: new(false), MustChangePassword: new(false), Password: "x"}, ""},
		{forge.EditUserOption{Admin: new(false)}, "demotes"},
		{forge.EditUserOption{Active: new(false)}, "deactivates"},
		{forge.EditUserOption{ProhibitLogin: new(true)}, "prohibits the sign-in of"},
		{forge.EditUserOption{MustChangePassword: new(true)}, "makes the password change of"},
		{forge.EditUserOption{Admin: new(false), ProhibitLogin: new(true)}, "demotes or prohibits the sign-in of"},
	}
	for _, tc := range cases {
		if got := lockout(tc.opt); got != tc.want {
			t.Errorf("lockout(%+v) = %q, want %q", tc.opt, got, tc.want)
		}
	}
}

// usersForge is a forge of a few accounts that records the edits and
// deletes sent to it.
type usersForge struct {
	forge.Interface
	users   []forge.User
	me      string
	edits   []string
	deletes []string
}

func (f *usersForge) ListUsers(context.Context) ([]forge.User, error) { return f.users, nil }

func (f *usersForge) CurrentUser(context.Context) (*forge.User, error) {
	return &forge.User{ID: 1, Login: f.me, IsAdmin: true}, nil
}

func (f *usersForge) EditUser(_ context.Context, name string, _ forge.EditUserOption) (*forge.User, error) {
	f.edits = append(f.edits, name)
	return &forge.User{ID: 1, Login: name}, nil
}

func (f *usersForge) DeleteUser(_ context.Context, name string) error {
	f.deletes = append(f.deletes, name)
	return nil
}

// TestTokenUserNeverLockedOut: the credentials' own user (by the
// connection's login, any case, or by asking the forge when that is not
// known yet) is never demoted, deactivated, prohibited or deleted:
// Stalled, Rejected, nothing written. Another admin is demoted.
func TestTokenUserNeverLockedOut(t *testing.T) {
	ctx := context.Background()
	users := []forge.User{{ID: 1, Login: "Root", IsAdmin: true, Active: true}, {ID: 2, Login: "other", IsAdmin: true, Active: true}}
	run := func(t *testing.T, username, login string, spec func(*forgev1.UserSpec), deleting bool) (*usersForge, error) {
		t.Helper()
		f := &usersForge{users: users, me: "root"}
		u := &forgev1.User{ObjectMeta: metav1.ObjectMeta{Name: username}}
		u.Spec.Username = forgev1.OwnerName(username)
		u.Spec.Email = users[0].Email
		if deleting {
			u.DeletionTimestamp = &metav1.Time{}
		}
		spec(&u.Spec)
		e, err := userKind{}.Connect(ctx, u, &reconciler.Pass{Forge: f, Login: login})
		if err != nil {
			t.Fatal(err)
		}
		obs, err := e.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if deleting {
			return f, e.Delete(ctx, obs)
		}
		return f, e.Update(ctx, obs)
	}
	for what, spec := range map[string]func(*forgev1.UserSpec){
		"demote":         func(s *forgev1.UserSpec) { s.Admin = new(false) },
		"deactivate":     func(s *forgev1.UserSpec) { s.Active = new(false) },
		"prohibit login": func(s *forgev1.UserSpec) { s.ProhibitLogin = new(true) },
	} {
		for _, login := range []string{"root", ""} {
			f, err := run(t, "root", login, spec, false)
			var le *reconciler.Error
			if !errors.As(err, &le) || le.Reason != forgev1.ReasonRejected || le.State != conditions.Stalled ||
				!strings.Contains(err.Error(), `user "Root" is the user the ClusterForge's credentials belong to`) {
				t.Errorf("%s the token user (login %q): %v", what, login, err)
			}
			if len(f.edits) != 0 {
				t.Errorf("%s the token user: edits %q sent", what, f.edits)
			}
		}
		if f, err := run(t, "other", "root", spec, false); err != nil || len(f.edits) != 1 {
			t.Errorf("%s another admin: %v, edits %q", what, err, f.edits)
		}
	}
	f, err := run(t, "root", "root", func(*forgev1.UserSpec) {}, true)
	if !strings.Contains(fmtErr(err), "never deletes it") || len(f.deletes) != 0 {
		t.Errorf("delete the token user: %v, deletes %q", err, f.deletes)
	}
	if f, err = run(t, "other", "root", func(*forgev1.UserSpec) {}, true); err != nil || len(f.deletes) != 1 {
		t.Errorf("delete another user: %v, deletes %q", err, f.deletes)
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

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
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
	manifests := planObjects(t, `apiVersion: forge.forgeops.dev/v1alpha1
kind: User
metadata: {name: new, namespace: team}
spec: {forgeRef: {kind: ClusterForge, name: shared}, username: ci-new, email: ci-new@example.com}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: User
metadata: {name: existing, namespace: team}
spec: {forgeRef: {kind: ClusterForge, name: shared}, username: ci-existing, email: ci-existing@example.com}
---
apiVersion: forge.forgeops.dev/v1alpha1
kind: User
metadata: {name: drift, namespace: team}
spec:
  forgeRef: {kind: ClusterForge, name: shared}
  username: ci-drift
  email: ci-drift@example.com
  fullName: Drift
  admin: true
  passwordSecretRef: {name: pw, key: password}`)
	items := Plan(ctx, PlanEnv{Forge: fc, Server: forge.NewServer(fakeforge.DefaultVersion), WebURL: url, Namespace: "team"}, manifests)
	got := map[string]plan.Item{}
	for _, it := range items {
		got[it.Name] = it
	}
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
