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
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The milestone behaviours are what the Milestone kind relies on, read in
// Gitea's routers/api/v1/repo/milestone.go and probed on 1.24.6 and 1.27.3
// before the fake learnt them. TestContract runs them.
var _ = registerBehaviours("milestone", []behaviour{
	{"milestones/create, list every state, get, delete by id; titles trimmed, taken and empty ones accepted", contractMilestoneLifecycle, nil},
	{"milestones/PATCH: state, description, title; the due date cleared unless sent, else the end of its day", contractMilestoneEdit, nil},
	{"milestones/a missing id is looked up as a title", contractMilestoneIDOrTitle, nil},
	{"milestones/listing: state unset is every state before 1.26, open ones after; paged by count, no Link", contractMilestoneListing, nil},
	{"milestones/archived repository: every write allowed", contractMilestoneArchived, nil},
	{"milestones/other repository's id, unknown id and unknown repository are 404; a bad due date 422", contractMilestoneNotFound, nil},
	{"milestones/the fake as Gitea 1.24 and 1.25: listing and 404s", contractMilestoneOldFake, needFake},
})

// contractMilestoneOldFake holds the fake as 1.24 and 1.25 to what those
// releases answer: a listing unasked holds every state, a 404 says 1.24's
// sentence.
func contractMilestoneOldFake(t *testing.T, tg *target) {
	for _, v := range []string{"1.24.6", "1.25.5"} {
		t.Run(v, func(t *testing.T) {
			old := tg.sibling(t, fakeforge.WithVersion(v))
			contractMilestoneListing(t, old)
			contractMilestoneNotFound(t, old)
		})
	}
}

// due is a due date as the forge answers it, to the second.
func due(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	t = t.UTC()
	return &t
}

// milestoneShape is what a test compares of a milestone: ClosedAt only as
// set or not.
func milestoneShape(m forge.Milestone) forge.Milestone {
	if m.ClosedAt != nil {
		m.ClosedAt = &time.Time{}
	}
	if m.DueOn != nil {
		d := m.DueOn.UTC()
		m.DueOn = &d
	}
	return m
}

func contractMilestoneLifecycle(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	all, err := tg.c.ListMilestones(ctx(t), org, repo)
	mustNoErr(t, err)
	if all == nil || len(all) != 0 {
		t.Fatalf("a new repository's milestones: %#v", all)
	}
	// The due date is kept to the second as sent, answered in UTC.
	v1, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{
		Title: "  v1  ", Description: "first", DueOn: ptr(time.Date(2030, 6, 15, 15, 4, 5, 0, time.FixedZone("", 2*3600)))})
	mustNoErr(t, err)
	want := forge.Milestone{ID: v1.ID, Title: "v1", Description: "first", State: "open", DueOn: due("2030-06-15T13:04:05Z")}
	if d := cmp.Diff(want, milestoneShape(*v1)); d != "" {
		t.Fatalf("created (-want +got):\n%s", d)
	}
	got, err := tg.c.GetMilestone(ctx(t), org, repo, v1.ID)
	mustNoErr(t, err)
	if d := cmp.Diff(want, milestoneShape(*got)); d != "" {
		t.Fatalf("read (-want +got):\n%s", d)
	}
	// A taken title and an empty one are accepted; "closed" creates it
	// closed, another state open.
	again, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "v1"})
	mustNoErr(t, err)
	closed, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "done", State: "closed"})
	mustNoErr(t, err)
	if closed.State != "closed" || closed.ClosedAt == nil {
		t.Fatalf("created closed: %+v", closed)
	}
	odd, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "", State: "bogus"})
	mustNoErr(t, err)
	if odd.Title != "" || odd.State != "open" || odd.ClosedAt != nil || odd.DueOn != nil {
		t.Fatalf("an empty title, an unknown state: %+v", odd)
	}
	// Every state is listed, by due date (none first) then title.
	all, err = tg.c.ListMilestones(ctx(t), org, repo)
	mustNoErr(t, err)
	var ids []int64
	for _, m := range all {
		ids = append(ids, m.ID)
	}
	if d := cmp.Diff([]int64{odd.ID, closed.ID, again.ID, v1.ID}, ids); d != "" {
		t.Fatalf("listing (-want +got):\n%s", d)
	}
	mustNoErr(t, tg.c.DeleteMilestone(ctx(t), org, repo, v1.ID))
	_, err = tg.c.GetMilestone(ctx(t), org, repo, v1.ID)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteMilestone(ctx(t), org, repo, v1.ID), forge.KindNotFound)
	all, err = tg.c.ListMilestones(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 3 {
		t.Fatalf("after the delete: %+v", all)
	}
}

