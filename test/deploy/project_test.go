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
	"os"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// TestProjectListsEveryKind: kubebuilder's PROJECT names every kind of the
// API package, so that kubebuilder's tools see the project as it is.
func TestProjectListsEveryKind(t *testing.T) {
	b, err := os.ReadFile(repoPath("PROJECT"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Resources []struct {
			Kind string `json:"kind"`
		} `json:"resources"`
	}
	if err := yaml.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range p.Resources {
		kinds = append(kinds, r.Kind)
	}
	slices.Sort(kinds)
	if want := slices.Sorted(slices.Values(testenv.Kinds())); !slices.Equal(kinds, want) {
		t.Errorf("PROJECT lists %v, the API has %v", kinds, want)
	}
}
