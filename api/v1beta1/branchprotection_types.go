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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BranchRuleName is a branch protection rule's name: a branch name or a
// glob (release/*), the forge's key for the rule in its repository.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
// +kubebuilder:validation:Pattern=`^\S+$`
type BranchRuleName string

// UserName is a user's login in an allow-list.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=40
// +kubebuilder:validation:Pattern=`^[\da-zA-Z][-.\w]*$`
type UserName string

// StatusCheckContext is a status check's context, or a glob of contexts.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=255
type StatusCheckContext string

// BranchProtectionRule is one branch protection rule. Field names are the
// forge's; each field is managed only when set (a list also when []), and
// lists are sets: the order the forge keeps them in never causes a write.
// A list or switch that the forge applies only under an enable switch
// needs that switch set to true.
// +kubebuilder:validation:XValidation:rule="!has(self.pushWhitelistUsernames) || size(self.pushWhitelistUsernames) == 0 || (has(self.enablePushWhitelist) && self.enablePushWhitelist)",message="pushWhitelistUsernames needs enablePushWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.pushWhitelistTeams) || size(self.pushWhitelistTeams) == 0 || (has(self.enablePushWhitelist) && self.enablePushWhitelist)",message="pushWhitelistTeams needs enablePushWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.pushWhitelistDeployKeys) || !self.pushWhitelistDeployKeys || (has(self.enablePushWhitelist) && self.enablePushWhitelist)",message="pushWhitelistDeployKeys needs enablePushWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.forcePushAllowlistUsernames) || size(self.forcePushAllowlistUsernames) == 0 || (has(self.enableForcePushAllowlist) && self.enableForcePushAllowlist)",message="forcePushAllowlistUsernames needs enableForcePushAllowlist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.forcePushAllowlistTeams) || size(self.forcePushAllowlistTeams) == 0 || (has(self.enableForcePushAllowlist) && self.enableForcePushAllowlist)",message="forcePushAllowlistTeams needs enableForcePushAllowlist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.forcePushAllowlistDeployKeys) || !self.forcePushAllowlistDeployKeys || (has(self.enableForcePushAllowlist) && self.enableForcePushAllowlist)",message="forcePushAllowlistDeployKeys needs enableForcePushAllowlist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.mergeWhitelistUsernames) || size(self.mergeWhitelistUsernames) == 0 || (has(self.enableMergeWhitelist) && self.enableMergeWhitelist)",message="mergeWhitelistUsernames needs enableMergeWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.mergeWhitelistTeams) || size(self.mergeWhitelistTeams) == 0 || (has(self.enableMergeWhitelist) && self.enableMergeWhitelist)",message="mergeWhitelistTeams needs enableMergeWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.statusCheckContexts) || size(self.statusCheckContexts) == 0 || (has(self.enableStatusCheck) && self.enableStatusCheck)",message="statusCheckContexts needs enableStatusCheck: true"
// +kubebuilder:validation:XValidation:rule="!has(self.approvalsWhitelistUsernames) || size(self.approvalsWhitelistUsernames) == 0 || (has(self.enableApprovalsWhitelist) && self.enableApprovalsWhitelist)",message="approvalsWhitelistUsernames needs enableApprovalsWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.approvalsWhitelistTeams) || size(self.approvalsWhitelistTeams) == 0 || (has(self.enableApprovalsWhitelist) && self.enableApprovalsWhitelist)",message="approvalsWhitelistTeams needs enableApprovalsWhitelist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.bypassAllowlistUsernames) || size(self.bypassAllowlistUsernames) == 0 || (has(self.enableBypassAllowlist) && self.enableBypassAllowlist)",message="bypassAllowlistUsernames needs enableBypassAllowlist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.bypassAllowlistTeams) || size(self.bypassAllowlistTeams) == 0 || (has(self.enableBypassAllowlist) && self.enableBypassAllowlist)",message="bypassAllowlistTeams needs enableBypassAllowlist: true"
// +kubebuilder:validation:XValidation:rule="!has(self.enablePushWhitelist) || !self.enablePushWhitelist || (has(self.enablePush) && self.enablePush)",message="enablePushWhitelist needs enablePush: true"
// +kubebuilder:validation:XValidation:rule="!has(self.enableForcePush) || !self.enableForcePush || (has(self.enablePush) && self.enablePush)",message="enableForcePush needs enablePush: true"
// +kubebuilder:validation:XValidation:rule="!has(self.enableForcePushAllowlist) || !self.enableForcePushAllowlist || (has(self.enableForcePush) && self.enableForcePush)",message="enableForcePushAllowlist needs enableForcePush: true"
type BranchProtectionRule struct {
	// ruleName is the branch name or glob the rule protects; the forge's
	// key for the rule.
	RuleName BranchRuleName `json:"ruleName"`

	// priority orders rules that match one branch (lower first). Gitea only:
	// Unsupported on Forgejo, which has no rule priority.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Priority *int64 `json:"priority,omitempty"`

	// enablePush allows pushing to matching branches (else only merges of pull requests).
	// +optional
	EnablePush *bool `json:"enablePush,omitempty"`

	// enablePushWhitelist restricts pushing to the push allow-list; needs enablePush.
	// +optional
	EnablePushWhitelist *bool `json:"enablePushWhitelist,omitempty"`

	// pushWhitelistUsernames may push; needs enablePushWhitelist.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	PushWhitelistUsernames []UserName `json:"pushWhitelistUsernames"`

	// pushWhitelistTeams may push; needs enablePushWhitelist.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	PushWhitelistTeams []TeamName `json:"pushWhitelistTeams"`

	// pushWhitelistDeployKeys lets deploy keys with write access push; needs enablePushWhitelist.
	// +optional
	PushWhitelistDeployKeys *bool `json:"pushWhitelistDeployKeys,omitempty"`

	// enableForcePush allows force pushes; needs enablePush. Gitea only
	// (Unsupported on Forgejo), as are the other force-push fields.
	// +optional
	EnableForcePush *bool `json:"enableForcePush,omitempty"`

	// enableForcePushAllowlist restricts force pushes to the allow-list; needs enableForcePush. Gitea only.
	// +optional
	EnableForcePushAllowlist *bool `json:"enableForcePushAllowlist,omitempty"`

	// forcePushAllowlistUsernames may force push; needs enableForcePushAllowlist. Gitea only.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	ForcePushAllowlistUsernames []UserName `json:"forcePushAllowlistUsernames"`

	// forcePushAllowlistTeams may force push; needs enableForcePushAllowlist. Gitea only.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	ForcePushAllowlistTeams []TeamName `json:"forcePushAllowlistTeams"`

	// forcePushAllowlistDeployKeys lets deploy keys force push; needs enableForcePushAllowlist. Gitea only.
	// +optional
	ForcePushAllowlistDeployKeys *bool `json:"forcePushAllowlistDeployKeys,omitempty"`

	// enableMergeWhitelist restricts merging pull requests to the merge allow-list.
	// +optional
	EnableMergeWhitelist *bool `json:"enableMergeWhitelist,omitempty"`

	// mergeWhitelistUsernames may merge; needs enableMergeWhitelist.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	MergeWhitelistUsernames []UserName `json:"mergeWhitelistUsernames"`

	// mergeWhitelistTeams may merge; needs enableMergeWhitelist.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	MergeWhitelistTeams []TeamName `json:"mergeWhitelistTeams"`

	// enableBypassAllowlist lets the bypass allow-list push and merge past
	// the rule's checks. Gitea 1.27 and later: Unsupported on older
	// releases (which would ignore it) and on Forgejo.
	// +optional
	EnableBypassAllowlist *bool `json:"enableBypassAllowlist,omitempty"`

	// bypassAllowlistUsernames may bypass the rule; needs
	// enableBypassAllowlist (the forge keeps the list only while it is
	// on). Gitea 1.27 and later.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	BypassAllowlistUsernames []UserName `json:"bypassAllowlistUsernames"`

	// bypassAllowlistTeams may bypass the rule; needs
	// enableBypassAllowlist. Gitea 1.27 and later.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	BypassAllowlistTeams []TeamName `json:"bypassAllowlistTeams"`

	// enableStatusCheck requires status checks to pass before merging.
	// +optional
	EnableStatusCheck *bool `json:"enableStatusCheck,omitempty"`

	// statusCheckContexts are the checks (globs) that must pass; needs enableStatusCheck.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	StatusCheckContexts []StatusCheckContext `json:"statusCheckContexts"`

	// requiredApprovals is how many approving reviews a merge needs.
	// +kubebuilder:validation:Minimum=0
	// +optional
	RequiredApprovals *int64 `json:"requiredApprovals,omitempty"`

	// enableApprovalsWhitelist counts only approvals of the approvals allow-list.
	// +optional
	EnableApprovalsWhitelist *bool `json:"enableApprovalsWhitelist,omitempty"`

	// approvalsWhitelistUsernames' approvals count; needs enableApprovalsWhitelist.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	ApprovalsWhitelistUsernames []UserName `json:"approvalsWhitelistUsernames"`

	// approvalsWhitelistTeams' approvals count; needs enableApprovalsWhitelist.
	// +listType=set
	// +kubebuilder:validation:MaxItems=100
	// +optional
	ApprovalsWhitelistTeams []TeamName `json:"approvalsWhitelistTeams"`

	// blockOnRejectedReviews blocks merging while a review requests changes.
	// +optional
	BlockOnRejectedReviews *bool `json:"blockOnRejectedReviews,omitempty"`

	// blockOnOfficialReviewRequests blocks merging while an official review is requested.
	// +optional
	BlockOnOfficialReviewRequests *bool `json:"blockOnOfficialReviewRequests,omitempty"`

	// blockOnOutdatedBranch blocks merging a branch behind its base.
	// +optional
	BlockOnOutdatedBranch *bool `json:"blockOnOutdatedBranch,omitempty"`

	// dismissStaleApprovals dismisses approvals when new commits are pushed.
	// +optional
	DismissStaleApprovals *bool `json:"dismissStaleApprovals,omitempty"`

	// ignoreStaleApprovals does not count approvals of older commits.
	// +optional
	IgnoreStaleApprovals *bool `json:"ignoreStaleApprovals,omitempty"`

	// requireSignedCommits refuses unsigned commits.
	// +optional
	RequireSignedCommits *bool `json:"requireSignedCommits,omitempty"`

	// protectedFilePatterns are files (globs, separated by ';') no one may change by a push.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	ProtectedFilePatterns *string `json:"protectedFilePatterns,omitempty"`

	// unprotectedFilePatterns are files (globs, separated by ';') that may be changed by a push even without push access.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	UnprotectedFilePatterns *string `json:"unprotectedFilePatterns,omitempty"`

	// blockAdminMergeOverride keeps administrators from merging past the
	// rule. Gitea only: Unsupported on Forgejo.
	// +optional
	BlockAdminMergeOverride *bool `json:"blockAdminMergeOverride,omitempty"`

	// applyToAdmins makes the rule bind repository administrators too.
	// Forgejo only (its apply_to_admins): Unsupported on Gitea.
	// +optional
	ApplyToAdmins *bool `json:"applyToAdmins,omitempty"`
}

