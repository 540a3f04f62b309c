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
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// RBAC of the User controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=users,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=users/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=users/finalizers,verbs=update

// fieldPassword is the field status.appliedSecrets records the password under.
const fieldPassword = "passwordSecretRef"

// userKind manages user accounts through the admin API (the loop lets only
// a ClusterForge tenants entry with siteAdmin: true through): observed
// from the admin listing of users by status.id, else adopted by name
// (without case); created by POST /admin/users; edited field by field; the
// password, which the forge never gives back, written when its Secret's
// keyed digest differs from the one recorded (status.appliedSecrets);
// deleted, under deletionPolicy Delete, without purging. The credentials'
// own account (the connection's status.login and status.userID) is never
// written to nor adopted (Protected), and a site administrator is made,
// adopted or kept only through a tenants entry with grantAdmin
// (NotPermitted).
type userKind struct {
	kinds.Base[forgev1.User, forgev1.UserList]
	digests *secretdigest.Digester
	sent    *secrets.Sent
}

func (userKind) Secrets(u *forgev1.User) []string {
	if ref := u.Spec.PasswordSecretRef; ref != nil {
		return []string{ref.Name}
	}
	return nil
}

// Key: user and organization names are case-insensitive on the forge.
func (userKind) Key(u *forgev1.User) string {
	return "user:" + strings.ToLower(string(u.Spec.Username))
}

func (userKind) Describe(u *forgev1.User) string {
	return fmt.Sprintf("user %q", u.Spec.Username)
}

// Declares: a User its login.
func (userKind) Declares(u *forgev1.User) []reconciler.Ref {
	return []reconciler.Ref{{Kind: reconciler.RefUser, Name: string(u.Spec.Username)}}
}

// WriteScopes of a User: the /admin/users routes.
func (userKind) WriteScopes(*forgev1.User, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteAdmin}
}

// Connect reads the password Secret's version from the manager's cache;
// its value is read only when it is sent or compared (secrets.WriteOnly).
func (k userKind) Connect(ctx context.Context, u *forgev1.User, pass *reconciler.Pass) (reconciler.External, error) {
	e := &userExt{obj: u, fc: pass.Forge, web: pass.WebURL, login: pass.Login, userID: pass.UserID, pass: pass,
		pending: pass.Pending, sent: k.sent}
	if k.digests != nil {
		e.digestKey = k.digests.Ref().String()
	}
	ref := u.Spec.PasswordSecretRef
	if ref == nil {
		return e, nil
	}
	e.password = &secrets.WriteOnly{Obj: u, Field: fieldPassword, Ref: ref, Reader: pass.Reader, Digests: k.digests}
	if !u.DeletionTimestamp.IsZero() {
		return e, nil // a deletion sends no password
	}
	if err := e.password.Connect(ctx, pass.Metadata); err != nil {
		return nil, err
	}
	return e, nil
}

type userExt struct {
	obj *forgev1.User
	fc  forge.Interface
	web string
	// login and userID are the account the connection's credentials
	// belong to; "" and 0 until known (own).
	login   string
	userID  int64
	pass    *reconciler.Pass
	pending bool
	// password is the Secret's value the account should have; nil when
	// spec.passwordSecretRef is unset.
	password  *secrets.WriteOnly
	digestKey string
	sent      *secrets.Sent
	found     *forge.User
	// sendPassword: Observe found the Secret's value other than the one
	// recorded as sent.
	sendPassword bool
	// left is why a deletion leaves the account as it is (Protected,
	// NotPermitted): Delete returns it.
	left error
}

func (e *userExt) name() string { return string(e.obj.Spec.Username) }

// writes reports whether a pass may write to the account: not under
// managementPolicy Observe, nor while the resource is deleted.
func (e *userExt) writes() bool {
	return e.obj.Spec.ManagementPolicy != forgev1.ManagementPolicyObserve && e.obj.DeletionTimestamp.IsZero()
}

