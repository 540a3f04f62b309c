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

package child

import (
	"context"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// OwnerReposClient lists an owner's repositories.
type OwnerReposClient interface {
	ListOrgRepos(ctx context.Context, org string) ([]forge.Repository, error)
	ListUserRepos(ctx context.Context, user string) ([]forge.Repository, error)
}

// OwnerRepos lists the repositories of owner, an organization or else a
// user (one listing each, kept per sync interval by the forge's
// Snapshots); an owner that is neither is a ParentNotFound wait.
func OwnerRepos(ctx context.Context, fc OwnerReposClient, owner string) ([]forge.Repository, error) {
	all, err := fc.ListOrgRepos(ctx, owner)
	if forge.IsNotFound(err) {
		all, err = fc.ListUserRepos(ctx, owner)
	}
	if err != nil {
		return nil, reconciler.ParentMissing(err, "organization or user "+owner)
	}
	return all, nil
}

// ArchivedAge is how many sync intervals old the listing CheckNotArchived
// reads may be: the three within which a drift check runs under load.
const ArchivedAge = 3

// FindRepo is the repository named name (any case) in all, or nil.
func FindRepo(all []forge.Repository, name string) *forge.Repository {
	for i := range all {
		if strings.EqualFold(all[i].Name, name) {
			return &all[i]
		}
	}
	return nil
}

// CheckNotArchived refuses a write to an object in repository owner/name
// when it is archived (read from the owner's listing): the forge would
// take most writes there, but an archived repository is read-only by
// intent, so the resource stalls until it is unarchived. A repository the
// listing lacks is left to the write to find. The listing may be as old
// as a drift check may be late (ArchivedAge intervals): the guard does not
// list the owner again for every write of a long first sync.
func CheckNotArchived(ctx context.Context, fc forge.Interface, owner, name string) error {
	all, err := OwnerRepos(ctx, forge.Lenient(fc, ArchivedAge), owner)
	if err != nil {
		return err
	}
	if r := FindRepo(all, name); r != nil && r.Archived {
		return reconciler.Stall(forgev1.ReasonRepositoryArchived,
			"repository %s/%s is archived: no write is attempted until it is unarchived", owner, name)
	}
	return nil
}
