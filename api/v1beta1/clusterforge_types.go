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

// ReasonNotPermitted: the resource's namespace may not manage its owner (or
// use site-admin kinds, or name its commits' author) through the
// ClusterForge it names; nothing is written.
const ReasonNotPermitted = "NotPermitted"

// ReasonInUse: a ClusterForge being deleted waits for the resources that
// still reference it.
const ReasonInUse = "InUse"

// OwnerGlob is an organization or user name, or a shell pattern of them
// with the wildcards * (any run of characters) and ? (one character).
// Matched without regard to case, as the forge compares names.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=100
// +kubebuilder:validation:Pattern=`^[-.\w*?]+$`
type OwnerGlob string

// NamespaceRegex is an RE2 regular expression matched against namespace
// names (anchor it with ^ and $ to match whole names).
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=256
type NamespaceRegex string

// ClusterForgeTenant grants the namespaces it selects the owners they may
// manage through the ClusterForge. A namespace is selected when any of
// namespaces, namespaceSelector and namespaceRegexes selects it.
// +kubebuilder:validation:XValidation:rule="has(self.namespaces) || has(self.namespaceSelector) || has(self.namespaceRegexes)",message="a tenant entry selects namespaces: set namespaces, namespaceSelector or namespaceRegexes"
// +kubebuilder:validation:XValidation:rule="!has(self.grantAdmin) || !self.grantAdmin || (has(self.siteAdmin) && self.siteAdmin)",message="grantAdmin needs siteAdmin: true on the same tenants entry"
type ClusterForgeTenant struct {
	// namespaces selected by name.
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespaces []string `json:"namespaces,omitempty"`

	// namespaceSelector selects namespaces by their labels.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// namespaceRegexes select the namespaces whose name one of them matches.
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +optional
	NamespaceRegexes []NamespaceRegex `json:"namespaceRegexes,omitempty"`

	// owners are the organizations (and users, for repositories a user
	// owns) the selected namespaces may manage: names or globs with * and ?.
	// Creating an organization needs its name here too.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	Owners []OwnerGlob `json:"owners"`

	// siteAdmin lets the selected namespaces use the site-admin kinds
	// (User) through the ClusterForge, for the owners (user names) above,
	// and never for a site administrator (see grantAdmin) nor for the
	// account the ClusterForge's own credentials belong to.
	// +optional
	SiteAdmin bool `json:"siteAdmin,omitempty"`

	// grantAdmin, with siteAdmin, also lets the selected namespaces make,
	// adopt or keep site administrators among the owners above: a User
	// with admin: true, or one whose account is an administrator on the
	// forge. Without it such a User writes nothing (NotPermitted): an
	// administrator's password or email in a tenant's hands is the whole
	// server in its hands.
	// +optional
	GrantAdmin bool `json:"grantAdmin,omitempty"`
}

// ClusterForgeSpec is a Forge's connection with the tenants that may use it.
type ClusterForgeSpec struct {
	// The connection, as a Forge's; every Secret it names is read from the
	// manager's own namespace, never from a tenant's.
	ForgeSpec `json:",inline"`

	// tenants say which namespaces may use the ClusterForge, and for which
	// owners. None listed: nobody may.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	// +optional
	Tenants []ClusterForgeTenant `json:"tenants,omitempty"`

	// commitAuthor pins the author (and committer) of every commit made
	// through the ClusterForge (RepositoryFile, FileSet): each commit
	// carries it whoever's resource made it, and a resource that sets
	// spec.author is refused (NotPermitted) and writes nothing. Unset:
	// each resource's spec.author, else the connection's user.
	// +optional
	CommitAuthor *CommitAuthor `json:"commitAuthor,omitempty"`
}

// ClusterForgeStatus is a Forge's status and how many resources use it.
type ClusterForgeStatus struct {
	ForgeStatus `json:",inline"`

	// inUse is how many resources reference the ClusterForge and are
	// permitted by its tenants entries; while any does, deleting it waits.
	// A resource it does not permit writes nothing through it and does
	// not count.
	// +optional
	InUse int32 `json:"inUse"`
}

// ClusterForge is a connection to a Gitea or Forgejo server that the
// platform owns: its credentials live in the manager's namespace, and its
// tenants entries say which namespaces may manage which organizations
// through it (spec.forgeRef: {kind: ClusterForge, name: ...}).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName=cfg,categories=forge
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`
// +kubebuilder:printcolumn:name="Flavor",type=string,JSONPath=`.status.flavor`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.serverVersion`
// +kubebuilder:printcolumn:name="In-Use",type=integer,JSONPath=`.status.inUse`
// +kubebuilder:printcolumn:name="Login",type=string,JSONPath=`.status.login`,priority=1
// +kubebuilder:printcolumn:name="Scopes",type=integer,JSONPath=`.status.driftScopes`,priority=1
// +kubebuilder:printcolumn:name="Check-Intervals",type=integer,JSONPath=`.status.driftCheckIntervals`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterForge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec: where the forge is, how to authenticate, and who may use it.
	Spec ClusterForgeSpec `json:"spec"`
	// status: what the forge reported, and how many resources use it.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ClusterForgeStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterForgeList is a list of ClusterForges.
type ClusterForgeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the ClusterForges.
	Items []ClusterForge `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ClusterForge{}, &ClusterForgeList{})
}
