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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

func TestPendingRemovals(t *testing.T) {
	label := func(repo, name string) forgev1.PendingRemoval {
		return forgev1.PendingRemoval{Repository: repo, Kind: "Label", Name: name}
	}
	var many []forgev1.PendingRemoval
	for i := 25; i > 0; i-- {
		many = append(many, label("acme/web", fmt.Sprintf("l%02d", i)))
	}
	for _, tc := range []struct {
		reason  string
		planned []forgev1.PendingRemoval
		want    *forgev1.PendingRemovals
	}{
		{reason: "none pending clears the field", want: nil},
		{reason: "sorted by repository, kind and name; repeats counted once",
			planned: []forgev1.PendingRemoval{label("acme/web", "b"), {Kind: "Member", Name: "bob"}, label("acme/api", "z"),
				{Repository: "acme/web", Kind: "Collaborator", Name: "x"}, label("acme/web", "a"), label("acme/web", "b")},
			want: &forgev1.PendingRemovals{Count: 5, Items: []forgev1.PendingRemoval{{Kind: "Member", Name: "bob"}, label("acme/api", "z"),
				{Repository: "acme/web", Kind: "Collaborator", Name: "x"}, label("acme/web", "a"), label("acme/web", "b")}}},
		{reason: "every one counted, the first 20 listed", planned: many,
			want: &forgev1.PendingRemovals{Count: 25, Items: func() []forgev1.PendingRemoval {
				var out []forgev1.PendingRemoval
				for i := 1; i <= 20; i++ {
					out = append(out, label("acme/web", fmt.Sprintf("l%02d", i)))
				}
				return out
			}()}},
	} {
		if d := cmp.Diff(tc.want, PendingRemovals(tc.planned)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, d)
		}
	}
}

// TestRemovalsEvent: a Warning RemovalsPending when a pass leaves other
// pending removals than status held, never for the same ones nor for none.
func TestRemovalsEvent(t *testing.T) {
	with := func(p *forgev1.PendingRemovals) *forgev1.LabelSet {
		s := &forgev1.LabelSet{}
		s.Name = "standard"
		s.Status.PendingRemovals = p
		return s
	}
	stale := &forgev1.PendingRemovals{Count: 1, Items: []forgev1.PendingRemoval{{Repository: "acme/web", Kind: "Label", Name: "stale"}}}
	more := PendingRemovals([]forgev1.PendingRemoval{{Repository: "acme/web", Kind: "Label", Name: "stale"},
		{Kind: "Member", Name: "bob"}, {Kind: "Member", Name: "carol"}, {Kind: "Member", Name: "dave"},
		{Kind: "Repository", Name: "api"}, {Kind: "Repository", Name: "docs"}, {Kind: "Repository", Name: "web"}})
	warn := func(note string) []Event {
		return []Event{{Type: corev1.EventTypeWarning, Reason: forgev1.ReasonRemovalsPending, Action: "Reconcile", Note: note, Always: true}}
	}
	for _, tc := range []struct {
		reason        string
		before, after *forgev1.PendingRemovals
		want          []Event
	}{
		{reason: "first found", after: stale,
			want: warn(`1 removal not made (removals Report; see status.pendingRemovals): acme/web Label "stale"`)},
		{reason: "the same again", before: stale, after: stale},
		{reason: "changed: the first five and how many more",
			before: stale, after: more,
			want: warn(`7 removals not made (removals Report; see status.pendingRemovals): Member "bob", Member "carol", Member "dave", Repository "api", Repository "docs", and 2 more`)},
		{reason: "gone", before: stale},
		{reason: "never any"},
	} {
		if d := cmp.Diff(tc.want, removalsEvent(with(tc.before), with(tc.after))); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, d)
		}
	}
}
