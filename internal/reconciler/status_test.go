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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// TestStatusPatch covers what the status writer sends: only status, only
// what changed, nothing when nothing did, for any kind of the group.
func TestStatusPatch(t *testing.T) {
	cases := map[string]struct {
		reason    string
		orig, obj Object
		want      string
	}{
		"Unchanged": {
			reason: "A pass that changes nothing writes nothing.",
			orig:   label(readyAt(5)), obj: label(readyAt(5)),
		},
		"NewID": {
			reason: "A changed field is sent alone, under status.",
			orig:   label(readyAt(5)), obj: label(readyAt(6)),
			want: `{"status":{"id":6}}`,
		},
		"RemovedField": {
			reason: "A field that went is removed, not left behind.",
			orig:   label(readyAt(5), func(l *forgev1.Label) { l.Status.URL = "https://forge/acme" }), obj: label(readyAt(5)),
			want: `{"status":{"url":null}}`,
		},
		"Generation": {
			reason: "The generation the status describes is stamped.",
			orig:   label(readyAt(5)), obj: label(readyAt(5), func(l *forgev1.Label) { l.Generation = 2 }),
			want: `{"status":{"observedGeneration":2}}`,
		},
		"HandledRequest": {
			reason: "The reconcile request handled is echoed.",
			orig:   label(readyAt(5)), obj: label(readyAt(5), annotated(forgev1.ReconcileRequestedAtAnnotation, "now")),
			want: `{"status":{"lastHandledReconcileAt":"now"}}`,
		},
		"Forge": {
			reason: "A Forge, which is not a managed kind, is written the same way.",
			orig:   &forgev1.Forge{}, obj: &forgev1.Forge{Status: forgev1.ForgeStatus{Login: "admin"}},
			want: `{"status":{"login":"admin"}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			patch, err := statusPatch(tc.orig, tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(patch)); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
