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

package forge

import (
	"context"
	"errors"
	"fmt"
)

// ErrReadOnly is what every write through ReadOnly returns.
var ErrReadOnly = errors.New("refused: this client only reads (plan)")

// ReadOnly wraps fc so that reads pass through and every write fails with
// ErrReadOnly without a request: plan runs the kinds' own code through it
// and so can never change the forge. Each method is spelled out, not
// embedded, so that a method added to Interface does not compile until it
// is sorted into reads or writes.
func ReadOnly(fc Interface) Interface { return readOnly{fc} }

type readOnly struct{ r Interface }

var _ Interface = readOnly{}

func refuse(call string) error { return fmt.Errorf("%s: %w", call, ErrReadOnly) }

// Reads.

func (c readOnly) Version(ctx context.Context) (string, error)    { return c.r.Version(ctx) }
func (c readOnly) CurrentUser(ctx context.Context) (*User, error) { return c.r.CurrentUser(ctx) }
func (c readOnly) GetOrg(ctx context.Context, name string) (*Organization, error) {
	return c.r.GetOrg(ctx, name)
}
func (c readOnly) ListMyOrgs(ctx context.Context) ([]Organization, error) {
	return c.r.ListMyOrgs(ctx)
}
func (c readOnly) ListHooks(ctx context.Context, scope Scope) ([]Hook, error) {
	return c.r.ListHooks(ctx, scope)
}
func (c readOnly) GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error) {
	return c.r.GetHook(ctx, scope, id)
}
func (c readOnly) ListLabels(ctx context.Context, scope Scope) ([]Label, error) {
	return c.r.ListLabels(ctx, scope)
}
func (c readOnly) GetLabel(ctx context.Context, scope Scope, id int64) (*Label, error) {
	return c.r.GetLabel(ctx, scope, id)
}
func (c readOnly) ListProjects(ctx context.Context, scope Scope, state string) ([]Project, error) {
	return c.r.ListProjects(ctx, scope, state)
}
func (c readOnly) GetProject(ctx context.Context, scope Scope, id int64) (*Project, error) {
	return c.r.GetProject(ctx, scope, id)
}
func (c readOnly) ListRunners(ctx context.Context, scope Scope) ([]Runner, error) {
	return c.r.ListRunners(ctx, scope)
}
func (c readOnly) GetRunner(ctx context.Context, scope Scope, id int64) (*Runner, error) {
	return c.r.GetRunner(ctx, scope, id)
}
func (c readOnly) GetRepo(ctx context.Context, owner, repo string) (*Repository, error) {
	return c.r.GetRepo(ctx, owner, repo)
}
func (c readOnly) ListOrgRepos(ctx context.Context, org string) ([]Repository, error) {
	return c.r.ListOrgRepos(ctx, org)
}
func (c readOnly) GetRepoByID(ctx context.Context, id int64) (*Repository, error) {
	return c.r.GetRepoByID(ctx, id)
}
func (c readOnly) ListUserRepos(ctx context.Context, user string) ([]Repository, error) {
	return c.r.ListUserRepos(ctx, user)
}
func (c readOnly) ListCollaborators(ctx context.Context, owner, repo string) ([]User, error) {
	return c.r.ListCollaborators(ctx, owner, repo)
}
func (c readOnly) GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error) {
	return c.r.GetCollaboratorPermission(ctx, owner, repo, user)
}
func (c readOnly) ListTeams(ctx context.Context, org string) ([]Team, error) {
	return c.r.ListTeams(ctx, org)
}
func (c readOnly) GetTeam(ctx context.Context, org string, id int64) (*Team, error) {
	return c.r.GetTeam(ctx, org, id)
}
func (c readOnly) ListTeamMembers(ctx context.Context, id int64) ([]User, error) {
	return c.r.ListTeamMembers(ctx, id)
}
func (c readOnly) ListTeamRepos(ctx context.Context, id int64) ([]Repository, error) {
	return c.r.ListTeamRepos(ctx, id)
}
func (c readOnly) ListActionsSecrets(ctx context.Context, scope Scope) ([]ActionsSecret, error) {
	return c.r.ListActionsSecrets(ctx, scope)
}
func (c readOnly) ListActionsVariables(ctx context.Context, scope Scope) ([]ActionsVariable, error) {
	return c.r.ListActionsVariables(ctx, scope)
}
func (c readOnly) ListBranchProtections(ctx context.Context, owner, repo string) ([]BranchProtection, error) {
	return c.r.ListBranchProtections(ctx, owner, repo)
}
func (c readOnly) ListIssuesWithLabel(ctx context.Context, owner, repo, label string) ([]Issue, error) {
	return c.r.ListIssuesWithLabel(ctx, owner, repo, label)
}

