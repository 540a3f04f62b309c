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
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeletionPolicy says what happens to the forge object when the resource is deleted.
// +kubebuilder:validation:Enum=Delete;Orphan
type DeletionPolicy string

const (
	// DeletionPolicyDelete removes the forge object (or, for RunnerSetting, re-enables the runner).
	DeletionPolicyDelete DeletionPolicy = "Delete"
	// DeletionPolicyOrphan leaves the forge object as it is.
	DeletionPolicyOrphan DeletionPolicy = "Orphan"
)

// ManagementPolicy says whether the operator may write to the forge.
// +kubebuilder:validation:Enum=Manage;Observe
type ManagementPolicy string

const (
	// ManagementPolicyManage creates, updates and deletes the forge object.
	ManagementPolicyManage ManagementPolicy = "Manage"
	// ManagementPolicyObserve only reads the forge object and reports drift; it never writes.
	ManagementPolicyObserve ManagementPolicy = "Observe"
)

// Kinds a forgeRef may name.
const (
	// ForgeKind is a Forge in the resource's own namespace.
	ForgeKind = "Forge"
	// ClusterForgeKind is a ClusterForge: a connection the platform owns,
	// shared by the namespaces its tenants entries select.
	ClusterForgeKind = "ClusterForge"
)

// ForgeReference names the Forge (in the resource's namespace) or the
// ClusterForge a resource lives on.
type ForgeReference struct {
	// kind of the connection: Forge (in the resource's namespace) or
	// ClusterForge (cluster-scoped, owned by the platform).
	// +kubebuilder:validation:Enum=Forge;ClusterForge
	// +kubebuilder:default=Forge
	// +optional
	Kind string `json:"kind,omitempty"`
	// name of the Forge in the resource's namespace, or of the ClusterForge.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// Cluster reports whether the reference names a ClusterForge.
func (r ForgeReference) Cluster() bool { return r.Kind == ClusterForgeKind }

// Key is the reference as the forgeRef index holds it: the Forge's name,
// or "ClusterForge/<name>" (a Forge's name has no '/').
func (r ForgeReference) Key() string {
	if r.Cluster() {
		return ClusterForgeKind + "/" + r.Name
	}
	return r.Name
}

// String names the connection for messages: Forge "gitea", ClusterForge "shared".
func (r ForgeReference) String() string {
	if r.Cluster() {
		return ClusterForgeKind + " " + strconv.Quote(r.Name)
	}
	return ForgeKind + " " + strconv.Quote(r.Name)
}

// SecretKeySelector selects one key of a Secret in the resource's namespace.
type SecretKeySelector struct {
	// name of the Secret in the resource's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// key in the Secret's data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// ManagedSpec holds the fields every managed kind has. deletionPolicy is
// declared by each kind, because its default differs between kinds.
type ManagedSpec struct {
	// forgeRef names the Forge (in the same namespace) or the ClusterForge
	// this object lives on.
	ForgeRef ForgeReference `json:"forgeRef"`

	// managementPolicy: Manage creates, updates and deletes the forge object;
	// Observe only reads it and reports drift in the conditions, never writing.
	// +kubebuilder:default=Manage
	// +optional
	ManagementPolicy ManagementPolicy `json:"managementPolicy,omitempty"`

	// suspend stops all forge calls for this object until set back to false.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// syncInterval is how often the forge object is checked for drift: the
	// forge is read (a listing shared by the objects of its scope) at most
	// this long before each check; the manager's --sync-interval when unset.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="syncInterval must be at least 1s"
	// +optional
	SyncInterval *metav1.Duration `json:"syncInterval,omitempty"`
}

// ManagedStatus is the status block every managed kind has.
type ManagedStatus struct {
	// id of the object on the forge.
	// +optional
	ID int64 `json:"id,omitempty"`

	// externalName is the forge's name of an object it addresses by name
	// rather than by a numeric id (an Actions secret or variable, a branch
	// rule); such kinds record it here instead of id.
	// +optional
	ExternalName string `json:"externalName,omitempty"`

	// url of the object on the forge, where it has one.
	// +optional
	URL string `json:"url,omitempty"`

	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// lastHandledReconcileAt echoes the forge.forgeops.dev/reconcile-requested-at
	// annotation value handled last.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`

	// createPending is the operator's create-pending mark: a value unique
	// to one create (a time), written to status before that create is sent
	// to the forge, so that a create whose response is lost is followed by
	// a look-up, not a second create. It is pending until
	// lastHandledCreatePending echoes it. Only the operator writes status:
	// an annotation of the same name set by hand is no mark.
	// +optional
	CreatePending string `json:"createPending,omitempty"`

	// replaces names the forge object a pending create replaces (its id,
	// or "name:" and its name for an object the forge addresses by name),
	// written with createPending, so that a failed delete of the old object
	// is retried, never forgotten. It means nothing once the mark is settled.
	// +optional
	Replaces string `json:"replaces,omitempty"`

	// lastHandledCreatePending echoes createPending once the create it
	// marks is handled: the status write that records its outcome (the id
	// made, or a refusal that made nothing) sets it. A mark equal to it is
	// settled, and means nothing any more.
	// +optional
	LastHandledCreatePending string `json:"lastHandledCreatePending,omitempty"`

	// conditions: Ready (summary), Reconciling and Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Known reports whether status names a forge object: by id, or by name
// for kinds the forge addresses by name.
func (s *ManagedStatus) Known() bool { return s.ID != 0 || s.ExternalName != "" }

// Managed is implemented by every kind whose object lives on a forge. The
// shared reconcile loop works on this interface only.
// +kubebuilder:object:generate=false
type Managed interface {
	metav1.Object
	runtime.Object
	ConditionsAccessor
	// GetManagedSpec returns the fields every managed kind has.
	GetManagedSpec() *ManagedSpec
	// GetDeletionPolicy returns the effective deletion policy.
	GetDeletionPolicy() DeletionPolicy
	// GetManagedStatus returns the status block every managed kind has.
	GetManagedStatus() *ManagedStatus
	// ForgeOwners are the organizations and users whose objects the
	// resource writes (owners.go): a ClusterForge's tenants entry must
	// allow each of them.
	ForgeOwners() []string
}

// ConditionsAccessor is implemented by every kind of this package.
// +kubebuilder:object:generate=false
type ConditionsAccessor interface {
	// GetConditions returns the status conditions.
	GetConditions() []metav1.Condition
	// SetConditions replaces the status conditions.
	SetConditions([]metav1.Condition)
}
