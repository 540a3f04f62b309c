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

// TagNamePattern is a tag protection's pattern as the forge takes it: a
// glob (v*), or a regular expression between slashes (/^v[0-9]+$/). The
// forge trims it on create, so it must not begin or end with whitespace.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
type TagNamePattern string

// TagProtectionSpec is one tag protection of one repository: who may
// create and delete the tags its pattern matches.
// +kubebuilder:validation:XValidation:rule="self.repository == oldSelf.repository",message="spec.repository is immutable",fieldPath=".repository"
// +kubebuilder:validation:XValidation:rule="self.namePattern == oldSelf.namePattern",message="spec.namePattern is immutable: it is the protection's key on the forge; create a new resource for another pattern",fieldPath=".namePattern"
type TagProtectionSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the protection when the
	// resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") whose tags the protection covers. Immutable.
	Repository RepositoryName `json:"repository"`

	// namePattern selects the protected tags: a glob (v*) or a regular
	// expression between slashes (/^v[0-9]+$/). An existing protection of
	// this pattern is adopted. Immutable.
	NamePattern TagNamePattern `json:"namePattern"`

	// whitelistUsernames may create and delete matching tags (any case; a
	// set); unset: not managed, []: nobody. The forge shows only users with read access to the
	// repository's pull requests.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	WhitelistUsernames []UserName `json:"whitelistUsernames"`

	// whitelistTeams of the repository's organization may create and
	// delete matching tags (any case; a set). A user's repository has no
	// teams.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	WhitelistTeams []TeamName `json:"whitelistTeams"`
}

// TagProtectionStatus is the observed state of the protection.
type TagProtectionStatus struct {
	ManagedStatus `json:",inline"`
}

// TagProtection is one tag protection of a repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=ftagprotection,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Pattern",type=string,JSONPath=`.spec.namePattern`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TagProtection struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired protection.
	Spec TagProtectionSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status TagProtectionStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TagProtectionList is a list of TagProtections.
type TagProtectionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the TagProtections.
	Items []TagProtection `json:"items"`
}

func init() {
	SchemeBuilder.Register(&TagProtection{}, &TagProtectionList{})
}
