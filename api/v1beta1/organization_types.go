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

// OwnerName is a forge user or organization name: letters, digits, '-', '.'
// and '_', starting with a letter or digit, at most 40 characters, with no
// run of two special characters and none at the end (the forge's own rule).
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=40
// +kubebuilder:validation:Pattern=`^[\da-zA-Z][-.\w]*$`
// +kubebuilder:validation:XValidation:rule="!self.matches('[-._]{2}')",message="must not contain two or more of '-', '.' and '_' in a row"
// +kubebuilder:validation:XValidation:rule="!self.matches('[-._]$')",message="must not end with '-', '.' or '_'"
type OwnerName string

// RepositoryName is a repository's full name, "owner/name".
// +kubebuilder:validation:MinLength=3
// +kubebuilder:validation:MaxLength=141
// +kubebuilder:validation:Pattern=`^[\da-zA-Z][-.\w]*/[-.\w]+$`
// +kubebuilder:validation:XValidation:rule="!self.split('/')[0].matches('[-._]{2}|[-._]$')",message="the owner part must not contain two or more of '-', '.' and '_' in a row, nor end with one"
// +kubebuilder:validation:XValidation:rule="self.split('/')[1] != '.' && self.split('/')[1] != '..'",message="the repository part must not be '.' or '..'"
// +kubebuilder:validation:XValidation:rule="size(self.split('/')[0]) <= 40 && size(self.split('/')[1]) <= 100",message="the owner part must be at most 40 characters and the repository part at most 100"
type RepositoryName string

// OrganizationSpec is the desired state of a forge organization. Fields left
// unset are not managed: whatever the forge holds for them stays.
// +kubebuilder:validation:XValidation:rule="!has(self.blockedUsers) || self.blockedUsers.all(m, self.blockedUsers.filter(n, n.lowerAscii() == m.lowerAscii()).size() == self.blockedUsers.filter(n, n == m).size())",message="blockedUsers must not name a user twice (names are compared without case)",fieldPath=".blockedUsers"
// +kubebuilder:validation:XValidation:rule="has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name)",message="spec.name is immutable",fieldPath=".name"
type OrganizationSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the organization on the forge
	// when the resource is deleted; Delete removes it (the forge refuses
	// while the organization still owns repositories).
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// name of the organization on the forge; metadata.name when unset. Immutable.
	// +optional
	Name *OwnerName `json:"name,omitempty"`

	// fullName is the display name.
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
	// +optional
	FullName *string `json:"fullName,omitempty"`

	// description of the organization.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Description *string `json:"description,omitempty"`

	// email is the public contact address; "" clears it.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^$|^[^@\s]+@[^@\s]+$`
	// +optional
	Email *string `json:"email,omitempty"`

	// website is an http(s) URL, or "" to clear it.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^$|^https?://\S+$`
	// +optional
	Website *string `json:"website,omitempty"`

	// location is free text.
	// +kubebuilder:validation:MaxLength=50
	// +optional
	Location *string `json:"location,omitempty"`

	// visibility: public, limited (signed-in users) or private (members).
	// +kubebuilder:validation:Enum=public;limited;private
	// +optional
	Visibility *string `json:"visibility,omitempty"`

	// repoAdminChangeTeamAccess lets repository admins change team access.
	// +optional
	RepoAdminChangeTeamAccess *bool `json:"repoAdminChangeTeamAccess,omitempty"`

	// blockedUsers: unset leaves the organization's blocks alone; a list
	// (also []) is exactly the users it blocks: the others are blocked
	// (which ends their collaborations on its repositories) and the
	// unlisted unblocked. The forge refuses to block a member of the
	// organization or a site administrator: such a user is reported in a
	// condition and the others are still applied. Gitea 1.21 and later;
	// not on Forgejo. At most 300 (what admission can check for repeats).
	// +kubebuilder:validation:MaxItems=300
	// +listType=set
	// +optional
	BlockedUsers []OwnerName `json:"blockedUsers"`
}

// OrganizationStatus is the observed state of the organization.
type OrganizationStatus struct {
	ManagedStatus `json:",inline"`
}

// Organization is an organization on a forge, created or adopted by name.
// +kubebuilder:validation:XValidation:rule="has(self.spec.name) || (size(self.metadata.name) <= 40 && !self.metadata.name.matches('[-._]{2}'))",message="metadata.name is the forge name when spec.name is unset: it must be at most 40 characters with no two of '-' and '.' in a row; set spec.name to a valid forge name"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=forg,categories=forge
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.name`,description="forge name; metadata.name when empty"
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Organization struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired organization.
	Spec OrganizationSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status OrganizationStatus `json:"status,omitempty"`
}

// OrgName is the organization's name on the forge: spec.name, else metadata.name.
func (o *Organization) OrgName() string {
	if o.Spec.Name != nil && *o.Spec.Name != "" {
		return string(*o.Spec.Name)
	}
	return o.Name
}

// +kubebuilder:object:root=true

// OrganizationList is a list of Organizations.
type OrganizationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Organizations.
	Items []Organization `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Organization{}, &OrganizationList{})
}
