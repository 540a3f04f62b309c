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
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the Milestone controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=milestones,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=milestones/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=milestones/finalizers,verbs=update

// milestoneKind manages a repository's milestones, adopted by title. The
// forge keeps titles unique nowhere: adoption stalls with the ids when it
// finds several, rather than guess. Milestones are written through the
// repository's issue routes (write:issue).
func milestoneKind() child.Kind[*forgev1.Milestone] {
	return child.Kind[*forgev1.Milestone]{
		Noun:          "milestone",
		Name:          func(m *forgev1.Milestone) string { return m.Spec.Title },
		KeyTag:        "milestone",
		Where:         func(m *forgev1.Milestone) child.Place { return child.PlaceOf(&m.Spec.Repository, nil) },
		List:          &forgev1.MilestoneList{},
		WriteScopesOf: func(*forgev1.Milestone) []string { return []string{forge.ScopeWriteIssue} },
		External: func(_ context.Context, m *forgev1.Milestone, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			return &milestone{obj: m, fc: pass.Forge, At: at}, nil
		},
	}
}

type milestone struct {
	obj *forgev1.Milestone
	fc  forge.MilestonesClient
	child.At
	found *forge.Milestone
}

func (e *milestone) Observe(ctx context.Context) (reconciler.Observation, error) {
	title := e.obj.Spec.Title
	m, err := child.Lookup[forge.Milestone]{
		Get: func(ctx context.Context, id int64) (*forge.Milestone, error) {
			return e.fc.GetMilestone(ctx, e.Owner, e.Repo, id)
		},
		List: func(ctx context.Context) ([]forge.Milestone, error) {
			return e.fc.ListMilestones(ctx, e.Owner, e.Repo)
		},
		Named:   func(m forge.Milestone) bool { return m.Title == title },
		IDOf:    func(m forge.Milestone) int64 { return m.ID },
		Several: fmt.Sprintf("milestones titled %q", title),
		Advice:  "delete or rename all but one on the forge so that one can be adopted",
	}.Find(ctx, e.At, e.obj.Status.ID)
	if err != nil || m == nil {
		return reconciler.Observation{}, err
	}
	e.found = m
	c := milestoneChanges(e.obj.Spec, m)
	return reconciler.Observation{Exists: true, ID: m.ID, Diff: reconciler.Fields(c.changes), Changes: c.changes}, nil
}

func (e *milestone) Create(ctx context.Context) (reconciler.Observation, error) {
	s := e.obj.Spec
	opt := forge.CreateMilestoneOption{Title: s.Title}
	compare.SetIf(&opt.Description, s.Description)
	compare.SetIf(&opt.State, s.State)
	if s.DueOn != nil {
		opt.DueOn = &s.DueOn.Time
	}
	m, err := e.fc.CreateMilestone(ctx, e.Owner, e.Repo, opt)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	return reconciler.Observation{Exists: true, ID: m.ID}, nil
}

// Update sends what differs, and the due date always: the forge clears the
// due date of an edit without one. The spec's date is sent, never the one
// read back, which the forge moved to the end of its day.
func (e *milestone) Update(ctx context.Context, obs reconciler.Observation) error {
	c := milestoneChanges(e.obj.Spec, e.found)
	if len(c.changes) == 0 {
		return nil
	}
	_, err := e.fc.EditMilestone(ctx, e.Owner, e.Repo, obs.ID, c.opt)
	return e.Classify(err)
}

func (e *milestone) Delete(ctx context.Context, obs reconciler.Observation) error {
	err := e.fc.DeleteMilestone(ctx, e.Owner, e.Repo, obs.ID)
	if forge.IsNotFound(err) {
		return nil
	}
	return err
}

type milestoneEdit struct {
	opt     forge.EditMilestoneOption
	changes []reconciler.Change
}

// milestoneChanges compares the title, and the description and state
// where the spec sets them; the due date always (unset: none), as the
// forge writes it with every edit.
func milestoneChanges(s forgev1.MilestoneSpec, m *forge.Milestone) milestoneEdit {
	var c milestoneEdit
	if s.DueOn != nil {
		c.opt.DueOn = &s.DueOn.Time
	}
	compare.String(&c.changes, "title", s.Title, m.Title, &c.opt.Title)
	if s.Description != nil {
		compare.String(&c.changes, "description", *s.Description, m.Description, &c.opt.Description)
	}
	if s.State != nil {
		compare.String(&c.changes, "state", *s.State, m.State, &c.opt.State)
	}
	if !sameDueDate(c.opt.DueOn, m.DueOn) {
		c.changes = append(c.changes, compare.Change("dueOn", formatDue(m.DueOn), formatDue(c.opt.DueOn)))
	}
	slices.SortFunc(c.changes, compare.ByField)
	return c
}

// sameDueDate says whether the forge's due date have is the spec's want.
// A milestone created with a date keeps it to the second; one edited keeps
// 23:59:59 of the date's day (in UTC, as the spec writes it) in the
// forge's time zone, UTC-12 to UTC+14: that too is the spec's date, or
// every pass would write it again.
func sameDueDate(want, have *time.Time) bool {
	if want == nil || have == nil {
		return want == have
	}
	if want.Equal(*have) {
		return true
	}
	y, mo, d := want.UTC().Date()
	endOfDay := time.Date(y, mo, d, 23, 59, 59, 0, time.UTC)
	offset := endOfDay.Sub(*have)
	return offset >= -12*time.Hour && offset <= 14*time.Hour && offset%(15*time.Minute) == 0
}

func formatDue(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}

// milestoneExport writes every milestone of a live repository (open and
// closed, with its due date and description), adopted as it is.
var milestoneExport = export.ForLiveRepository(func(ctx context.Context, b *export.Builder, src forge.MilestonesClient, owner, repo string) error {
	all, err := src.ListMilestones(ctx, owner, repo)
	return export.EachByID(all, err, "milestones of "+owner+"/"+repo, func(m forge.Milestone) int64 { return m.ID }, func(m forge.Milestone) {
		spec := forgev1.MilestoneSpec{ManagedSpec: b.Managed(), DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Repository: forgev1.RepositoryName(owner + "/" + repo), Title: m.Title,
			Description: export.Ptr(m.Description), State: export.Ptr(m.State)}
		if m.DueOn != nil {
			spec.DueOn = &metav1.Time{Time: *m.DueOn}
		}
		b.Add(&forgev1.Milestone{TypeMeta: export.TypeMeta("Milestone"),
			ObjectMeta: b.Meta("Milestone", owner+"-"+repo+"-"+m.Title, m.ID), Spec: spec})
	})
})
