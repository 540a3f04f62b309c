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
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/forge"
)

// pagedServer serves ids as a JSON list of labels, paged like the forge,
// with hooks to misbehave.
type pagedServer struct {
	mu       sync.Mutex
	ids      []int64
	cap      int  // server's maximum page size
	total    bool // send X-Total-Count
	ignore   bool // ignore page (always page 1)
	onPage   func(p *pagedServer, page int)
	requests []string
}

func (p *pagedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := r.URL.Query()
	p.requests = append(p.requests, r.URL.RawQuery)
	page, _ := strconv.Atoi(q.Get("page"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	if page < 1 || p.ignore {
		page = 1
	}
	if limit > p.cap {
		limit = p.cap
	}
	if p.onPage != nil {
		p.onPage(p, page)
	}
	from := min((page-1)*limit, len(p.ids))
	to := min(from+limit, len(p.ids))
	out := []forge.Label{}
	for _, id := range p.ids[from:to] {
		out = append(out, forge.Label{ID: id, Name: fmt.Sprint(id)})
	}
	if p.total {
		w.Header().Set("X-Total-Count", strconv.Itoa(len(p.ids)))
	}
	_ = json.NewEncoder(w).Encode(out)
}

func seq(from, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(from + i)
	}
	return out
}

func listIDs(t *testing.T, h http.Handler) []int64 {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := forge.New(forge.Config{URL: ts.URL, Token: "t", QPS: -1})
	mustNoErr(t, err)
	labels, err := c.ListLabels(ctx(t), web)
	mustNoErr(t, err)
	var ids []int64
	for _, l := range labels {
		ids = append(ids, l.ID)
	}
	return ids
}

func wantSameIDs(t *testing.T, want, got []int64) {
	t.Helper()
	seen := map[int64]int{}
	for _, id := range got {
		seen[id]++
		if seen[id] > 1 {
			t.Fatalf("id %d listed twice", id)
		}
	}
	for _, id := range want {
		if seen[id] == 0 {
			t.Fatalf("id %d lost", id)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("listed %d items, want %d", len(got), len(want))
	}
}

func TestPaging(t *testing.T) {
	t.Run("more than 50 on the fake", func(t *testing.T) {
		fake, _, c := newFake(t)
		var want []int64
		for i := range 120 {
			l, err := c.CreateLabel(ctx(t), web, forge.CreateLabelOption{Name: fmt.Sprintf("n%d", i%7), Color: "#abc"})
			mustNoErr(t, err)
			want = append(want, l.ID)
		}
		fake.ClearRequests()
		labels, err := c.ListLabels(ctx(t), web)
		mustNoErr(t, err)
		var got []int64
		for _, l := range labels {
			got = append(got, l.ID)
		}
		wantSameIDs(t, want, got)
		var queries []string
		for _, r := range fake.Requests() {
			queries = append(queries, r.Query)
		}
		if diff := cmp.Diff([]string{"limit=50&page=1", "limit=50&page=2", "limit=50&page=3"}, queries); diff != "" {
			t.Fatalf("page requests (-want +got):\n%s", diff)
		}
	})
	t.Run("exactly 50 needs one page", func(t *testing.T) {
		p := &pagedServer{ids: seq(1, 50), cap: 50, total: true}
		wantSameIDs(t, seq(1, 50), listIDs(t, p))
		if len(p.requests) != 1 {
			t.Fatalf("%d requests", len(p.requests))
		}
	})
	t.Run("empty", func(t *testing.T) {
		if got := listIDs(t, &pagedServer{cap: 50, total: true}); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("server caps pages below 50, no total", func(t *testing.T) {
		wantSameIDs(t, seq(1, 95), listIDs(t, &pagedServer{ids: seq(1, 95), cap: 30}))
	})
	t.Run("server caps pages below 50, with total", func(t *testing.T) {
		wantSameIDs(t, seq(1, 95), listIDs(t, &pagedServer{ids: seq(1, 95), cap: 20, total: true}))
	})
	t.Run("server ignoring page stops", func(t *testing.T) {
		wantSameIDs(t, seq(1, 50), listIDs(t, &pagedServer{ids: seq(1, 80), cap: 50, ignore: true}))
	})
	t.Run("insert while walking restarts", func(t *testing.T) {
		inserted := false
		p := &pagedServer{ids: seq(1, 120), cap: 50, total: true, onPage: func(p *pagedServer, page int) {
			if page == 2 && !inserted {
				inserted = true
				p.ids = append([]int64{1000}, p.ids...) // shifts every page by one
			}
		}}
		wantSameIDs(t, append(seq(1, 120), 1000), listIDs(t, p))
	})
	t.Run("delete while walking restarts", func(t *testing.T) {
		deleted := false
		p := &pagedServer{ids: seq(1, 120), cap: 50, total: true, onPage: func(p *pagedServer, page int) {
			if page == 2 && !deleted {
				deleted = true
				p.ids = p.ids[1:] // id 1 goes; id 51 would slide onto page 1
			}
		}}
		wantSameIDs(t, seq(2, 119), listIDs(t, p))
	})
	t.Run("runners page by total_count", func(t *testing.T) {
		fake, _, c := newFake(t)
		var want []int64
		for i := range 55 {
			want = append(want, fake.RegisterRunner(web, fmt.Sprintf("r%d", i)).ID)
		}
		runners, err := c.ListRunners(ctx(t), web)
		mustNoErr(t, err)
		var got []int64
		for _, r := range runners {
			got = append(got, r.ID)
		}
		wantSameIDs(t, want, got)
	})
}
