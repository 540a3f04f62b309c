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

package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/plan"
)

// removalsManifests: each kind that removes what it does not list, with
// removals Report, over a forge holding one object it would remove.
const removalsManifests = `
apiVersion: forge.forgeops.dev/v1beta1
kind: LabelSet
metadata: {name: api-labels, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {names: [acme/api]}
  mode: Authoritative
  removals: Report
  labels: [{name: keep, color: "#123456"}]
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Team
metadata: {name: platform, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  units: {code: read}
  members: [alice]
  removals: Report
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Repository
metadata: {name: web, namespace: team}
spec:
  forgeRef: {name: gitea}
  owner: acme
  collaborators: []
  removals: Report
`

// TestPlanRemovalsReport: plan prints, for a resource with removals
// Report, the removals it would not make, as its status would list them,
// and no delete: a set whose only difference is one is in sync.
func TestPlanRemovalsReport(t *testing.T) {
	fake, url, fc := seedPlanTeam(t)
	ctx := context.Background()
	if err := fc.SetCollaborator(ctx, "acme", "web", "bob", "read"); err != nil {
		t.Fatal(err)
	}
	fake.ClearRequests()
	t.Setenv("FORGE_TOKEN", fakeforge.DefaultToken)

	var out, errOut bytes.Buffer
	code := cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-"}, strings.NewReader(removalsManifests), &out, &errOut)
	text := out.String()
	t.Log(text)
	if code != 2 {
		t.Errorf("exit code %d, want 2 (the team's addition); stderr: %s", code, errOut.String())
	}
	for _, w := range []string{
		"LabelSet team/api-labels: in sync (1 of 1 repository match)\n  pending removal (removals Report): acme/api Label \"old\"\n",
		"Repository team/web: in sync\n  pending removal (removals Report): acme/web Collaborator \"bob\"\n",
		"Team team/platform: update\n  members: +alice\n  pending removal (removals Report): Member \"bob\"\n",
		"Plan: 1 update, 2 in sync.\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q", w)
		}
	}

	out.Reset()
	code = cmd.RunWithInput(ctx, "plan", []string{"--url", url, "-f", "-", "-o", "json"}, strings.NewReader(removalsManifests), &out, &errOut)
	var p plan.Plan
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("exit code %d, not JSON: %v\n%s", code, err, out.String())
	}
	got := map[string]*forgev1.PendingRemovals{}
	for _, it := range p.Objects {
		got[it.Kind] = it.PendingRemovals
	}
	want := map[string]*forgev1.PendingRemovals{
		"LabelSet":   {Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/api", Kind: "Label", Name: "old"}}},
		"Repository": {Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/web", Kind: "Collaborator", Name: "bob"}}},
		"Team":       {Count: 1, Items: []forgev1.PendingRemoval{{Kind: "Member", Name: "bob"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pendingRemovals in the JSON plan (-want +got):\n%s", d)
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}
