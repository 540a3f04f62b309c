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

package controllers

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// TestRuleFieldsMatch keeps the spec's rule, the forge's rule and the
// forge's edit in step: ruleDiff and newRule walk the spec's fields and
// find the others' by name.
func TestRuleFieldsMatch(t *testing.T) {
	forgeType := reflect.TypeFor[forge.BranchProtection]()
	for i := range specRuleType.NumField() {
		f := specRuleType.Field(i)
		if f.Name == "RuleName" {
			continue
		}
		h, ok := forgeType.FieldByName(f.Name)
		if !ok {
			t.Errorf("forge.BranchProtection lacks %s", f.Name)
			continue
		}
		e, ok := editRuleType.FieldByName(f.Name)
		if !ok {
			t.Errorf("forge.EditBranchProtectionOption lacks %s", f.Name)
			continue
		}
		if f.Type.Kind() == reflect.Slice {
			if h.Type != reflect.TypeFor[[]string]() || e.Type != reflect.TypeFor[*[]string]() {
				t.Errorf("%s: list types %s, %s", f.Name, h.Type, e.Type)
			}
			continue
		}
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem() != h.Type || e.Type != f.Type {
			t.Errorf("%s: spec %s, forge %s, edit %s", f.Name, f.Type, h.Type, e.Type)
		}
	}
	if n, m := specRuleType.NumField()-1, editRuleType.NumField(); n != m {
		t.Errorf("the spec manages %d fields, the edit sends %d", n, m)
	}
}

func TestRuleDiff(t *testing.T) {
	yes, two, patterns := true, int64(2), "*.md;docs/**"
	spec := &forgev1.BranchProtectionRule{RuleName: "main", EnablePush: &yes, EnablePushWhitelist: &yes,
		PushWhitelistUsernames: []forgev1.UserName{"Alice", "bob"}, StatusCheckContexts: []forgev1.StatusCheckContext{"ci/build", "ci/test"},
		RequiredApprovals: &two, ProtectedFilePatterns: &patterns, MergeWhitelistTeams: []forgev1.TeamName{}}
	same := &forge.BranchProtection{RuleName: "main", EnablePush: true, EnablePushWhitelist: true,
		PushWhitelistUsernames: []string{"bob", "alice"}, StatusCheckContexts: []string{"ci/test", "ci/build"},
		RequiredApprovals: 2, ProtectedFilePatterns: " *.md; docs/** ", EnableStatusCheck: true, RequireSignedCommits: true}
	if d := ruleDiff(spec, same); len(d.changes) != 0 {
		t.Errorf("order, case of logins, spacing of patterns and unmanaged fields caused changes: %+v", d.changes)
	}

	drifted := *same
	drifted.RequiredApprovals = 1
	drifted.PushWhitelistUsernames = []string{"alice"}
	drifted.StatusCheckContexts = []string{"CI/build", "ci/test"}
	drifted.MergeWhitelistTeams = []string{"ops"}
	d := ruleDiff(spec, &drifted)
	want := []reconciler.Change{
		{Field: "mergeWhitelistTeams", Have: `["ops"]`, Want: "[]"},
		{Field: "pushWhitelistUsernames", Have: `["alice"]`, Want: `["Alice", "bob"]`},
		{Field: "requiredApprovals", Have: "1", Want: "2"},
		{Field: "statusCheckContexts", Have: `["CI/build", "ci/test"]`, Want: `["ci/build", "ci/test"]`},
	}
	if !reflect.DeepEqual(d.changes, want) {
		t.Errorf("changes = %+v, want %+v", d.changes, want)
	}
	e := d.edit
	if e.RequiredApprovals == nil || *e.RequiredApprovals != 2 || e.PushWhitelistUsernames == nil || len(*e.PushWhitelistUsernames) != 2 ||
		e.MergeWhitelistTeams == nil || len(*e.MergeWhitelistTeams) != 0 || e.EnablePush != nil || e.ProtectedFilePatterns != nil {
		t.Errorf("edit sends other than what differs: %+v", e)
	}

	created := newRule(spec)
	if created.RuleName != "main" || !created.EnablePush || created.RequiredApprovals != 2 || len(created.PushWhitelistUsernames) != 2 ||
		created.EnableStatusCheck || created.ProtectedFilePatterns != patterns {
		t.Errorf("newRule = %+v", created)
	}
}

