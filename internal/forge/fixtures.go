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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// RegisterRunner implements FixturesClient: it does what act_runner does
// on `register`. It fetches a registration token for the scope, then calls
// the runner service's Register (Connect protocol, JSON form, outside
// /api/v1, authenticated by that token only) and returns the runner's id.
func (c *Client) RegisterRunner(ctx context.Context, scope Scope, name string, labels ...string) (int64, error) {
	tok, err := c.RunnerRegistrationToken(ctx, scope)
	if err != nil {
		return 0, err
	}
	return c.registerWith(ctx, scope.String(), tok, name, labels)
}

// RegisterRunnerWith implements FixturesClient: RegisterRunner with a token
// the caller holds (a RunnerRegistrationToken's Secret), in whatever scope
// the token is of.
func (c *Client) RegisterRunnerWith(ctx context.Context, token, name string, labels ...string) (int64, error) {
	return c.registerWith(ctx, "the token's scope", token, name, labels)
}

func (c *Client) registerWith(ctx context.Context, scope, tok, name string, labels []string) (int64, error) {
	if labels == nil {
		labels = []string{}
	}
	body, err := json.Marshal(map[string]any{"name": name, "token": tok, "labels": labels, "version": "v0.2.13"})
	if err != nil {
		return 0, err
	}
	root := strings.TrimSuffix(c.base, "/api/v1")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, root+"/api/actions/runner.v1.RunnerService/Register", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("register runner %q in %s: %w", name, scope, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("register runner %q in %s: %s: %s", name, scope, resp.Status, truncate(redactWith(newRedactor(tok), string(data)), MaxMessage))
	}
	var out struct {
		Runner struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"runner"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, fmt.Errorf("register runner %q in %s: decode: %w", name, scope, err)
	}
	id, err := strconv.ParseInt(out.Runner.ID, 10, 64)
	if err != nil || id <= 0 || out.Runner.Name != name {
		return 0, fmt.Errorf("register runner %q in %s: unexpected answer for runner %q id %q", name, scope, out.Runner.Name, out.Runner.ID)
	}
	return id, nil
}
