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

// LabelName is a label's name on the forge: no surrounding whitespace.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
// +kubebuilder:validation:Pattern=`^\S(.*\S)?$`
type LabelName string

// LabelSetLabel is one label of the set, as a Label resource has it, plus
// its earlier names.
// +kubebuilder:validation:XValidation:rule="!has(self.previousNames) || !(self.name in self.previousNames)",message="previousNames must not contain the label's own name"
type LabelSetLabel struct {
	// name of the label. A scoped label is "scope/name" with exclusive: true.
	Name LabelName `json:"name"`

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

	// previousNames are earlier names of this label, a set. A label found
	// under one of them is renamed in place (its issues keep it); when both
	// the new and an old name exist, the old label's issues and pull
	// requests get the new one and the old label is deleted.
	// +listType=set
	// +kubebuilder:validation:MaxItems=10
	// +optional
	PreviousNames []LabelName `json:"previousNames,omitempty"`
}

// LabelSetSpec is one list of labels applied to many repositories.
type LabelSetSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the labels when the resource
	// is deleted; Delete removes the labels the spec lists (by their
	// current names) from every matched repository, never another label.
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repositories the set applies to.
	Repositories RepositorySelector `json:"repositories"`

	// labels of the set, keyed by name.
	// The rule builds a map of the names once (the one-element list stands
	// in for a let binding), so that checking every previous name costs one
	// lookup, within the CEL budget at 500 labels of 10 previous names.
	// +kubebuilder:validation:XValidation:rule="[self.transformMapEntry(i, l, {l.name: i})].all(m, self.all(l, !has(l.previousNames) || l.previousNames.all(p, p == l.name || !(p in m))))",message="a previous name must not be the name of another listed label"
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=500
	Labels []LabelSetLabel `json:"labels"`

	// mode: Additive (default) leaves unlisted labels alone; Authoritative
	// deletes unlisted labels that do not match preserve and that no other
	// resource manages.
	// +kubebuilder:default=Additive
	// +optional
	Mode SetMode `json:"mode,omitempty"`

	// preserve is an RE2 regular expression: in Authoritative mode,
	// unlisted labels whose name matches it are kept. One that does not
	// compile is refused at admission (and would stall the set with
	// reason Rejected).
	// The rule compiles the expression at admission (CEL's matches is RE2,
	// like Go's regexp): one that does not compile fails the rule's
	// evaluation, with the parser's message.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="''.matches(self) || !''.matches(self)",message="preserve must be a valid RE2 regular expression"
	// +optional
	Preserve string `json:"preserve,omitempty"`

	// maxDeletionsPerRepository: in Authoritative mode, a repository that
	// would lose more labels than this in one pass loses none (creates and
	// updates still happen) and is listed with reason TooManyDeletions.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxDeletionsPerRepository *int32 `json:"maxDeletionsPerRepository,omitempty"`

	// removals: in Authoritative mode, Apply (default) deletes the unlisted
	// labels; Report deletes none and lists them in
	// status.pendingRemovals, with a Warning Event RemovalsPending when
	// they change (creates and updates still happen).
	// +optional
	Removals Removals `json:"removals,omitempty"`
}

// LabelSetStatus is the observed state of the set.
type LabelSetStatus struct {
	ManagedStatus `json:",inline"`
	SetStatus     `json:",inline"`
}

// LabelSet applies one list of labels to many repositories of a forge.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=flabelset,categories=forge
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Repositories",type=integer,JSONPath=`.status.repositories`
// +kubebuilder:printcolumn:name="InSync",type=integer,JSONPath=`.status.inSync`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type LabelSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired label list and where it applies.
	Spec LabelSetSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status LabelSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// LabelSetList is a list of LabelSets.
type LabelSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the LabelSets.
	Items []LabelSet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&LabelSet{}, &LabelSetList{})
}

// GetMode returns the mode, Additive by default.
func (s *LabelSet) GetMode() SetMode {
	if s.Spec.Mode == "" {
		return SetModeAdditive
	}
	return s.Spec.Mode
}

// GetMaxDeletionsPerRepository returns the deletion guard, 10 by default.
func (s *LabelSet) GetMaxDeletionsPerRepository() int {
	if s.Spec.MaxDeletionsPerRepository == nil {
		return 10
	}
	return int(*s.Spec.MaxDeletionsPerRepository)
}
