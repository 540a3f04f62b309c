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

package sets

import (
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

func TestSelected(t *testing.T) {
	globs := func(g ...string) []forgev1.RepositoryGlob {
		out := make([]forgev1.RepositoryGlob, len(g))
		for i, s := range g {
			out[i] = forgev1.RepositoryGlob(s)
		}
		return out
	}
	cases := []struct {
		name             string
		include, exclude []forgev1.RepositoryGlob
		want             bool
	}{
		{"web", nil, nil, true},
		{"web", globs("web-*"), nil, false},
		{"web-a", globs("web-*"), nil, true},
		{"sandbox-x", nil, globs("sandbox-*"), false},
		{"web-sandbox", nil, globs("sandbox-*"), true},
		{"web-b", globs("web-*", "api"), globs("web-[ab]"), false},
		{"api", globs("web-*", "api"), globs("web-[ab]"), true},
		{"a/b", globs("*"), nil, false}, // path.Match's * never crosses a slash; names have none
	}
	for _, c := range cases {
		if got := selected(c.name, c.include, c.exclude); got != c.want {
			t.Errorf("selected(%q, include %v, exclude %v) = %t, want %t", c.name, c.include, c.exclude, got, c.want)
		}
	}
}

func TestSummary(t *testing.T) {
	cases := []struct {
		repos int
		o     Outcome
		want  string
	}{
		{3, Outcome{Created: 12, Updated: 4, Renamed: 1, Deleted: 2}, "3 repositories: created 12, updated 4, renamed 1, deleted 2 labels"},
		{1, Outcome{Renamed: 1}, "1 repository: renamed 1 label"},
		{2, Outcome{Merged: 2}, "2 repositories: merged 2 labels"},
	}
	for _, c := range cases {
		if got := summaryOf(c.repos, c.o, "label", "labels"); got != c.want {
			t.Errorf("summary = %q, want %q", got, c.want)
		}
	}
}

func TestMemberFailure(t *testing.T) {
	// A repository with a conflict and a transient error is retried: the
	// transient reason leads, and it is not stalled.
	f := memberFailure("acme/web", []problem{
		{reason: forgev1.ReasonConflict, message: "label \"bug\" is managed by Label ns/bug", stall: true},
		{reason: forgev1.ReasonForgeError, message: "list issues: 502"},
	})
	if f.Reason != forgev1.ReasonForgeError || f.Stall {
		t.Errorf("got reason %s stall %t, want ForgeError, not stalled", f.Reason, f.Stall)
	}
	if want := "label \"bug\" is managed by Label ns/bug; list issues: 502"; f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	f = memberFailure("acme/web", []problem{
		{reason: forgev1.ReasonConflict, message: "a", stall: true},
		{reason: forgev1.ReasonTooManyDeletions, message: "b", stall: true},
	})
	if f.Reason != forgev1.ReasonConflict || !f.Stall {
		t.Errorf("got reason %s stall %t, want Conflict, stalled", f.Reason, f.Stall)
	}
}
