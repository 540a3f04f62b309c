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

package fakeforge

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The admin user API's forge behaviours are in the contract suite
// (contract_users_test.go); these cover what only the fake has: Reset, the
// Go-side accounts, and the listing's filters by version.

type listedUser struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
}

func createUser(t *testing.T, root, name string) listedUser {
	t.Helper()
	status, body := do(t, http.MethodPost, root+"/api/v1/admin/users",
		map[string]any{"username": name, "email": name + "@example.org", "password": "long-enough"})
	var u listedUser
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &u) != nil {
		t.Fatalf("create %s: %d %s", name, status, body)
	}
	return u
}

func logins(t *testing.T, url string) []string {
	t.Helper()
	status, body := do(t, http.MethodGet, url, nil)
	var users []listedUser
	if status != http.StatusOK || json.Unmarshal([]byte(body), &users) != nil {
		t.Fatalf("GET %s: %d %s", url, status, body)
	}
	var out []string
	for _, u := range users {
		out = append(out, u.Login)
	}
	return out
}

// Users created through the API go on Reset; configured accounts deleted
// through it come back; ids are never reused.
func TestUsersReset(t *testing.T) {
	s, ts, _ := setup(t, WithUser("stranger", "stranger-token"))
	s.AddUser("alice")
	bob := createUser(t, ts.URL, "bob")
	for _, name := range []string{"alice", "bob"} {
		if status, body := do(t, http.MethodDelete, ts.URL+"/api/v1/admin/users/"+name, nil); status != http.StatusNoContent {
			t.Fatalf("delete %s: %d %s", name, status, body)
		}
	}
	carol := createUser(t, ts.URL, "carol")
	if carol.ID <= bob.ID {
		t.Fatalf("carol's id %d reuses one at or below bob's %d", carol.ID, bob.ID)
	}
	if diff := cmp.Diff([]string{"carol", DefaultLogin, "stranger"}, logins(t, ts.URL+"/api/v1/admin/users")); diff != "" {
		t.Fatalf("before Reset (-want +got):\n%s", diff)
	}
	s.Reset()
	if diff := cmp.Diff([]string{"alice", DefaultLogin, "stranger"}, logins(t, ts.URL+"/api/v1/admin/users")); diff != "" {
		t.Fatalf("after Reset (-want +got):\n%s", diff)
	}
	// AddUser of a configured account deleted through the API brings it back, once.
	if status, body := do(t, http.MethodDelete, ts.URL+"/api/v1/admin/users/alice", nil); status != http.StatusNoContent {
		t.Fatalf("delete alice: %d %s", status, body)
	}
	s.AddUser("Alice")
	s.AddUser("alice")
	s.Reset()
	if got := logins(t, ts.URL+"/api/v1/admin/users"); !slices.Equal(got, []string{"alice", DefaultLogin, "stranger"}) {
		t.Fatalf("after AddUser and Reset: %q", got)
	}
}

// The admin listing filters and sorts from Gitea 1.26; before, it ignores
// those parameters.
func TestUsersListFilters(t *testing.T) {
	s, ts, _ := setup(t)
	createUser(t, ts.URL, "Zed")
	createUser(t, ts.URL, "amy")
	list := ts.URL + "/api/v1/admin/users"
	if diff := cmp.Diff([]string{"Zed", "amy", DefaultLogin}, logins(t, list)); diff != "" {
		t.Fatalf("by name in bytes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Zed"}, logins(t, list+"?q=ZE")); diff != "" {
		t.Fatalf("q (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{DefaultLogin}, logins(t, list+"?is_admin=true")); diff != "" {
		t.Fatalf("is_admin (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"amy", "Zed", DefaultLogin}, logins(t, list+"?sort=id&order=desc")); diff != "" {
		t.Fatalf("sort=id&order=desc (-want +got):\n%s", diff)
	}
	if status, body := do(t, http.MethodGet, list+"?sort=karma", nil); status != http.StatusUnprocessableEntity {
		t.Fatalf("unknown sort: %d %s", status, body)
	}
	s.SetVersion("1.25.5")
	if diff := cmp.Diff([]string{"Zed", "amy", DefaultLogin}, logins(t, list+"?q=ZE&sort=karma")); diff != "" {
		t.Fatalf("1.25 ignores q and sort (-want +got):\n%s", diff)
	}
}

// GET /users/search answers {"ok", "data"} of the users matching q.
func TestUsersSearch(t *testing.T) {
	_, ts, _ := setup(t)
	createUser(t, ts.URL, "amy")
	status, body := do(t, http.MethodGet, ts.URL+"/api/v1/users/search?q=AMY", nil)
	var got struct {
		OK   bool         `json:"ok"`
		Data []listedUser `json:"data"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || !got.OK ||
		len(got.Data) != 1 || got.Data[0].Login != "amy" {
		t.Fatalf("search: %d %s", status, body)
	}
}

// An admin's change of a user's email: 1.24 keeps the old address as the
// user's (still in use, theirs to take back); 1.25 on frees it. The
// contract suite checks the release the fake reports by default (and
// each live one); this checks the older ones on the fake.
func TestUserEditEmailByRelease(t *testing.T) {
	for _, tc := range []struct {
		version string
		kept    bool
	}{{"1.24.6", true}, {"1.25.5", false}, {DefaultVersion, false}} {
		t.Run(tc.version, func(t *testing.T) {
			_, ts, _ := setup(t, WithVersion(tc.version))
			createUser(t, ts.URL, "amy")
			path := ts.URL + "/api/v1/admin/users/amy"
			if status, body := do(t, http.MethodPatch, path, map[string]any{"login_name": "amy", "email": "new@example.org"}); status != http.StatusOK {
				t.Fatalf("edit: %d %s", status, body)
			}
			status, body := do(t, http.MethodPost, ts.URL+"/api/v1/admin/users",
				map[string]any{"username": "bob", "email": "AMY@example.org", "password": "long-enough"})
			if want := map[bool]int{true: http.StatusUnprocessableEntity, false: http.StatusCreated}[tc.kept]; status != want {
				t.Fatalf("create with amy's old address: %d %s, want %d", status, body, want)
			}
			if tc.kept {
				if status, body := do(t, http.MethodPatch, path, map[string]any{"login_name": "amy", "email": "amy@example.org"}); status != http.StatusOK {
					t.Fatalf("take the old address back: %d %s", status, body)
				}
			}
		})
	}
}

// The 1.26 listing's account filters read what an edit set.
func TestUsersListAccountFilters(t *testing.T) {
	_, ts, _ := setup(t)
	createUser(t, ts.URL, "amy")
	createUser(t, ts.URL, "bob")
	if status, body := do(t, http.MethodPatch, ts.URL+"/api/v1/admin/users/bob", map[string]any{
		"login_name": "ext-bob", "active": false, "restricted": true, "prohibit_login": true}); status != http.StatusOK {
		t.Fatalf("edit: %d %s", status, body)
	}
	list := ts.URL + "/api/v1/admin/users?"
	for query, want := range map[string][]string{
		"is_active=false": {"bob"}, "is_active=true": {"amy", DefaultLogin},
		"is_restricted=true": {"bob"}, "is_prohibit_login=true": {"bob"},
		"login_name=ext-bob": {"bob"}, "source_id=3": nil,
	} {
		if diff := cmp.Diff(want, logins(t, list+query)); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", query, diff)
		}
	}
}
