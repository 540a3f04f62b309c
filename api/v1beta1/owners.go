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

package v1beta1

import "strings"

// Owners: the organizations and users a resource writes under, which a
// ClusterForge's tenants entry must allow (ClusterForgeTenant.owners).
// Every managed kind says its own (Managed.ForgeOwners); a kind added
// later cannot be served without saying it.

// ownerOf is the owner part of "owner/name".
func ownerOf(full string) string {
	owner, _, _ := strings.Cut(full, "/")
	return owner
}

// scopeOwner is the owner of a value kept in a repository or an organization.
func scopeOwner(repo *RepositoryName, org *OwnerName) []string {
	switch {
	case repo != nil:
		return []string{ownerOf(string(*repo))}
	case org != nil:
		return []string{string(*org)}
	}
	return nil
}

// selectorOwners are the owners of the repositories a set selects.
func selectorOwners(sel RepositorySelector) []string {
	if sel.Organization != nil {
		return []string{string(*sel.Organization)}
	}
	var out []string
	for _, n := range sel.Names {
		out = append(out, ownerOf(string(n)))
	}
	return out
}

// ForgeOwners is the organization the resource makes or adopts.
func (o *Organization) ForgeOwners() []string { return []string{o.OrgName()} }

// ForgeOwners is the owner of the label's repository, or its organization.
func (l *Label) ForgeOwners() []string { return scopeOwner(l.Spec.Repository, l.Spec.Organization) }

// ForgeOwners is the hook's organization.
func (h *OrgHook) ForgeOwners() []string { return []string{string(h.Spec.Organization)} }

// ForgeOwners is the owner of the hook's repository.
func (h *RepoHook) ForgeOwners() []string { return []string{ownerOf(string(h.Spec.Repository))} }

// ForgeOwners is the owner of the project's repository.
func (p *Project) ForgeOwners() []string { return []string{ownerOf(string(p.Spec.Repository))} }

// ForgeOwners is the owner of the runner's repository, or its organization.
func (r *RunnerSetting) ForgeOwners() []string {
	return scopeOwner(r.Spec.Repository, r.Spec.Organization)
}

// ForgeOwners is the repository's owner.
//
// A repository made from a template reads the template through the
// connection's token, and the forge copies its git content, webhooks (with
// their secrets) and the rest into spec.owner. Through a ClusterForge that
// token is the platform's, which may read private repositories of
// organizations the tenant may not manage: a tenant that could name any
// template would copy them into an organization it may read. So the
// template's owner must be allowed as well; through a Forge of its own
// the tenant's token decides what it may read.
func (r *Repository) ForgeOwners() []string {
	out := []string{string(r.Spec.Owner)}
	if in := r.Spec.Init; in != nil && in.Template != nil {
		if t := ownerOf(string(in.Template.Repository)); !strings.EqualFold(t, out[0]) {
			out = append(out, t)
		}
	}
	return out
}

// ForgeOwners is the team's organization.
func (t *Team) ForgeOwners() []string { return []string{string(t.Spec.Organization)} }

// ForgeOwners is the owner of the secret's repository, or its organization.
func (s *ActionsSecret) ForgeOwners() []string {
	return scopeOwner(s.Spec.Repository, s.Spec.Organization)
}

// ForgeOwners is the owner of the variable's repository, or its organization.
func (v *ActionsVariable) ForgeOwners() []string {
	return scopeOwner(v.Spec.Repository, v.Spec.Organization)
}

// ForgeOwners is the owner of the rule's repository.
func (b *BranchProtection) ForgeOwners() []string {
	return []string{ownerOf(string(b.Spec.Repository))}
}

// ForgeOwners is the owner of the key's repository.
func (k *DeployKey) ForgeOwners() []string { return []string{ownerOf(string(k.Spec.Repository))} }

// ForgeOwners is the owner of the protection's repository.
func (t *TagProtection) ForgeOwners() []string {
	return []string{ownerOf(string(t.Spec.Repository))}
}

// ForgeOwners are the owners of the repositories the set selects.
func (s *LabelSet) ForgeOwners() []string { return selectorOwners(s.Spec.Repositories) }

// ForgeOwners are the owners of the repositories the set selects.
func (s *BranchProtectionSet) ForgeOwners() []string { return selectorOwners(s.Spec.Repositories) }

// ForgeOwners is the user's name.
func (u *User) ForgeOwners() []string { return []string{string(u.Spec.Username)} }

// SiteAdminOnly: a User is managed only through a ClusterForge tenants
// entry with siteAdmin: true.
func (u *User) SiteAdminOnly() bool { return true }

// ForgeOwners is the owner of the token's repository, or its
// organization; none for the instance's token (which is site admin only).
func (t *RunnerRegistrationToken) ForgeOwners() []string {
	return scopeOwner(t.Spec.Repository, t.Spec.Organization)
}

// SiteAdminOnly: the instance's token is asked for through a ClusterForge
// tenants entry with siteAdmin: true only.
func (t *RunnerRegistrationToken) SiteAdminOnly() bool { return t.Instance() }

// SiteAdminKind is implemented by the kinds whose resources (all of them,
// or those SiteAdminOnly says) only a site admin may manage.
// +kubebuilder:object:generate=false
type SiteAdminKind interface {
	SiteAdminOnly() bool
}

// NeedsSiteAdmin reports whether obj may be managed only through a
// ClusterForge tenants entry with siteAdmin: true.
func NeedsSiteAdmin(obj any) bool {
	a, ok := obj.(SiteAdminKind)
	return ok && a.SiteAdminOnly()
}

// ForgeOwners is the owner of the mirror's repository.
func (m *PushMirror) ForgeOwners() []string { return []string{ownerOf(string(m.Spec.Repository))} }
