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

// TestReplacedRef: the replaces annotation names a replaced object by id,
// or by name for an object the forge addresses by name (a push mirror),
// and reads back as the object to delete; an id-only value written before
// names existed still reads as its id.
func TestReplacedRef(t *testing.T) {
	for _, c := range []struct {
		name string
		obs  Observation
		ref  string
	}{
		{"by id", Observation{Exists: true, ID: 42}, "42"},
		{"by name", Observation{Exists: true, Name: "remote_mirror_AbC123xyz0"}, "name:remote_mirror_AbC123xyz0"},
		{"a name that reads as a number", Observation{Exists: true, Name: "7"}, "name:7"},
		{"none", Observation{}, ""},
	} {
		ref := replacedRef(c.obs)
		if ref != c.ref {
			t.Errorf("%s: replacedRef = %q, want %q", c.name, ref, c.ref)
		}
		if got := replacedObject(ref); c.ref != "" && (got.ID != c.obs.ID || got.Name != c.obs.Name || !got.Exists) {
			t.Errorf("%s: replacedObject(%q) = %+v, want %+v", c.name, ref, got, c.obs)
		}
	}
}
