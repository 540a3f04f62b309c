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

package reconciler

import "testing"

// TestDecide: the one decision the loop executes and plan prints.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name string
		obs  Observation
		want Action
	}{
		{"nothing found", Observation{}, Create},
		{"found, the same", Observation{Exists: true, ID: 3}, InSync},
		{"found by name, the same", Observation{Exists: true, Name: "main"}, InSync},
		{"fields differ", Observation{Exists: true, ID: 3, Diff: []string{"color"}}, Update},
		{"a field the forge cannot change differs", Observation{Exists: true, ID: 3, Diff: []string{"type"}, Replace: true}, Replace},
	} {
		if got := Decide(c.obs); got != c.want {
			t.Errorf("%s: Decide = %d, want %d", c.name, got, c.want)
		}
	}
}
