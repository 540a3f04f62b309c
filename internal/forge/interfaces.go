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
	_ FixturesClient = (*Client)(nil)
)
