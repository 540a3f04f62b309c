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

// ProjectSpec is the desired state of a repository project (a board).
type ProjectSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the project when the resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") the project belongs to. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.repository is immutable"
	Repository RepositoryName `json:"repository"`

	// title of the project; also its natural key for adoption.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
	Title string `json:"title"`

	// description of the project.
	// +kubebuilder:validation:MaxLength=65535
	// +optional
	Description *string `json:"description,omitempty"`

	// cardType: text_only or images_and_text.
	// +kubebuilder:validation:Enum=text_only;images_and_text
	// +kubebuilder:default=text_only
	// +optional
	CardType string `json:"cardType,omitempty"`

	// templateType sets up the board's columns at creation: none, basic_kanban
	// or bug_triage. Immutable: the forge applies it only when creating.
	// +kubebuilder:validation:Enum=none;basic_kanban;bug_triage
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.templateType is immutable"
	// +kubebuilder:default=none
	// +optional
	TemplateType string `json:"templateType,omitempty"`

	// state: open or closed.
	// +kubebuilder:validation:Enum=open;closed
	// +kubebuilder:default=open
	// +optional
	State string `json:"state,omitempty"`
}

// ProjectStatus is the observed state of the project.
type ProjectStatus struct {
	ManagedStatus `json:",inline"`
}

// Project is a project board of a forge repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fproject;fproj,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Title",type=string,JSONPath=`.spec.title`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.spec.state`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Project struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired project.
	Spec ProjectSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ProjectStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProjectList is a list of Projects.
type ProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Projects.
	Items []Project `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Project{}, &ProjectList{})
}
