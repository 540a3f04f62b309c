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
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Webhooks of an organization or a repository, GET|POST {scope}/hooks and
// GET|PATCH|DELETE .../hooks/{id}; the contract suite
// (contract_hooks_test.go) holds their behaviour on the fake and the live
// releases.

// Hook mirrors the forge's Hook object. The forge never returns
// config.secret, and Events come back in random order: compare them as a set.
type Hook struct {
	ID                  int64             `json:"id"`
	Type                string            `json:"type"`
	Name                string            `json:"name"`
	Config              map[string]string `json:"config"`
	Events              []string          `json:"events"`
	Active              bool              `json:"active"`
	BranchFilter        string            `json:"branch_filter"`
	AuthorizationHeader string            `json:"authorization_header"`
}

// CreateHookOption is the body of POST /orgs/{org}/hooks. Active is always
// sent because the forge defaults an omitted active to false.
type CreateHookOption struct {
	Type                string            `json:"type"`
	Name                string            `json:"name,omitempty"`
	Config              map[string]string `json:"config"`
	Events              []string          `json:"events,omitempty"`
	BranchFilter        string            `json:"branch_filter,omitempty"`
	AuthorizationHeader string            `json:"authorization_header,omitempty"`
	Active              bool              `json:"active"`
}

// EditHookOption is the body of PATCH /orgs/{org}/hooks/{id}.
//
// The forge replaces events, branch_filter and authorization_header on every
// PATCH (an omitted value means push-only, no filter, no header), so those
// three are plain fields that are always sent: callers must pass the full
// desired values, never a partial update. Active and Name change only when
// non-nil. Config keys change only when present; the forge ignores
// config.secret here (a new secret needs a new hook) and type cannot change.
type EditHookOption struct {
	Config              map[string]string `json:"config,omitempty"`
	Events              []string          `json:"events"`
	BranchFilter        string            `json:"branch_filter"`
	AuthorizationHeader string            `json:"authorization_header"`
	Active              *bool             `json:"active,omitempty"`
	Name                *string           `json:"name,omitempty"`
}

// MarshalJSON sends an empty list rather than null for nil Events so the
// payload states the quirk explicitly: no events means push only.
func (o EditHookOption) MarshalJSON() ([]byte, error) {
	type plain EditHookOption
	p := plain(o)
	if p.Events == nil {
		p.Events = []string{}
	}
	return json.Marshal(p)
}

// ChatHookTypes are the hook types whose URL carries a token (Slack,
// Discord, ...): such a URL is a secret, never printed or exported.
var ChatHookTypes = []string{"slack", "discord", "dingtalk", "telegram", "msteams", "feishu", "wechatwork"}

// URLIsSecret tells whether a hook of type typ with URL rawURL has a
// secret URL: chat hooks (the token is the path), Packagist hooks (the
// forge keeps the apiToken in the URL's query), and any URL with a query
// (CI hooks take ?token=) or user info. Such URLs go to Secrets on export
// and are never shown by plan or in Events. An empty rawURL asks about the
// type alone.
func URLIsSecret(typ, rawURL string) bool {
	t := strings.ToLower(typ)
	if slices.Contains(ChatHookTypes, t) || t == "packagist" {
		return true
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL != "" // unreadable: keep it out of sight
	}
	return u.RawQuery != "" || u.User != nil
}

// HooksClient manages webhooks of a repository or an organization. The
// repository endpoints behave like the organization ones (repository admins
// only, even to read); hook ids are one sequence for both.
type HooksClient interface {
	ListHooks(ctx context.Context, scope Scope) ([]Hook, error)
	GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error)
	CreateHook(ctx context.Context, scope Scope, opt CreateHookOption) (*Hook, error)
	EditHook(ctx context.Context, scope Scope, id int64, opt EditHookOption) (*Hook, error)
	DeleteHook(ctx context.Context, scope Scope, id int64) error
}

var _ HooksClient = (*Client)(nil)

var hooks = declare(&resource[Hook]{noun: "hook", plural: "hooks", path: "/hooks", item: "/{id}", of: true,
	key: func(h Hook) int64 { return h.ID }, clone: cloneHook})

func cloneHook(h Hook) Hook {
	h.Config = maps.Clone(h.Config)
	h.Events = slices.Clone(h.Events)
	return h
}

func (o *Hook) forgeID() int64 { return o.ID }

// ListHooks implements HooksClient. A repository's list has X-Total-Count
// only, no Link: listAll pages by count and short pages.
func (c *Client) ListHooks(ctx context.Context, scope Scope) ([]Hook, error) {
	return hooks.list(ctx, c, scope)
}

// GetHook implements HooksClient.
func (c *Client) GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error) {
	return hooks.get(ctx, c, scope, id)
}

// CreateHook implements HooksClient. The op names the hook by type only:
// chat webhook URLs are secrets.
func (c *Client) CreateHook(ctx context.Context, scope Scope, opt CreateHookOption) (*Hook, error) {
	return hooks.create(ctx, c, scope, opt.Type+" hook", opt, hookSecrets(opt.Config, opt.AuthorizationHeader)...)
}

// EditHook implements HooksClient.
func (c *Client) EditHook(ctx context.Context, scope Scope, id int64, opt EditHookOption) (*Hook, error) {
	return hooks.edit(ctx, c, scope, id, opt, hookSecrets(opt.Config, opt.AuthorizationHeader)...)
}

// DeleteHook implements HooksClient.
func (c *Client) DeleteHook(ctx context.Context, scope Scope, id int64) error {
	return hooks.delete(ctx, c, scope, id)
}

// ---- cached through Snapshots: one listing per scope ----

func (s *Snapshots) ListHooks(ctx context.Context, scope Scope) ([]Hook, error) {
	return listIn(ctx, s, hooks, scope, s.Interface.ListHooks)
}

func (s *Snapshots) GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error) {
	return getIn(ctx, s, hooks, scope, id, s.Interface.GetHook, s.ListHooks)
}

func (s *Snapshots) CreateHook(ctx context.Context, scope Scope, opt CreateHookOption) (*Hook, error) {
	return hooks.cache(s).answer(scope)(s.Interface.CreateHook(ctx, scope, opt))
}

func (s *Snapshots) EditHook(ctx context.Context, scope Scope, id int64, opt EditHookOption) (*Hook, error) {
	return hooks.cache(s).answer(scope)(s.Interface.EditHook(ctx, scope, id, opt))
}

func (s *Snapshots) DeleteHook(ctx context.Context, scope Scope, id int64) error {
	return hooks.cache(s).deleted(scope, id)(s.Interface.DeleteHook(ctx, scope, id))
}