func (e *userExt) Observe(ctx context.Context) (reconciler.Observation, error) {
	// The guards come before anything is found, adopted or written: the
	// account recorded in status may be the protected one under another
	// name, which locate would otherwise report as renamed.
	if err := e.protected(ctx, nil); err != nil {
		return e.refuse(err)
	}
	all, err := e.fc.ListUsers(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	found, err := e.locate(all)
	if err != nil {
		return reconciler.Observation{}, err
	}
	if err := e.protected(ctx, found); err != nil {
		return e.refuse(err)
	}
	if err := e.admins(ctx, found); err != nil {
		return e.refuse(err)
	}
	if found == nil {
		if e.password != nil && e.writes() {
			// Created next, with the password: read before anything is written.
			return reconciler.Observation{}, e.password.Load(ctx)
		}
		return reconciler.Observation{}, nil
	}
	e.found = found
	_, changes := userChanges(e.obj.Spec, found)
	obs := reconciler.Observation{Exists: true, ID: found.ID, URL: e.web + "/" + found.Login, Changes: changes}
	if e.obj.DeletionTimestamp.IsZero() {
		pw, err := e.comparePassword(ctx)
		if err != nil {
			return reconciler.Observation{}, err
		}
		obs.Changes = append(obs.Changes, pw.Changes...)
		obs.Unknown, obs.Notices = pw.Unknown, pw.Notices
	}
	slices.SortFunc(obs.Changes, compare.ByField)
	obs.Diff = reconciler.Fields(obs.Changes)
	return obs, nil
}

// own learns the account the connection's credentials belong to: as the
// connection's check recorded it (status.login and status.userID), else,
// not recorded yet, as the forge answers GET /user.
func (e *userExt) own(ctx context.Context) error {
	if e.login != "" && e.userID != 0 {
		return nil
	}
	me, err := e.fc.CurrentUser(ctx)
	if err != nil {
		return err
	}
	e.login, e.userID = me.Login, me.ID
	return nil
}

// protected refuses the account the connection's credentials belong to,
// by spec.username (without case), by status.id, or by the id of the
// account found for the resource: writing its password or email would
// hand a tenant the account the operator acts as (and lock the operator
// out of the server under basic auth); demoting, deactivating or deleting
// it would lock every tenant out.
func (e *userExt) protected(ctx context.Context, found *forge.User) error {
	if err := e.own(ctx); err != nil {
		return err
	}
	var why string
	switch {
	case strings.EqualFold(e.name(), e.login):
		why = fmt.Sprintf("its login is %q", e.login)
	case e.userID != 0 && e.obj.Status.ID == e.userID:
		why = fmt.Sprintf("status.id %d is its id", e.userID)
	case e.userID != 0 && found != nil && found.ID == e.userID:
		why = fmt.Sprintf("the account %q found for this resource has its id %d", found.Login, e.userID)
	default:
		return nil
	}
	return reconciler.Stall(forgev1.ReasonProtected,
		"user %q is the account the credentials of %s belong to (%s): the operator writes nothing to it, no password, email, name, flag, demotion or deletion, and does not adopt it; nothing is written. Manage that account outside the operator",
		e.name(), e.obj.Spec.ForgeRef, why)
}

// admins refuses a site administrator (spec.admin true, or an account
// found that is one) unless the resource's tenants entry has grantAdmin.
func (e *userExt) admins(ctx context.Context, found *forge.User) error {
	var what string
	switch {
	case e.obj.Spec.Admin != nil && *e.obj.Spec.Admin:
		what = "spec.admin is true"
	case found != nil && found.IsAdmin:
		what = fmt.Sprintf("the account %q is a site administrator on the forge", found.Login)
	default:
		return nil
	}
	p, err := e.pass.Admins(ctx)
	if err != nil || p.Allowed {
		return err
	}
	return reconciler.Stall(forgev1.ReasonNotPermitted, "%s, and %s; nothing is written", what, p.Why)
}

// refuse is what Observe answers when a guard refuses the account: the
// guard's stall, or, while the resource is deleted, an account left as it
// is (Delete returns why) so that the resource goes without a write.
func (e *userExt) refuse(err error) (reconciler.Observation, error) {
	var le *reconciler.Error
	if e.obj.DeletionTimestamp.IsZero() || !errors.As(err, &le) {
		return reconciler.Observation{}, err
	}
	e.left = reconciler.Leave(corev1.EventTypeWarning, le.Reason, "left user %q on the forge as it is: %s", e.name(), le.Error())
	return reconciler.Observation{Exists: true, ID: e.obj.Status.ID}, nil
}

// locate finds the account by status.id, else by name without case, in
// the admin listing (which holds no organizations). An account of the
// recorded id under another name was renamed on the forge: the name is
// immutable here, and nothing is written to it.
func (e *userExt) locate(all []forge.User) (*forge.User, error) {
	if id := e.obj.Status.ID; id != 0 {
		if i := slices.IndexFunc(all, func(u forge.User) bool { return u.ID == id }); i >= 0 {
			u := &all[i]
			if !strings.EqualFold(u.Login, e.name()) {
				return nil, reconciler.Stall(forgev1.ReasonConflict,
					"user id %d, which this resource manages, is named %q on the forge now, not %q: spec.username cannot change, so nothing is written to it; rename it back on the forge, or delete this resource (deletionPolicy Orphan) and make one for %q",
					id, u.Login, e.name(), u.Login)
			}
			return u, nil
		}
	}
	if i := slices.IndexFunc(all, func(u forge.User) bool { return strings.EqualFold(u.Login, e.name()) }); i >= 0 {
		return &all[i], nil
	}
	return nil, nil
}

// comparePassword tells whether the password Secret's value differs from
// the one last sent: Changes holds "password" (never its value) when it
// does. An account found without a record (adopted, or someone else's) has
// the Secret's password written once; one found after a create whose
// answer was lost has the one the create sent.
func (e *userExt) comparePassword(ctx context.Context) (reconciler.Observation, error) {
	var obs reconciler.Observation
	e.sendPassword = false
	if e.password == nil {
		e.obj.Status.AppliedSecrets = nil // no password is managed
		return obs, nil
	}
	have := e.obj.Status.AppliedSecrets
	if !e.obj.Status.Known() {
		if err := e.password.Load(ctx); err != nil {
			return obs, err
		}
		have = nil
		if e.pending {
			have = e.password.Applied
		}
	}
	// What this manager sent last is newer than a status the cache lags on.
	have = e.sent.Have(e.obj.UID, e.found.ID, have)
	if err := e.password.Want(ctx, have, false); err != nil {
		return obs, err
	}
	switch {
	case e.password.Unknown:
		obs.Unknown = []string{"password"}
	case secrets.Differs(have, e.password.Applied, fieldPassword):
		e.sendPassword = true
		obs.Changes = []reconciler.Change{{Field: "password", Have: secrets.Shown, Want: secrets.Shown}}
	default:
		obs.Notices = secrets.KeyChanged(have, e.password.Applied, e.digestKey)
		e.obj.Status.AppliedSecrets = e.password.Applied
		e.sent.Settled(e.obj.UID, e.found.ID, e.password.Applied)
	}
	return obs, nil
}

func (e *userExt) Create(ctx context.Context) (reconciler.Observation, error) {
	s := e.obj.Spec
	opt := forge.CreateUserOption{Username: e.name(), Email: s.Email, Restricted: s.Restricted,
		MustChangePassword: s.MustChangePassword != nil && *s.MustChangePassword}
	compare.SetIf(&opt.FullName, s.FullName)
	compare.SetIf(&opt.Visibility, s.Visibility)
	if e.password != nil {
		if err := e.password.Load(ctx); err != nil {
			return reconciler.Observation{}, err
		}
		opt.Password = e.password.Value
	} else {
		pw, err := randomPassword()
		if err != nil {
			return reconciler.Observation{}, err
		}
		opt.Password = pw
	}
	u, err := e.fc.CreateUser(ctx, opt)
	if err != nil {
		return reconciler.Observation{}, err
	}
	obs := reconciler.Observation{Exists: true, ID: u.ID, URL: e.web + "/" + u.Login}
	if e.password != nil {
		e.obj.Status.AppliedSecrets = e.password.Applied
		e.sent.Sent(e.obj.UID, u.ID, e.password.Applied)
	}
	// What the create cannot set (admin, active, prohibitLogin) an edit does.
	if edit, changes := userChanges(s, u); len(changes) > 0 {
		edit.LoginName = forge.LoginNameOf(u)
		if _, err := e.fc.EditUser(ctx, u.Login, edit); err != nil {
			return obs, err
		}
	}
	return obs, nil
}

func (e *userExt) Update(ctx context.Context, _ reconciler.Observation) error {
	opt, _ := userChanges(e.obj.Spec, e.found)
	if e.sendPassword {
		if err := e.password.Load(ctx); err != nil {
			return err
		}
		opt.Password = e.password.Value
		opt.MustChangePassword = new(e.obj.Spec.MustChangePassword != nil && *e.obj.Spec.MustChangePassword)
	}
	opt.LoginName = forge.LoginNameOf(e.found)
	if _, err := e.fc.EditUser(ctx, e.found.Login, opt); err != nil {
		return err
	}
	if e.sendPassword {
		e.obj.Status.AppliedSecrets = e.password.Applied
		e.sent.Sent(e.obj.UID, e.found.ID, e.password.Applied)
	}
	return nil
}

func (e *userExt) Delete(ctx context.Context, _ reconciler.Observation) error {
	if e.left != nil {
		return e.left
	}
	name := e.name()
	if e.found != nil {
		name = e.found.Login
	}
	err := e.fc.DeleteUser(ctx, name)
	e.sent.Forget(e.obj.UID, e.obj.Status.ID)
	if forge.KindOf(err) == forge.KindValidation {
		// The forge refuses (422) while the user owns repositories or
		// belongs to an organization; a delete never purges them.
		return reconciler.Wait(forgev1.ReasonDeleteBlocked,
			"the forge refused to delete user %q (%v): the operator never purges a user's repositories or memberships; move or delete the repositories and remove the user from its organizations, or set spec.deletionPolicy to Orphan to leave the user in place",
			name, err)
	}
	return err
}

// userChanges compares the managed (set) fields of spec with account u:
// the edit that makes them equal and the changes it makes. The email is
// compared without case, as the forge does: it keeps an address it is sent
// in another case as it was. must_change_password is not reported by the
// forge and only goes with a password written.
func userChanges(s forgev1.UserSpec, u *forge.User) (forge.EditUserOption, []reconciler.Change) {
	var opt forge.EditUserOption
	var changes []reconciler.Change
	if !strings.EqualFold(s.Email, u.Email) {
		opt.Email = new(s.Email)
		changes = append(changes, compare.Change("email", u.Email, s.Email))
	}
	if s.FullName != nil && *s.FullName != u.FullName {
		opt.FullName = s.FullName
		changes = append(changes, compare.Change("fullName", u.FullName, *s.FullName))
	}
	if s.Visibility != nil && *s.Visibility != u.Visibility {
		opt.Visibility = *s.Visibility
		changes = append(changes, compare.Change("visibility", u.Visibility, *s.Visibility))
	}
	flag := func(field string, want *bool, have bool, dst **bool) {
		if want != nil && *want != have {
			*dst = want
			changes = append(changes, compare.Change(field, have, *want))
		}
	}
	flag("restricted", s.Restricted, u.Restricted, &opt.Restricted)
	flag("admin", s.Admin, u.IsAdmin, &opt.Admin)
	flag("active", s.Active, u.Active, &opt.Active)
	flag("prohibitLogin", s.ProhibitLogin, u.ProhibitLogin, &opt.ProhibitLogin)
	return opt, changes
}

// randomPassword is the password of an account made without
// passwordSecretRef: 32 random bytes nobody knows, never stored or logged.
// The suffix holds a lower- and an upper-case letter, a digit and a
// special character, for a forge whose PASSWORD_COMPLEXITY asks for them.
func randomPassword() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a random password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b) + "aA1!", nil
}
