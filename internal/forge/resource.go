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
	"fmt"
	"net/http"
)

// resource declares one kind of object the forge keeps in a scope (an
// organization or a repository): its route, what it is keyed by, how it is
// copied. The client's calls (list, get, create, edit, delete) and the
// listing cache of Snapshots (a store per resource, by-key reads) are made
// from it; a resource's own code is only what differs: the bodies it sends,
// the secrets in them, an answer that is not the object.
type resource[T any] struct {
	noun, plural string // "label", "labels": in every call's op
	// path is the collection under the scope ("/labels"), item one
	// object's segment under it ("/{id}" or, for objects the forge
	// addresses by name, "/{name}").
	path, item string
	// outside, when set, is one object's route outside its scope
	// ("/teams/{id}"): the forge addresses it by its id alone, and ops name
	// no scope.
	outside string
	// of names the scope in ops as "of repository acme/web" rather than
	// "in acme/web".
	of bool
	// key is what a listing keeps an object by: its id, or a number made of
	// its name (nameID) for objects the forge addresses by name.
	key func(T) int64
	// clone copies an object deeply (nil: a copy of the value will do).
	clone func(T) T
	// decode reads one page of the listing (nil: a JSON array).
	decode func(*response) (pageResult[T], error)
}

// where names scope in an op of verb.
func (r *resource[T]) where(scope Scope, verb string) string {
	switch {
	case !r.of:
		return "in " + scope.String()
	case verb == "create":
		return "in " + scope.describe()
	}
	return "of " + scope.describe()
}

// call is a call on the collection (no key) or on one object (key) of
// scope; its op is "verb what where", e.g. `get label 5 in acme/web`.
func (r *resource[T]) call(scope Scope, method, verb, what string, key ...any) call {
	if len(key) > 0 && r.outside != "" {
		return call{op: verb + " " + what, method: method, route: r.outside, args: key}
	}
	route, args := scope.routePrefix()
	route += r.path
	if len(key) > 0 {
		route += r.item
		args = append(args, key...)
	}
	return call{op: verb + " " + what + " " + r.where(scope, verb), method: method, route: route, args: args}
}

// one names one object in an op: `label 5`, `team "core"`.
func (r *resource[T]) one(key any) string {
	if s, ok := key.(string); ok {
		return fmt.Sprintf("%s %q", r.noun, s)
	}
	return fmt.Sprintf("%s %v", r.noun, key)
}

// listing makes a listing call, page by page, to the end.
func (r *resource[T]) listing(ctx context.Context, c *Client, cl call) ([]T, error) {
	decode := r.decode
	if decode == nil {
		decode = decodeArray[T]
	}
	return listAll(ctx, c, cl, decode, r.key)
}

func (r *resource[T]) list(ctx context.Context, c *Client, scope Scope) ([]T, error) {
	return r.listing(ctx, c, r.call(scope, http.MethodGet, "list", r.plural))
}

func (r *resource[T]) get(ctx context.Context, c *Client, scope Scope, key any) (*T, error) {
	return fetch[T](ctx, c, r.call(scope, http.MethodGet, "get", r.one(key), key))
}

// create posts body to the collection; what names the object in the op
// (r.one(name)), secrets are values in body that errors must not show.
func (r *resource[T]) create(ctx context.Context, c *Client, scope Scope, what string, body any, secrets ...string) (*T, error) {
	cl := r.call(scope, http.MethodPost, "create", what)
	cl.body, cl.secrets = body, secrets
	return fetch[T](ctx, c, cl)
}

func (r *resource[T]) edit(ctx context.Context, c *Client, scope Scope, key, body any, secrets ...string) (*T, error) {
	cl := r.call(scope, http.MethodPatch, "edit", r.one(key), key)
	cl.body, cl.secrets = body, secrets
	return fetch[T](ctx, c, cl)
}

func (r *resource[T]) delete(ctx context.Context, c *Client, scope Scope, key any) error {
	_, err := c.do(ctx, r.call(scope, http.MethodDelete, "delete", r.one(key), key))
	return err
}

// fetchKept makes a call that answers one object of a resource kept by
// its id: an answer without an id is refused (KindInvalidResponse), as the
// id is what it is kept by.
func (r *resource[T]) fetchKept(ctx context.Context, c *Client, cl call) (*T, error) {
	t, err := fetch[T](ctx, c, cl)
	if err != nil {
		return nil, err
	}
	if id := r.key(*t); id <= 0 {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the forge answered a %s with id %d", r.noun, id)})
	}
	return t, nil
}

// cache is this resource's listing store in s, made on first use.
func (r *resource[T]) cache(s *Snapshots) *store[T] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stores[r]; ok {
		return st.(*store[T])
	}
	clone := r.clone
	if clone == nil {
		clone = func(v T) T { return v }
	}
	st := newStore(s.kept, r.key, clone)
	st.name = r.plural
	s.stores[r] = st
	return st
}

// Route is where the forge keeps one declared resource, read from its
// declaration for a server that serves it (the fake forge).
type Route struct {
	Plural string // "labels"
	// Path is the collection under a scope (OrgRoute or RepoRoute), Item
	// one object's segment under it ("/{id}" or "/{name}").
	Path, Item string
	// Outside, when set, is one object's route outside its scope
	// ("/teams/{id}").
	Outside string
}

// routes are the declared resources' routes, by plural (declare).
var routes = map[string]Route{}

// declare records r's route (RouteOf) and gives r back: every resource
// a scope holds is declared through it.
func declare[T any](r *resource[T]) *resource[T] {
	routes[r.plural] = r.route()
	return r
}

// RouteOf gives the route of the resource declared with plural ("labels",
// "Actions secrets"); it panics for one never declared, a programming
// error a server's first request would show.
func RouteOf(plural string) Route {
	r, ok := routes[plural]
	if !ok {
		panic("forge: no resource declared as " + plural)
	}
	return r
}

func (r *resource[T]) route() Route {
	return Route{Plural: r.plural, Path: r.path, Item: r.item, Outside: r.outside}
}
