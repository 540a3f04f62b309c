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
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// repositoryExport writes a Repository per repository, archived ones too,
// holding every setting the forge reports (so that applying it writes
// nothing), its topics and its direct collaborators with the permission
// the forge reports for each (the effective one: a collaborator who also
// gets more through a team is written with the higher permission; adjust
// it before applying). Never init: the repository exists.
var repositoryExport = export.ForRepository(exportRepository)

// repositoryReader is what the repository export reads.
type repositoryReader interface {
	ListCollaborators(ctx context.Context, owner, repo string) ([]forge.User, error)
	GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error)
}

func exportRepository(ctx context.Context, b *export.Builder, src repositoryReader, owner string, r forge.Repository) error {
	users, err := src.ListCollaborators(ctx, owner, r.Name)
	if err != nil {
		return fmt.Errorf("list the collaborators of %s/%s: %w", owner, r.Name, err)
	}
	collaborators := []forgev1.Collaborator{}
	for _, u := range users {
		p, err := src.GetCollaboratorPermission(ctx, owner, r.Name, u.Login)
		if err != nil {
			return fmt.Errorf("read the permission of %s in %s/%s: %w", u.Login, owner, r.Name, err)
		}
		if p == "owner" {
			p = "admin"
		}
		if p != "read" && p != "write" && p != "admin" {
			continue // none: a collaborator without access adds nothing
		}
		collaborators = append(collaborators, forgev1.Collaborator{User: forgev1.OwnerName(u.Login), Permission: p})
	}
	slices.SortFunc(collaborators, func(x, y forgev1.Collaborator) int { return strings.Compare(string(x.User), string(y.User)) })
	topics := []forgev1.Topic{}
	for _, t := range r.Topics {
		topics = append(topics, forgev1.Topic(t))
	}
	server := b.Server()
	b.Add(&forgev1.Repository{
		TypeMeta:   export.TypeMeta("Repository"),
		ObjectMeta: b.Meta("Repository", r.Name, r.ID),
		Spec: forgev1.RepositorySpec{
			ManagedSpec:                   b.Managed(),
			DeletionPolicy:                forgev1.RepositoryDeletionPolicy(forgev1.DeletionPolicyOrphan),
			Owner:                         forgev1.OwnerName(owner),
			Name:                          export.Ptr(forgev1.RepoName(r.Name)),
			Description:                   export.Ptr(r.Description),
			Website:                       export.Ptr(r.Website),
			Private:                       export.Ptr(r.Private),
			Template:                      export.Ptr(r.Template),
			Archived:                      export.Ptr(r.Archived),
			DefaultBranch:                 export.NonEmpty(r.DefaultBranch),
			HasIssues:                     export.Ptr(r.HasIssues),
			HasWiki:                       export.Ptr(r.HasWiki),
			HasPullRequests:               export.Ptr(r.HasPullRequests),
			HasProjects:                   export.Ptr(r.HasProjects),
			HasReleases:                   export.Ptr(r.HasReleases),
			HasPackages:                   export.Ptr(r.HasPackages),
			HasActions:                    export.Ptr(r.HasActions),
			HasCode:                       export.Since(server, "RepositorySpec", "hasCode", export.Ptr(r.HasCode)),
			AllowMergeCommits:             export.Ptr(r.AllowMergeCommits),
			AllowRebase:                   export.Ptr(r.AllowRebase),
			AllowRebaseExplicit:           export.Ptr(r.AllowRebaseExplicit),
			AllowSquashMerge:              export.Ptr(r.AllowSquashMerge),
			AllowFastForwardOnlyMerge:     export.Ptr(r.AllowFastForwardOnlyMerge),
			AllowManualMerge:              export.Ptr(r.AllowManualMerge),
			AutodetectManualMerge:         export.Ptr(r.AutodetectManualMerge),
			AllowRebaseUpdate:             export.Ptr(r.AllowRebaseUpdate),
			AllowMergeUpdate:              export.Since(server, "RepositorySpec", "allowMergeUpdate", export.Ptr(r.AllowMergeUpdate)),
			DefaultUpdateStyle:            export.Since(server, "RepositorySpec", "defaultUpdateStyle", export.NonEmpty(r.DefaultUpdateStyle)),
			DefaultMergeStyle:             export.NonEmpty(r.DefaultMergeStyle),
			DefaultDeleteBranchAfterMerge: export.Ptr(r.DefaultDeleteBranchAfterMerge),
			DefaultAllowMaintainerEdit:    export.Ptr(r.DefaultAllowMaintainerEdit),
			IgnoreWhitespaceConflicts:     export.Ptr(r.IgnoreWhitespaceConflicts),
			Topics:                        topics,
			Collaborators:                 collaborators,
		},
	})
	return nil
}
