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

// Package v1alpha1 is the deprecated forge.forgeops.dev/v1alpha1 API.
// Its schema is v1beta1's, field for field: the API review (docs/api.md)
// changed no field, so the API server converts between the two versions
// with `conversion: None` and no webhook, and this package holds no types
// of its own. `make manifests` (hack/crdversions) serves every CRD's
// v1beta1 schema a second time under this version, deprecated, with
// DeprecationWarning; AddToScheme registers v1beta1's kinds under this
// version for the clients that still read or write it (plan reading a
// v1alpha1 manifest, the suites that write at v1alpha1 to exercise the
// conversion).
//
// A field that v1beta1 changes after this point ends that: this package
// then gets types of its own and conversion functions, and the CRDs a
// conversion webhook (docs/api.md, "Deprecation policy").
// +groupName=forge.forgeops.dev
package v1alpha1

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/forgeops/forge-operator/api/v1beta1"
)

// GroupVersion is the deprecated version every kind is still served at.
var GroupVersion = schema.GroupVersion{Group: v1beta1.GroupVersion.Group, Version: "v1alpha1"}

// DeprecationWarning is what the API server answers every request at
// v1alpha1 with (a Warning header kubectl prints), naming the version
// that replaces it.
func DeprecationWarning(kind string) string {
	return fmt.Sprintf("%s %s is deprecated; use %s %s (docs/api.md)", GroupVersion, kind, v1beta1.GroupVersion, kind)
}

// AddToScheme registers every kind of v1beta1, with its list, under
// v1alpha1: the same Go types, as the schemas are the same. A scheme
// holds either this or v1beta1.AddToScheme, not both, as a client could
// not tell which version a typed object is meant for.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, v1beta1.SchemeBuilder.Objects()...)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
