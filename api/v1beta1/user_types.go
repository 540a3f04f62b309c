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

// UserSpec is the desired state of a forge user account, managed by the
// site admin. Fields left unset are not managed (a created user gets the
// forge's defaults for them).
// +kubebuilder:validation:XValidation:rule="self.username == oldSelf.username",message="spec.username is immutable",fieldPath=".username"
// +kubebuilder:validation:XValidation:rule="has(self.forgeRef.kind) && self.forgeRef.kind == 'ClusterForge'",message="a User is managed only through a ClusterForge whose tenants entry has siteAdmin: true; set spec.forgeRef.kind to ClusterForge",fieldPath=".forgeRef"
type UserSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the user on the forge when the
	// resource is deleted; Delete removes the account (never purging its
	// repositories: the forge refuses while the user owns any or belongs to
	// an organization).
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// username on the forge; an existing user of this name (in any case) is
	// adopted. Immutable.
	Username OwnerName `json:"username"`

	// email is the user's primary email address.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=254
	// +kubebuilder:validation:Pattern=`^[^@\s]+@[^@\s]+$`
	Email string `json:"email"`

	// fullName is the display name.
	// +kubebuilder:validation:MaxLength=100
	// +optional
	FullName *string `json:"fullName,omitempty"`

	// visibility of the user's profile.
	// +kubebuilder:validation:Enum=public;limited;private
	// +optional
	Visibility *string `json:"visibility,omitempty"`

	// restricted users see only what they are explicitly given.
	// +optional
	Restricted *bool `json:"restricted,omitempty"`

	// admin makes the user a site administrator. The credentials' own user
	// is never demoted (nor deactivated, barred from signing in or made to
	// change its password: each would lock the operator out).
	// +optional
	Admin *bool `json:"admin,omitempty"`

	// active accounts may sign in.
	// +optional
	Active *bool `json:"active,omitempty"`

	// prohibitLogin blocks signing in.
	// +optional
	ProhibitLogin *bool `json:"prohibitLogin,omitempty"`

	// passwordSecretRef selects the password in a Secret of the resource's
	// namespace. It is written on create, once when an existing user is
	// adopted, and whenever the Secret's value changes (compared by a keyed
	// digest); the forge's password is never read. Without it a created user
	// gets a random password nobody knows.
	// +optional
	PasswordSecretRef *SecretKeySelector `json:"passwordSecretRef,omitempty"`

	// mustChangePassword makes the user change the password at the next
	// sign-in; sent with each password written.
	// +optional
	MustChangePassword *bool `json:"mustChangePassword,omitempty"`
}

// UserStatus is the observed state of the user.
type UserStatus struct {
	ManagedStatus `json:",inline"`

	// appliedSecrets records the password last written: the Secret, its
	// resourceVersion and a keyed digest of the value, never the value.
	// +listType=map
	// +listMapKey=field
	// +optional
	AppliedSecrets []AppliedSecret `json:"appliedSecrets,omitempty"`
}

// User is a forge user account, managed through a ClusterForge whose
// tenants entry allows the namespace site-admin kinds (siteAdmin: true).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fuser,categories=forge
// +kubebuilder:printcolumn:name="Username",type=string,JSONPath=`.spec.username`
// +kubebuilder:printcolumn:name="Admin",type=boolean,JSONPath=`.spec.admin`,priority=1
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type User struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec: the desired account.
	Spec UserSpec `json:"spec"`
	// status: what the forge holds.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status UserStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// UserList is a list of Users.
type UserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Users.
	Items []User `json:"items"`
}

func init() {
	SchemeBuilder.Register(&User{}, &UserList{})
}
