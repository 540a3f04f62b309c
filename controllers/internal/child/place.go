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

// Place is where an object lives: a repository or an organization.
type Place struct{ forge.Scope }

// PlaceOf is the repository owner/name when repo is set, else the
// organization org, else the zero Place (the instance).
func PlaceOf(repo *forgev1.RepositoryName, org *forgev1.OwnerName) Place {
	if repo != nil {
		owner, name, _ := strings.Cut(string(*repo), "/")
		return Place{forge.Scope{Owner: owner, Repo: name}}
	}
	if org != nil {
		return Place{forge.Scope{Owner: string(*org)}}
	}
	return Place{}
}

// Describe names the place in messages: "repository acme/web".
func (s Place) Describe() string {
	if s.Repo != "" {
		return "repository " + s.Owner + "/" + s.Repo
	}
	return "organization " + s.Owner
}

// Key is case-insensitive, as the forge's owner and repository names are.
func (s Place) Key() string {
	if s.Repo != "" {
		return "repo:" + strings.ToLower(s.Owner+"/"+s.Repo)
	}
	return "org:" + strings.ToLower(s.Owner)
}

// RepoRefs names the repository s is, for reconciler.RepoScoped; none for
// an organization.
func (s Place) RepoRefs() []string {
	if s.IsOrg() {
		return nil
	}
	return []string{s.Owner + "/" + s.Repo}
}

// BeforeWrite stops a write into an archived repository (an organization
// has none).
func (s Place) BeforeWrite(ctx context.Context, pass *reconciler.Pass) error {
	if s.IsOrg() || s.Owner == "" {
		return nil
	}
	return CheckNotArchived(ctx, pass.Forge, s.Owner, s.Repo)
}
