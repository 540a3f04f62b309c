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

// FilePath is a file's path in a repository: relative, with no empty,
// "." or ".." component and no ".git" one (the forge refuses those).
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=500
// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.endsWith('/') && !self.contains('//')",message="must be relative: no leading or trailing '/', no empty component"
// +kubebuilder:validation:XValidation:rule="!self.contains('\\\\')",message="must separate directories with '/'"
// +kubebuilder:validation:XValidation:rule="!self.matches('(^|/)[.][.]?(/|$)')",message="must not hold a '.' or '..' component"
// +kubebuilder:validation:XValidation:rule="!self.matches('(^|/)[.][gG][iI][tT](/|$)')",message="must not hold a '.git' component (the forge refuses it)"
type FilePath string

// FileMode says whether a file is kept or only started.
// +kubebuilder:validation:Enum=Overwrite;CreateOnly
type FileMode string

const (
	// FileModeOverwrite keeps the file's content equal to the spec: a
	// change made on the forge is written back.
	FileModeOverwrite FileMode = "Overwrite"
	// FileModeCreateOnly writes the file only while it is missing: a
	// starter file the repository then owns, never rewritten nor deleted.
	FileModeCreateOnly FileMode = "CreateOnly"
)

// RepositoryFileEntry is one file: its path and where its content comes from.
// +kubebuilder:validation:XValidation:rule="has(self.content) != has(self.configMapRef)",message="exactly one of content and configMapRef"
type RepositoryFileEntry struct {
	// path of the file in the repository ("/"-separated, relative).
	Path FilePath `json:"path"`
	// content of the file, as is (no newline is added).
	// +kubebuilder:validation:MaxLength=262144
	// +optional
	Content *string `json:"content,omitempty"`
	// configMapRef names a key of a ConfigMap in the resource's namespace
	// holding the content (its data, or its binaryData). Never a Secret:
	// a repository's files are readable by everyone who reads the repository.
	// +optional
	ConfigMapRef *ConfigMapKeySelector `json:"configMapRef,omitempty"`
}

// CommitAuthor is the author (and committer) of the operator's commits.
type CommitAuthor struct {
	// name of the author.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`
	// email of the author.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^@\s]+@[^@\s]+$`
	Email string `json:"email"`
}

// Committer is implemented by the kinds that commit (RepositoryFile,
// FileSet): a ClusterForge with commitAuthor refuses one whose spec names
// an author.
// +kubebuilder:object:generate=false
type Committer interface {
	// SpecAuthor is the author the spec asks for (nil: none).
	SpecAuthor() *CommitAuthor
}

// SpecAuthorOf is the author obj's spec asks for its commits: nil when it
// names none or its kind makes no commit.
func SpecAuthorOf(obj any) *CommitAuthor {
	if c, ok := obj.(Committer); ok {
		return c.SpecAuthor()
	}
	return nil
}

// FilesSpec is what a RepositoryFile and a FileSet keep in a repository
// alike: which files, on which branch, and how the operator commits them.
type FilesSpec struct {
	// branch the files are kept on; unset: the repository's default
	// branch (also the branch of an empty repository's first commit).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	// +optional
	Branch *string `json:"branch,omitempty"`

	// files kept, one per path.
	// +listType=map
	// +listMapKey=path
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	Files []RepositoryFileEntry `json:"files"`

	// mode: Overwrite (default) writes a file back whenever it differs;
	// CreateOnly writes it only while it is missing.
	// +kubebuilder:default=Overwrite
	// +optional
	Mode FileMode `json:"mode,omitempty"`

	// message of the operator's commits, which end with the trailer
	// "Kept-by: <kind> <namespace>/<name>" naming the resource; the message
	// may carry no Kept-by line of its own.
	// +kubebuilder:default="chore: files kept by forge-operator"
	// +kubebuilder:validation:XValidation:rule="!self.matches('(?im)^ *kept-by *:')",message="must not hold a Kept-by line: the operator ends every commit's message with the one naming the resource"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1000
	// +optional
	Message string `json:"message,omitempty"`

	// author (and committer) of the operator's commits; unset: the
	// connection's user.
	// +optional
	Author *CommitAuthor `json:"author,omitempty"`
}

// RepositoryFileSpec is a list of files kept on one branch of one
// repository, written in one commit whenever one of them differs.
// +kubebuilder:validation:XValidation:rule="self.repository == oldSelf.repository",message="spec.repository is immutable",fieldPath=".repository"
type RepositoryFileSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the files when the resource
	// is deleted; Delete removes the listed files in one commit (files the
	// mode CreateOnly wrote stay: the repository owns them).
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") the files are kept in. Immutable.
	Repository RepositoryName `json:"repository"`

	FilesSpec `json:",inline"`
}

// RepositoryFileStatus is what the operator last saw and did.
type RepositoryFileStatus struct {
	ManagedStatus `json:",inline"`

	// commit is the sha of the last commit the operator made.
	// +optional
	Commit string `json:"commit,omitempty"`

	// branch the files were last compared on (the default branch when
	// spec.branch is unset).
	// +optional
	Branch string `json:"branch,omitempty"`

	// inSync counts the listed files whose content on the branch is the
	// spec's (a CreateOnly file: present).
	// +optional
	InSync int `json:"inSync,omitempty"`

	// checked is the operator's record of its last complete check of the
	// branch (CheckedRepositories): while the repository's updated_at and
	// the files are as recorded, a pass lists no tree.
	// +optional
	Checked *CheckedRepositories `json:"checked,omitempty"`
}

// RepositoryFile keeps files (CODEOWNERS, a CI workflow, templates) in one
// repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=frepofile,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Branch",type=string,JSONPath=`.status.branch`
// +kubebuilder:printcolumn:name="Commit",type=string,JSONPath=`.status.commit`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RepositoryFile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired files.
	Spec RepositoryFileSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status RepositoryFileStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RepositoryFileList is a list of RepositoryFiles.
type RepositoryFileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the RepositoryFiles.
	Items []RepositoryFile `json:"items"`
}

// ForgeOwners is the owner of the files' repository.
func (f *RepositoryFile) ForgeOwners() []string {
	return []string{ownerOf(string(f.Spec.Repository))}
}

// SpecAuthor is spec.author.
func (f *RepositoryFile) SpecAuthor() *CommitAuthor { return f.Spec.Author }

func init() {
	SchemeBuilder.Register(&RepositoryFile{}, &RepositoryFileList{})
}