// Entry is how messages name the rule among a set's rules.
func (r BranchProtectionRule) Entry() string { return fmt.Sprintf("rule %q", r.RuleName) }

// BranchProtectionSpec is one branch protection rule of one repository.
// +kubebuilder:validation:XValidation:rule="self.repository == oldSelf.repository",message="spec.repository is immutable",fieldPath=".repository"
// +kubebuilder:validation:XValidation:rule="self.ruleName == oldSelf.ruleName",message="spec.ruleName is immutable: it is the rule's key on the forge; create a new resource for another rule",fieldPath=".ruleName"
type BranchProtectionSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the rule when the resource
	// is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") whose branches the rule protects. Immutable.
	Repository RepositoryName `json:"repository"`

	BranchProtectionRule `json:",inline"`
}

// BranchProtectionStatus is the observed state of the rule.
type BranchProtectionStatus struct {
	ManagedStatus `json:",inline"`
}

// BranchProtection is one branch protection rule of a repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fbranchprotection,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Rule",type=string,JSONPath=`.spec.ruleName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BranchProtection struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired rule.
	Spec BranchProtectionSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status BranchProtectionStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BranchProtectionList is a list of BranchProtections.
type BranchProtectionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the BranchProtections.
	Items []BranchProtection `json:"items"`
}

