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

// RepoName is a repository's name within its owner: letters, digits, '-',
// '.' and '_', at most 100 characters, not "." or "..".
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=100
// +kubebuilder:validation:Pattern=`^[-.\w]+$`
// +kubebuilder:validation:XValidation:rule="self != '.' && self != '..'",message="must not be '.' or '..'"
type RepoName string

// RepositoryDeletionPolicy says what happens to the repository when the
// resource is deleted.
// +kubebuilder:validation:Enum=Orphan;Archive;Delete
type RepositoryDeletionPolicy string

// DeletionPolicyArchive archives the repository (Repository only).
const DeletionPolicyArchive DeletionPolicy = "Archive"

// AllowDeleteAnnotation lets deletionPolicy Delete remove a repository the
// operator adopted rather than created.
const AllowDeleteAnnotation = "forge.forgeops.dev/allow-delete"

// RepositoryTemplate makes the repository with the forge's generate call
// (POST /repos/{template}/generate) from a template repository: the parts
// chosen are copied from it. The forge takes nothing else on a generate
// (no auto-init, gitignores, license, README, object format or trust
// model: the last two are the template's), so init names none of them
// with a template.
// +kubebuilder:validation:XValidation:rule="(!has(self.gitContent) || self.gitContent) || (has(self.topics) && self.topics) || (has(self.labels) && self.labels) || (has(self.webhooks) && self.webhooks) || (has(self.gitHooks) && self.gitHooks) || (has(self.avatar) && self.avatar) || (has(self.protectedBranches) && self.protectedBranches)",message="a template must copy at least one part: gitContent, topics, labels, webhooks, gitHooks, avatar or protectedBranches"
type RepositoryTemplate struct {
	// repository is the template, "owner/name"; it must be marked as a
	// template on the forge. It is only read.
	Repository RepositoryName `json:"repository"`
	// gitContent copies the files of the template's default branch as one
	// first commit (the template's .gitea/template expansions applied).
	// +kubebuilder:default=true
	// +optional
	GitContent *bool `json:"gitContent,omitempty"`
	// topics copies the template's topics (spec.topics, when set, then
	// decides the set).
	// +optional
	Topics *bool `json:"topics,omitempty"`
	// labels copies the template's issue labels.
	// +optional
	Labels *bool `json:"labels,omitempty"`
	// webhooks copies the template's webhooks, with their secrets.
	// +optional
	Webhooks *bool `json:"webhooks,omitempty"`
	// gitHooks copies the template's server-side git hooks.
	// +optional
	GitHooks *bool `json:"gitHooks,omitempty"`
	// avatar copies the template's avatar.
	// +optional
	Avatar *bool `json:"avatar,omitempty"`
	// protectedBranches copies the template's branch protection rules.
	// +optional
	ProtectedBranches *bool `json:"protectedBranches,omitempty"`
}

// RepositoryInit is how the operator makes the repository when it creates
// it; it is never applied to a repository that already exists.
// +kubebuilder:validation:XValidation:rule="!has(self.template) || !(has(self.autoInit) || has(self.gitignores) || has(self.license) || has(self.readme) || has(self.objectFormat) || has(self.trustModel))",message="init.template cannot be combined with autoInit, gitignores, license, readme, objectFormat or trustModel: the forge's generate takes none of them (the object format and trust model are the template's)"
type RepositoryInit struct {
	// autoInit makes a first commit with a README (and the gitignores and
	// license given).
	// +optional
	AutoInit *bool `json:"autoInit,omitempty"`
	// gitignores names the forge's .gitignore templates, comma-separated ("Go,Node").
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Gitignores *string `json:"gitignores,omitempty"`
	// license names one of the forge's license templates ("Apache-2.0").
	// +kubebuilder:validation:MaxLength=100
	// +optional
	License *string `json:"license,omitempty"`
	// readme names the forge's README template ("Default").
	// +kubebuilder:validation:MaxLength=100
	// +optional
	Readme *string `json:"readme,omitempty"`
	// objectFormat is the git object format.
	// +kubebuilder:validation:Enum=sha1;sha256
	// +optional
	ObjectFormat *string `json:"objectFormat,omitempty"`
	// trustModel is how commit signatures are trusted.
	// +kubebuilder:validation:Enum=default;collaborator;committer;collaboratorcommitter
	// +optional
	TrustModel *string `json:"trustModel,omitempty"`
	// template creates the repository from a template repository (the
	// forge's generate) instead of a plain create; the rest of the spec
	// (settings, topics, collaborators) is applied after it as usual.
	// +optional
	Template *RepositoryTemplate `json:"template,omitempty"`
}

// Topic is a repository topic as the forge keeps it: lower case, a letter
// or digit then letters, digits, '-' and '.', at most 35 characters.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=35
// +kubebuilder:validation:Pattern=`^[a-z0-9][-.a-z0-9]*$`
type Topic string

// Collaborator is one direct collaborator of a repository.
type Collaborator struct {
	// user is the forge login.
	User OwnerName `json:"user"`
	// permission: read, write or admin.
	// +kubebuilder:validation:Enum=read;write;admin
	Permission string `json:"permission"`
}

