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

// FileSetSpec is a list of files kept on one branch of every repository a
// selector picks, written in one commit per repository whenever one of
// them differs there.
type FileSetSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the files when the set is
	// deleted, or when a repository stops matching; Delete removes the
	// listed files there, in one commit per repository (files the mode
	// CreateOnly wrote stay: the repository owns them).
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repositories the files are kept in.
	Repositories RepositorySelector `json:"repositories"`

	FilesSpec `json:",inline"`

	// enforce: the set's paths win over every RepositoryFile of the same
	// server (any namespace) on the branch the set keeps them on; such a
	// RepositoryFile is Stalled, reason Conflict, for those paths only,
	// and keeps its others. Without (the default), a RepositoryFile's own
	// paths win in its repository. Between two enforced sets the older
	// holds.
	// +optional
	Enforce bool `json:"enforce,omitempty"`
}

// FileSetStatus is the observed state of the set.
type FileSetStatus struct {
	ManagedStatus `json:",inline"`
	SetStatus     `json:",inline"`

	// commit is the sha of the last commit the operator made, in
	// commitRepository: a set makes one commit per repository that
	// differs; the repositories it could not write are in failures.
	// +optional
	Commit string `json:"commit,omitempty"`

	// commitRepository is the repository ("owner/name") of commit.
	// +optional
	CommitRepository string `json:"commitRepository,omitempty"`

	// commits counts the commits the operator made in the set's last
	// pass that wrote.
	// +optional
	Commits int32 `json:"commits,omitempty"`

	// checked is the operator's record of its last complete check of
	// each repository (CheckedRepositories): a pass lists the tree of a
	// repository only where its updated_at or the files moved since.
	// +optional
	Checked *CheckedRepositories `json:"checked,omitempty"`
}

// FileSet keeps the same files (CODEOWNERS, a CI workflow, templates, a
// licence) in every repository a selector picks, a repository made a
// minute ago too. A RepositoryFile keeping a path in a repository holds it
// there: the set leaves that path alone. Two sets keeping one path of one
// repository: the older holds it, the younger lists the repository with
// reason Conflict.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=ffileset,categories=forge
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Repositories",type=integer,JSONPath=`.status.repositories`
// +kubebuilder:printcolumn:name="InSync",type=integer,JSONPath=`.status.inSync`
// +kubebuilder:printcolumn:name="Commit",type=string,JSONPath=`.status.commit`,priority=1
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type FileSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired files and where they are kept.
	Spec FileSetSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status FileSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// FileSetList is a list of FileSets.
type FileSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the FileSets.
	Items []FileSet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&FileSet{}, &FileSetList{})
}

// ForgeOwners are the owners of the repositories the set selects.
func (s *FileSet) ForgeOwners() []string { return selectorOwners(s.Spec.Repositories) }

// SpecAuthor is spec.author.
func (s *FileSet) SpecAuthor() *CommitAuthor { return s.Spec.Author }