// BranchProtectionSetSpec is one list of branch protection rules applied
// to many repositories.
type BranchProtectionSetSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Orphan (default) leaves the rules when the resource
	// is deleted; Delete removes the rules the spec lists from every
	// matched repository, never another rule.
	// +kubebuilder:default=Orphan
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repositories the set applies to.
	Repositories RepositorySelector `json:"repositories"`

	// rules of the set, keyed by ruleName.
	// +listType=map
	// +listMapKey=ruleName
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	Rules []BranchProtectionRule `json:"rules"`

	// mode: Additive (default) leaves unlisted rules alone; Authoritative
	// deletes unlisted rules that no other resource manages.
	// +kubebuilder:default=Additive
	// +optional
	Mode SetMode `json:"mode,omitempty"`

	// maxDeletionsPerRepository: in Authoritative mode, a repository that
	// would lose more rules than this in one pass loses none (creates and
	// updates still happen) and is listed with reason TooManyDeletions.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +optional
	MaxDeletionsPerRepository *int32 `json:"maxDeletionsPerRepository,omitempty"`

	// removals: in Authoritative mode, Apply (default) deletes the unlisted
	// rules; Report deletes none and lists them in status.pendingRemovals,
	// with a Warning Event RemovalsPending when they change (creates and
	// updates still happen).
	// +optional
	Removals Removals `json:"removals,omitempty"`
}

// BranchProtectionSetStatus is the observed state of the set.
type BranchProtectionSetStatus struct {
	ManagedStatus `json:",inline"`
	SetStatus     `json:",inline"`
}

// BranchProtectionSet applies one list of branch protection rules to many
// repositories of a forge.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fbranchprotectionset,categories=forge
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Repositories",type=integer,JSONPath=`.status.repositories`
// +kubebuilder:printcolumn:name="InSync",type=integer,JSONPath=`.status.inSync`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type BranchProtectionSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired rule list and where it applies.
	Spec BranchProtectionSetSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status BranchProtectionSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BranchProtectionSetList is a list of BranchProtectionSets.
type BranchProtectionSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the BranchProtectionSets.
	Items []BranchProtectionSet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&BranchProtection{}, &BranchProtectionList{}, &BranchProtectionSet{}, &BranchProtectionSetList{})
}

// GetMode returns the mode, Additive by default.
func (s *BranchProtectionSet) GetMode() SetMode {
	if s.Spec.Mode == "" {
		return SetModeAdditive
	}
	return s.Spec.Mode
}

// GetMaxDeletionsPerRepository returns the deletion guard, 5 by default.
func (s *BranchProtectionSet) GetMaxDeletionsPerRepository() int {
	if s.Spec.MaxDeletionsPerRepository == nil {
		return 5
	}
	return int(*s.Spec.MaxDeletionsPerRepository)
}
