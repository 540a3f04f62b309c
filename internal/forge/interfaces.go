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

import "context"

// Interface is everything the operator asks of a forge.
type Interface interface {
	ServerClient
	OrgsClient
	HooksClient
	LabelsClient
	ProjectsClient
	RunnersClient
	ReposClient
	OrgReposClient
	IssuesClient
	TeamsClient
	ActionsClient
	BranchProtectionsClient
	TagProtectionsClient
	MilestonesClient
	UsersClient
	DeployKeysClient
	PushMirrorsClient
	FilesClient
}

// ServerClient reads who and what the server is.
type ServerClient interface {
	// Version returns the raw version string (see ParseVersion).
	Version(ctx context.Context) (string, error)
	// CurrentUser returns the authenticated account.
	CurrentUser(ctx context.Context) (*User, error)
	// CurrentToken describes the token the client authenticates with, its
	// scopes and its user (GET /token, Gitea 1.27 and later: earlier
	// releases and Forgejo answer KindRouteNotFound; basic auth, no token,
	// is KindNotFound).
	CurrentToken(ctx context.Context) (*Token, error)
}

// ReposClient manages repositories, their topics and direct collaborators.
type ReposClient interface {
	GetRepo(ctx context.Context, owner, repo string) (*Repository, error)
	// GetRepoByID reads a repository by id (GET /repositories/{id}),
	// wherever it lives now.
	GetRepoByID(ctx context.Context, id int64) (*Repository, error)
	// ListUserRepos lists the repositories user owns that the caller can
	// see (GET /users/{u}/repos), for an owner that is not an organization.
	ListUserRepos(ctx context.Context, user string) ([]Repository, error)
	// CreateOrgRepo answers a taken name (any case) with 409 (KindConflict).
	CreateOrgRepo(ctx context.Context, org string, opt CreateRepoOption) (*Repository, error)
	CreateUserRepo(ctx context.Context, opt CreateRepoOption) (*Repository, error)
	// GenerateRepo makes repository opt.Owner/opt.Name from the template
	// repository template ("owner/name"). The forge answers 404 for a
	// template it does not have (or the token cannot read) and for an
	// unknown opt.Owner, 422 for a repository not marked as a template and
	// for no part chosen, 409 for a taken name, 403 for an owner the token
	// may not create in. Its answer lists no topics, even copied ones:
	// read the repository again for them.
	GenerateRepo(ctx context.Context, template string, opt GenerateRepoOption) (*Repository, error)
	// EditRepo renames in place with opt.Name; a taken name is 422.
	EditRepo(ctx context.Context, owner, repo string, opt EditRepoOption) (*Repository, error)
	DeleteRepo(ctx context.Context, owner, repo string) error
	// SetRepoTopics replaces the topics (PUT .../topics); the forge lower-cases
	// them and refuses invalid ones or more than 25 with 422.
	SetRepoTopics(ctx context.Context, owner, repo string, topics []string) error
	// ListCollaborators lists the direct collaborators (users, without
	// their permission: the forge reports none in the list).
	ListCollaborators(ctx context.Context, owner, repo string) ([]User, error)
	// GetCollaboratorPermission is user's effective permission (none, read,
	// write, admin or owner): teams and organization ownership included,
	// so never a direct collaborator's drift; export writes it.
	GetCollaboratorPermission(ctx context.Context, owner, repo, user string) (string, error)
	// SetCollaborator adds user, or changes their permission in place
	// (PUT .../collaborators/{u}); an unknown user is 422.
	SetCollaborator(ctx context.Context, owner, repo, user, permission string) error
	RemoveCollaborator(ctx context.Context, owner, repo, user string) error
}

// FixturesClient sets a forge up for tests and the demo: repositories and
// runner registration. The operator never calls it, so Interface leaves it out.
type FixturesClient interface {
	// RegisterRunner registers a runner in the scope as act_runner does and
	// returns its id.
	RegisterRunner(ctx context.Context, scope Scope, name string, labels ...string) (int64, error)
	// RegisterRunnerWith registers a runner with token, as act_runner
	// given that token does, and returns its id.
	RegisterRunnerWith(ctx context.Context, token, name string, labels ...string) (int64, error)
}

var (
	_ ServerClient   = (*Client)(nil)
	_ ReposClient    = (*Client)(nil)
	_ FixturesClient = (*Client)(nil)
)
