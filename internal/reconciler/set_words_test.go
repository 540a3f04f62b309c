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

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// readyWith marks l Ready at its generation with reason and message, as
// an earlier pass left it.
func readyWith(reason, message string) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		readyAt(0)(l)
		l.Status.Conditions[0].Reason, l.Status.Conditions[0].Message = reason, message
	}
}

// TestSetPassSaysWhatHappened covers the words of a set's pass: members
// newly governed are Applied, never DriftCorrected, which is kept (with
// forge_drift_corrections_total) for changes to members governed
// already; Ready begins with the compliance and says what the pass did.
func TestSetPassSaysWhatHappened(t *testing.T) {
	repos := func(r SetResult) SetResult {
		r.Noun, r.Nouns = "repository", "repositories"
		return r
	}
	const applied = "1 repository governed: 4 settings, 1 team access"
	cases := map[string]struct {
		reason string
		result SetResult
		obj    *forgev1.Label
		want   passResult
		drift  float64 // the drift corrections the pass counts
	}{
		"Applied": {
			reason: "A Ready set whose only writes are to a repository it newly covers reports it Applied, and counts no drift correction.",
			result: repos(SetResult{Members: 3, InSync: 3, Applied: applied}),
			obj:    label(readyAt(0)),
			want: passResult{Ready: "True Applied: 3 of 3 repositories in sync; " + applied, Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Applied " + applied}},
		},
		"DriftCorrectedAndApplied": {
			reason: "Drift corrected in a repository governed already is the main outcome; the repository newly governed is told too.",
			result: repos(SetResult{Members: 3, InSync: 3, Changes: "1 repository: updated 1 setting", Applied: applied}),
			obj:    label(readyAt(0)),
			want: passResult{Ready: "True DriftCorrected: 3 of 3 repositories in sync; 1 repository: updated 1 setting; " + applied,
				Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal DriftCorrected 1 repository: updated 1 setting", "Normal Applied " + applied}},
			drift: 1,
		},
		"SpecChangedAndApplied": {
			reason: "A spec change applied to repositories governed already is Updated, with no drift counted; a repository newly covered is Applied.",
			result: repos(SetResult{Members: 2, InSync: 2, Changes: "1 repository: updated 1 setting", Applied: applied}),
			obj:    label(),
			want: passResult{Ready: "True Updated: 2 of 2 repositories in sync; 1 repository: updated 1 setting; " + applied,
				Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Updated 1 repository: updated 1 setting", "Normal Applied " + applied}},
		},
		"AppliedAndFailing": {
			reason: "A pass that governed a new repository while another fails tells both; Ready names the failing one.",
			result: repos(SetResult{Members: 2, InSync: 1, Applied: applied, FailuresChanged: true,
				Failures: []MemberFailure{{Member: "acme/web", Reason: forgev1.ReasonRejected, Message: "refused", Stall: true}}}),
			obj: label(readyAt(0)),
			want: passResult{Ready: "False Rejected: 1 of 2 repositories in sync; 1 failing: acme/web (Rejected)", Stalled: true,
				Finalizer: true, Calls: []string{"Sync write=true"},
				Events: []string{"Normal Applied " + applied, "Warning Rejected 1 of 2 repositories in sync; 1 failing: acme/web: Rejected: refused"}},
		},
		"AtRestKeeps": {
			reason: "At rest a set keeps the reason and message of the pass that wrote while its compliance holds: no status write.",
			result: repos(SetResult{Members: 3, InSync: 3}),
			obj:    label(readyWith(forgev1.ReasonApplied, "3 of 3 repositories in sync; "+applied)),
			want:   passResult{Ready: "True Applied: 3 of 3 repositories in sync; " + applied, Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"AtRestComplianceMoved": {
			reason: "At rest with another compliance (a repository released) the reason stays and the message says the compliance now.",
			result: repos(SetResult{Members: 2, InSync: 2}),
			obj:    label(readyWith(forgev1.ReasonApplied, "3 of 3 repositories in sync; "+applied)),
			want:   passResult{Ready: "True Applied: 2 of 2 repositories in sync", Finalizer: true, Calls: []string{"Sync write=true"}},
		},
		"Yielded": {
			reason: "Repositories governed in part by other resources are said after the compliance.",
			result: repos(SetResult{Members: 3, InSync: 2, Yielded: 1}),
			obj:    label(),
			want: passResult{Ready: "True Synced: 2 of 3 repositories in sync; 1 governed in part by other resources holding what the set would set there (status.yielded)",
				Finalizer: true, Calls: []string{"Sync write=true"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ext := &fakeSetExternal{result: tc.result}
			before := testutil.ToFloat64(driftCorrections.WithLabelValues("Label"))
			got, _ := runKindPass(t, fakeSet{ext: ext}, func() []string { return ext.calls }, tc.obj)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
			if d := testutil.ToFloat64(driftCorrections.WithLabelValues("Label")) - before; d != tc.drift {
				t.Errorf("%s: drift corrections counted %v, want %v", tc.reason, d, tc.drift)
			}
		})
	}
}

// TestSetMessages covers the Ready message and Warning of a set with
// failing members: counts, the noun's number, at most three members named
// with their reason and then how many more.
func TestSetMessages(t *testing.T) {
	fail := func(member, reason string) MemberFailure {
		return MemberFailure{Member: member, Reason: reason, Message: "why " + member}
	}
	cases := []struct {
		res            SetResult
		ready, warning string
	}{
		{res: SetResult{Members: 25, InSync: 24, Failures: []MemberFailure{fail("acme/web", forgev1.ReasonRejected)}},
			ready:   "24 of 25 repositories in sync; 1 failing: acme/web (Rejected)",
			warning: "24 of 25 repositories in sync; 1 failing: acme/web: Rejected: why acme/web"},
		{res: SetResult{Members: 1, Failures: []MemberFailure{fail("acme/web", "")}},
			ready:   "0 of 1 repository in sync; 1 failing: acme/web (Progressing)",
			warning: "0 of 1 repository in sync; 1 failing: acme/web: Progressing: why acme/web"},
		{res: SetResult{Members: 3, InSync: 0, Failures: []MemberFailure{fail("a/1", "Conflict"), fail("a/2", "Rejected"), fail("a/3", "ForgeError")}},
			ready:   "0 of 3 repositories in sync; 3 failing: a/1 (Conflict), a/2 (Rejected), a/3 (ForgeError)",
			warning: "0 of 3 repositories in sync; 3 failing: a/1: Conflict: why a/1; a/2: Rejected: why a/2; a/3: ForgeError: why a/3"},
		{res: SetResult{Members: 10, InSync: 5, Failures: []MemberFailure{fail("a/1", "Conflict"), fail("a/2", "Rejected"),
			fail("a/3", "ForgeError"), fail("a/4", "Conflict"), fail("a/5", "Conflict")}},
			ready:   "5 of 10 repositories in sync; 5 failing: a/1 (Conflict), a/2 (Rejected), a/3 (ForgeError) and 2 more",
			warning: "5 of 10 repositories in sync; 5 failing: a/1: Conflict: why a/1; a/2: Rejected: why a/2; a/3: ForgeError: why a/3; and 2 more"},
		{res: SetResult{Members: 4, InSync: 2, Yielded: 1, Failures: []MemberFailure{fail("a/1", "Conflict")}},
			ready:   "2 of 4 repositories in sync; 1 governed in part by other resources holding what the set would set there (status.yielded); 1 failing: a/1 (Conflict)",
			warning: "2 of 4 repositories in sync; 1 governed in part by other resources holding what the set would set there (status.yielded); 1 failing: a/1: Conflict: why a/1"},
		{res: SetResult{Members: 2, InSync: 1, Noun: "organization", Nouns: "organizations", Failures: []MemberFailure{fail("beta", "Conflict")}},
			ready:   "1 of 2 organizations in sync; 1 failing: beta (Conflict)",
			warning: "1 of 2 organizations in sync; 1 failing: beta: Conflict: why beta"},
	}
	for _, c := range cases {
		if c.res.Noun == "" {
			c.res.Noun, c.res.Nouns = "repository", "repositories"
		}
		if got := c.res.failing(); got != c.ready {
			t.Errorf("Ready message:\n got %q\nwant %q", got, c.ready)
		}
		if got := c.res.failingInDetail(); got != c.warning {
			t.Errorf("Warning:\n got %q\nwant %q", got, c.warning)
		}
	}
	if got, want := (SetResult{Members: 25, InSync: 25, Noun: "repository", Nouns: "repositories"}).compliance(), "25 of 25 repositories in sync"; got != want {
		t.Errorf("compliance: got %q, want %q", got, want)
	}
}
