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
	"fmt"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the Organization controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=organizations,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=organizations/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=organizations/finalizers,verbs=update

// organizationKind manages organizations: created by POST /orgs, adopted by
// name, updated field by field, deleted by DELETE /orgs/{org}; with
// spec.blockedUsers, exactly the users it blocks.
type organizationKind struct {
	kinds.Base[forgev1.Organization, forgev1.OrganizationList]
}

// Key: forge user and organization names are case-insensitive.
func (organizationKind) Key(o *forgev1.Organization) string {
	return "org:" + strings.ToLower(o.OrgName())
}

func (organizationKind) Describe(o *forgev1.Organization) string {
	return fmt.Sprintf("organization %q", o.OrgName())
}

// Declares: an Organization its name.
func (organizationKind) Declares(o *forgev1.Organization) []reconciler.Ref {
	return []reconciler.Ref{{Kind: reconciler.RefOrganization, Name: o.OrgName()}}
}

// WriteScopes of an Organization: its create, edit and delete are
// organization routes.
func (organizationKind) WriteScopes(*forgev1.Organization, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteOrganization}
}

func (organizationKind) Connect(_ context.Context, o *forgev1.Organization, pass *reconciler.Pass) (reconciler.External, error) {
	return &organization{obj: o, fc: pass.Forge, web: pass.WebURL}, nil
}

type organization struct {
	obj *forgev1.Organization
	fc  orgClient
	web string
	// blocked are the users the organization blocks (lower case -> as
	// listed), nil when spec.blockedUsers is unset or not read yet.
	blocked map[string]forge.User
}

// orgClient is what an Organization calls: its organization's routes, and
// a user's read to address an unblock by the id it was listed with.
type orgClient interface {
	forge.OrgsClient
	GetUser(ctx context.Context, name string) (*forge.User, error)
}

func (e *organization) Observe(ctx context.Context) (reconciler.Observation, error) {
	name := e.obj.OrgName()
	org, err := e.fc.GetOrg(ctx, name)
	if forge.IsNotFound(err) {
		return reconciler.Observation{}, nil
	}
	if err != nil {
		return reconciler.Observation{}, err
	}
	if err := e.readBlocks(ctx, org.Name); err != nil {
		return reconciler.Observation{}, err
	}
	edit := e.changes(org)
	return reconciler.Observation{Exists: true, ID: org.ID, URL: e.web + "/" + org.Name,
		Diff: reconciler.Fields(edit.changes), Changes: edit.changes}, nil
}

func (e *organization) Create(ctx context.Context) (reconciler.Observation, error) {
	s := e.obj.Spec
	opt := forge.CreateOrgOption{Name: e.obj.OrgName()}
	compare.SetIf(&opt.FullName, s.FullName)
	compare.SetIf(&opt.Description, s.Description)
	compare.SetIf(&opt.Email, s.Email)
	compare.SetIf(&opt.Website, s.Website)
	compare.SetIf(&opt.Location, s.Location)
	compare.SetIf(&opt.Visibility, s.Visibility)
	compare.SetIf(&opt.RepoAdminChangeTeamAccess, s.RepoAdminChangeTeamAccess)
	org, err := e.fc.CreateOrg(ctx, opt)
	if err != nil {
		return reconciler.Observation{}, err
	}
	obs := reconciler.Observation{Exists: true, ID: org.ID, URL: e.web + "/" + org.Name}
	if len(e.obj.Spec.BlockedUsers) > 0 {
		// A new organization blocks no one yet.
		e.blocked = map[string]forge.User{}
		return obs, e.applyBlocks(ctx, org.Name)
	}
	return obs, nil
}

func (e *organization) Update(ctx context.Context, _ reconciler.Observation) error {
	org, err := e.fc.GetOrg(ctx, e.obj.OrgName())
	if err != nil {
		return err
	}
	if edit := e.changes(org); edit.edits {
		if _, err := e.fc.EditOrg(ctx, org.Name, edit.opt.KeepUnsent(org)); err != nil {
			return err
		}
	}
	return e.applyBlocks(ctx, org.Name)
}

func (e *organization) Delete(ctx context.Context, _ reconciler.Observation) error {
	err := e.fc.DeleteOrg(ctx, e.obj.OrgName())
	if forge.IsServerError(err) {
		// The forge answers 500 (its message hidden from non-admins) while
		// the organization still owns repositories or packages.
		return reconciler.Wait(forgev1.ReasonDeleteBlocked,
			"the forge refused to delete organization %q (%v): it still owns repositories or packages; move or delete them, or set spec.deletionPolicy to Orphan to leave the organization in place",
			e.obj.OrgName(), err)
	}
	return err
}

type orgChanges struct {
	opt     forge.EditOrgOption
	changes []reconciler.Change
	// edits: some change is the organization's own (a PATCH).
	edits bool
}

