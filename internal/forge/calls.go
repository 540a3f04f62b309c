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
)

// fetch makes call cl and decodes its JSON answer into a new T.
func fetch[T any](ctx context.Context, c *Client, cl call) (*T, error) {
	out := new(T)
	if _, err := c.doJSON(ctx, cl, out); err != nil {
		return nil, err
	}
	return out, nil
}

// scopedCall is a call on a route under an organization or a repository.
func scopedCall(scope Scope, op, method, suffix string, extra ...any) call {
	route, args := scope.routePrefix()
	return call{op: op, method: method, route: route + suffix, args: append(args, extra...)}
}

// ---- server ----

// Version implements ServerClient.
func (c *Client) Version(ctx context.Context) (string, error) {
	out, err := fetch[struct {
		Version string `json:"version"`
	}](ctx, c, call{op: "get server version", method: http.MethodGet, route: "/version"})
	if err != nil {
		return "", err
	}
	return truncate(out.Version, maxVersionLen), nil
}

// CurrentUser implements ServerClient.
func (c *Client) CurrentUser(ctx context.Context) (*User, error) {
	out, err := fetch[User](ctx, c, call{op: "get current user", method: http.MethodGet, route: "/user"})
	if err != nil {
		return nil, err
	}
	out.Login = truncate(out.Login, maxLoginLen)
	return out, nil
}
