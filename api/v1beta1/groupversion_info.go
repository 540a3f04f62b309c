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

// Package v1beta1 holds the forge.forgeops.dev/v1beta1 API, the stored
// version of every kind (the hub api/v1alpha1 is served from): the
// connections to a forge (Forge, and the cluster-scoped ClusterForge a
// platform shares with its tenants) and every kind of forge object the
// operator keeps equal to its resource: organizations, repositories,
// teams, users, webhooks, labels and label sets, branch and tag
// protection, deploy keys, Actions secrets and variables, projects,
// runner settings, runner registration tokens and push mirrors.
// docs/reference.md is generated from this package.
// +kubebuilder:object:generate=true
// +groupName=forge.forgeops.dev
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "forge.forgeops.dev", Version: "v1beta1"}

	// SchemeBuilder registers the kinds of this package with a scheme.
	SchemeBuilder = &schemeBuilder{}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// schemeBuilder collects the kinds each types file registers in its init.
// Own code rather than controller-runtime's deprecated scheme.Builder, so
// that this package depends on k8s.io/apimachinery only.
type schemeBuilder struct {
	objects []runtime.Object
}

// Register adds objects (a kind and its list) to those AddToScheme adds.
func (b *schemeBuilder) Register(objects ...runtime.Object) {
	b.objects = append(b.objects, objects...)
}

// Objects are the registered kinds and their lists, for a package that
// serves them under another version (api/v1alpha1).
func (b *schemeBuilder) Objects() []runtime.Object {
	return b.objects
}

// AddToScheme adds every registered kind to s.
func (b *schemeBuilder) AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, b.objects...)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
