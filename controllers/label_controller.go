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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the Label controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labels,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labels/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labels/finalizers,verbs=update

// labelKind manages issue labels of a repository or an organization,
// adopted by name. The forge allows several labels of one name: adoption
// then stalls with the ids, rather than guess.
func labelKind() child.Kind[*forgev1.Label] {
	return child.Kind[*forgev1.Label]{
		Noun:   "label",
		Name:   (*forgev1.Label).LabelName,
		KeyTag: "label",
		Where:  func(l *forgev1.Label) child.Place { return child.PlaceOf(l.Spec.Repository, l.Spec.Organization) },
		List:   &forgev1.LabelList{},
		// A repository's labels are written through its issue routes
		// (write:issue), an organization's through its own.
		WriteScopesOf: func(l *forgev1.Label) []string {
			if s := child.PlaceOf(l.Spec.Repository, l.Spec.Organization); !s.IsOrg() {
				return []string{forge.ScopeWriteIssue}
			}
			return []string{forge.ScopeWriteOrganization}
		},
		External: func(_ context.Context, l *forgev1.Label, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			return &label{obj: l, fc: pass.Forge, At: at}, nil
		},
	}
}

type label struct {
	obj *forgev1.Label
	fc  forge.LabelsClient
	child.At
	found *forge.Label
}

func (e *label) Observe(ctx context.Context) (reconciler.Observation, error) {
	name := e.obj.LabelName()
	l, err := child.Lookup[forge.Label]{
		Get: func(ctx context.Context, id int64) (*forge.Label, error) {
			return e.fc.GetLabel(ctx, e.Scope, id)
		},
		List:    func(ctx context.Context) ([]forge.Label, error) { return e.fc.ListLabels(ctx, e.Scope) },
		Named:   func(l forge.Label) bool { return l.Name == name },
		IDOf:    func(l forge.Label) int64 { return l.ID },
		Several: fmt.Sprintf("labels named %q", name),
		Advice:  "delete all but one on the forge so that one can be adopted",
	}.Find(ctx, e.At, e.obj.Status.ID)
	if err != nil || l == nil {
		return reconciler.Observation{}, err
	}
	return e.observed(l), nil
}

func (e *label) observed(l *forge.Label) reconciler.Observation {
	e.found = l
	c := e.changes(l)
	return reconciler.Observation{Exists: true, ID: l.ID, URL: l.URL, Diff: reconciler.Fields(c.changes), Changes: c.changes}
}

func (e *label) Create(ctx context.Context) (reconciler.Observation, error) {
	s := e.obj.Spec
	opt := forge.CreateLabelOption{Name: e.obj.LabelName(), Color: forge.NormalizeColor(s.Color)}
	compare.SetIf(&opt.Description, s.Description)
	compare.SetIf(&opt.Exclusive, s.Exclusive)
	compare.SetIf(&opt.IsArchived, s.Archived)
	l, err := e.fc.CreateLabel(ctx, e.Scope, opt)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	// Organization labels ignore is_archived on create: archive in a second
	// step (should that fail, the loop still records the label made).
	if c := e.changes(l); len(c.changes) > 0 {
		edited, err := e.fc.EditLabel(ctx, e.Scope, l.ID, c.opt)
		if err != nil {
			return reconciler.Observation{Exists: true, ID: l.ID, URL: l.URL}, err
		}
		l = edited
	}
	return reconciler.Observation{Exists: true, ID: l.ID, URL: l.URL}, nil
}

func (e *label) Update(ctx context.Context, obs reconciler.Observation) error {
	_, err := e.fc.EditLabel(ctx, e.Scope, obs.ID, e.changes(e.found).opt)
	return err
}

func (e *label) Delete(ctx context.Context, obs reconciler.Observation) error {
	return e.fc.DeleteLabel(ctx, e.Scope, obs.ID)
}

type labelChanges struct {
	opt     forge.EditLabelOption
	changes []reconciler.Change
}

// changes compares the managed fields. is_archived is always sent: the
// forge un-archives a label when a PATCH omits it.
func (e *label) changes(l *forge.Label) labelChanges {
	s := e.obj.Spec
	c := labelChanges{opt: forge.EditLabelOption{IsArchived: l.IsArchived}}
	add := func(field string, have, want any) { c.changes = append(c.changes, compare.Change(field, have, want)) }
	if name := e.obj.LabelName(); name != l.Name {
		c.opt.Name = &name
		add("name", l.Name, name)
	}
	if color := forge.NormalizeColor(s.Color); color != forge.NormalizeColor(l.Color) {
		c.opt.Color = &color
		add("color", forge.NormalizeColor(l.Color), color)
	}
	if s.Description != nil && *s.Description != l.Description {
		c.opt.Description = s.Description
		add("description", l.Description, *s.Description)
	}
	if s.Exclusive != nil && *s.Exclusive != l.Exclusive {
		c.opt.Exclusive = s.Exclusive
		add("exclusive", l.Exclusive, *s.Exclusive)
	}
	if s.Archived != nil && *s.Archived != l.IsArchived {
		c.opt.IsArchived = *s.Archived
		add("archived", l.IsArchived, *s.Archived)
	}
	slices.SortFunc(c.changes, compare.ByField)
	return c
}

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
	return export.CountBy(labels, func(l forge.Label) string { return l.Name })
}
