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

package deploy

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/api/v1beta1"
)

// TestCRDVersionsAreTheGoTypes holds the CRDs an install gets, from
// kustomize (config/default) and from the chart, to the versions of the Go
// types: every kind served at v1beta1 and stored there, and served at
// v1alpha1, deprecated with its warning, with the same schema, columns and
// subresources (conversion: None converts nothing else), and no CRD of the
// group for a kind the types lack. A CRD whose stored or served version is
// not the manager's leaves nothing reconciled after an install: its
// informers find no version they can read.
func TestCRDVersionsAreTheGoTypes(t *testing.T) {
	kinds := map[string]bool{}
	for _, o := range v1beta1.SchemeBuilder.Objects() {
		if _, isList := o.(interface{ GetContinue() string }); isList {
			continue
		}
		kinds[reflect.TypeOf(o).Elem().Name()] = true
	}
	if len(kinds) != 25 {
		t.Fatalf("%d kinds in api/v1beta1, want 25: %v", len(kinds), kinds)
	}
	for name, objs := range map[string]rendered{
		"kustomize (config/default)": render(t, repoPath("config", "default")),
		"chart":                      renderChart(t),
	} {
		seen := map[string]bool{}
		for _, o := range objs.ofKind("CustomResourceDefinition") {
			var crd apiextensionsv1.CustomResourceDefinition
			decode(t, o, &crd)
			if crd.Spec.Group != v1beta1.GroupVersion.Group {
				continue
			}
			kind := crd.Spec.Names.Kind
			seen[kind] = true
			if !kinds[kind] {
				t.Errorf("%s: CRD %s is for kind %s, which api/v1beta1 lacks", name, crd.Name, kind)
				continue
			}
			checkVersions(t, name+": "+crd.Name, &crd)
		}
		for k := range kinds {
			if !seen[k] {
				t.Errorf("%s installs no CRD for kind %s: nothing of that kind would be reconciled", name, k)
			}
		}
	}
}

func checkVersions(t *testing.T, what string, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	names := make([]string, 0, len(crd.Spec.Versions))
	var stored, deprecated *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		names = append(names, v.Name)
		switch v.Name {
		case v1beta1.GroupVersion.Version:
			stored = v
		case v1alpha1.GroupVersion.Version:
			deprecated = v
		}
	}
	if slices.Sort(names); !slices.Equal(names, []string{v1alpha1.GroupVersion.Version, v1beta1.GroupVersion.Version}) || stored == nil || deprecated == nil {
		t.Errorf("%s serves versions %v, want exactly %s and %s, as the Go types (api/v1beta1, api/v1alpha1)", what, names, v1beta1.GroupVersion.Version, v1alpha1.GroupVersion.Version)
		return
	}
	if !stored.Served || !stored.Storage || stored.Deprecated {
		t.Errorf("%s: %s served %v, storage %v, deprecated %v; want served, stored, not deprecated", what, stored.Name, stored.Served, stored.Storage, stored.Deprecated)
	}
	want := v1alpha1.DeprecationWarning(crd.Spec.Names.Kind)
	if !deprecated.Served || deprecated.Storage || !deprecated.Deprecated || deprecated.DeprecationWarning == nil || *deprecated.DeprecationWarning != want {
		t.Errorf("%s: %s served %v, storage %v, deprecated %v, warning %v; want served, not stored, deprecated with %q",
			what, deprecated.Name, deprecated.Served, deprecated.Storage, deprecated.Deprecated, deprecated.DeprecationWarning, want)
	}
	if !strings.Contains(want, v1beta1.GroupVersion.String()) {
		t.Errorf("the deprecation warning %q does not name %s", want, v1beta1.GroupVersion)
	}
	if !reflect.DeepEqual(stored.Schema, deprecated.Schema) || !reflect.DeepEqual(stored.AdditionalPrinterColumns, deprecated.AdditionalPrinterColumns) ||
		!reflect.DeepEqual(stored.Subresources, deprecated.Subresources) || !reflect.DeepEqual(stored.SelectableFields, deprecated.SelectableFields) {
		t.Errorf("%s: %s and %s differ in schema, printer columns or subresources; conversion: None needs them equal", what, stored.Name, deprecated.Name)
	}
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("%s: conversion %+v, want strategy None (identical schemas, no webhook)", what, crd.Spec.Conversion)
	}
}
