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

package kinds

import (
	"slices"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// TestRuleRefsNameEveryAllowList: each allow-list of a branch protection
// rule, users and teams (of the repository's owner), is a reference, so
// that a rule naming a team or user the same apply declares waits for it.
func TestRuleRefsNameEveryAllowList(t *testing.T) {
	rule := forgev1.BranchProtectionRule{
		PushWhitelistUsernames:      []forgev1.UserName{"pusher"},
		PushWhitelistTeams:          []forgev1.TeamName{"pushers"},
		ForcePushAllowlistUsernames: []forgev1.UserName{"forcer"},
		ForcePushAllowlistTeams:     []forgev1.TeamName{"forcers"},
		MergeWhitelistUsernames:     []forgev1.UserName{"merger"},
		MergeWhitelistTeams:         []forgev1.TeamName{"mergers"},
		BypassAllowlistUsernames:    []forgev1.UserName{"bypasser"},
		BypassAllowlistTeams:        []forgev1.TeamName{"bypassers"},
		ApprovalsWhitelistUsernames: []forgev1.UserName{"approver"},
		ApprovalsWhitelistTeams:     []forgev1.TeamName{"approvers"},
	}
	var want []reconciler.Ref
	for _, u := range []string{"pusher", "forcer", "merger", "bypasser", "approver"} {
		want = append(want, reconciler.Ref{Kind: reconciler.RefUser, Name: u})
	}
	for _, team := range []string{"pushers", "forcers", "mergers", "bypassers", "approvers"} {
		want = append(want, TeamRef("acme", team))
	}
	got := RuleRefs("acme", &rule)
	if !sameRefs(got, want) {
		t.Errorf("RuleRefs = %v, want %v", got, want)
	}
	if team := TeamRef("acme", "pushers"); team.Kind != reconciler.RefTeam || team.Name != "acme/pushers" {
		t.Errorf("TeamRef = %v, want team acme/pushers", team)
	}
}

func sameRefs(a, b []reconciler.Ref) bool {
	key := func(r reconciler.Ref) string { return string(r.Kind) + " " + r.Name }
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i] = key(a[i])
	}
	for i := range b {
		kb[i] = key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}