func contractMilestoneEdit(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	m, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{
		Title: "v1", Description: "first", DueOn: due("2030-06-15T10:00:00Z")})
	mustNoErr(t, err)
	// An edit without a due date clears it.
	closed, err := tg.c.EditMilestone(ctx(t), org, repo, m.ID, forge.EditMilestoneOption{State: ptr("closed")})
	mustNoErr(t, err)
	if closed.State != "closed" || closed.ClosedAt == nil || closed.DueOn != nil || closed.Description != "first" || closed.Title != "v1" {
		t.Fatalf("closed, the due date unsent: %+v", closed)
	}
	// Reopened, closed_at is null; any state but "closed" reopens.
	open, err := tg.c.EditMilestone(ctx(t), org, repo, m.ID, forge.EditMilestoneOption{State: ptr("bogus")})
	mustNoErr(t, err)
	if open.State != "open" || open.ClosedAt != nil {
		t.Fatalf("reopened: %+v", open)
	}
	// A due date sent is kept as 23:59:59 of its day (in the offset it was
	// sent with) in the server's time zone: the fake's is UTC, a live
	// server runs beside the test, in its zone.
	zone := time.UTC
	if tg.live {
		zone = time.Local
	}
	dated, err := tg.c.EditMilestone(ctx(t), org, repo, m.ID, forge.EditMilestoneOption{DueOn: ptr(time.Date(2030, 6, 15, 23, 30, 0, 0, time.FixedZone("", -5*3600)))})
	mustNoErr(t, err)
	if want := time.Date(2030, 6, 15, 23, 59, 59, 0, zone); dated.DueOn == nil || !dated.DueOn.Equal(want) {
		t.Fatalf("due date edited: %v, want %v", dated.DueOn, want)
	}
	// An empty title is ignored, another replaces (trimmed); "" clears
	// the description; the due date sent again stays.
	edited, err := tg.c.EditMilestone(ctx(t), org, repo, m.ID, forge.EditMilestoneOption{Title: ptr(""), Description: ptr(""), DueOn: dated.DueOn})
	mustNoErr(t, err)
	if edited.Title != "v1" || edited.Description != "" || edited.DueOn == nil || !edited.DueOn.Equal(*dated.DueOn) {
		t.Fatalf("empty title, description cleared: %+v", edited)
	}
	edited, err = tg.c.EditMilestone(ctx(t), org, repo, m.ID, forge.EditMilestoneOption{Title: ptr(" v2 ")})
	mustNoErr(t, err)
	if edited.Title != "v2" || edited.DueOn != nil {
		t.Fatalf("renamed: %+v", edited)
	}
	got, err := tg.c.GetMilestone(ctx(t), org, repo, m.ID)
	mustNoErr(t, err)
	if d := cmp.Diff(milestoneShape(*edited), milestoneShape(*got)); d != "" {
		t.Fatalf("read after the edits (-want +got):\n%s", d)
	}
	_, err = tg.c.EditMilestone(ctx(t), org, repo, m.ID+1000, forge.EditMilestoneOption{Description: ptr("x")})
	wantKind(t, err, forge.KindNotFound)
}

func contractMilestoneIDOrTitle(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	m, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "v1"})
	mustNoErr(t, err)
	missing := m.ID + 1000
	numbered, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: strconv.FormatInt(missing, 10)})
	mustNoErr(t, err)
	base := "/api/v1/repos/" + org + "/" + repo + "/milestones/"
	// A title is found exactly; an id no milestone has finds the one
	// titled as the number.
	var byTitle, byNumber forge.Milestone
	tg.rawJSON(http.MethodGet, base+"v1", nil, &byTitle)
	tg.rawJSON(http.MethodGet, base+strconv.FormatInt(missing, 10), nil, &byNumber)
	if byTitle.ID != m.ID || byNumber.ID != numbered.ID {
		t.Fatalf("by title: %+v; by a missing id: %+v", byTitle, byNumber)
	}
	if status, _ := tg.raw(http.MethodGet, base+"nosuch", nil); status != http.StatusNotFound {
		t.Fatalf("an unknown title: %d", status)
	}
	// The client refuses another milestone's answer: a read is not found,
	// an edit (which the forge made) an invalid answer.
	_, err = tg.c.GetMilestone(ctx(t), org, repo, missing)
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.EditMilestone(ctx(t), org, repo, missing, forge.EditMilestoneOption{Description: ptr("edited")})
	wantKind(t, err, forge.KindInvalidResponse)
	got, err := tg.c.GetMilestone(ctx(t), org, repo, numbered.ID)
	mustNoErr(t, err)
	if got.Description != "edited" {
		t.Fatalf("the milestone titled as the id was edited: %+v", got)
	}
	// PATCH and DELETE take a title too.
	tg.rawJSON(http.MethodPatch, base+"v1", map[string]any{"description": "by title"}, nil)
	got, err = tg.c.GetMilestone(ctx(t), org, repo, m.ID)
	mustNoErr(t, err)
	if got.Description != "by title" {
		t.Fatalf("edited by title: %+v", got)
	}
	if status, body := tg.raw(http.MethodDelete, base+"v1", nil); status != http.StatusNoContent {
		t.Fatalf("delete by title: %d %s", status, body)
	}
	_, err = tg.c.GetMilestone(ctx(t), org, repo, m.ID)
	wantKind(t, err, forge.KindNotFound)
}

