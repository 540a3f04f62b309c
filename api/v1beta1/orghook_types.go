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

// HookType is the payload format of a webhook.
// +kubebuilder:validation:Enum=gitea;gogs;slack;discord;dingtalk;telegram;msteams;feishu;wechatwork;packagist
type HookType string

// HookEvent is an event name a webhook fires on. The group names issues and
// pull_request stand for all their issue_* / pull_request_* events;
// issues_only and pull_request_only for just the one.
// +kubebuilder:validation:Enum=create;delete;fork;push;repository;wiki;release;package;status;workflow_run;workflow_job;issues;issues_only;issue_assign;issue_label;issue_milestone;issue_comment;pull_request;pull_request_only;pull_request_assign;pull_request_label;pull_request_milestone;pull_request_comment;pull_request_review;pull_request_review_request;pull_request_sync
type HookEvent string

// OrgHookSpec is the desired state of an organization webhook.
// +kubebuilder:validation:XValidation:rule="has(self.url) != has(self.urlSecretRef)",message="exactly one of spec.url and spec.urlSecretRef must be set"
// +kubebuilder:validation:XValidation:rule="self.type != 'slack' || (has(self.config) && 'channel' in self.config && size(self.config['channel']) > 0)",message="a slack hook needs spec.config.channel",fieldPath=".config"
type OrgHookSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the hook when the resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// organization that owns the hook. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.organization is immutable"
	Organization OwnerName `json:"organization"`

	HookSpec `json:",inline"`
}

// HookSpec is what an organization and a repository webhook share. The
// rules across its fields (one of url and urlSecretRef, a Slack channel)
// sit on each kind's spec: CEL rules of an inlined struct are not kept.
type HookSpec struct {
	// type is the payload format; changing it replaces the hook.
	Type HookType `json:"type"`

	// url the forge posts to. Chat webhook URLs carry a token: put those in urlSecretRef instead.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://\S+$`
	// +optional
	URL string `json:"url,omitempty"`

	// urlSecretRef selects a Secret key holding the url.
	// +optional
	URLSecretRef *SecretKeySelector `json:"urlSecretRef,omitempty"`

	// contentType of the payload: json or form.
	// +kubebuilder:validation:Enum=json;form
	// +kubebuilder:default=json
	// +optional
	ContentType string `json:"contentType,omitempty"`

	// events that fire the hook, as a set.
	// +kubebuilder:default={push}
	// +kubebuilder:validation:MaxItems=64
	// +listType=set
	// +optional
	Events []HookEvent `json:"events,omitempty"`

	// branchFilter is a glob of branch names push and create events are limited to.
	// +kubebuilder:validation:MaxLength=255
	// +optional
	BranchFilter string `json:"branchFilter,omitempty"`

	// active hooks deliver events.
	// +kubebuilder:default=true
	// +optional
	Active *bool `json:"active,omitempty"`

	// name is an optional display name.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == self.trim()",message="must not begin or end with whitespace"
	// +optional
	Name string `json:"name,omitempty"`

	// secretRef selects a Secret key holding the webhook secret the forge signs
	// payloads with. The forge cannot change a hook's secret: a new value replaces the hook.
	// +optional
	SecretRef *SecretKeySelector `json:"secretRef,omitempty"`

	// authorizationHeaderSecretRef selects a Secret key holding the Authorization
	// header value sent with each delivery.
	// +optional
	AuthorizationHeaderSecretRef *SecretKeySelector `json:"authorizationHeaderSecretRef,omitempty"`

	// config holds extra type-specific settings, e.g. for Slack channel,
	// username, icon_url and color. Never url, content_type or secret: those have fields of their own.
	// +kubebuilder:validation:MaxProperties=16
	// +kubebuilder:validation:XValidation:rule="!('url' in self) && !('content_type' in self) && !('secret' in self)",message="spec.config must not hold url, content_type or secret: use spec.url or spec.urlSecretRef, spec.contentType and spec.secretRef"
	// +optional
	Config map[string]string `json:"config,omitempty"`
}

// HookStatus is the observed state of a webhook.
//
// The forge never returns a hook's secret, and Gitea 1.27 no longer returns
// its authorization header, so the operator cannot compare those values with
// the spec. Instead it records, per field, a keyed digest (HMAC-SHA256) of
// the value it last sent, with the Secret's name, key and resourceVersion;
// never the value nor an unkeyed hash of it. The digest key is a random key
// in a Secret of the operator's own namespace (flag --secret-digest-key), so
// the record survives restarts: a write to the Secret that leaves the value
// as it was changes nothing on the forge, a new value replaces the hook
// (secret) or patches it (authorization header).
type HookStatus struct {
	ManagedStatus `json:",inline"`

	// appliedSecrets lists, per spec field, the Secret version and a keyed
	// digest of the value last sent to the forge. It holds no secret material.
	// +listType=map
	// +listMapKey=field
	// +optional
	AppliedSecrets []AppliedSecret `json:"appliedSecrets,omitempty"`
}

// AppliedSecret records a Secret value sent to the forge, without the value.
type AppliedSecret struct {
	// field of the spec the value came from: secretRef or authorizationHeaderSecretRef (hooks), valueFrom (ActionsSecret), passwordSecretRef (User).
	// +kubebuilder:validation:Enum=secretRef;authorizationHeaderSecretRef;valueFrom;passwordSecretRef
	Field string `json:"field"`
	// name of the Secret.
	Name string `json:"name"`
	// key of the Secret the value was read from.
	Key string `json:"key"`
	// resourceVersion of the Secret when its value was sent.
	ResourceVersion string `json:"resourceVersion"`
	// digest is a keyed HMAC-SHA256 of the value sent ("hmac-sha256:<base64>"),
	// keyed with the operator's secret digest key and bound to this resource
	// and field. Empty in records written before digests were kept: those
	// compare by resourceVersion once, then gain a digest.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	Digest string `json:"digest,omitempty"`
}

// OrgHook is a webhook of a forge organization.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName={fhook,forghook},categories=forge
// +kubebuilder:printcolumn:name="Org",type=string,JSONPath=`.spec.organization`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="ID",type=integer,JSONPath=`.status.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type OrgHook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired hook.
	Spec OrgHookSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status HookStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// OrgHookList is a list of OrgHooks.
type OrgHookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the OrgHooks.
	Items []OrgHook `json:"items"`
}

func init() {
	SchemeBuilder.Register(&OrgHook{}, &OrgHookList{})
}
