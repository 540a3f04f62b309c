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

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TeamName is a team's name in its organization: letters, digits, '-',
// '.' and '_', at most 255 characters (the forge's rule).
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
// +kubebuilder:validation:Pattern=`^[-.\w]+$`
type TeamName string

// UnitAccess is a team's access to one unit of its repositories.
// +kubebuilder:validation:Enum=none;read;write
type UnitAccess string

// TeamUnits is a non-admin team's access per unit; a unit left out has none.
type TeamUnits struct {
	// +optional
	Code UnitAccess `json:"code,omitempty"`
	// +optional
	Issues UnitAccess `json:"issues,omitempty"`
	// +optional
	Pulls UnitAccess `json:"pulls,omitempty"`
	// +optional
	Releases UnitAccess `json:"releases,omitempty"`
	// +optional
	Wiki UnitAccess `json:"wiki,omitempty"`
	// +optional
	ExtIssues UnitAccess `json:"ext_issues,omitempty"`
	// +optional
	ExtWiki UnitAccess `json:"ext_wiki,omitempty"`
	// +optional
	Projects UnitAccess `json:"projects,omitempty"`
	// +optional
	Packages UnitAccess `json:"packages,omitempty"`
	// +optional
	Actions UnitAccess `json:"actions,omitempty"`
}

// Map gives the units by the forge's keys ("repo.code": "write"), every
// unit present (none when left out).
func (u TeamUnits) Map() map[string]string {
	m := map[string]string{}
	for key, v := range map[string]UnitAccess{
		"repo.code": u.Code, "repo.issues": u.Issues, "repo.pulls": u.Pulls, "repo.releases": u.Releases,
		"repo.wiki": u.Wiki, "repo.ext_issues": u.ExtIssues, "repo.ext_wiki": u.ExtWiki,
		"repo.projects": u.Projects, "repo.packages": u.Packages, "repo.actions": u.Actions,
	} {
		m[key] = string(v)
		if v == "" {
			m[key] = "none"
		}
	}
	return m
}

// TeamUnitKeys are the forge's unit keys, in the order plan shows them.
var TeamUnitKeys = []string{"repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki",
	"repo.ext_issues", "repo.ext_wiki", "repo.projects", "repo.packages", "repo.actions"}

// TeamFailure is a member or repository the pass could not apply.
type TeamFailure struct {
	// member is the user or repository name.
	Member string `json:"member"`
	// reason, CamelCase: UserNotFound, ParentNotFound, ...
	Reason string `json:"reason"`
	// message says what a person needs to know, bounded and without secrets.
	// +optional
	Message string `json:"message,omitempty"`
}

// TeamSpec is the desired state of a team.
// +kubebuilder:validation:XValidation:rule="self.organization == oldSelf.organization",message="spec.organization is immutable",fieldPath=".organization"
// +kubebuilder:validation:XValidation:rule="!has(self.permission) || self.permission != 'admin' || !has(self.units)",message="an admin team has every unit at admin: leave spec.units out",fieldPath=".units"
// +kubebuilder:validation:XValidation:rule="!has(self.repositories) || !has(self.includesAllRepositories) || !self.includesAllRepositories",message="spec.repositories cannot be listed when includesAllRepositories is true",fieldPath=".repositories"
// +kubebuilder:validation:XValidation:rule="!has(self.members) || self.members.all(m, self.members.filter(n, n.lowerAscii() == m.lowerAscii()).size() == self.members.filter(n, n == m).size())",message="members must not name a user twice (names are compared without case)",fieldPath=".members"
// +kubebuilder:validation:XValidation:rule="!has(self.repositories) || self.repositories.all(m, self.repositories.filter(n, n.lowerAscii() == m.lowerAscii()).size() == self.repositories.filter(n, n == m).size())",message="repositories must not name a repository twice (names are compared without case)",fieldPath=".repositories"
// +kubebuilder:validation:XValidation:rule="!has(self.previousNames) || self.previousNames.all(p, p.lowerAscii() != 'owners')",message="spec.previousNames must not name Owners: the Owners team is adopted only by a Team named Owners and is never renamed",fieldPath=".previousNames"
type TeamSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) deletes the team (never its members'
	// accounts); Orphan leaves it. The Owners team is never deleted.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// organization the team belongs to. Immutable.
	Organization OwnerName `json:"organization"`

	// name of the team; metadata.name when unset. Changing it renames the
	// team in place (same id, members kept).
	// +optional
	Name *TeamName `json:"name,omitempty"`

	// previousNames: a team found under one of these names (and not under
	// name) is adopted and renamed. Never Owners, and none for the Owners
	// team: it is never renamed.
	// +kubebuilder:validation:MaxItems=10
	// +listType=set
	// +optional
	PreviousNames []TeamName `json:"previousNames,omitempty"`

	// description of the team.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Description *string `json:"description,omitempty"`

	// permission: read (default) or write gives every unit that access when
	// units is unset; admin gives every unit admin.
	// +kubebuilder:validation:Enum=read;write;admin
	// +optional
	Permission *string `json:"permission,omitempty"`

	// units is a non-admin team's access per unit; a unit left out has none.
	// +optional
	Units *TeamUnits `json:"units,omitempty"`

	// includesAllRepositories gives the team every repository of the
	// organization, present and future.
	// +optional
	IncludesAllRepositories *bool `json:"includesAllRepositories,omitempty"`

	// canCreateOrgRepo lets members create repositories in the organization.
	// +optional
	CanCreateOrgRepo *bool `json:"canCreateOrgRepo,omitempty"`

	// visibility says who may list the team: public (any signed-in
	// user), limited (the organization's members) or private (the team's
	// members and the organization's owners; the forge's default). Gitea
	// 1.27 and later: Unsupported on older releases, which would ignore
	// it, and on Forgejo. The Owners team's is fixed by the forge.
	// +kubebuilder:validation:Enum=public;limited;private
	// +optional
	Visibility *string `json:"visibility,omitempty"`

	// members: unset leaves them alone; a list (also []) is exactly these
	// users, added (which makes them members of the organization) and
	// removed. At most 300 (what admission can check for repeats in any case).
	// +kubebuilder:validation:MaxItems=300
	// +listType=set
	// +optional
	Members []OwnerName `json:"members"`

	// repositories (names in the organization): unset leaves them alone; a
	// list (also []) is exactly these, at most 200. Not with
	// includesAllRepositories.
	// +kubebuilder:validation:MaxItems=200
	// +listType=set
	// +optional
	Repositories []RepoName `json:"repositories"`

	// maxRemovals: a pass that would remove more members and repositories
	// together removes none of them (default 10).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxRemovals *int32 `json:"maxRemovals,omitempty"`

	// removals: Apply (default) removes the members and repositories the
	// lists leave out; Report removes none and lists them in
	// status.pendingRemovals, with a Warning Event RemovalsPending when
	// they change (additions and edits still happen).
	// +optional
	Removals Removals `json:"removals,omitempty"`
}