// Writes.

func (readOnly) CreateOrg(context.Context, CreateOrgOption) (*Organization, error) {
	return nil, refuse("create organization")
}
func (readOnly) EditOrg(context.Context, string, EditOrgOption) (*Organization, error) {
	return nil, refuse("edit organization")
}
func (readOnly) DeleteOrg(context.Context, string) error { return refuse("delete organization") }
func (readOnly) CreateHook(context.Context, Scope, CreateHookOption) (*Hook, error) {
	return nil, refuse("create hook")
}
func (readOnly) EditHook(context.Context, Scope, int64, EditHookOption) (*Hook, error) {
	return nil, refuse("edit hook")
}
func (readOnly) DeleteHook(context.Context, Scope, int64) error { return refuse("delete hook") }
func (readOnly) CreateLabel(context.Context, Scope, CreateLabelOption) (*Label, error) {
	return nil, refuse("create label")
}
func (readOnly) EditLabel(context.Context, Scope, int64, EditLabelOption) (*Label, error) {
	return nil, refuse("edit label")
}
func (readOnly) DeleteLabel(context.Context, Scope, int64) error { return refuse("delete label") }
func (readOnly) CreateProject(context.Context, Scope, CreateProjectOption) (*Project, error) {
	return nil, refuse("create project")
}
func (readOnly) EditProject(context.Context, Scope, int64, EditProjectOption) (*Project, error) {
	return nil, refuse("edit project")
}
func (readOnly) DeleteProject(context.Context, Scope, int64) error {
	return refuse("delete project")
}
func (readOnly) CreateOrgRepo(context.Context, string, CreateRepoOption) (*Repository, error) {
	return nil, refuse("create repository")
}
func (readOnly) CreateUserRepo(context.Context, CreateRepoOption) (*Repository, error) {
	return nil, refuse("create repository")
}
func (readOnly) EditRepo(context.Context, string, string, EditRepoOption) (*Repository, error) {
	return nil, refuse("edit repository")
}
func (readOnly) DeleteRepo(context.Context, string, string) error { return refuse("delete repository") }
func (readOnly) SetRepoTopics(context.Context, string, string, []string) error {
	return refuse("set repository topics")
}
func (readOnly) SetCollaborator(context.Context, string, string, string, string) error {
	return refuse("set collaborator")
}
func (readOnly) RemoveCollaborator(context.Context, string, string, string) error {
	return refuse("remove collaborator")
}
func (readOnly) CreateTeam(context.Context, string, CreateTeamOption) (*Team, error) {
	return nil, refuse("create team")
}
func (readOnly) EditTeam(context.Context, string, int64, EditTeamOption) (*Team, error) {
	return nil, refuse("edit team")
}
func (readOnly) DeleteTeam(context.Context, string, int64) error { return refuse("delete team") }
func (readOnly) AddTeamMember(context.Context, int64, string) error {
	return refuse("add team member")
}
func (readOnly) RemoveTeamMember(context.Context, int64, string) error {
	return refuse("remove team member")
}
func (readOnly) AddTeamRepo(context.Context, int64, string, string) error {
	return refuse("add team repository")
}
func (readOnly) RemoveTeamRepo(context.Context, int64, string, string) error {
	return refuse("remove team repository")
}
func (readOnly) PutActionsSecret(context.Context, Scope, string, string, string) error {
	return refuse("set Actions secret")
}
func (readOnly) DeleteActionsSecret(context.Context, Scope, string) error {
	return refuse("delete Actions secret")
}
func (readOnly) CreateActionsVariable(context.Context, Scope, string, string, string) error {
	return refuse("create Actions variable")
}
func (readOnly) UpdateActionsVariable(context.Context, Scope, string, string, string) error {
	return refuse("update Actions variable")
}
func (readOnly) DeleteActionsVariable(context.Context, Scope, string) error {
	return refuse("delete Actions variable")
}
func (readOnly) CreateBranchProtection(context.Context, string, string, BranchProtection) (*BranchProtection, error) {
	return nil, refuse("create branch protection")
}
func (readOnly) EditBranchProtection(context.Context, string, string, string, EditBranchProtectionOption) (*BranchProtection, error) {
	return nil, refuse("edit branch protection")
}
func (readOnly) DeleteBranchProtection(context.Context, string, string, string) error {
	return refuse("delete branch protection")
}
func (readOnly) EditRunner(context.Context, Scope, int64, bool) (*Runner, error) {
	return nil, refuse("edit runner")
}
func (readOnly) AddIssueLabels(context.Context, string, string, int64, []int64) ([]Label, error) {
	return nil, refuse("add issue labels")
}
