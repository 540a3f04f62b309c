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

// MilestoneSpec is one milestone of one repository. The milestone is held
// by its id once made or adopted, so its title may change: the forge
// renames it in place.
// +kubebuilder:validation:XValidation:rule="self.repository == oldSelf.repository",message="spec.repository is immutable",fieldPath=".repository"
type MilestoneSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the milestone when the
	// resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") the milestone belongs to. Immutable.
	Repository RepositoryName `json:"repository"`

	// title of the milestone; also its natural key for adoption: the
	// milestone of this title is adopted (several of it, which the forge
	// allows, are a Conflict naming their ids).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
	Title string `json:"title"`

	// description of the milestone; unset: not managed, "": none.
	// +kubebuilder:validation:MaxLength=65535
	// +optional
	Description *string `json:"description,omitempty"`

	// dueOn is when the milestone is due; unset: no due date. The forge
	// keeps its day: a milestone created with it is due at that instant,
	// one edited at 23:59:59 of that day (its day in the offset written
	// here) in the forge's time zone.
	// +optional
	DueOn *metav1.Time `json:"dueOn,omitempty"`

	// state: open or closed; unset: not managed (a milestone is created open).
	// +kubebuilder:validation:Enum=open;closed
	// +optional
	State *string `json:"state,omitempty"`
}

// MilestoneStatus is the observed state of the milestone.
type MilestoneStatus struct {
	ManagedStatus `json:",inline"`
}

// Milestone is one milestone of a repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fmilestone,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Title",type=string,JSONPath=`.spec.title`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.spec.state`
// +kubebuilder:printcolumn:name="Due",type=string,JSONPath=`.spec.dueOn`,priority=1
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Milestone struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired milestone.
	Spec MilestoneSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status MilestoneStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MilestoneList is a list of Milestones.
type MilestoneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Milestones.
	Items []Milestone `json:"items"`
}

// ForgeOwners is the owner of the milestone's repository.
func (m *Milestone) ForgeOwners() []string { return []string{ownerOf(string(m.Spec.Repository))} }

func init() {
	SchemeBuilder.Register(&Milestone{}, &MilestoneList{})
}