func contractMilestoneListing(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	want := map[int64]bool{}
	for i := range 53 {
		opt := forge.CreateMilestoneOption{Title: fmt.Sprintf("m%02d", i)}
		if i%10 == 0 {
			opt.State = "closed"
		}
		m, err := tg.c.CreateMilestone(ctx(t), org, repo, opt)
		mustNoErr(t, err)
		want[m.ID] = true
	}
	all, err := tg.c.ListMilestones(ctx(t), org, repo)
	mustNoErr(t, err)
	got := map[int64]bool{}
	for _, m := range all {
		got[m.ID] = true
	}
	if len(all) != 53 || !cmp.Equal(want, got) {
		t.Fatalf("listed %d milestones (%d distinct), want the 53 created, 6 of them closed", len(all), len(got))
	}
	path := tg.root + "/api/v1/repos/" + org + "/" + repo + "/milestones"
	count := func(query string) (int, http.Header) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx(t), http.MethodGet, path+query, nil)
		req.Header.Set("Authorization", "token "+tg.token)
		resp, err := http.DefaultClient.Do(req)
		mustNoErr(t, err)
		defer func() { _ = resp.Body.Close() }()
		var page []forge.Milestone
		mustNoErr(t, json.NewDecoder(resp.Body).Decode(&page))
		return len(page), resp.Header
	}
	n, h := count("?state=all&page=1&limit=100")
	if n != 50 || h.Get("X-Total-Count") != "53" || h.Get("Link") != "" {
		t.Fatalf("a page: %d items, X-Total-Count %q Link %q, want 50, 53 and none", n, h.Get("X-Total-Count"), h.Get("Link"))
	}
	n, h = count("?state=closed&page=1")
	if n != 6 || h.Get("X-Total-Count") != "6" {
		t.Fatalf("closed: %d items, X-Total-Count %q", n, h.Get("X-Total-Count"))
	}
	wantUnset := 47 // the open ones only
	if before(tg, 1, 26) {
		wantUnset = 50 // every state, the first page
	}
	n, h = count("?page=1&limit=50")
	if n != wantUnset {
		t.Fatalf("state unset: %d items (X-Total-Count %q), want %d", n, h.Get("X-Total-Count"), wantUnset)
	}
}

func contractMilestoneArchived(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	m, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "v1"})
	mustNoErr(t, err)
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(true)})
	mustNoErr(t, err)
	made, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "v2"})
	mustNoErr(t, err)
	edited, err := tg.c.EditMilestone(ctx(t), org, repo, m.ID, forge.EditMilestoneOption{State: ptr("closed")})
	mustNoErr(t, err)
	if edited.State != "closed" {
		t.Fatalf("closed while archived: %+v", edited)
	}
	mustNoErr(t, tg.c.DeleteMilestone(ctx(t), org, repo, made.ID))
	r, err := tg.c.GetRepo(ctx(t), org, repo)
	mustNoErr(t, err)
	if !r.Archived {
		t.Fatalf("the repository is no longer archived: %+v", r)
	}
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(false)})
	mustNoErr(t, err)
}

func contractMilestoneNotFound(t *testing.T, tg *target) {
	org := tg.org()
	repo, other := tg.repo(org), tg.repo(org)
	m, err := tg.c.CreateMilestone(ctx(t), org, repo, forge.CreateMilestoneOption{Title: "v1"})
	mustNoErr(t, err)
	_, err = tg.c.GetMilestone(ctx(t), org, other, m.ID)
	wantKind(t, err, forge.KindNotFound)
	if before(tg, 1, 25) {
		wantStatus(t, err, http.StatusNotFound, "The target couldn't be found.")
	} else {
		wantStatus(t, err, http.StatusNotFound, "not found")
	}
	_, err = tg.c.EditMilestone(ctx(t), org, other, m.ID, forge.EditMilestoneOption{Description: ptr("x")})
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteMilestone(ctx(t), org, other, m.ID), forge.KindNotFound)
	_, err = tg.c.ListMilestones(ctx(t), org, uniqueName("nosuch"))
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.CreateMilestone(ctx(t), org, uniqueName("nosuch"), forge.CreateMilestoneOption{Title: "v1"})
	wantKind(t, err, forge.KindNotFound)
	// A due date that is not RFC 3339 fails the binding.
	status, body := tg.raw(http.MethodPost, "/api/v1/repos/"+org+"/"+repo+"/milestones", map[string]any{"title": "v2", "due_on": "2030-06-15"})
	var msg struct{ Message string }
	_ = json.Unmarshal(body, &msg)
	if status != http.StatusUnprocessableEntity || msg.Message != `[]: parsing time "2030-06-15" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"` {
		t.Fatalf("a date without a time: %d %s", status, body)
	}
	got, err := tg.c.GetMilestone(ctx(t), org, repo, m.ID)
	mustNoErr(t, err)
	if got.Title != "v1" {
		t.Fatalf("still there: %+v", got)
	}
	all, err := tg.c.ListMilestones(ctx(t), org, repo)
	mustNoErr(t, err)
	if len(all) != 1 {
		t.Fatalf("the refused create wrote: %+v", all)
	}
}