// TeamStatus is the observed state of the team.
type TeamStatus struct {
	ManagedStatus `json:",inline"`

	// members is the number of members after the last pass, when managed.
	// +optional
	Members *int32 `json:"members,omitempty"`
	// repositories is the number of repositories after the last pass, when managed.
	// +optional
	Repositories *int32 `json:"repositories,omitempty"`
	// failures are the members and repositories that could not be applied.
	// +optional
	Failures []TeamFailure `json:"failures,omitempty"`
	// pendingRemovals are the members and repositories the team would
	// lose and did not, with removals Report.
	// +optional
	PendingRemovals *PendingRemovals `json:"pendingRemovals,omitempty"`
}

// Team is a team of an organization: who may do what, with which members
// and repositories.
// +kubebuilder:validation:XValidation:rule="(has(self.spec.name) ? self.spec.name : self.metadata.name).lowerAscii() != 'owners' || (!has(self.spec.permission) && !has(self.spec.units) && !has(self.spec.includesAllRepositories) && !has(self.spec.canCreateOrgRepo) && !has(self.spec.visibility))",message="the Owners team's permission, units, includesAllRepositories, canCreateOrgRepo and visibility are fixed by the forge: leave them out"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.name) ? self.spec.name : self.metadata.name).lowerAscii() != 'owners' || (has(self.spec.members) && size(self.spec.members) > 0)",message="the Owners team must list at least one member in spec.members: an organization cannot lose its last owner"
// +kubebuilder:validation:XValidation:rule="has(self.spec.name) || self.metadata.name.matches('^[-.a-z0-9]+$')",message="metadata.name is the team name when spec.name is unset"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.name) ? self.spec.name : self.metadata.name).lowerAscii() != 'owners' || !has(self.spec.previousNames) || size(self.spec.previousNames) == 0",message="the Owners team is never renamed: a Team named Owners lists no spec.previousNames"
// +kubebuilder:validation:XValidation:rule="((has(oldSelf.spec.name) ? oldSelf.spec.name : oldSelf.metadata.name).lowerAscii() == 'owners') == ((has(self.spec.name) ? self.spec.name : self.metadata.name).lowerAscii() == 'owners')",message="the Owners team is never renamed: a Team's name cannot change to or from Owners"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fteam,categories=forge
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.spec.name`,description="forge name; metadata.name when empty"
// +kubebuilder:printcolumn:name="Members",type=integer,JSONPath=`.status.members`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Team struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired team.
	Spec TeamSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status TeamStatus `json:"status,omitempty"`
}

// TeamName is the team's name on the forge: spec.name, else metadata.name.
func (t *Team) TeamName() string {
	if t.Spec.Name != nil && *t.Spec.Name != "" {
		return string(*t.Spec.Name)
	}
	return t.Name
}

// IsOwners reports whether the spec names its organization's Owners team.
// Whether a team found on the forge is Owners is the forge's answer (its
// permission "owner"), not this.
func (t *Team) IsOwners() bool { return isOwnersName(t.TeamName()) }

func isOwnersName(name string) bool { return strings.EqualFold(name, "owners") }

// +kubebuilder:object:root=true

// TeamList is a list of Teams.
type TeamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Teams.
	Items []Team `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Team{}, &TeamList{})
}
