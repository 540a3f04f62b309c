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

// Keys of the Secret a RunnerRegistrationToken writes.
const (
	// RunnerTokenKey holds the registration token.
	RunnerTokenKey = "token"
	// RunnerTokenURLKey holds the forge's root URL, as a runner is given it
	// (act_runner register --instance).
	RunnerTokenURLKey = "url"
)

// RunnerRegistrationTokenSpec is where runners are to register: a
// repository, an organization, or (neither set) the whole instance.
// +kubebuilder:validation:XValidation:rule="!(has(self.repository) && has(self.organization))",message="at most one of spec.repository and spec.organization may be set (neither: the instance)"
// +kubebuilder:validation:XValidation:rule="has(self.repository) == has(oldSelf.repository) && (!has(self.repository) || self.repository == oldSelf.repository) && has(self.organization) == has(oldSelf.organization) && (!has(self.organization) || self.organization == oldSelf.organization)",message="spec.repository and spec.organization are immutable"
// +kubebuilder:validation:XValidation:rule="self.secretName == oldSelf.secretName",message="spec.secretName is immutable",fieldPath=".secretName"
type RunnerRegistrationTokenSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy has nothing to act on: a registration token is no
	// object on the forge (runners registered with it stay). The Secret is
	// the resource's own (owner reference) and goes with it either way.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") whose runners register with the token.
	// Immutable.
	// +optional
	Repository *RepositoryName `json:"repository,omitempty"`

	// organization whose runners register with the token. Immutable.
	// Neither repository nor organization: the instance's token, which
	// only a ClusterForge whose tenants entry has siteAdmin: true serves.
	// +optional
	Organization *OwnerName `json:"organization,omitempty"`

	// secretName is the Secret (in the resource's namespace) the operator
	// writes the token to, key token, and the forge's root URL, key url.
	// The operator creates it, owned by the resource, and never writes into
	// a Secret it did not create. Immutable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	SecretName string `json:"secretName"`
}

// RunnerRegistrationTokenStatus is what the operator last did.
type RunnerRegistrationTokenStatus struct {
	ManagedStatus `json:",inline"`

	// lastRotated is when the operator last wrote a new token into the
	// Secret on request (the rotate annotation).
	// +optional
	LastRotated *metav1.Time `json:"lastRotated,omitempty"`

	// lastHandledRotateAt echoes the forge.forgeops.dev/rotate-requested-at
	// annotation value handled last: each value brings one token request.
	// +optional
	LastHandledRotateAt string `json:"lastHandledRotateAt,omitempty"`
}

// RunnerRegistrationToken keeps the token Actions runners register with
// (for a repository, an organization or the instance) in a Secret.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=frunnertoken;frrt,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Secret",type=string,JSONPath=`.spec.secretName`
// +kubebuilder:printcolumn:name="Rotated",type=date,JSONPath=`.status.lastRotated`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RunnerRegistrationToken struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is where runners register and the Secret the token goes to.
	Spec RunnerRegistrationTokenSpec `json:"spec"`
	// status is what the operator last did.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status RunnerRegistrationTokenStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RunnerRegistrationTokenList is a list of RunnerRegistrationTokens.
type RunnerRegistrationTokenList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the RunnerRegistrationTokens.
	Items []RunnerRegistrationToken `json:"items"`
}

// Instance reports whether the token is the instance's (neither a
// repository nor an organization).
func (t *RunnerRegistrationToken) Instance() bool {
	return t.Spec.Repository == nil && t.Spec.Organization == nil
}

func init() {
	SchemeBuilder.Register(&RunnerRegistrationToken{}, &RunnerRegistrationTokenList{})
}
