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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PushMirrorDefaultInterval is the interval a mirror gets when the spec
// sets none (the forge's [mirror] DEFAULT_INTERVAL default).
const PushMirrorDefaultInterval = 8 * time.Hour

// PushMirrorSpec is one push mirror of one repository: the forge pushes
// the repository's branches and tags to remoteAddress.
// +kubebuilder:validation:XValidation:rule="self.repository == oldSelf.repository",message="spec.repository is immutable",fieldPath=".repository"
// +kubebuilder:validation:XValidation:rule="self.remoteAddress == oldSelf.remoteAddress",message="spec.remoteAddress is immutable: it is the mirror's key on the forge; create a new resource for another address",fieldPath=".remoteAddress"
type PushMirrorSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the mirror when the
	// resource is deleted; Orphan leaves it.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// repository ("owner/name") whose branches and tags are pushed. Immutable.
	Repository RepositoryName `json:"repository"`

	// remoteAddress is the http(s) or git URL pushed to, without user
	// info: credentials go in auth. An existing mirror of this address in
	// the repository is adopted. Immutable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^(https?|git)://[^/?#\\\\s]+')",message="must be an http://, https:// or git:// URL with a host"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[a-z]+://[^/?#]*@')",message="must not carry user info (user:password@): give the credentials in spec.auth"
	// +kubebuilder:validation:XValidation:rule="!self.matches('\\\\s')",message="must not contain whitespace"
	RemoteAddress string `json:"remoteAddress"`

	// auth are the credentials the forge pushes with. The forge never
	// shows them: the password is recorded as a keyed digest in
	// status.appliedSecrets, and a new password or username replaces the
	// mirror (the forge cannot edit one).
	// +optional
	Auth *PushMirrorAuth `json:"auth,omitempty"`

	// interval between periodic pushes; "0s" disables them. Default 8h.
	// The forge refuses one below its [mirror] MIN_INTERVAL (10m by
	// default). A change replaces the mirror.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// syncOnCommit pushes on every push to the repository as well. Default
	// false. A change replaces the mirror.
	// +optional
	SyncOnCommit *bool `json:"syncOnCommit,omitempty"`
}

// PushMirrorAuth are a push mirror's credentials.
type PushMirrorAuth struct {
	// username sent with the password (any, e.g. "git", where the remote
	// takes a token as password).
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Username *string `json:"username,omitempty"`

	// passwordSecretRef names the Secret key holding the password or token.
	PasswordSecretRef SecretKeySelector `json:"passwordSecretRef"`
}

// PushMirrorStatus is the observed state of the mirror.
type PushMirrorStatus struct {
	ManagedStatus `json:",inline"`

	// remoteName is the forge's name of the mirror ("remote_mirror_..."),
	// which it is addressed by.
	// +optional
	RemoteName string `json:"remoteName,omitempty"`
	// lastUpdate is when the forge last pushed to the mirror.
	// +optional
	LastUpdate *metav1.Time `json:"lastUpdate,omitempty"`
	// lastError is the forge's error of its last push, credentials
	// removed; empty after a push that succeeded.
	// +optional
	LastError string `json:"lastError,omitempty"`
	// appliedSecrets records the password sent as a keyed digest (bound to
	// the username), as hooks do.
	// +listType=map
	// +listMapKey=field
	// +optional
	AppliedSecrets []AppliedSecret `json:"appliedSecrets,omitempty"`
}

// PushMirror is one push mirror of a repository.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fpushmirror,categories=forge
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.repository`
// +kubebuilder:printcolumn:name="Address",type=string,JSONPath=`.spec.remoteAddress`
// +kubebuilder:printcolumn:name="Remote",type=string,JSONPath=`.status.remoteName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PushMirror struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired mirror.
	Spec PushMirrorSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status PushMirrorStatus `json:"status,omitempty"`
}

// MirrorInterval is the spec's interval, or the default.
func (m *PushMirror) MirrorInterval() time.Duration {
	if m.Spec.Interval != nil {
		return m.Spec.Interval.Duration
	}
	return PushMirrorDefaultInterval
}

// MirrorSyncOnCommit is the spec's syncOnCommit, or the default (false).
func (m *PushMirror) MirrorSyncOnCommit() bool {
	return m.Spec.SyncOnCommit != nil && *m.Spec.SyncOnCommit
}

// MirrorUsername is the username sent with the password ("" for none).
func (m *PushMirror) MirrorUsername() string {
	if m.Spec.Auth != nil && m.Spec.Auth.Username != nil {
		return *m.Spec.Auth.Username
	}
	return ""
}

// +kubebuilder:object:root=true

// PushMirrorList is a list of PushMirrors.
type PushMirrorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the PushMirrors.
	Items []PushMirror `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PushMirror{}, &PushMirrorList{})
}
