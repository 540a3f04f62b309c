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
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// labelExport writes a Label per label of the organization. A repository's
// labels go into LabelSets (labelSetExport).
var labelExport = export.ForOrganization(exportOrgLabels)

// labelReader is what the label exports read.
type labelReader interface {
	ListLabels(ctx context.Context, scope forge.Scope) ([]forge.Label, error)
}

func exportOrgLabels(ctx context.Context, b *export.Builder, src labelReader, o *forge.Organization) error {
	org := o.Name
	labels, err := src.ListLabels(ctx, forge.OrgScope(org))
	if err != nil {
		return fmt.Errorf("list the labels of %s: %w", org, err)
	}
	slices.SortFunc(labels, byNameThenID)
	count := nameCounts(labels)
	for _, l := range labels {
		var comment []string
		if count[l.Name] > 1 {
			// The operator adopts by name and stalls on duplicates: say so
			// here rather than write a resource that cannot become Ready.
			comment = []string{fmt.Sprintf("%d labels are named %q in organization %s: this one (id %d) conflicts until the duplicates are removed on the forge.", count[l.Name], l.Name, org, l.ID)}
		}
		b.Add(&forgev1.Label{
			TypeMeta:   export.TypeMeta("Label"),
			ObjectMeta: b.Meta("Label", org+"-label-"+l.Name, l.ID),
			Spec: forgev1.LabelSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Organization:   export.Ptr(forgev1.OwnerName(org)),
				Name:           l.Name,
				Color:          "#" + l.Color,
				Description:    export.NonEmpty(l.Description),
				Exclusive:      export.TrueOnly(l.Exclusive),
				Archived:       export.TrueOnly(l.IsArchived),
			},
		}, comment...)
	}
	return nil
}

func byNameThenID(x, y forge.Label) int {
	if c := strings.Compare(x.Name, y.Name); c != 0 {
		return c
	}
	return cmp.Compare(x.ID, y.ID)
}

// nameCounts counts the labels of each name: the forge allows several of one name.
func nameCounts(labels []forge.Label) map[string]int {
	n := map[string]int{}
	for _, l := range labels {
		n[l.Name]++
	}
	return n
}
