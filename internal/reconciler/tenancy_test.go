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

import (
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
)

// TestTenantOfClusterForge: through a ClusterForge each namespace has a
// share of its own, and every namespace counts against the one server.
func TestTenantOfClusterForge(t *testing.T) {
	ref := forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: "shared"}
	a := Tenant{Forge: refUse("team-a", ref), Server: "https://git.example.com:443/api/v1"}
	b := Tenant{Forge: refUse("team-b", ref), Server: "https://git.example.com:443/api/v1"}
	ka, kb := a.keys(), b.keys()
	if ka[0] == kb[0] || ka[1] == kb[1] || ka[2] != kb[2] {
		t.Fatalf("team-a keys %q, team-b keys %q: want distinct uses and namespaces, one server", ka, kb)
	}
	if own := refUse("team-a", forgev1.ForgeReference{Name: "shared"}); own == a.Forge {
		t.Fatalf("a Forge %q and the ClusterForge of one name share a key %q", own, a.Forge)
	}
}
