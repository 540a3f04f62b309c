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

package forge_test

import (
	"slices"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// TestMissingScopes: all covers every scope, write:x covers read:x but not
// another category's, public-only grants nothing.
func TestMissingScopes(t *testing.T) {
	cases := []struct {
		have, need, missing []string
	}{
		{[]string{"all"}, []string{"write:organization", "write:admin", "read:user"}, nil},
		{[]string{"write:organization"}, []string{"read:organization", "write:organization"}, nil},
		{[]string{"read:organization"}, []string{"write:organization"}, []string{"write:organization"}},
		{[]string{"write:repository"}, []string{"write:repository", "write:organization", "write:organization"}, []string{"write:organization"}},
		{[]string{"public-only", "write:issue"}, []string{"write:issue", "read:repository"}, []string{"read:repository"}},
		{nil, []string{"read:user"}, []string{"read:user"}},
	}
	for _, c := range cases {
		if got := forge.MissingScopes(c.have, c.need); !slices.Equal(got, c.missing) {
			t.Errorf("MissingScopes(%v, %v) = %v, want %v", c.have, c.need, got, c.missing)
		}
	}
	if forge.WriteScopeOf(forge.OrgScope("acme")) != forge.ScopeWriteOrganization ||
		forge.WriteScopeOf(forge.RepoScope("acme", "web")) != forge.ScopeWriteRepository ||
		forge.WriteScopeOf(forge.InstanceScope) != forge.ScopeWriteAdmin {
		t.Error("WriteScopeOf does not follow the routes' categories")
	}
}
