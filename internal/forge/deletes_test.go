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

package forge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// deleteRecorder is a forge that records the DELETEs it is sent and
// answers them 204; every other request is a 404.
type deleteRecorder struct {
	mu      sync.Mutex
	deletes []*http.Request
}

func (d *deleteRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	status, body := http.StatusNotFound, `{"message":"not found"}`
	if req.Method == http.MethodDelete {
		d.mu.Lock()
		d.deletes = append(d.deletes, req)
		d.mu.Unlock()
		status, body = http.StatusNoContent, ""
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

func (d *deleteRecorder) take() []*http.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.deletes
	d.deletes = nil
	return out
}

// TestDeletesAddressOneObject calls every method of the forge client and
// checks each DELETE it sends addresses one object: the path ends with a
// name or id its caller gave, and there is no query. Gitea also serves
// DELETEs that remove many objects at once (from 1.27 `DELETE
// /orgs/{org}/repos` deletes every repository of an organization;
// `DELETE /admin/users/{username}?purge=true` deletes a user with all it
// owns); the operator deletes one object at a time, each one it was asked
// to, so a route like those added to the client fails here.
func TestDeletesAddressOneObject(t *testing.T) {
	rec := &deleteRecorder{}
	fc, err := forge.New(forge.Config{URL: "http://forge.invalid", Token: "t", QPS: -1, Transport: rec})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v := reflect.ValueOf(fc)
	ct := v.Type()
	scopes := []forge.Scope{forge.OrgScope("scope-org"), forge.RepoScope("scope-owner", "scope-repo")}
	routes := map[string][]string{} // route (the caller's values as {placeholders}) -> methods
	deleters := 0
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		// Each argument a value of its own, so that the path tells which
		// of them it ends with; a Scope argument is tried as an
		// organization and as a repository.
		for _, scope := range scopes {
			values := map[string]string{"scope-org": "{org}", "scope-owner": "{owner}", "scope-repo": "{repo}"}
			args := []reflect.Value{}
			usesScope := false
			for j := 1; j < m.Type.NumIn(); j++ {
				in := m.Type.In(j)
				switch {
				case in == reflect.TypeFor[context.Context]():
					args = append(args, reflect.ValueOf(ctx))
				case in == reflect.TypeFor[forge.Scope]():
					usesScope = true
					args = append(args, reflect.ValueOf(scope))
				case in.Kind() == reflect.String:
					s := fmt.Sprintf("arg%d", j)
					values[s] = fmt.Sprintf("{arg%d}", j)
					args = append(args, reflect.ValueOf(s).Convert(in))
				case in.Kind() == reflect.Int64:
					n := int64(1000 + j)
					values[strconv.FormatInt(n, 10)] = fmt.Sprintf("{arg%d}", j)
					args = append(args, reflect.ValueOf(n).Convert(in))
				case in.Kind() == reflect.Pointer:
					args = append(args, reflect.New(in.Elem()))
				default:
					args = append(args, reflect.Zero(in))
				}
			}
			if m.Type.IsVariadic() {
				args[len(args)-1] = reflect.Zero(m.Type.In(m.Type.NumIn() - 1))
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Logf("%s panicked on made-up arguments: %v", m.Name, p)
					}
				}()
				if m.Type.IsVariadic() {
					v.Method(i).CallSlice(args)
				} else {
					v.Method(i).Call(args)
				}
			}()
			sent := rec.take()
			if len(sent) > 0 {
				deleters++
			} else if strings.HasPrefix(m.Name, "Delete") || strings.HasPrefix(m.Name, "Remove") {
				t.Errorf("%s sent no DELETE: the test no longer reaches it", m.Name)
			}
			for _, req := range sent {
				segments := strings.Split(strings.Trim(req.URL.EscapedPath(), "/"), "/")
				route := make([]string, len(segments))
				for k, seg := range segments {
					route[k] = seg
					if p, ok := values[seg]; ok {
						route[k] = p
					}
				}
				r := "/" + strings.Join(route, "/")
				routes[r] = append(routes[r], m.Name)
				if _, ok := values[segments[len(segments)-1]]; !ok {
					t.Errorf("%s sends DELETE %s: the route ends with %q, not with a name or id its caller gave, so it may delete more than one object",
						m.Name, r, segments[len(segments)-1])
				}
				if req.URL.RawQuery != "" {
					t.Errorf("%s sends DELETE %s?%s: a query may widen what a DELETE removes", m.Name, r, req.URL.RawQuery)
				}
			}
			if !usesScope {
				break
			}
		}
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range routes {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		t.Logf("DELETE %s  (%s)", k, strings.Join(slices.Compact(routes[k]), ", "))
	}
	// The client deletes objects of a dozen kinds; far fewer routes means
	// the calls above stopped reaching them.
	if len(routes) < 12 {
		t.Fatalf("only %d DELETE routes seen: %v", len(routes), keys)
	}
}
