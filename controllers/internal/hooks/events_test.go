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

package hooks

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

func TestExpandEvents(t *testing.T) {
	issues := []string{"issue_assign", "issue_comment", "issue_label", "issue_milestone", "issues"}
	pulls := []string{"pull_request", "pull_request_assign", "pull_request_comment", "pull_request_label",
		"pull_request_milestone", "pull_request_review", "pull_request_review_request", "pull_request_sync"}
	for _, tc := range []struct {
		name string
		in   []forgev1.HookEvent
		want []string
	}{
		{"none means push", nil, []string{"push"}},
		{"empty means push", []forgev1.HookEvent{}, []string{"push"}},
		{"plain events sorted", []forgev1.HookEvent{"release", "push", "create"}, []string{"create", "push", "release"}},
		{"issues group", []forgev1.HookEvent{"issues"}, issues},
		{"pull_request group", []forgev1.HookEvent{"pull_request"}, pulls},
		{"issues_only", []forgev1.HookEvent{"issues_only"}, []string{"issues"}},
		{"pull_request_only", []forgev1.HookEvent{"pull_request_only"}, []string{"pull_request"}},
		{"group and member overlap once", []forgev1.HookEvent{"issue_label", "issues", "issues_only"}, issues},
		{"single member", []forgev1.HookEvent{"issue_comment", "push"}, []string{"issue_comment", "push"}},
		{"both groups", []forgev1.HookEvent{"pull_request", "issues", "push"},
			append(append(append([]string{}, issues...), pulls...), "push")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ExpandEvents(tc.in)
			want := append([]string{}, tc.want...)
			slices.Sort(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("ExpandEvents(%v) (-want +got):\n%s", tc.in, d)
			}
		})
	}
}
