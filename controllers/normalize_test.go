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
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// TestLabelChanges covers the label diff: which fields differ, and the PATCH
// that sets them, always carrying is_archived.
func TestLabelChanges(t *testing.T) {
	onForge := forge.Label{ID: 7, Name: "kind/bug", Color: "aabbcc", Description: "Broken", Exclusive: true, IsArchived: true}
	spec := func(mut func(*forgev1.LabelSpec)) *forgev1.Label {
		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Name: "kind-bug"},
			Spec:       forgev1.LabelSpec{Name: "kind/bug", Color: "#ABC", Repository: normPtr(forgev1.RepositoryName("acme/web"))},
		}
		mut(&l.Spec)
		return l
	}
	tests := []struct {
		name   string
		label  *forgev1.Label
		fields []string
		opt    forge.EditLabelOption
	}{
		{name: "unmanaged fields and a differently written colour are no change",
			label: spec(func(*forgev1.LabelSpec) {}),
			opt:   forge.EditLabelOption{IsArchived: true}},
		{name: "equal managed fields",
			label: spec(func(s *forgev1.LabelSpec) {
				s.Description, s.Exclusive, s.Archived = normPtr("Broken"), normPtr(true), normPtr(true)
			}),
			opt: forge.EditLabelOption{IsArchived: true}},
		{name: "colour",
			label:  spec(func(s *forgev1.LabelSpec) { s.Color = "FF0000" }),
			fields: []string{"color"},
			opt:    forge.EditLabelOption{Color: normPtr("ff0000"), IsArchived: true}},
		{name: "name falls back to metadata.name",
			label:  spec(func(s *forgev1.LabelSpec) { s.Name = "" }),
			fields: []string{"name"},
			opt:    forge.EditLabelOption{Name: normPtr("kind-bug"), IsArchived: true}},
		{name: "description may be cleared",
			label:  spec(func(s *forgev1.LabelSpec) { s.Description = normPtr("") }),
			fields: []string{"description"},
			opt:    forge.EditLabelOption{Description: normPtr(""), IsArchived: true}},
		{name: "un-archive and not exclusive, sorted",
			label:  spec(func(s *forgev1.LabelSpec) { s.Archived, s.Exclusive = normPtr(false), normPtr(false) }),
			fields: []string{"archived", "exclusive"},
			opt:    forge.EditLabelOption{Exclusive: normPtr(false), IsArchived: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&label{obj: tt.label}).changes(&onForge)
			if diff := cmp.Diff(tt.fields, reconciler.Fields(got.changes)); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.opt, got.opt); diff != "" {
				t.Errorf("PATCH body (-want +got):\n%s", diff)
			}
		})
	}
}

func normPtr[T any](v T) *T { return &v }
