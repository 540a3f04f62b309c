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
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// The token scopes each kind's writes need (reconciler.Scoped), as
// Gitea's routes ask them (internal/forge/tokenscopes.go has the table):
// an organization's objects need write:organization, a repository's
// write:repository, but a repository's labels write:issue (the issue
// routes' scope), and the instance's (User, an instance's runners)
// write:admin. TestEveryKindDeclaresItsScopes fails for a kind without.

func (organizationKind) WriteScopes(*forgev1.Organization, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteOrganization}
}

// WriteScopes of a Repository: write:repository; its plain create goes
// to POST /orgs/{owner}/repos first (the organization routes: also
// write:organization, asked before the forge looks the owner up), then,
// for the token's own user, to POST /user/repos (also write:user).
func (repositoryKind) WriteScopes(r *forgev1.Repository, pass *reconciler.Pass, create bool) []string {
	out := []string{forge.ScopeWriteRepository}
	if !create || (r.Spec.Init != nil && r.Spec.Init.Template != nil) {
		return out
	}
	out = append(out, forge.ScopeWriteOrganization)
	if strings.EqualFold(string(r.Spec.Owner), pass.Login) {
		out = append(out, forge.ScopeWriteUser)
	}
	return out
}

// WriteScopes of a Team: its create, edit, members and repositories are
// all organization routes (/orgs/{org}/teams, /teams/{id}/...).
func (teamKind) WriteScopes(*forgev1.Team, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteOrganization}
}

// WriteScopes of a User: the /admin/users routes.
func (userKind) WriteScopes(*forgev1.User, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteAdmin}
}

// WriteScopes of a RunnerRegistrationToken: asking for the token is a
// POST in its scope (an instance's under /admin).
func (runnerTokenKind) WriteScopes(t *forgev1.RunnerRegistrationToken, _ *reconciler.Pass, _ bool) []string {
	return []string{forge.WriteScopeOf(runnerTokenScope(t).Scope)}
}

// WriteScopes of a LabelSet: repositories' labels, the issue routes.
func (labelSetKind) WriteScopes(*forgev1.LabelSet, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteIssue}
}

func (branchProtectionSetKind) WriteScopes(*forgev1.BranchProtectionSet, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteRepository}
}
