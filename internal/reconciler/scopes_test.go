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

	"sigs.k8s.io/controller-runtime/pkg/event"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// TestForgeScopesChangeRerunsResources: a Forge (or ClusterForge) whose
// token's scopes change passes the watch of its resources, so that one
// stalled for a scope it lacked resumes at once; its drift figures
// changing alone do not.
func TestForgeScopesChangeRerunsResources(t *testing.T) {
	old := &forgev1.Forge{Status: forgev1.ForgeStatus{ServerVersion: "1.27.3", TokenScopes: []string{"read:organization"}}}
	scoped := old.DeepCopy()
	scoped.Status.TokenScopes = []string{"write:organization"}
	drift := old.DeepCopy()
	drift.Status.DriftScopes = 7
	if !(forgeChanged{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: scoped}) {
		t.Error("a Forge whose token scopes changed does not re-run its resources")
	}
	if (forgeChanged{}).Update(event.UpdateEvent{ObjectOld: old, ObjectNew: drift}) {
		t.Error("a Forge whose drift figures alone changed re-runs its resources")
	}
	cOld := &forgev1.ClusterForge{Status: forgev1.ClusterForgeStatus{ForgeStatus: old.Status}}
	cNew := cOld.DeepCopy()
	cNew.Status.TokenScopes = nil
	if !(forgeChanged{}).Update(event.UpdateEvent{ObjectOld: cOld, ObjectNew: cNew}) {
		t.Error("a ClusterForge whose token scopes went does not re-run its resources")
	}
}
