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
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestGatesByRelease: each gate is lacked by the releases and flavors
// before the one that has it, and by no server of unknown flavor.
func TestGatesByRelease(t *testing.T) {
	bypass := gateOf(t, "BranchProtectionRule", "enableBypassAllowlist")
	hasCode := gateOf(t, "RepositorySettings", "hasCode")
	priority := gateOf(t, "BranchProtectionRule", "priority")
	applyToAdmins := gateOf(t, "BranchProtectionRule", "applyToAdmins")
	for _, tc := range []struct {
		version string
		gate    forge.Gate
		lacks   bool
	}{
		{"1.26.4", bypass, true},
		{"1.27.0-rc1", bypass, false},
		{"1.27.3", bypass, false},
		{"1.28.0+dev-12-gabcdef", bypass, false},
		{"15.0.3+gitea-1.22.0", bypass, true},
		{"development", bypass, false},
		{"1.24.6", hasCode, true},
		{"1.25.5", hasCode, false},
		{"15.0.3+gitea-1.22.0", priority, true},
		{"1.24.6", priority, false},
		{"1.26.4", applyToAdmins, true},
		{"15.0.3+gitea-1.22.0", applyToAdmins, false},
		{"1.25.5", forge.GateRunnerEdit, true},
		{"1.26.0", forge.GateRunnerEdit, false},
		{"15.0.3+gitea-1.22.0", forge.GateRunnerEdit, true},
		{"1.22.6", forge.GateTagProtections, true},
		{"1.23.0", forge.GateTagProtections, false},
		{"15.0.3+gitea-1.22.0", forge.GateTagProtections, false},
		{"1.24.6", forge.GateWorkflowRunEvent, true},
		{"1.25.0", forge.GateWorkflowRunEvent, false},
	} {
		if got := forge.NewServer(tc.version).Lacks(tc.gate); got != tc.lacks {
			t.Errorf("%s lacks %s: %v, want %v", tc.version, tc.gate.Name(), got, tc.lacks)
		}
	}
}

// TestLacksFields: only fields the spec sets count (a pointer to false
// and an empty list are set), and the message names each field and the
// releases that have it.
func TestLacksFields(t *testing.T) {
	no, one := false, int64(1)
	rule := forgev1.BranchProtectionRule{RuleName: "main", Priority: &one, EnableBypassAllowlist: &no,
		BypassAllowlistTeams: []forgev1.TeamName{}, RequiredApprovals: &one}
	old := forge.NewServer("1.26.4")
	if got := names(old.LacksFields(&rule)); !cmp.Equal(got, []string{"enableBypassAllowlist", "bypassAllowlistTeams"}) {
		t.Errorf("1.26.4 lacks %v", got)
	}
	if got := old.Unsupported(old.LacksFields(rule)); got !=
		"enableBypassAllowlist, bypassAllowlistTeams (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4" {
		t.Errorf("message %q", got)
	}
	if got := forge.NewServer("1.27.3").LacksFields(&rule); len(got) != 0 {
		t.Errorf("1.27.3 lacks %v", names(got))
	}
	forgejo := forge.NewServer("15.0.3+gitea-1.22.0")
	msg := forgejo.Unsupported(forgejo.LacksFields(&rule))
	if want := "priority (Gitea's alone) and enableBypassAllowlist, bypassAllowlistTeams (Gitea 1.27 and later; not Forgejo) not supported by forgejo 15.0.3+gitea-1.22.0"; msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
	repo := forgev1.RepositorySettings{HasCode: &no, DefaultUpdateStyle: new("rebase")}
	if got := names(forge.NewServer("1.24.6").LacksFields(&repo)); !cmp.Equal(got, []string{"hasCode", "defaultUpdateStyle"}) {
		t.Errorf("1.24.6 lacks %v", got)
	}
	if got := names(forge.NewServer("1.25.5").LacksFields(&repo)); !cmp.Equal(got, []string{"defaultUpdateStyle"}) {
		t.Errorf("1.25.5 lacks %v", got)
	}
}

// TestFieldGatesNameSpecFields: every gate names a field of its spec type
// by the JSON name users write (a misspelt gate would gate nothing).
func TestFieldGatesNameSpecFields(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, v := range []any{forgev1.BranchProtectionRule{}, forgev1.TeamSpec{}, forgev1.RepositorySpec{}} {
		types[reflect.TypeOf(v).Name()] = reflect.TypeOf(v)
	}
	n := 0
	for in, typ := range types {
		for _, g := range forge.FieldGates(in) {
			n++
			found := false
			for i := range typ.NumField() {
				if json, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); json == g.Field {
					found = true
				}
			}
			if !found {
				t.Errorf("the gate of %s.%s names no field", in, g.Field)
			}
		}
	}
	if n == 0 {
		t.Fatal("no field gates")
	}
}

func gateOf(t *testing.T, in, field string) forge.Gate {
	t.Helper()
	for _, g := range forge.FieldGates(in) {
		if g.Field == field {
			return g
		}
	}
	t.Fatalf("no gate of %s.%s", in, field)
	return forge.Gate{}
}

func names(gates []forge.Gate) []string {
	var out []string
	for _, g := range gates {
		out = append(out, g.Name())
	}
	return out
}
