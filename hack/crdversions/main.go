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

// Command crdversions serves every CRD controller-gen wrote into a
// directory at the deprecated versions too: `make manifests` runs it on
// config/crd/bases after controller-gen. controller-gen writes one version
// per CRD, v1beta1, from the types of api/v1beta1; api/v1alpha1 has no
// types of its own (its schema is v1beta1's), so this adds, after it, a
// v1alpha1 version with the same schema, printer columns and subresources,
// served but not stored, deprecated with v1alpha1.DeprecationWarning, and
// sets `conversion: None`. It is idempotent: a CRD that already serves
// v1alpha1 gets it written again from v1beta1.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/api/v1beta1"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crdversions DIR")
		os.Exit(2)
	}
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*.yaml"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no CRDs in %s", os.Args[1])
	}
	for _, f := range files {
		if err != nil {
			break
		}
		err = rewrite(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crdversions:", err)
		os.Exit(1)
	}
}

// rewrite adds the deprecated version to the CRD in file.
func rewrite(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(bytes.TrimPrefix(raw, []byte("---\n")), &crd); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := Serve(&crd); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	// Written as controller-gen writes it: without the status and the
	// creation timestamp a typed CRD marshals.
	var doc map[string]any
	if doc, err = runtime.DefaultUnstructuredConverter.ToUnstructured(&crd); err != nil {
		return err
	}
	delete(doc, "status")
	unstructured.RemoveNestedField(doc, "metadata", "creationTimestamp")
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(file, append([]byte("---\n"), out...), 0o644)
}

// Serve makes crd serve v1alpha1 beside the v1beta1 it stores.
func Serve(crd *apiextensionsv1.CustomResourceDefinition) error {
	var stored *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == v1beta1.GroupVersion.Version {
			stored = crd.Spec.Versions[i].DeepCopy()
		}
	}
	if stored == nil || !stored.Storage {
		return fmt.Errorf("no stored version %s", v1beta1.GroupVersion.Version)
	}
	deprecated := stored.DeepCopy()
	deprecated.Name = v1alpha1.GroupVersion.Version
	deprecated.Storage = false
	deprecated.Deprecated = true
	warning := v1alpha1.DeprecationWarning(crd.Spec.Names.Kind)
	deprecated.DeprecationWarning = &warning
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{*stored, *deprecated}
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	return nil
}
