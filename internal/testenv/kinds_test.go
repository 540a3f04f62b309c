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

package testenv

import (
	"fmt"
	"slices"
	"testing"
)

// TestKindsAreTheAPIPackagesKinds checks the derived list against the
// types of the API package: a kind present in the scheme is listed once,
// the Forge last, and each list is of its kind.
func TestKindsAreTheAPIPackagesKinds(t *testing.T) {
	kinds := Kinds()
	for _, want := range []string{"Forge", "Organization", "OrgHook", "RepoHook", "Label"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("Kinds() = %v, without %s", kinds, want)
		}
	}
	if kinds[len(kinds)-1] != "Forge" {
		t.Errorf("Kinds() = %v, want the Forge last", kinds)
	}
	if c := slices.Compact(slices.Clone(kinds)); len(c) != len(kinds) {
		t.Errorf("Kinds() = %v lists a kind twice", kinds)
	}
	lists := Lists()
	if len(lists) != len(kinds) {
		t.Fatalf("%d lists for %d kinds", len(lists), len(kinds))
	}
	for i, l := range lists {
		if got := fmt.Sprintf("%T", l); got != "*v1beta1."+kinds[i]+"List" {
			t.Errorf("list %d is a %s, want *v1beta1.%sList", i, got, kinds[i])
		}
	}
}
