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

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

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
	if err != nil {
		return fmt.Errorf("list the projects of %s/%s: %w", owner, repo, err)
	}
	slices.SortFunc(projects, func(x, y forge.Project) int { return cmp.Compare(x.ID, y.ID) })
	for _, p := range projects {
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
	}
	return nil
}
