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

// ActionsName is the name of an Actions secret or variable as the forge
// keeps it: upper case letters, digits and '_', not starting with a digit,
// not GITEA_* or GITHUB_*, not CI.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
// +kubebuilder:validation:Pattern=`^[A-Z_][A-Z0-9_]*$`
// +kubebuilder:validation:XValidation:rule="!self.startsWith('GITEA_') && !self.startsWith('GITHUB_')",message="must not start with GITEA_ or GITHUB_ (the forge reserves them)"
// +kubebuilder:validation:XValidation:rule="self != 'CI'",message="must not be CI (the forge sets it for every workflow)"
type ActionsName string

// ConfigMapKeySelector selects one key of a ConfigMap in the resource's namespace.
type ConfigMapKeySelector struct {
	// name of the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// key in the ConfigMap's data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// ActionsSecretValueFrom names the Secret holding a secret's value.
type ActionsSecretValueFrom struct {
	// secretKeyRef is the Secret and key holding the value.
	SecretKeyRef SecretKeySelector `json:"secretKeyRef"`
}

// ActionsVariableValueFrom names the ConfigMap or Secret holding a variable's value.
// +kubebuilder:validation:XValidation:rule="has(self.configMapKeyRef) != has(self.secretKeyRef)",message="exactly one of configMapKeyRef and secretKeyRef"
type ActionsVariableValueFrom struct {
	// +optional
	ConfigMapKeyRef *ConfigMapKeySelector `json:"configMapKeyRef,omitempty"`
	// +optional
	SecretKeyRef *SecretKeySelector `json:"secretKeyRef,omitempty"`
}

// ActionsScope is where a secret or variable lives: exactly one of a
// repository and an organization, immutable.
// +kubebuilder:validation:XValidation:rule="has(self.repository) != has(self.organization)",message="exactly one of repository and organization"
type ActionsScope struct {
	// repository ("owner/name") the value belongs to.
	// +optional
	Repository *RepositoryName `json:"repository,omitempty"`
	// organization the value belongs to (every repository of it reads it).
	// +optional
	Organization *OwnerName `json:"organization,omitempty"`
	// name on the forge; metadata.name upper-cased with '-' and '.' as '_'
	// when unset. Immutable.
	// +optional
	Name *ActionsName `json:"name,omitempty"`
	// description shown on the forge.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Description *string `json:"description,omitempty"`
}

// ActionsSecretSpec is the desired state of an Actions secret.
// +kubebuilder:validation:XValidation:rule="has(self.repository) == has(oldSelf.repository) && (!has(self.repository) || self.repository == oldSelf.repository) && has(self.organization) == has(oldSelf.organization) && (!has(self.organization) || self.organization == oldSelf.organization)",message="spec.repository and spec.organization are immutable"
// +kubebuilder:validation:XValidation:rule="has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name)",message="spec.name is immutable",fieldPath=".name"
type ActionsSecretSpec struct {
	ManagedSpec  `json:",inline"`
	ActionsScope `json:",inline"`

	// deletionPolicy: Delete (default) deletes the secret on the forge; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// valueFrom names the Secret holding the value. The forge never gives a
	// secret back: the operator sends it when it is missing, when the
	// Secret's value changes, and once on adoption.
	ValueFrom ActionsSecretValueFrom `json:"valueFrom"`
}

// ActionsSecretStatus is the observed state of the secret.
type ActionsSecretStatus struct {
	ManagedStatus `json:",inline"`
	// appliedSecrets records the value sent as a keyed digest, as hooks do.
	// +optional
	AppliedSecrets []AppliedSecret `json:"appliedSecrets,omitempty"`
}

// ActionsSecret is an Actions secret of a repository or organization.
// +kubebuilder:validation:XValidation:rule="has(self.spec.name) || (self.metadata.name.upperAscii().replace('-', '_').replace('.', '_').matches('^[A-Z_][A-Z0-9_]*$') && !self.metadata.name.upperAscii().replace('-', '_').startsWith('GITEA_') && !self.metadata.name.upperAscii().replace('-', '_').startsWith('GITHUB_') && self.metadata.name.upperAscii() != 'CI')",message="metadata.name, upper-cased with '-' and '.' as '_', is the forge name when spec.name is unset: it must not start with a digit, GITEA_ or GITHUB_, nor be CI; set spec.name"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fsecret,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.status.externalName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ActionsSecret struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired secret.
	Spec ActionsSecretSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ActionsSecretStatus `json:"status,omitempty"`
}

// ActionsSecretList is a list of ActionsSecrets.
// +kubebuilder:object:root=true
type ActionsSecretList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ActionsSecrets.
	Items []ActionsSecret `json:"items"`
}

// ActionsVariableSpec is the desired state of an Actions variable.
// +kubebuilder:validation:XValidation:rule="has(self.repository) == has(oldSelf.repository) && (!has(self.repository) || self.repository == oldSelf.repository) && has(self.organization) == has(oldSelf.organization) && (!has(self.organization) || self.organization == oldSelf.organization)",message="spec.repository and spec.organization are immutable"
// +kubebuilder:validation:XValidation:rule="has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name)",message="spec.name is immutable",fieldPath=".name"
// +kubebuilder:validation:XValidation:rule="has(self.value) != has(self.valueFrom)",message="exactly one of value and valueFrom"
type ActionsVariableSpec struct {
	ManagedSpec  `json:",inline"`
	ActionsScope `json:",inline"`

	// deletionPolicy: Delete (default) deletes the variable on the forge; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// value of the variable (not empty: the forge refuses that).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=65536
	// +optional
	Value *string `json:"value,omitempty"`

	// valueFrom names the ConfigMap or Secret key holding the value.
	// +optional
	ValueFrom *ActionsVariableValueFrom `json:"valueFrom,omitempty"`
}

// ActionsVariableStatus is the observed state of the variable.
type ActionsVariableStatus struct {
	ManagedStatus `json:",inline"`
}

// ActionsVariable is an Actions variable of a repository or organization.
// +kubebuilder:validation:XValidation:rule="has(self.spec.name) || (self.metadata.name.upperAscii().replace('-', '_').replace('.', '_').matches('^[A-Z_][A-Z0-9_]*$') && !self.metadata.name.upperAscii().replace('-', '_').startsWith('GITEA_') && !self.metadata.name.upperAscii().replace('-', '_').startsWith('GITHUB_') && self.metadata.name.upperAscii() != 'CI')",message="metadata.name, upper-cased with '-' and '.' as '_', is the forge name when spec.name is unset: it must not start with a digit, GITEA_ or GITHUB_, nor be CI; set spec.name"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fvar,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.status.externalName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ActionsVariable struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired variable.
	Spec ActionsVariableSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ActionsVariableStatus `json:"status,omitempty"`
}

// ActionsVariableList is a list of ActionsVariables.
// +kubebuilder:object:root=true
type ActionsVariableList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ActionsVariables.
	Items []ActionsVariable `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ActionsSecret{}, &ActionsSecretList{}, &ActionsVariable{}, &ActionsVariableList{})
}

// ActionsNameOf is the forge name of a secret or variable: spec.name, else
// metadata.name upper-cased with '-' and '.' as '_'.
func ActionsNameOf(spec *ActionsScope, metadataName string) string {
	if spec.Name != nil && *spec.Name != "" {
		return string(*spec.Name)
	}
	return strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToUpper(metadataName))
}