// changes compares the managed (set) fields with the forge's organization.
func (e *organization) changes(org *forge.Organization) orgChanges {
	s := e.obj.Spec
	var c orgChanges
	diff := func(field string, want *string, have string, dst **string) {
		if want != nil && *want != have {
			*dst = want
			c.changes = append(c.changes, compare.Change(field, have, *want))
		}
	}
	diff("fullName", s.FullName, org.FullName, &c.opt.FullName)
	diff("description", s.Description, org.Description, &c.opt.Description)
	diff("email", s.Email, org.Email, &c.opt.Email)
	diff("website", s.Website, org.Website, &c.opt.Website)
	diff("location", s.Location, org.Location, &c.opt.Location)
	diff("visibility", s.Visibility, org.Visibility, &c.opt.Visibility)
	if want := s.RepoAdminChangeTeamAccess; want != nil && *want != org.RepoAdminChangeTeamAccess {
		c.opt.RepoAdminChangeTeamAccess = want
		c.changes = append(c.changes, compare.Change("repoAdminChangeTeamAccess", org.RepoAdminChangeTeamAccess, *want))
	}
	c.edits = len(c.changes) > 0
	if d := setChange(e.blockedLogins(), names(s.BlockedUsers), false); d != "" {
		c.changes = append(c.changes, reconciler.Change{Field: "blockedUsers", Want: d})
	}
	return c
}

// readBlocks lists the users the organization blocks when the spec
// manages them. A listing that fails stops the pass: nothing is blocked
// or unblocked on a failed or partial read.
func (e *organization) readBlocks(ctx context.Context, org string) error {
	e.blocked = nil
	if e.obj.Spec.BlockedUsers == nil {
		return nil
	}
	list, err := e.fc.ListOrgBlocks(ctx, org)
	if err != nil {
		return err
	}
	e.blocked = make(map[string]forge.User, len(list))
	for _, u := range list {
		e.blocked[strings.ToLower(u.Login)] = u
	}
	return nil
}

// blockedLogins are the blocked users as diffSet compares them.
func (e *organization) blockedLogins() map[string]string {
	if e.blocked == nil {
		return nil
	}
	out := make(map[string]string, len(e.blocked))
	for k, u := range e.blocked {
		out[k] = u.Login
	}
	return out
}

// applyBlocks blocks the listed users the organization does not block yet
// and unblocks the others, decided on the listing readBlocks took. Each
// unblock is addressed by the id the user was listed with: a name that
// names another account by now is left for the next pass. A user the
// forge does not know or refuses to block (a member of the organization,
// a site administrator) does not stop the others; the pass then stalls
// naming them, with the forge's message.
func (e *organization) applyBlocks(ctx context.Context, org string) error {
	add, remove := diffSet(e.blockedLogins(), names(e.obj.Spec.BlockedUsers))
	var unknown, refused []string
	for _, u := range add {
		err := e.fc.BlockOrgUser(ctx, org, u)
		switch {
		case err == nil:
		case forge.IsNotFound(err):
			unknown = append(unknown, u)
		case forge.IsValidation(err):
			refused = append(refused, fmt.Sprintf("%s (%v)", u, err))
		default:
			return err
		}
	}
	for _, login := range remove {
		listed := e.blocked[strings.ToLower(login)]
		now, err := e.fc.GetUser(ctx, login)
		if forge.IsNotFound(err) || (err == nil && now.ID != listed.ID) {
			continue // deleted or renamed since the listing
		}
		if err != nil {
			return err
		}
		// 400 "cannot unblock the user": unblocked by hand meanwhile.
		if err := e.fc.UnblockOrgUser(ctx, org, login); err != nil && !forge.IsValidation(err) && !forge.IsNotFound(err) {
			return err
		}
	}
	if len(unknown) > 0 {
		return reconciler.Stall(forgev1.ReasonUserNotFound,
			"spec.blockedUsers names users the forge does not know: %s; the other blocks of organization %q were applied",
			strings.Join(unknown, ", "), org)
	}
	if len(refused) > 0 {
		return reconciler.Stall(forgev1.ReasonRejected,
			"the forge refused to block %s: a member of the organization or a site administrator cannot be blocked; remove them from its teams or from spec.blockedUsers (the other blocks were applied)",
			strings.Join(refused, "; "))
	}
	return nil
}

// organizationExport writes the Organization with every setting the forge
// holds.
var organizationExport = export.ForOrganization(func(_ context.Context, b *export.Builder, _ any, o *forge.Organization) error {
	obj := &forgev1.Organization{
		TypeMeta:   export.TypeMeta("Organization"),
		ObjectMeta: b.Meta("Organization", o.Name, o.ID),
		Spec: forgev1.OrganizationSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Name:           export.Ptr(forgev1.OwnerName(o.Name)),
			FullName:       export.NonEmpty(o.FullName),
			Description:    export.NonEmpty(o.Description),
			Email:          export.NonEmpty(o.Email),
			Website:        export.NonEmpty(o.Website),
			Location:       export.NonEmpty(o.Location),
			Visibility:     export.NonEmpty(o.Visibility),
		},
	}
	if o.RepoAdminChangeTeamAccess {
		obj.Spec.RepoAdminChangeTeamAccess = export.Ptr(true)
	}
	b.Add(obj)
	return nil
})
