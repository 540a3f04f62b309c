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

// ForgeSpec describes how to reach a forge and authenticate to it.
type ForgeSpec struct {
	// url is the forge's root (https://git.example.com); /api/v1 is appended
	// unless it is already there.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s/?#]+[^\s?#]*$`
	// +kubebuilder:validation:XValidation:rule="!self.contains('@')",message="spec.url must not contain '@' (credentials in the URL): use spec.auth"
	URL string `json:"url"`

	// auth names the Secret with the credentials: exactly one of tokenSecretRef and basicAuthSecretRef.
	Auth ForgeAuth `json:"auth"`

	// tls configures the TLS connection to the forge.
	// +optional
	TLS *ForgeTLS `json:"tls,omitempty"`

	// rateLimit caps the requests per second the operator sends to this forge.
	// +optional
	RateLimit *RateLimit `json:"rateLimit,omitempty"`

	// timeout of one request to the forge, at most 5m.
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="timeout must be positive"
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('5m')",message="timeout must be at most 5m"
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// fullCheckEvery is how many sync intervals apart the file kinds
	// (RepositoryFile, FileSet) check every repository's files completely.
	// Between, a check lists a branch's tree only in a repository whose
	// updated_at moved since its last complete check (a push, a commit),
	// or whose desired files changed; a complete check lists every one
	// regardless, so that an update the forge's clock or a missed move hid
	// is caught within fullCheckEvery intervals. 1: every check is
	// complete. Repositories take their complete checks in turns, not all
	// in one interval.
	// +kubebuilder:default=6
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	FullCheckEvery *int32 `json:"fullCheckEvery,omitempty"`
}

// DefaultFullCheckEvery is spec.fullCheckEvery's default.
const DefaultFullCheckEvery = 6

// FullChecksEvery is spec.fullCheckEvery, or its default.
func (s *ForgeSpec) FullChecksEvery() int {
	if s.FullCheckEvery == nil || *s.FullCheckEvery < 1 {
		return DefaultFullCheckEvery
	}
	return int(*s.FullCheckEvery)
}

// ForgeAuth holds exactly one way to authenticate.
// +kubebuilder:validation:XValidation:rule="has(self.tokenSecretRef) != has(self.basicAuthSecretRef)",message="spec.auth needs exactly one of tokenSecretRef and basicAuthSecretRef"
type ForgeAuth struct {
	// tokenSecretRef names a Secret holding an access token (key "token" unless set).
	// +optional
	TokenSecretRef *TokenSecretReference `json:"tokenSecretRef,omitempty"`
	// basicAuthSecretRef names a Secret with the keys "username" and "password".
	// +optional
	BasicAuthSecretRef *SecretReference `json:"basicAuthSecretRef,omitempty"`
}

// TokenSecretReference selects the key of a Secret that holds an access token.
type TokenSecretReference struct {
	// name of the Secret in the Forge's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// key holding the token.
	// +kubebuilder:default=token
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Key string `json:"key,omitempty"`
}

// CASecretReference selects the key of a Secret that holds PEM CA certificates.
type CASecretReference struct {
	// name of the Secret in the Forge's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// key holding the PEM bundle.
	// +kubebuilder:default="ca.crt"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Key string `json:"key,omitempty"`
}

// SecretReference names a Secret in the resource's namespace.
type SecretReference struct {
	// name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ForgeTLS configures TLS to the forge.
type ForgeTLS struct {
	// caSecretRef names a Secret holding the CA bundle that signed the forge's certificate.
	// +optional
	CASecretRef *CASecretReference `json:"caSecretRef,omitempty"`
	// insecureSkipVerify turns off certificate verification; for tests only.
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}

// RateLimit is a token bucket for requests to one forge.
type RateLimit struct {
	// qps is the steady number of requests per second, 0.1 to 1000.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0.1
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:validation:XValidation:rule="self >= 0.1",message="qps must be at least 0.1"
	// +optional
	QPS float64 `json:"qps,omitempty"`
	// burst is how many requests may go at once, at most 1000.
	// +kubebuilder:default=20
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Burst int32 `json:"burst,omitempty"`
}

// ForgeStatus reports what the forge said about itself and the credentials.
type ForgeStatus struct {
	// serverVersion as reported by GET /version.
	// +optional
	ServerVersion string `json:"serverVersion,omitempty"`
	// flavor of the server: gitea or forgejo.
	// +kubebuilder:validation:Enum=gitea;forgejo
	// +optional
	Flavor string `json:"flavor,omitempty"`
	// login of the user the credentials belong to.
	// +optional
	Login string `json:"login,omitempty"`
	// userID is the forge's id of the user the credentials belong to: a
	// User naming that account, by login or by id, writes nothing to it.
	// +optional
	UserID int64 `json:"userID,omitempty"`
	// tokenScopes are the scopes of the token the connection authenticates
	// with, as the server answers GET /token (Gitea 1.27 and later): `all`,
	// or some of `read:x` and `write:x` for x in activitypub, admin, misc,
	// notification, organization, package, issue, repository, user, and
	// `public-only`. A resource whose writes need a scope the token lacks
	// stalls (InsufficientScope) before it writes. Empty with basic auth
	// (whose requests no scope limits) and on servers without GET /token,
	// where the forge's 403 is the only word on what a token may do.
	// +optional
	TokenScopes []string `json:"tokenScopes,omitempty"`
	// driftScopes is how many scopes (listings: a repository's labels, an
	// organization's teams, ...) the drift checks of this Forge's resources
	// read, each once per sync interval, as of the Forge's last check.
	// +optional
	DriftScopes int32 `json:"driftScopes,omitempty"`
	// driftCheckIntervals is how many sync intervals one drift check of
	// every scope takes: 1 while the scopes' listings fit in half the
	// Forge's rate limit (creates and updates always keep the other half),
	// more when they do not. Raise rateLimit.qps or the sync intervals to
	// bring it back to 1 (docs/performance.md, "Sizing").
	// +optional
	DriftCheckIntervals int32 `json:"driftCheckIntervals,omitempty"`
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// lastHandledReconcileAt echoes the forge.forgeops.dev/reconcile-requested-at annotation value handled last.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// conditions: Ready (summary), Reconciling and Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Forge is a connection to a Gitea or Forgejo server: its URL and credentials.
// Every other kind names one in spec.forgeRef.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=fg,categories=forge
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`
// +kubebuilder:printcolumn:name="Flavor",type=string,JSONPath=`.status.flavor`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.serverVersion`
// +kubebuilder:printcolumn:name="Login",type=string,JSONPath=`.status.login`,priority=1
// +kubebuilder:printcolumn:name="Scopes",type=integer,JSONPath=`.status.driftScopes`,priority=1
// +kubebuilder:printcolumn:name="Check-Intervals",type=integer,JSONPath=`.status.driftCheckIntervals`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Forge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec: where the forge is and how to authenticate.
	Spec ForgeSpec `json:"spec"`
	// status: what the forge reported.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ForgeStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ForgeList is a list of Forges.
type ForgeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Forges.
	Items []Forge `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Forge{}, &ForgeList{})
}
