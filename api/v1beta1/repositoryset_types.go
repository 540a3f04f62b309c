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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RepositorySetSpec is repository settings, topics and team access applied
// to many repositories.
// +kubebuilder:validation:XValidation:rule="has(self.settings) || has(self.topics) || has(self.teams)",message="a RepositorySet sets at least one of settings, topics and teams"
type RepositorySetSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves everything when the resource
	// is deleted; Delete takes back the team access the set gave (the
	// access it recorded giving, never access it found), and leaves the
	// settings and topics.
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repositories the set applies to.
	Repositories RepositorySelector `json:"repositories"`

	// settings written to every repository, each only when set (as a
	// Repository's). A Repository resource's own setting of a field wins
	// for its repository: the set leaves that field there. Two sets
	// setting one field of one repository to different values: the older
	// holds it, the younger lists the repository with reason Conflict.
	// +optional
	Settings *RepositorySettings `json:"settings,omitempty"`

	// topics added to every repository; its other topics are kept. A
	// Repository resource that lists its topics holds them: the set adds
	// none there.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=25
	// +listType=set
	// +optional
	Topics []Topic `json:"topics,omitempty"`

	// teams of the repository's organization given access to every
	// repository (the team's own permission and units apply). A team
	// neither a Team resource nor the forge has is a failure
	// (TeamNotFound), never created; a team with includesAllRepositories
	// has every repository already.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:XValidation:rule="self.all(t, self.filter(u, u.lowerAscii() == t.lowerAscii()).size() == 1)",message="teams must not name a team twice (names are compared without case)"
	// +listType=set
	// +optional
	Teams []TeamName `json:"teams,omitempty"`

	// removals: Apply (default) takes back the access the set gave a team
	// once the team is no longer listed; Report takes back nothing and
	// lists it in status.pendingRemovals.
	// +kubebuilder:default=Apply
	// +optional
	Removals Removals `json:"removals,omitempty"`

	// enforce: the set's settings and topics win over every Repository of
	// the same server (any namespace) in the repositories it applies to;
	// such a Repository is Stalled, reason Conflict, for those fields
	// only, and keeps the rest. Without (the default), a Repository's own
	// settings win for its repository. Between two enforced sets the
	// older holds.
	// +optional
	Enforce bool `json:"enforce,omitempty"`
}

// TeamGrant is the access to repositories a RepositorySet gave one team:
// the operator's own record, written after the forge gave it. Only access
// recorded here is ever taken back (a team dropped from spec.teams, or
// deletionPolicy Delete); access the team had before is left.
type TeamGrant struct {
	// organization of the team.
	Organization string `json:"organization"`
	// team's name when the access was given.
	Team string `json:"team"`
	// id of the team on the forge: the record holds for that team alone.
	ID int64 `json:"id"`
	// repositoryIDs are the ids of the repositories the set gave the team
	// access to.
	// +listType=set
	// +optional
	RepositoryIDs []int64 `json:"repositoryIDs,omitempty"`
}

// RepositorySetStatus is the observed state of the set.
type RepositorySetStatus struct {
	ManagedStatus `json:",inline"`
	SetStatus     `json:",inline"`

	// teamGrants are the team access the set gave, per team, sorted by
	// organization and team.
	// +optional
	TeamGrants []TeamGrant `json:"teamGrants,omitempty"`
}

// RepositorySet applies repository settings, topics and team access to
// many repositories of a forge: an organization's policy, applied to a
// repository made a minute ago too.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=frepositoryset,categories=forge
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Repositories",type=integer,JSONPath=`.status.repositories`
// +kubebuilder:printcolumn:name="InSync",type=integer,JSONPath=`.status.inSync`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RepositorySet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired settings, topics and teams and where they apply.
	Spec RepositorySetSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status RepositorySetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RepositorySetList is a list of RepositorySets.
type RepositorySetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the RepositorySets.
	Items []RepositorySet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RepositorySet{}, &RepositorySetList{})
}

// GetRemovals returns removals, Apply by default.
func (s *RepositorySet) GetRemovals() Removals {
	if s.Spec.Removals == "" {
		return RemovalsApply
	}
	return s.Spec.Removals
}

// ForgeOwners are the owners of the repositories the set selects.
func (s *RepositorySet) ForgeOwners() []string { return selectorOwners(s.Spec.Repositories) }