func TestUnsupportedRuleFields(t *testing.T) {
	yes, one := true, int64(1)
	forgejo, gitea, unstamped := forge.NewServer("15.0.3+gitea-1.22.0"), forge.NewServer("1.26.4"), forge.NewServer("development")
	for _, tc := range []struct {
		reason string
		spec   forgev1.BranchProtectionRule
		server forge.Server
		want   string // the message, "" for none
	}{
		{"Forgejo lacks priority, the force-push fields and blockAdminMergeOverride, a list set to [] included",
			forgev1.BranchProtectionRule{Priority: &one, EnablePush: &yes, EnableForcePush: &yes, ForcePushAllowlistTeams: []forgev1.TeamName{},
				BlockAdminMergeOverride: &yes, ApplyToAdmins: &yes},
			forgejo, "priority, enableForcePush, forcePushAllowlistTeams, blockAdminMergeOverride (Gitea's alone) not supported by forgejo 15.0.3+gitea-1.22.0; nothing was written"},
		{"Forgejo has every shared field and applyToAdmins",
			forgev1.BranchProtectionRule{EnablePush: &yes, RequiredApprovals: &one, ApplyToAdmins: &yes}, forgejo, ""},
		{"Gitea lacks applyToAdmins, even set false",
			forgev1.BranchProtectionRule{Priority: &one, EnableForcePush: &yes, ApplyToAdmins: new(bool)}, gitea,
			"applyToAdmins (Forgejo's alone) not supported by gitea 1.26.4; nothing was written"},
		{"Gitea before 1.27 lacks the bypass allow-list",
			forgev1.BranchProtectionRule{EnableBypassAllowlist: &yes, BypassAllowlistUsernames: []forgev1.UserName{"alice"}}, gitea,
			"enableBypassAllowlist, bypassAllowlistUsernames (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4; nothing was written"},
		{"Gitea 1.27 has it",
			forgev1.BranchProtectionRule{EnableBypassAllowlist: &yes, BypassAllowlistTeams: []forgev1.TeamName{"release"}}, forge.NewServer("1.27.3"), ""},
		{"a server of unknown flavor is not judged",
			forgev1.BranchProtectionRule{Priority: &one, ApplyToAdmins: &yes, EnableBypassAllowlist: &yes}, unstamped, ""},
	} {
		b := &forgev1.BranchProtection{Spec: forgev1.BranchProtectionSpec{BranchProtectionRule: tc.spec}}
		err := reconciler.Unsupported(b, tc.server)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: %q, want %q", tc.reason, got, tc.want)
		}
	}
}

// TestUnsupportedSetRules: a set is gated as a whole, each rule that sets
// a field the server lacks named.
func TestUnsupportedSetRules(t *testing.T) {
	yes := true
	s := &forgev1.BranchProtectionSet{Spec: forgev1.BranchProtectionSetSpec{Rules: []forgev1.BranchProtectionRule{
		{RuleName: "main", EnablePush: &yes},
		{RuleName: "release/*", EnableBypassAllowlist: &yes},
		{RuleName: "dev", BypassAllowlistTeams: []forgev1.TeamName{}},
	}}}
	err := reconciler.Unsupported(s, forge.NewServer("1.26.4"))
	want := `rule "release/*": enableBypassAllowlist (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4; ` +
		`rule "dev": bypassAllowlistTeams (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4; nothing was written to any repository`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	var e *reconciler.Error
	if !errors.As(err, &e) || e.State != conditions.Stalled || e.Reason != forgev1.ReasonUnsupported {
		t.Errorf("not Stalled Unsupported: %v", err)
	}
	if err := reconciler.Unsupported(s, forge.NewServer("1.27.3")); err != nil {
		t.Errorf("on 1.27.3: %v", err)
	}
}
