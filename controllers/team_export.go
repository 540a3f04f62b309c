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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// teamExport writes every team of the organization with its access,
// members and repositories (none listed for a team with every
// repository). The Owners team gets its members only: the rest is the
// forge's.
var teamExport = export.ForOrganization(exportTeams)

// teamReader is what the team export reads.
type teamReader interface {
	ListTeams(ctx context.Context, org string) ([]forge.Team, error)
	ListTeamMembers(ctx context.Context, id int64) ([]forge.User, error)
	ListTeamRepos(ctx context.Context, id int64) ([]forge.Repository, error)
}

func exportTeams(ctx context.Context, b *export.Builder, src teamReader, o *forge.Organization) error {
	org := o.Name
	teams, err := src.ListTeams(ctx, org)
	if err != nil {
		return fmt.Errorf("list the teams of organization %q: %w", org, err)
	}
	for _, t := range teams {
		users, err := src.ListTeamMembers(ctx, t.ID)
		if err != nil {
			return fmt.Errorf("list the members of team %q: %w", t.Name, err)
		}
		members := []forgev1.OwnerName{}
		for _, u := range users {
			members = append(members, forgev1.OwnerName(u.Login))
		}
		slices.Sort(members)
		obj := &forgev1.Team{
			TypeMeta:   export.TypeMeta("Team"),
			ObjectMeta: b.Meta("Team", t.Name, t.ID),
			Spec: forgev1.TeamSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Organization:   forgev1.OwnerName(org),
				Name:           export.Ptr(forgev1.TeamName(t.Name)),
				Description:    export.Ptr(t.Description),
				Members:        members,
			},
		}
		// The forge's Owners team is the one with permission owner, also
		// when renamed: its access is the forge's, never exported.
		if t.Permission == "owner" {
			var note []string
			if !strings.EqualFold(t.Name, "owners") {
				note = append(note, fmt.Sprintf("Team %q is the organization's Owners team, renamed on the forge: the operator", t.Name),
					"manages the Owners team only under the name Owners (this resource stalls with Conflict);",
					"rename it back to Owners on the forge, or leave this resource out.")
			}
			b.Add(obj, note...)
			continue
		}
		obj.Spec.CanCreateOrgRepo = export.Ptr(t.CanCreateOrgRepo)
		obj.Spec.Visibility = export.Since(b.Server(), "TeamSpec", "visibility", export.NonEmpty(t.Visibility))
		obj.Spec.IncludesAllRepositories = export.Ptr(t.IncludesAllRepositories)
		if t.Permission == "admin" {
			obj.Spec.Permission = export.Ptr("admin")
		} else {
			obj.Spec.Units = teamUnits(t.UnitsMap)
		}
		if !t.IncludesAllRepositories {
			repos, err := src.ListTeamRepos(ctx, t.ID)
			if err != nil {
				return fmt.Errorf("list the repositories of team %q: %w", t.Name, err)
			}
			obj.Spec.Repositories = []forgev1.RepoName{}
			for _, r := range repos {
				obj.Spec.Repositories = append(obj.Spec.Repositories, forgev1.RepoName(r.Name))
			}
			slices.Sort(obj.Spec.Repositories)
		}
		b.Add(obj)
	}
	return nil
}

// teamUnits turns the forge's units map into spec.units (none left out).
func teamUnits(m map[string]string) *forgev1.TeamUnits {
	u := &forgev1.TeamUnits{}
	for key, dst := range map[string]*forgev1.UnitAccess{
		"repo.code": &u.Code, "repo.issues": &u.Issues, "repo.pulls": &u.Pulls, "repo.releases": &u.Releases,
		"repo.wiki": &u.Wiki, "repo.ext_issues": &u.ExtIssues, "repo.ext_wiki": &u.ExtWiki,
		"repo.projects": &u.Projects, "repo.packages": &u.Packages, "repo.actions": &u.Actions,
	} {
		if v := m[key]; v == "read" || v == "write" {
			*dst = forgev1.UnitAccess(v)
		}
	}
	return u
}
