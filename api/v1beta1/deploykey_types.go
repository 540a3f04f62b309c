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

// DeployKeyType is the kind of key pair the operator generates.
// +kubebuilder:validation:Enum=ed25519;rsa-4096
type DeployKeyType string

const (
	// DeployKeyEd25519 is an Ed25519 key pair (the default).
	DeployKeyEd25519 DeployKeyType = "ed25519"
	// DeployKeyRSA4096 is an RSA key pair of 4096 bits.
	DeployKeyRSA4096 DeployKeyType = "rsa-4096"
)

// Keys of the Secret a generated deploy key is written to.
const (
	// DeployKeyPrivate holds the private key, OpenSSH PEM.
	DeployKeyPrivate = "identity"
	// DeployKeyPublic holds the public key, one authorized_keys line.
	DeployKeyPublic = "identity.pub"
)

// DeployKeyFrom names the Secret holding a public key.
type DeployKeyFrom struct {
	// secretKeyRef is the Secret and key holding the public key (one
	// authorized_keys line).
	SecretKeyRef SecretKeySelector `json:"secretKeyRef"`
}

// DeployKeyGenerate asks the operator to make the key pair.
type DeployKeyGenerate struct {
	// secretName is the Secret (in the resource's namespace) the operator
	// writes the pair to, keys identity (private, OpenSSH PEM) and
	// identity.pub. The operator creates it, owned by the DeployKey, and
	// never overwrites it while it holds a key; it never writes into a
	// Secret it did not create.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName"`
	// type of the key pair: ed25519 (default) or rsa-4096.
	// +kubebuilder:default=ed25519
	// +optional
	Type DeployKeyType `json:"type,omitempty"`
}

// DeployKeySpec is the desired state of a repository's deploy key.
// +kubebuilder:validation:XValidation:rule="self.repository == oldSelf.repository",message="spec.repository is immutable",fieldPath=".repository"
// +kubebuilder:validation:XValidation:rule="[has(self.publicKey), has(self.publicKeyFrom), has(self.generate)].filter(x, x).size() == 1",message="exactly one of spec.publicKey, spec.publicKeyFrom and spec.generate must be set"
type DeployKeySpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the key from the repository
	// when the resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") the key opens. Immutable.
	Repository RepositoryName `json:"repository"`

	// title of the key on the forge; metadata.name when unset. The forge
	// cannot edit a key: a new title replaces it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Title *string `json:"title,omitempty"`

	// readOnly keys may only pull (default true); false lets the key push.
	// +kubebuilder:default=true
	// +optional
	ReadOnly *bool `json:"readOnly,omitempty"`

	// publicKey is the key itself, one authorized_keys line such as
	// "ssh-ed25519 AAAA... comment".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16384
	// +optional
	PublicKey *string `json:"publicKey,omitempty"`

	// publicKeyFrom names the Secret holding the public key.
	// +optional
	PublicKeyFrom *DeployKeyFrom `json:"publicKeyFrom,omitempty"`

	// generate has the operator make the key pair once and keep it in a
	// Secret of its own.
	// +optional
	Generate *DeployKeyGenerate `json:"generate,omitempty"`
}

// DeployKeyStatus is the observed state of the key.
type DeployKeyStatus struct {
	ManagedStatus `json:",inline"`
	// fingerprint of the key on the forge (SHA256:..., as ssh-keygen -l shows it).
	// +optional
	Fingerprint string `json:"fingerprint,omitempty"`
}

// DeployKey is an SSH key that opens one forge repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fdeploykey,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Title",type=string,JSONPath=`.spec.title`
// +kubebuilder:printcolumn:name="Fingerprint",type=string,JSONPath=`.status.fingerprint`
// +kubebuilder:printcolumn:name="ReadOnly",type=boolean,JSONPath=`.spec.readOnly`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type DeployKey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired key.
	Spec DeployKeySpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status DeployKeyStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DeployKeyList is a list of DeployKeys.
type DeployKeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the DeployKeys.
	Items []DeployKey `json:"items"`
}

// KeyTitle is the key's title on the forge: spec.title, else metadata.name.
func (k *DeployKey) KeyTitle() string {
	if k.Spec.Title != nil {
		return *k.Spec.Title
	}
	return k.Name
}

// KeyReadOnly is spec.readOnly, true when unset.
func (k *DeployKey) KeyReadOnly() bool { return k.Spec.ReadOnly == nil || *k.Spec.ReadOnly }

func init() {
	SchemeBuilder.Register(&DeployKey{}, &DeployKeyList{})
}
