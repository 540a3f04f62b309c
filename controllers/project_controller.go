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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the Project controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=projects,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=projects/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=projects/finalizers,verbs=update

// projectKind manages repository projects, adopted by title. No released
// Gitea has the projects API yet: such a server answers its routes with a
// plain-text 404 and the resource stalls as Unsupported (the loop checks
// again when the Forge, and so its version, changes).
func projectKind() child.Kind[*forgev1.Project] {
	return child.Kind[*forgev1.Project]{
		Noun:   "project",
		Name:   func(p *forgev1.Project) string { return p.Spec.Title },
		KeyTag: "project",
		Where:  func(p *forgev1.Project) child.Place { return child.PlaceOf(&p.Spec.Repository, nil) },
		List:   &forgev1.ProjectList{},
		External: func(_ context.Context, p *forgev1.Project, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			return &project{obj: p, fc: pass.Forge, At: at}, nil
		},
	}
}

type project struct {
	obj *forgev1.Project
	fc  interface {
		forge.ProjectsClient
		forge.ReposClient
	}
	child.At
	found *forge.Project
}

func (e *project) spec() forgev1.ProjectSpec { return e.obj.Spec }
func (e *project) id() int64                 { return e.obj.Status.ID }

func (e *project) Observe(ctx context.Context) (reconciler.Observation, error) {
	title := e.spec().Title
	p, err := child.Lookup[forge.Project]{
		Get: func(ctx context.Context, id int64) (*forge.Project, error) {
			return e.fc.GetProject(ctx, e.Scope, id)
		},
		List: func(ctx context.Context) ([]forge.Project, error) {
			return e.fc.ListProjects(ctx, e.Scope, "all")
		},
		Named:    func(p forge.Project) bool { return p.Title == title },
		IDOf:     func(p forge.Project) int64 { return p.ID },
		Several:  fmt.Sprintf("projects titled %q", title),
		Advice:   "delete or rename all but one on the forge so that one can be adopted",
		Classify: func(err error) error { return e.classify(ctx, err) },
	}.Find(ctx, e.At, e.id())
	if err != nil || p == nil {
		return reconciler.Observation{}, err
	}
	return e.observed(p), nil
}

// classify tells a server without the projects API (its routes answer a
// plain-text 404 while the repository exists) from a missing repository.
func (e *project) classify(ctx context.Context, err error) error {
	switch {
	case forge.IsNotFound(err):
		return reconciler.ParentMissing(err, e.Describe())
	case !forge.IsRouteNotFound(err):
		return err
	}
	if _, rerr := e.fc.GetRepo(ctx, e.Owner, e.Repo); rerr != nil {
		return reconciler.ParentMissing(rerr, e.Describe())
	}
	return reconciler.Stall(forgev1.ReasonUnsupported,
		"the forge (version %s) has no projects API: %s exists but the projects routes are not found; "+
			"projects need a server with the repository projects API", e.Server.ReportedVersion(), e.Describe())
}

func (e *project) observed(p *forge.Project) reconciler.Observation {
	e.found = p
	c := e.changes(p)
	return reconciler.Observation{Exists: true, ID: p.ID, URL: p.HTMLURL, Diff: reconciler.Fields(c.changes), Changes: c.changes}
}

func (e *project) Create(ctx context.Context) (reconciler.Observation, error) {
	s := e.spec()
	opt := forge.CreateProjectOption{Title: s.Title, CardType: projectCardType(s), TemplateType: s.TemplateType}
	compare.SetIf(&opt.Description, s.Description)
	p, err := e.fc.CreateProject(ctx, e.Scope, opt)
	if err != nil {
		return reconciler.Observation{}, e.classify(ctx, err)
	}
	// A project is created open: close it in a second step (should that
	// fail, the loop still records the project made).
	if c := e.changes(p); len(c.changes) > 0 {
		edited, err := e.fc.EditProject(ctx, e.Scope, p.ID, c.opt)
		if err != nil {
			return reconciler.Observation{Exists: true, ID: p.ID, URL: p.HTMLURL}, err
		}
		p = edited
	}
	return reconciler.Observation{Exists: true, ID: p.ID, URL: p.HTMLURL}, nil
}

func (e *project) Update(ctx context.Context, obs reconciler.Observation) error {
	_, err := e.fc.EditProject(ctx, e.Scope, obs.ID, e.changes(e.found).opt)
	return err
}

func (e *project) Delete(ctx context.Context, obs reconciler.Observation) error {
	return e.fc.DeleteProject(ctx, e.Scope, obs.ID)
}

type projectChanges struct {
	opt     forge.EditProjectOption
	changes []reconciler.Change
}

// changes compares the managed fields; only those that differ are sent.
func (e *project) changes(p *forge.Project) projectChanges {
	s := e.spec()
	var c projectChanges
	compare.String(&c.changes, "title", s.Title, p.Title, &c.opt.Title)
	if s.Description != nil {
		compare.String(&c.changes, "description", *s.Description, p.Description, &c.opt.Description)
	}
	compare.String(&c.changes, "cardType", projectCardType(s), p.CardType, &c.opt.CardType)
	compare.String(&c.changes, "state", projectState(s), p.State, &c.opt.State)
	slices.SortFunc(c.changes, compare.ByField)
	return c
}

func projectCardType(s forgev1.ProjectSpec) string {
	if s.CardType == "" {
		return "text_only"
	}
	return s.CardType
}

func projectState(s forgev1.ProjectSpec) string {
	if s.State == "" {
		return "open"
	}
	return s.State
}

// projectExport writes each live repository's projects, open and closed.
// A server without the projects API (every released Gitea) has none to
// write.
var projectExport = export.ForLiveRepository(exportProjects)

// projectReader is what the project export reads.
type projectReader interface {
	ListProjects(ctx context.Context, scope forge.Scope, state string) ([]forge.Project, error)
}

func exportProjects(ctx context.Context, b *export.Builder, src projectReader, owner, repo string) error {
	projects, err := src.ListProjects(ctx, forge.RepoScope(owner, repo), "all")
	if forge.IsRouteNotFound(err) {
		return nil
	}
	return export.EachByID(projects, err, "projects of "+owner+"/"+repo, func(p forge.Project) int64 { return p.ID }, func(p forge.Project) {
		b.Add(&forgev1.Project{
			TypeMeta:   export.TypeMeta("Project"),
			ObjectMeta: b.Meta("Project", fmt.Sprintf("%s-%s-project-%d", owner, repo, p.ID), p.ID),
			Spec: forgev1.ProjectSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				Title:          p.Title,
				Description:    export.NonEmpty(p.Description),
				CardType:       p.CardType,
				TemplateType:   p.TemplateType,
				State:          p.State,
			},
		})
	})
}
