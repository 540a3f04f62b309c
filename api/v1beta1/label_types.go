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

// LabelSpec is the desired state of an issue label in a repository or an organization.
// +kubebuilder:validation:XValidation:rule="has(self.repository) != has(self.organization)",message="exactly one of spec.repository and spec.organization must be set"
// +kubebuilder:validation:XValidation:rule="has(self.repository) == has(oldSelf.repository) && (!has(self.repository) || self.repository == oldSelf.repository) && has(self.organization) == has(oldSelf.organization) && (!has(self.organization) || self.organization == oldSelf.organization)",message="the label's scope (spec.repository or spec.organization) is immutable"
type LabelSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the label when the resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") the label belongs to.
	// +optional
	Repository *RepositoryName `json:"repository,omitempty"`

	// organization the label belongs to (an org-wide label).
	// +optional
	Organization *OwnerName `json:"organization,omitempty"`

	// name of the label; metadata.name when unset. A scoped label is "scope/name" with exclusive: true.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
	// +optional
	Name string `json:"name,omitempty"`

	// color as #rgb or #rrggbb, with or without '#', any case.
	// +kubebuilder:validation:Pattern=`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`
	Color string `json:"color"`

	// description of the label.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Description *string `json:"description,omitempty"`

	// exclusive makes a scoped label ("scope/name") exclude the other labels of its scope.
	// +optional
	Exclusive *bool `json:"exclusive,omitempty"`

	// archived hides the label from pickers without removing it from issues.
	// +optional
	Archived *bool `json:"archived,omitempty"`
}

// LabelStatus is the observed state of the label.
type LabelStatus struct {
	ManagedStatus `json:",inline"`
}

// Label is an issue label of a forge repository or organization.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=flabel,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Label",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Color",type=string,JSONPath=`.spec.color`,priority=1
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Label struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired label.
	Spec LabelSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status LabelStatus `json:"status,omitempty"`
}

// LabelName is the label's name on the forge: spec.name, else metadata.name.
func (l *Label) LabelName() string {
	if l.Spec.Name != "" {
		return l.Spec.Name
	}
	return l.Name
}

// +kubebuilder:object:root=true

// LabelList is a list of Labels.
type LabelList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Labels.
	Items []Label `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Label{}, &LabelList{})
}