// RepositorySettings are a repository's settings a Repository and a
// RepositorySet both manage: each only when set (whatever the forge holds
// for one left unset stays).
type RepositorySettings struct {
	// description of the repository.
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	Description *string `json:"description,omitempty"`
	// website is an http(s) URL, or "" to clear it.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^$|^https?://\S+$`
	// +optional
	Website *string `json:"website,omitempty"`
	// private hides the repository from non-members.
	// +optional
	Private *bool `json:"private,omitempty"`
	// template marks the repository as a template.
	// +optional
	Template *bool `json:"template,omitempty"`
	// defaultBranch is the branch pull requests target by default.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	DefaultBranch *string `json:"defaultBranch,omitempty"`

	// Units on or off.
	// +optional
	HasIssues *bool `json:"hasIssues,omitempty"`
	// +optional
	HasWiki *bool `json:"hasWiki,omitempty"`
	// +optional
	HasPullRequests *bool `json:"hasPullRequests,omitempty"`
	// +optional
	HasProjects *bool `json:"hasProjects,omitempty"`
	// +optional
	HasReleases *bool `json:"hasReleases,omitempty"`
	// +optional
	HasPackages *bool `json:"hasPackages,omitempty"`
	// +optional
	HasActions *bool `json:"hasActions,omitempty"`
	// hasCode turns the code unit (files, commits, branches in the web UI)
	// on or off. Gitea 1.25 and later: Unsupported on older releases,
	// which would ignore it, and on Forgejo.
	// +optional
	HasCode *bool `json:"hasCode,omitempty"`

	// Merge settings of pull requests.
	// +optional
	AllowMergeCommits *bool `json:"allowMergeCommits,omitempty"`
	// +optional
	AllowRebase *bool `json:"allowRebase,omitempty"`
	// +optional
	AllowRebaseExplicit *bool `json:"allowRebaseExplicit,omitempty"`
	// +optional
	AllowSquashMerge *bool `json:"allowSquashMerge,omitempty"`
	// +optional
	AllowFastForwardOnlyMerge *bool `json:"allowFastForwardOnlyMerge,omitempty"`
	// +optional
	AllowManualMerge *bool `json:"allowManualMerge,omitempty"`
	// +optional
	AutodetectManualMerge *bool `json:"autodetectManualMerge,omitempty"`
	// +optional
	AllowRebaseUpdate *bool `json:"allowRebaseUpdate,omitempty"`
	// allowMergeUpdate lets a pull request's branch be updated by merging
	// its base into it. Gitea 1.27 and later (Unsupported before; the
	// forge refuses to turn off both update styles, or the default one).
	// +optional
	AllowMergeUpdate *bool `json:"allowMergeUpdate,omitempty"`
	// defaultUpdateStyle is the update button's default: merge or rebase
	// (the style must be allowed). Gitea 1.27 and later.
	// +kubebuilder:validation:Enum=merge;rebase
	// +optional
	DefaultUpdateStyle *string `json:"defaultUpdateStyle,omitempty"`
	// defaultMergeStyle is the merge button's default (the forge itself
	// takes any string here, so admission checks it).
	// +kubebuilder:validation:Enum=merge;rebase;rebase-merge;squash;fast-forward-only;manual
	// +optional
	DefaultMergeStyle *string `json:"defaultMergeStyle,omitempty"`
	// +optional
	DefaultDeleteBranchAfterMerge *bool `json:"defaultDeleteBranchAfterMerge,omitempty"`
	// +optional
	DefaultAllowMaintainerEdit *bool `json:"defaultAllowMaintainerEdit,omitempty"`
	// +optional
	IgnoreWhitespaceConflicts *bool `json:"ignoreWhitespaceConflicts,omitempty"`
}

