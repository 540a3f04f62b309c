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
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// ownerReposClient lists an owner's repositories.
type ownerReposClient interface {
	ListOrgRepos(ctx context.Context, org string) ([]forge.Repository, error)
	ListUserRepos(ctx context.Context, user string) ([]forge.Repository, error)
}

// ownerRepos lists the repositories of owner, an organization or else a
// user (one listing each, kept per sync interval by the forge's
// Snapshots); an owner that is neither is a ParentNotFound wait.
func ownerRepos(ctx context.Context, fc ownerReposClient, owner string) ([]forge.Repository, error) {
	all, err := fc.ListOrgRepos(ctx, owner)
	if forge.IsNotFound(err) {
		all, err = fc.ListUserRepos(ctx, owner)
	}
	if err != nil {
		return nil, reconciler.ParentMissing(err, "organization or user "+owner)
	}
	return all, nil
}

// archivedAge is how many sync intervals old the listing checkNotArchived
// reads may be: the three within which a drift check runs under load.
const archivedAge = 3

// findRepo is the repository named name (any case) in all, or nil.
func findRepo(all []forge.Repository, name string) *forge.Repository {
	for i := range all {
		if strings.EqualFold(all[i].Name, name) {
			return &all[i]
		}
	}
	return nil
}

// checkNotArchived refuses a write to an object in repository owner/name
// when it is archived (read from the owner's listing): the forge would
// take most writes there, but an archived repository is read-only by
// intent, so the resource stalls until it is unarchived. A repository the
// listing lacks is left to the write to find. The listing may be as old
// as a drift check may be late (archivedAge intervals): the guard does not
// list the owner again for every write of a long first sync.
func checkNotArchived(ctx context.Context, fc forge.Interface, owner, name string) error {
	all, err := ownerRepos(ctx, forge.Lenient(fc, archivedAge), owner)
	if err != nil {
		return err
	}
	if r := findRepo(all, name); r != nil && r.Archived {
		return reconciler.Stall(forgev1.ReasonRepositoryArchived,
			"repository %s/%s is archived: no write is attempted until it is unarchived", owner, name)
	}
	return nil
}

// repoRefs names the repository s is, for reconciler.RepoScoped; none for
// an organization.
func (s scope) repoRefs() []string {
	if s.IsOrg() {
		return nil
	}
	return []string{s.Owner + "/" + s.Repo}
}

// beforeWrite stops a write into an archived repository (an organization
// has none).
func (s scope) beforeWrite(ctx context.Context, pass *reconciler.Pass) error {
	if s.IsOrg() || s.Owner == "" {
		return nil
	}
	return checkNotArchived(ctx, pass.Forge, s.Owner, s.Repo)
}

// Kinds that live in repositories wait for them and stall on archived ones.

func (k hookKind[T]) RepoRefs(obj T) []string {
	_, _, sc := k.parts(obj)
	return sc.repoRefs()
}
func (k hookKind[T]) BeforeWrite(ctx context.Context, obj T, pass *reconciler.Pass) error {
	_, _, sc := k.parts(obj)
	return sc.beforeWrite(ctx, pass)
}

// selectedRepos is the RepoRefs of a set (LabelSet, BranchProtectionSet):
// the repositories it names, or every repository of the organization it
// selects from. (Archived members are skipped by the set itself.)
func selectedRepos(sel forgev1.RepositorySelector) []string {
	if sel.Organization != nil {
		return []string{string(*sel.Organization) + "/*"}
	}
	out := make([]string, 0, len(sel.Names))
	for _, n := range sel.Names {
		out = append(out, string(n))
	}
	return out
}

func (labelSetKind) RepoRefs(s *forgev1.LabelSet) []string { return selectedRepos(s.Spec.Repositories) }

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it, by organization and globs or by name.
func (labelSetKind) SelectsRepository(s *forgev1.LabelSet, owner, name string) bool {
	return setMatches(s.Spec.Repositories)(repo{owner: owner, name: name})
}

func (branchProtectionSetKind) SelectsRepository(s *forgev1.BranchProtectionSet, owner, name string) bool {
	return setMatches(s.Spec.Repositories)(repo{owner: owner, name: name})
}

func (branchProtectionSetKind) RepoRefs(s *forgev1.BranchProtectionSet) []string {
	return selectedRepos(s.Spec.Repositories)
}

// RepoRefs of a Team: the repositories it lists, so that one added before
// its Repository exists is retried when that Repository becomes Ready.
func (teamKind) RepoRefs(t *forgev1.Team) []string {
	out := make([]string, 0, len(t.Spec.Repositories))
	for _, r := range t.Spec.Repositories {
		out = append(out, string(t.Spec.Organization)+"/"+string(r))
	}
	return out
}

// scope is where an object lives: a repository or an organization.
type scope struct{ forge.Scope }

func scopeOf(repo *forgev1.RepositoryName, org *forgev1.OwnerName) scope {
	if repo != nil {
		owner, name, _ := strings.Cut(string(*repo), "/")
		return scope{forge.Scope{Owner: owner, Repo: name}}
	}
	if org != nil {
		return scope{forge.Scope{Owner: string(*org)}}
	}
	return scope{}
}

func (s scope) describe() string {
	if s.Repo != "" {
		return "repository " + s.Owner + "/" + s.Repo
	}
	return "organization " + s.Owner
}

// key is case-insensitive, as the forge's owner and repository names are.
func (s scope) key() string {
	if s.Repo != "" {
		return "repo:" + strings.ToLower(s.Owner+"/"+s.Repo)
	}
	return "org:" + strings.ToLower(s.Owner)
}
