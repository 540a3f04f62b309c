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

// ReceiverEvent is a forge event a Receiver asks its hooks for.
// +kubebuilder:validation:Enum=repository;create;push
type ReceiverEvent string

// The events a Receiver turns into passes.
const (
	// ReceiverEventRepository: a repository created or deleted re-runs the
	// sets selecting its organization, the Repository resources naming it
	// and the resources waiting for it.
	ReceiverEventRepository ReceiverEvent = "repository"
	// ReceiverEventCreate: a branch created re-runs the branch rules and the
	// kept files of its repository.
	ReceiverEventCreate ReceiverEvent = "create"
	// ReceiverEventPush: a push re-runs the RepositoryFiles and the FileSets
	// keeping files on the pushed branch of its repository.
	ReceiverEventPush ReceiverEvent = "push"
)

// ReasonEndpointNotServed: the manager serves no receiver endpoint
// (--receiver-bind-address is empty), so a Receiver's hooks would deliver
// to nothing.
const ReasonEndpointNotServed = "EndpointNotServed"

// ReceiverSpec is where the forge's organization hooks deliver events,
// so that the resources they concern pass at once instead of at their
// next sync interval.
type ReceiverSpec struct {
	ManagedSpec `json:",inline"`

	// deletionPolicy: Delete (default) removes the hooks when the resource is deleted; Orphan leaves them.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// organizations on each of which the operator keeps one organization
	// hook delivering to this Receiver, as a set.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	Organizations []OwnerName `json:"organizations"`

	// url is where the forge reaches the manager's receiver endpoint (its
	// Service or Ingress), without a path: the hooks deliver to url +
	// status.path.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^https?://[^/\s?#]+/?$`
	URL string `json:"url"`

	// secretRef selects a Secret key holding the hooks' HMAC secret; unset,
	// the operator generates one into a Secret this Receiver owns, named
	// after it (<name>-receiver). A new value moves status.path and
	// replaces the hooks.
	// +optional
	SecretRef *SecretKeySelector `json:"secretRef,omitempty"`

	// events the hooks deliver, as a set.
	// +kubebuilder:default={repository,create,push}
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +optional
	Events []ReceiverEvent `json:"events,omitempty"`
}

// ReceiverHook is one organization hook a Receiver keeps.
type ReceiverHook struct {
	// organization the hook is on.
	Organization string `json:"organization"`
	// id of the hook on the forge.
	ID int64 `json:"id"`
}

// ReceiverLastEvent is the last delivery the endpoint accepted.
type ReceiverLastEvent struct {
	// event as the forge named it (X-Gitea-Event).
	Event string `json:"event"`
	// delivery id (X-Gitea-Delivery).
	// +kubebuilder:validation:MaxLength=64
	Delivery string `json:"delivery"`
	// time it arrived.
	Time metav1.Time `json:"time"`
}

// ReceiverStatus is what the operator keeps of a Receiver.
type ReceiverStatus struct {
	ManagedStatus `json:",inline"`

	// path the endpoint serves this Receiver's deliveries at: derived from
	// the Receiver's uid and its secret, so that it cannot be guessed.
	// +optional
	Path string `json:"path,omitempty"`

	// hooks are the organization hooks the Receiver keeps, by organization.
	// +listType=map
	// +listMapKey=organization
	// +optional
	Hooks []ReceiverHook `json:"hooks,omitempty"`

	// lastEvent is the last delivery accepted, written at most once a
	// minute (not per delivery).
	// +optional
	LastEvent *ReceiverLastEvent `json:"lastEvent,omitempty"`

	// organizations is how many of spec.organizations have their hook,
	// and inSync how many of those match the spec.
	// +optional
	Organizations int32 `json:"organizations"`
	// +optional
	InSync int32 `json:"inSync"`

	// failures lists organizations whose hook could not be kept, at most 20.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Failures []ReceiverFailure `json:"failures,omitempty"`
}

// ReceiverFailure is an organization whose hook could not be kept.
type ReceiverFailure struct {
	// organization concerned.
	Organization string `json:"organization"`
	// reason, CamelCase: Conflict, Rejected, ParentNotFound, ForgeError, ...
	Reason string `json:"reason"`
	// message says what a person needs to know, bounded and without secrets.
	// +optional
	Message string `json:"message,omitempty"`
}

// Receiver keeps one organization hook on each listed organization,
// delivering the forge's events to the manager, which then passes at once
// over the resources an event concerns.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=freceiver,categories=forge
// +kubebuilder:printcolumn:name="Path",type=string,JSONPath=`.status.path`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Receiver struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired receiver.
	Spec ReceiverSpec `json:"spec"`
	// status is what the operator last saw on the forge.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ReceiverStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ReceiverList is a list of Receivers.
type ReceiverList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Receivers.
	Items []Receiver `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Receiver{}, &ReceiverList{})
}

// ForgeOwners are the organizations the Receiver keeps hooks on.
func (r *Receiver) ForgeOwners() []string {
	out := make([]string, len(r.Spec.Organizations))
	for i, o := range r.Spec.Organizations {
		out[i] = string(o)
	}
	return out
}

// ReceiverEvents is spec.events, or its default: all three.
func (r *Receiver) ReceiverEvents() []ReceiverEvent {
	if len(r.Spec.Events) == 0 {
		return []ReceiverEvent{ReceiverEventRepository, ReceiverEventCreate, ReceiverEventPush}
	}
	return r.Spec.Events
}

// GeneratedSecretName names the Secret the operator generates the hooks'
// secret into when spec.secretRef is unset; ReceiverSecretKey is its key.
func (r *Receiver) GeneratedSecretName() string { return r.Name + "-receiver" }

// ReceiverSecretKey is the key of the generated Secret holding the secret.
const ReceiverSecretKey = "secret"