// RepositorySpec is the desired state of a repository. Settings left unset
// are not managed: whatever the forge holds for them stays.
// +kubebuilder:validation:XValidation:rule="self.owner == oldSelf.owner",message="spec.owner is immutable",fieldPath=".owner"
// +kubebuilder:validation:XValidation:rule="has(self.init) == has(oldSelf.init) && (!has(self.init) || self.init == oldSelf.init)",message="spec.init is immutable: it is used only when the operator creates the repository",fieldPath=".init"
// +kubebuilder:validation:XValidation:rule="!has(self.collaborators) || self.collaborators.all(c, self.collaborators.filter(d, d.user.lowerAscii() == c.user.lowerAscii()).size() == self.collaborators.filter(d, d.user == c.user).size())",message="collaborators must not name a user twice (names are compared without case)",fieldPath=".collaborators"
// +kubebuilder:validation:XValidation:rule="!has(self.previousNames) || !has(self.name) || !self.previousNames.exists(p, p.lowerAscii() == self.name.lowerAscii())",message="previousNames must not hold spec.name",fieldPath=".previousNames"
type RepositorySpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the repository when the
	// resource is deleted; Archive archives it; Delete removes it with its
	// git data, but only one the operator created, or one carrying the
	// annotation forge.forgeops.dev/allow-delete: "true".
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy RepositoryDeletionPolicy `json:"deletionPolicy,omitempty"`

	// owner is the organization (or user) that owns the repository. Immutable.
	Owner OwnerName `json:"owner"`

	// name of the repository; metadata.name when unset. Changing it renames
	// the repository in place (same id, issues and links kept).
	// +optional
	Name *RepoName `json:"name,omitempty"`

	// previousNames: a repository found under one of these names (and not
	// under name) is adopted and renamed.
	// +kubebuilder:validation:MaxItems=10
	// +listType=set
	// +optional
	PreviousNames []RepoName `json:"previousNames,omitempty"`

	// init is used only when the operator creates the repository. Immutable.
	// +optional
	Init *RepositoryInit `json:"init,omitempty"`

	RepositorySettings `json:",inline"`

	// archived makes the repository read-only; written last in a pass, and
	// false is written first.
	// +optional
	Archived *bool `json:"archived,omitempty"`

	// topics is the set of topics; [] removes every topic.
	// +kubebuilder:validation:MaxItems=25
	// +listType=set
	// +optional
	Topics []Topic `json:"topics"`

	// collaborators: unset leaves them alone; a list (also []) is exactly
	// the direct collaborators, added, changed and removed.
	// +kubebuilder:validation:MaxItems=100
	// +listType=map
	// +listMapKey=user
	// +optional
	Collaborators []Collaborator `json:"collaborators"`

	// maxCollaboratorRemovals: a pass that would remove more collaborators
	// removes none (default 5).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxCollaboratorRemovals *int32 `json:"maxCollaboratorRemovals,omitempty"`

	// removals: Apply (default) removes the direct collaborators
	// collaborators leaves out; Report removes none and lists them in
	// status.pendingRemovals, with a Warning Event RemovalsPending when
	// they change (additions and permission changes still happen).
	// +optional
	Removals Removals `json:"removals,omitempty"`
}

// RepositoryStatus is the observed state of the repository.
type RepositoryStatus struct {
	ManagedStatus `json:",inline"`

	// cloneURL is the HTTP(S) clone address.
	// +optional
	CloneURL string `json:"cloneURL,omitempty"`
	// sshURL is the SSH clone address.
	// +optional
	SSHURL string `json:"sshURL,omitempty"`
	// defaultBranch as the forge reports it.
	// +optional
	DefaultBranch string `json:"defaultBranch,omitempty"`
	// empty is true while the repository has no commit.
	// +optional
	Empty bool `json:"empty,omitempty"`
	// archived as the forge reports it.
	// +optional
	Archived bool `json:"archived,omitempty"`
	// createdID is the id of the repository the operator created: only that
	// repository may deletionPolicy Delete remove without the allow-delete
	// annotation. One made by hand under the same name after the created one
	// was deleted or moved is not it.
	// +optional
	CreatedID int64 `json:"createdID,omitempty"`
	// created is the mark of earlier versions, which named no id: it is
	// moved to createdID while status.id still finds the repository, and
	// dropped otherwise.
	// +optional
	Created bool `json:"created,omitempty"`
	// collaboratorPermissions is the permission last written (or found on
	// adoption) per managed collaborator, lower-cased login -> permission.
	// The forge reports no direct permission (only the effective one, teams
	// included), so a permission is written when the spec changes it; one
	// changed by hand on the forge is not seen.
	// +optional
	CollaboratorPermissions map[string]string `json:"collaboratorPermissions,omitempty"`
	// pendingRemovals are the collaborators the repository would lose and
	// did not, with removals Report.
	// +optional
	PendingRemovals *PendingRemovals `json:"pendingRemovals,omitempty"`
}

// Repository is a repository on a forge, created or adopted by name, and
// renamed in place.
// +kubebuilder:validation:XValidation:rule="has(self.spec.name) || (size(self.metadata.name) <= 100)",message="metadata.name is the repository name when spec.name is unset: at most 100 characters; set spec.name"
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=frepo,categories=forge
// +kubebuilder:printcolumn:name="Owner",type=string,JSONPath=`.spec.owner`
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.spec.name`,description="forge name; metadata.name when empty"
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Archived",type=boolean,JSONPath=`.status.archived`,priority=1
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Repository struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired repository.
	Spec RepositorySpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status RepositoryStatus `json:"status,omitempty"`
}

// RepoName is the repository's name on the forge: spec.name, else metadata.name.
func (r *Repository) RepoName() string {
	if r.Spec.Name != nil && *r.Spec.Name != "" {
		return string(*r.Spec.Name)
	}
	return r.Name
}

// FullName is "owner/name".
func (r *Repository) FullName() string { return string(r.Spec.Owner) + "/" + r.RepoName() }

// +kubebuilder:object:root=true

// RepositoryList is a list of Repositories.
type RepositoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Repositories.
	Items []Repository `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Repository{}, &RepositoryList{})
}
