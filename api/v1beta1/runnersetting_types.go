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

// RunnerSelector finds one runner in the scope: exactly one of id and name.
// +kubebuilder:validation:XValidation:rule="has(self.id) != has(self.name)",message="spec.runner needs exactly one of id and name"
type RunnerSelector struct {
	// id of the runner.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ID *int64 `json:"id,omitempty"`
	// name of the runner; it must be unique in the scope. Runners register
	// themselves: until one of this name exists the resource waits.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
	// +optional
	Name string `json:"name,omitempty"`
}

// RunnerSettingSpec is the desired setting of one Actions runner.
// +kubebuilder:validation:XValidation:rule="has(self.repository) != has(self.organization)",message="exactly one of spec.repository and spec.organization must be set"
type RunnerSettingSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the runner as it is when the
	// resource is deleted; Delete re-enables it.
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") whose runner this is.
	// +optional
	Repository *RepositoryName `json:"repository,omitempty"`

	// organization whose runner this is.
	// +optional
	Organization *OwnerName `json:"organization,omitempty"`

	// runner selects the runner by id or by name.
	Runner RunnerSelector `json:"runner"`

	// disabled runners take no new jobs.
	Disabled bool `json:"disabled"`
}

// RunnerSettingStatus is the observed state of the runner.
type RunnerSettingStatus struct {
	ManagedStatus `json:",inline"`

	// runnerID is the id of the runner found.
	// +optional
	RunnerID int64 `json:"runnerID,omitempty"`
	// runnerName is the name of the runner found.
	// +optional
	RunnerName string `json:"runnerName,omitempty"`
	// runnerStatus is online or offline.
	// +optional
	RunnerStatus string `json:"runnerStatus,omitempty"`
}

// RunnerSetting keeps one Actions runner of a repository or organization
// enabled or disabled.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=frunner;frs,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Runner",type=string,JSONPath=`.status.runnerName`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.runnerID`
// +kubebuilder:printcolumn:name="Disabled",type=boolean,JSONPath=`.spec.disabled`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.runnerStatus`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RunnerSetting struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired runner setting.
	Spec RunnerSettingSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status RunnerSettingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RunnerSettingList is a list of RunnerSettings.
type RunnerSettingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the RunnerSettings.
	Items []RunnerSetting `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RunnerSetting{}, &RunnerSettingList{})
}
