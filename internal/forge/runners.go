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
	"encoding/json"
	"net/http"
	"slices"
)

// Actions runners of an organization or a repository, GET
// {scope}/actions/runners and GET|PATCH .../actions/runners/{id}, and the
// registration token of a scope or of the instance; the contract suite
// (contract_runners_test.go, contract_runnertokens_test.go) holds their
// behaviour on the fake and the live releases.

// Runner mirrors the forge's Actions runner object.
type Runner struct {
	ID        int64         `json:"id"`
	Name      string        `json:"name"`
	Status    string        `json:"status"`
	Busy      bool          `json:"busy"`
	Disabled  bool          `json:"disabled"`
	Ephemeral bool          `json:"ephemeral"`
	Labels    []RunnerLabel `json:"labels"`
}

// RunnerLabel is one label a runner declared when registering.
type RunnerLabel struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// RunnersClient reads and toggles Actions runners of a repository or an
// organization. Runners are created by registering, never through this API.
type RunnersClient interface {
	ListRunners(ctx context.Context, scope Scope) ([]Runner, error)
	GetRunner(ctx context.Context, scope Scope, id int64) (*Runner, error)
	// EditRunner answers KindRouteNotFound on servers without the endpoint
	// (Gitea before 1.26, Forgejo).
	EditRunner(ctx context.Context, scope Scope, id int64, disabled bool) (*Runner, error)
	// RunnerRegistrationToken asks for the token a runner registers with in
	// the scope, or in the instance for InstanceScope (site admins only).
	// Gitea 1.24 to 1.27 answer the scope's current token, the same one on
	// every call, making one only when the scope has none: the API has no
	// reset (the web UI's "Reset registration token" makes a new one and
	// invalidates the old). A token stays valid after runners register with it.
	RunnerRegistrationToken(ctx context.Context, scope Scope) (string, error)
}

var _ RunnersClient = (*Client)(nil)

var runners = declare(&resource[Runner]{noun: "runner", plural: "runners", path: "/actions/runners", item: "/{id}",
	key: func(r Runner) int64 { return r.ID }, clone: cloneRunner, decode: decodeRunners})

func (o *Runner) forgeID() int64 { return o.ID }

func cloneRunner(r Runner) Runner {
	r.Labels = slices.Clone(r.Labels)
	return r
}

// ListRunners implements RunnersClient.
func (c *Client) ListRunners(ctx context.Context, scope Scope) ([]Runner, error) {
	return runners.list(ctx, c, scope)
}

// decodeRunners reads a page of runners: {"runners": [...], "total_count": N}.
func decodeRunners(resp *response) (pageResult[Runner], error) {
	var body struct {
		Runners    []Runner `json:"runners"`
		TotalCount *int     `json:"total_count"`
	}
	if err := json.Unmarshal(resp.body, &body); err != nil {
		return pageResult[Runner]{}, err
	}
	total := -1
	if body.TotalCount != nil {
		total = *body.TotalCount
	}
	return pageResult[Runner]{items: body.Runners, total: total}, nil
}

// GetRunner implements RunnersClient.
func (c *Client) GetRunner(ctx context.Context, scope Scope, id int64) (*Runner, error) {
	return runners.get(ctx, c, scope, id)
}

// EditRunner implements RunnersClient; the op says what the edit does.
func (c *Client) EditRunner(ctx context.Context, scope Scope, id int64, disabled bool) (*Runner, error) {
	verb := "enable"
	if disabled {
		verb = "disable"
	}
	cl := runners.call(scope, http.MethodPatch, verb, runners.one(id), id)
	cl.body = map[string]bool{"disabled": disabled}
	return fetch[Runner](ctx, c, cl)
}

// RunnerRegistrationToken implements RunnersClient. The POST form is the
// one every supported release serves (Gitea 1.26 dropped the GET beside
// it); the instance's is under /admin/actions/runners. The answer is a
// secret: the op names the scope only, and the token is redacted from
// whatever the call logs or returns.
func (c *Client) RunnerRegistrationToken(ctx context.Context, scope Scope) (string, error) {
	const op, suffix = "get runner registration token in ", "/actions/runners/registration-token"
	cl := call{op: op + scope.String(), method: http.MethodPost, route: "/admin" + suffix}
	if !scope.IsInstance() {
		cl = scopedCall(scope, op+scope.String(), http.MethodPost, suffix)
	}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return "", err
	}
	// Decoded here rather than by doJSON, which quotes an answer it cannot
	// read in its error: this one may hold the token.
	var out struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(resp.body, &out); err != nil || out.Token == "" {
		return "", c.fail(cl, &Error{Kind: KindInvalidResponse, StatusCode: resp.status, Message: "the answer holds no registration token (the answer is not shown: it may hold one)"})
	}
	return out.Token, nil
}

// ---- cached through Snapshots: one listing per scope ----

func (s *Snapshots) ListRunners(ctx context.Context, scope Scope) ([]Runner, error) {
	return listIn(ctx, s, runners, scope, s.Interface.ListRunners)
}

func (s *Snapshots) GetRunner(ctx context.Context, scope Scope, id int64) (*Runner, error) {
	return getIn(ctx, s, runners, scope, id, s.Interface.GetRunner, s.ListRunners)
}

func (s *Snapshots) EditRunner(ctx context.Context, scope Scope, id int64, disabled bool) (*Runner, error) {
	return runners.cache(s).answer(scope)(s.Interface.EditRunner(ctx, scope, id, disabled))
}
