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
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ruleForge holds the branch protection rules of one repository, counting
// the listings that reach it.
type ruleForge struct {
	Interface // nil: any other call panics

	mu    sync.Mutex
	rules []BranchProtection
	lists atomic.Int64
}

func (f *ruleForge) ListBranchProtections(context.Context, string, string) ([]BranchProtection, error) {
	f.lists.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.rules), nil
}

func (f *ruleForge) CreateBranchProtection(_ context.Context, _, _ string, bp BranchProtection) (*BranchProtection, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, bp)
	return &bp, nil
}

func (f *ruleForge) EditBranchProtection(_ context.Context, _, _, name string, opt EditBranchProtectionOption) (*BranchProtection, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.rules {
		if f.rules[i].RuleName == name {
			if opt.RequiredApprovals != nil {
				f.rules[i].RequiredApprovals = *opt.RequiredApprovals
			}
			bp := f.rules[i]
			return &bp, nil
		}
	}
	return nil, &Error{Op: "edit branch protection", Kind: KindNotFound, StatusCode: 404}
}

func (f *ruleForge) DeleteBranchProtection(_ context.Context, _, _, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.rules)
	f.rules = slices.DeleteFunc(f.rules, func(bp BranchProtection) bool { return bp.RuleName == name })
	if len(f.rules) == n {
		return &Error{Op: "delete branch protection", Kind: KindNotFound, StatusCode: 404}
	}
	return nil
}

func ruleNamesOf(all []BranchProtection) []string {
	out := []string{}
	for _, bp := range all {
		out = append(out, bp.RuleName)
	}
	return out
}

func TestSnapshotsBranchProtections(t *testing.T) {
	f := &ruleForge{rules: []BranchProtection{{RuleName: "main", StatusCheckContexts: []string{"ci"}}}}
	s := NewSnapshots(f).Reading(&ReadPolicy{MaxAge: time.Minute})
	ctx := context.Background()

	// Two readers of the repository's rules within the max age: one listing.
	for range 2 {
		all, err := s.ListBranchProtections(ctx, "acme", "web")
		if err != nil || !cmp.Equal(ruleNamesOf(all), []string{"main"}) {
			t.Fatalf("rules %v, %v", all, err)
		}
		all[0].StatusCheckContexts[0] = "changed by a reader"
	}
	if n := f.lists.Load(); n != 1 {
		t.Fatalf("%d listings for two readers, want 1", n)
	}
	// A create is visible at once, an edit replaces the rule by name, a
	// delete (also one answered 404) removes it: no listing is taken again.
	if _, err := s.CreateBranchProtection(ctx, "acme", "web", BranchProtection{RuleName: "release/*"}); err != nil {
		t.Fatal(err)
	}
	all, _ := s.ListBranchProtections(ctx, "acme", "web")
	if d := cmp.Diff([]string{"main", "release/*"}, ruleNamesOf(all)); d != "" {
		t.Fatalf("after a create (-want +got):\n%s", d)
	}
	if all[0].StatusCheckContexts[0] != "ci" {
		t.Fatalf("a reader changed the kept listing: %q", all[0].StatusCheckContexts)
	}
	if _, err := s.EditBranchProtection(ctx, "acme", "web", "release/*", EditBranchProtectionOption{RequiredApprovals: ptrTo(int64(2))}); err != nil {
		t.Fatal(err)
	}
	all, _ = s.ListBranchProtections(ctx, "acme", "web")
	if len(all) != 2 || all[1].RequiredApprovals != 2 {
		t.Fatalf("after an edit: %+v", all)
	}
	if err := s.DeleteBranchProtection(ctx, "acme", "web", "main"); err != nil {
		t.Fatal(err)
	}
	// A rule deleted behind the operator's back: its delete answers 404
	// and removes it from the listing as a delete that succeeded.
	f.mu.Lock()
	f.rules = nil
	f.mu.Unlock()
	if err := s.DeleteBranchProtection(ctx, "acme", "web", "release/*"); !IsNotFound(err) {
		t.Fatalf("delete of a rule already gone: %v", err)
	}
	all, _ = s.ListBranchProtections(ctx, "acme", "web")
	if len(all) != 0 {
		t.Fatalf("after deletes: %+v", all)
	}
	if n := f.lists.Load(); n != 1 {
		t.Fatalf("%d listings, want 1", n)
	}
	// A failed edit drops the listing: the next read lists again.
	if _, err := s.EditBranchProtection(ctx, "acme", "web", "nosuch", EditBranchProtectionOption{}); !IsNotFound(err) {
		t.Fatalf("edit of an unknown rule: %v", err)
	}
	if _, err := s.ListBranchProtections(ctx, "acme", "web"); err != nil || f.lists.Load() != 2 {
		t.Fatalf("after a failed write: %d listings, %v", f.lists.Load(), err)
	}
	// Another repository has its own listing.
	if _, err := s.ListBranchProtections(ctx, "acme", "api"); err != nil || f.lists.Load() != 3 {
		t.Fatalf("another repository: %d listings, %v", f.lists.Load(), err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestClientBranchProtectionPaths checks what the client sends: the rule
// name as one escaped segment, metrics by route template, [] for a list
// pointer to nil, and a listing in one request.
func TestClientBranchProtectionPaths(t *testing.T) {
	type seen struct{ method, rawPath, body string }
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		b, _ := json.Marshal(body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.EscapedPath(), string(b)})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodGet:
			_, _ = w.Write([]byte(`[{"rule_name":"release/*"},{"rule_name":"main"}]`))
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			_, _ = w.Write([]byte(`{"rule_name":"release/*"}`))
		}
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL, Token: "t", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := c.ListBranchProtections(ctx, "acme", "web")
	if err != nil || len(all) != 2 {
		t.Fatalf("list: %v %v", all, err)
	}
	if _, err := c.EditBranchProtection(ctx, "acme", "web", "release/*", EditBranchProtectionOption{
		PushWhitelistUsernames: new([]string), Priority: ptrTo(int64(0))}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteBranchProtection(ctx, "acme", "web", "feature/[a b]"); err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{"GET", "/api/v1/repos/acme/web/branch_protections", "null"},
		{"PATCH", "/api/v1/repos/acme/web/branch_protections/release%2F%2A", `{"priority":0,"push_whitelist_usernames":[]}`},
		{"DELETE", "/api/v1/repos/acme/web/branch_protections/feature%2F%5Ba%20b%5D", "null"},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(seen{})); d != "" {
		t.Fatalf("requests (-want +got):\n%s", d)
	}
}
