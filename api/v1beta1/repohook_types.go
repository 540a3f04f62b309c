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

// RepoHookSpec is the desired state of a repository webhook: every OrgHook
// field, with the repository in place of the organization.
// +kubebuilder:validation:XValidation:rule="has(self.url) != has(self.urlSecretRef)",message="exactly one of spec.url and spec.urlSecretRef must be set"
// +kubebuilder:validation:XValidation:rule="self.type != 'slack' || (has(self.config) && 'channel' in self.config && size(self.config['channel']) > 0)",message="a slack hook needs spec.config.channel",fieldPath=".config"
type RepoHookSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the hook when the resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") that owns the hook. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.repository is immutable"
	Repository RepositoryName `json:"repository"`

	HookSpec `json:",inline"`
}

// RepoHook is a webhook of a forge repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=frepohook,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RepoHook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired hook.
	Spec RepoHookSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status HookStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RepoHookList is a list of RepoHooks.
type RepoHookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the RepoHooks.
	Items []RepoHook `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RepoHook{}, &RepoHookList{})
}
