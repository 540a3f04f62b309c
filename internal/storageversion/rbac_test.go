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

package storageversion_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// The manager may set status.storedVersions of the operator's CRDs and no
// other: the generated role names exactly the CRDs of config/crd/bases, so
// a new kind's CRD gets migrated (its name added to the marker in
// storageversion.go) and no CRD outside the group can be touched.
func TestRoleMayMigrateEveryCRDOfTheOperatorAndNoOther(t *testing.T) {
	root := testenv.RepoRoot()
	files, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "forge.forgeops.dev_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "forge.forgeops.dev_"), ".yaml")+".forge.forgeops.dev")
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(raw, &role); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range role.Rules {
		if slices.Contains(r.APIGroups, "apiextensions.k8s.io") && slices.Contains(r.Resources, "customresourcedefinitions/status") {
			if len(r.ResourceNames) == 0 {
				t.Errorf("the manager may write the status of every CRD of the cluster: %+v", r)
			}
			got = append(got, r.ResourceNames...)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the manager may write the status of the CRDs %q, want exactly those of config/crd/bases %q: edit the rbac marker in internal/storageversion/storageversion.go, then make manifests", got, want)
	}
}
