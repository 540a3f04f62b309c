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

// readyAtName marks l as Ready for its generation with the forge object it
// names, as a pass of a kind without ids that created it would leave it.
func readyAtName(name string) func(*forgev1.Label) {
	return func(l *forgev1.Label) {
		readyAt(0)(l)
		l.Status.ExternalName = name
	}
}

// TestPassNameKeyed covers the loop for a kind whose forge objects have a
// name and no id (Actions secrets, branch rules): the name is recorded in
// status.externalName and stands for the id in every decision.
func TestPassNameKeyed(t *testing.T) {
	cases := map[string]struct {
		reason string
		ext    *fakeExternal
		obj    *forgev1.Label
		want   passResult
	}{
		"Created": {
			reason: "A create records the name, and the Event names it.",
			ext:    &fakeExternal{created: Observation{Exists: true, Name: "TOKEN"}},
			obj:    label(),
			want: passResult{Ready: `True Created: created label "bug" (name "TOKEN")`, Name: "TOKEN", Finalizer: true,
				Marks:  []string{settledKey(markCreatePending)},
				Events: []string{`Normal Created created label "bug" (name "TOKEN")`}, Calls: []string{"Observe", "Create"}},
		},
		"Adopted once": {
			reason: "An existing object found by name is adopted, with one Event.",
			ext:    &fakeExternal{observe: Observation{Exists: true, Name: "TOKEN"}},
			obj:    label(),
			want: passResult{Ready: `True Adopted: adopted existing label "bug" (name "TOKEN")`, Name: "TOKEN", Finalizer: true,
				Events: []string{`Normal Adopted adopted existing label "bug" (name "TOKEN")`}, Calls: []string{"Observe"}},
		},
		"In sync": {
			reason: "A pass over a recorded name that finds it in sync is no adoption: no Event, no write.",
			ext:    &fakeExternal{observe: Observation{Exists: true, Name: "TOKEN"}},
			obj:    label(readyAtName("TOKEN")),
			want:   passResult{Ready: `True Created: created`, Name: "TOKEN", Finalizer: true, Calls: []string{"Observe"}},
		},
		"Drift corrected": {
			reason: "A difference on the recorded object is drift, corrected with its Event.",
			ext:    &fakeExternal{observe: Observation{Exists: true, Name: "TOKEN", Diff: []string{"value"}}},
			obj:    label(readyAtName("TOKEN")),
			want: passResult{Ready: `True DriftCorrected: label "bug" had been changed on the forge; set value back to the spec`,
				Name: "TOKEN", Finalizer: true,
				Events: []string{`Normal DriftCorrected label "bug" had been changed on the forge; set value back to the spec`},
				Calls:  []string{"Observe", "Update TOKEN"}},
		},
		"Created again": {
			reason: "An object deleted by hand is created again, and the Event says it was missing.",
			ext:    &fakeExternal{created: Observation{Exists: true, Name: "TOKEN"}},
			obj:    label(readyAtName("TOKEN")),
			want: passResult{Ready: `True Created: label "bug" was missing on the forge; created it again (name "TOKEN")`,
				Name: "TOKEN", Finalizer: true, Marks: []string{settledKey(markCreatePending)},
				Events: []string{`Normal Created label "bug" was missing on the forge; created it again (name "TOKEN")`},
				Calls:  []string{"Observe", "Create"}},
		},
		"Deleted": {
			reason: "A resource holding a name deletes its object: the name is as good as an id.",
			ext:    &fakeExternal{observe: Observation{Exists: true, Name: "TOKEN"}},
			obj:    label(readyAtName("TOKEN"), deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true, Events: []string{`Normal Deleted deleted label "bug" on the forge`},
				Calls: []string{"Observe", "Delete TOKEN"}},
		},
		"Never held": {
			reason: "A resource that never recorded a name or id leaves the object alone on deletion.",
			ext:    &fakeExternal{observe: Observation{Exists: true, Name: "TOKEN"}},
			obj: label(func(l *forgev1.Label) { l.Finalizers = []string{forgev1.Finalizer} },
				deleting(forgev1.DeletionPolicyDelete)),
			want: passResult{Gone: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := runPass(t, tc.ext, tc.obj)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
