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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A caller who cannot see an organization's private repositories gets
// short, even empty, pages in the middle of the listing (the forge pages
// first and filters after): the walk follows Link, not page sizes.
func TestListOrgReposFollowsLinkPastShortPages(t *testing.T) {
	fake, ts := fakeforge.NewTestServer(t, fakeforge.WithUser("member", "member-token"))
	if _, err := fake.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	admin, err := forge.New(forge.Config{URL: ts.URL, Token: fakeforge.DefaultToken, QPS: -1})
	mustNoErr(t, err)
	var public []string
	for i := 1; i <= 120; i++ {
		name := fmt.Sprintf("r%03d", i)
		mustNoErr(t, fake.CreateRepo("acme", name))
		// Repositories 3..105 are private: page 1 shows 2, page 2 none,
		// page 3 the last 15.
		if i >= 3 && i <= 105 {
			tgAdminPatch(t, ts.URL, "acme/"+name)
			continue
		}
		public = append(public, name)
	}
	member, err := forge.New(forge.Config{URL: ts.URL, Token: "member-token", QPS: -1})
	mustNoErr(t, err)
	repos, err := member.ListOrgRepos(ctx(t), "acme")
	mustNoErr(t, err)
	var got []string
	for _, r := range repos {
		got = append(got, r.Name)
	}
	if fmt.Sprint(got) != fmt.Sprint(public) {
		t.Fatalf("member lists %d repositories %v, want the %d public ones", len(got), got, len(public))
	}
	all, err := admin.ListOrgRepos(ctx(t), "acme")
	mustNoErr(t, err)
	if len(all) != 120 {
		t.Fatalf("admin lists %d repositories, want 120", len(all))
	}
}

func tgAdminPatch(t *testing.T, root, fullName string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPatch, root+"/api/v1/repos/"+fullName, strings.NewReader(`{"private":true}`))
	mustNoErr(t, err)
	req.Header.Set("Authorization", "token "+fakeforge.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	mustNoErr(t, err)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("make %s private: %d", fullName, resp.StatusCode)
	}
}

// Without a Link header the walk ends at the first empty page, and a
// server that ignores paging (the same page again) cannot loop it.
func TestListOrgReposWithoutLink(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ignoresPaging bool
		// total is X-Total-Count ("" for none), as Gitea counts: hidden
		// repositories included.
		total       string
		want, calls int
	}{
		{"pages until empty", false, "", 70, 3},
		{"ignores paging", true, "", 50, 2},
		{"stops once the count is seen", false, "70", 70, 2},
		{"a count with hidden repositories pages until empty", false, "75", 70, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				page, _ := strconv.Atoi(r.URL.Query().Get("page"))
				if tc.ignoresPaging {
					page = 1
				}
				items := []map[string]any{}
				for i := (page-1)*50 + 1; i <= page*50 && i <= 70; i++ {
					items = append(items, map[string]any{"id": i, "name": fmt.Sprint("r", i)})
				}
				if tc.total != "" {
					w.Header().Set("X-Total-Count", tc.total)
				}
				_ = json.NewEncoder(w).Encode(items)
			}))
			t.Cleanup(ts.Close)
			c, err := forge.New(forge.Config{URL: ts.URL, Token: "t", QPS: -1})
			mustNoErr(t, err)
			repos, err := c.ListOrgRepos(ctx(t), "acme")
			mustNoErr(t, err)
			if len(repos) != tc.want || calls != tc.calls {
				t.Fatalf("listed %d in %d calls, want %d in %d", len(repos), calls, tc.want, tc.calls)
			}
		})
	}
}
