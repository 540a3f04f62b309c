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
	"net/http"
	"strings"
)

// Actions secrets and variables of an organization or a repository,
// GET {scope}/actions/secrets and PUT|DELETE .../actions/secrets/{name},
// GET {scope}/actions/variables and POST|PUT|DELETE
// .../actions/variables/{name}; the contract suite
// (contract_actions_test.go) holds their behaviour on the fake and the
// live releases.

// ActionsSecret is a secret as the forge lists it: never its value. The
// forge upper-cases names (verified on Gitea 1.26.4).
type ActionsSecret struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ActionsVariable is a variable as the forge lists it, value included.
type ActionsVariable struct {
	Name        string `json:"name"`
	Data        string `json:"data"`
	Description string `json:"description"`
}

// ActionsClient manages Actions secrets and variables of a repository or
// an organization (verified on Gitea 1.26.4): names are upper-cased by the
// forge and refused with 400 "invalid variable or secret name" unless
// they match [A-Za-z_][A-Za-z0-9_]* and start with neither GITEA_ nor
// GITHUB_ and are not CI; an empty value is 422.
type ActionsClient interface {
	// ListActionsSecrets lists names and descriptions, never values.
	ListActionsSecrets(ctx context.Context, scope Scope) ([]ActionsSecret, error)
	// PutActionsSecret creates (201) or replaces (204) a secret, its
	// description included (an omitted one becomes "").
	PutActionsSecret(ctx context.Context, scope Scope, name, data, description string) error
	DeleteActionsSecret(ctx context.Context, scope Scope, name string) error
	ListActionsVariables(ctx context.Context, scope Scope) ([]ActionsVariable, error)
	// CreateActionsVariable answers an existing name (any case) with 409.
	CreateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error
	// UpdateActionsVariable answers an unknown name with 404.
	UpdateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error
	DeleteActionsVariable(ctx context.Context, scope Scope, name string) error
}

var _ ActionsClient = (*Client)(nil)

var (
	secrets = declare(&resource[ActionsSecret]{noun: "Actions secret", plural: "Actions secrets", path: "/actions/secrets", item: "/{name}", of: true,
		key: nameID[ActionsSecret](func(s ActionsSecret) string { return s.Name })})
	variables = declare(&resource[ActionsVariable]{noun: "Actions variable", plural: "Actions variables", path: "/actions/variables", item: "/{name}", of: true,
		key: nameID[ActionsVariable](func(v ActionsVariable) string { return v.Name })})
)

// ListActionsSecrets implements ActionsClient.
func (c *Client) ListActionsSecrets(ctx context.Context, scope Scope) ([]ActionsSecret, error) {
	return secrets.list(ctx, c, scope)
}

// PutActionsSecret implements ActionsClient. The value is redacted from
// any answer the forge gives.
func (c *Client) PutActionsSecret(ctx context.Context, scope Scope, name, data, description string) error {
	cl := secrets.call(scope, http.MethodPut, "set", secrets.one(name), name)
	cl.body = map[string]string{"data": data, "description": description}
	_, err := c.do(WithSecrets(ctx, data), cl)
	return err
}

// DeleteActionsSecret implements ActionsClient.
func (c *Client) DeleteActionsSecret(ctx context.Context, scope Scope, name string) error {
	return secrets.delete(ctx, c, scope, name)
}

// ListActionsVariables implements ActionsClient.
func (c *Client) ListActionsVariables(ctx context.Context, scope Scope) ([]ActionsVariable, error) {
	return variables.list(ctx, c, scope)
}

// CreateActionsVariable implements ActionsClient: POST to the variable's
// own route, answering no object.
func (c *Client) CreateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	return c.putVariable(ctx, scope, http.MethodPost, "create", name, value, description)
}

// UpdateActionsVariable implements ActionsClient.
func (c *Client) UpdateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	return c.putVariable(ctx, scope, http.MethodPut, "update", name, value, description)
}

func (c *Client) putVariable(ctx context.Context, scope Scope, method, verb, name, value, description string) error {
	cl := variables.call(scope, method, verb, variables.one(name), name)
	cl.body = map[string]string{"value": value, "description": description}
	_, err := c.do(ctx, cl)
	return err
}

// DeleteActionsVariable implements ActionsClient.
func (c *Client) DeleteActionsVariable(ctx context.Context, scope Scope, name string) error {
	return variables.delete(ctx, c, scope, name)
}

// ---- cached through Snapshots: one listing per scope; a write answers no
// object, so the listing records what was sent (names as the forge keeps
// them, upper case) and a failed write drops it ----

func (s *Snapshots) ListActionsSecrets(ctx context.Context, scope Scope) ([]ActionsSecret, error) {
	return listIn(ctx, s, secrets, scope, s.Interface.ListActionsSecrets)
}

func (s *Snapshots) PutActionsSecret(ctx context.Context, scope Scope, name, data, description string) error {
	return secrets.cache(s).sent(scope, &ActionsSecret{Name: strings.ToUpper(name), Description: description})(
		s.Interface.PutActionsSecret(ctx, scope, name, data, description))
}

func (s *Snapshots) DeleteActionsSecret(ctx context.Context, scope Scope, name string) error {
	return secrets.cache(s).deleted(scope, secrets.key(ActionsSecret{Name: strings.ToUpper(name)}))(
		s.Interface.DeleteActionsSecret(ctx, scope, name))
}

func (s *Snapshots) ListActionsVariables(ctx context.Context, scope Scope) ([]ActionsVariable, error) {
	return listIn(ctx, s, variables, scope, s.Interface.ListActionsVariables)
}

func (s *Snapshots) CreateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	return variables.cache(s).sent(scope, &ActionsVariable{Name: strings.ToUpper(name), Data: value, Description: description})(
		s.Interface.CreateActionsVariable(ctx, scope, name, value, description))
}

func (s *Snapshots) UpdateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	return variables.cache(s).sent(scope, &ActionsVariable{Name: strings.ToUpper(name), Data: value, Description: description})(
		s.Interface.UpdateActionsVariable(ctx, scope, name, value, description))
}

func (s *Snapshots) DeleteActionsVariable(ctx context.Context, scope Scope, name string) error {
	return variables.cache(s).deleted(scope, variables.key(ActionsVariable{Name: strings.ToUpper(name)}))(
		s.Interface.DeleteActionsVariable(ctx, scope, name))
}
