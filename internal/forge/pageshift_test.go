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
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestSnapshotsConfirmAMissWithGet: while a listing walks its pages, a
// delete before an object and a create after it keep the total, so the walk
// looks consistent yet the object moved to a page already read and is
// missing. Read by id, it is asked of the forge's GET, not reported gone
// (which would lead its resource to create a duplicate).
func TestSnapshotsConfirmAMissWithGet(t *testing.T) {
	fake, srv := fakeforge.NewTestServer(t)
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	mustNoErr(t, err)
	ctx := context.Background()
	_, err = fake.CreateOrg("acme")
	mustNoErr(t, err)
	mustNoErr(t, fake.CreateRepo("acme", "web"))
	web := forge.RepoScope("acme", "web")
	var labels []*forge.Label
	for i := range forge.PageSize + 1 {
		l, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("l%02d", i), Color: "#ededed"})
		mustNoErr(t, err)
		labels = append(labels, l)
	}
	target := labels[forge.PageSize] // first on page 2
	var listed atomic.Int64
	fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/web/labels", Count: 2, Before: func() {
		if listed.Add(1) != 2 {
			return
		}
		// Between page 1 and page 2: one label before the target goes,
		// one after it comes; the target is now on page 1, read already.
		if err := fc.DeleteLabel(ctx, web, labels[0].ID); err != nil {
			t.Error(err)
		}
		if _, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: "late", Color: "#ededed"}); err != nil {
			t.Error(err)
		}
	}})

	kept := forge.NewSnapshots(fc).Reading(&forge.ReadPolicy{MaxAge: time.Hour})
	all, err := kept.ListLabels(ctx, web)
	mustNoErr(t, err)
	if slices.ContainsFunc(all, func(l forge.Label) bool { return l.ID == target.ID }) {
		t.Fatal("the listing was meant to miss the target: the fault did not shift it")
	}
	fake.ClearRequests()
	got, err := kept.GetLabel(ctx, web, target.ID)
	if err != nil || got.ID != target.ID {
		t.Fatalf("get label %d: %+v, %v; want it found by the forge's GET", target.ID, got, err)
	}
	gets := 0
	for _, r := range fake.Requests() {
		if r.Method == http.MethodGet && r.Path == fmt.Sprintf("/api/v1/repos/acme/web/labels/%d", target.ID) {
			gets++
		}
	}
	if gets != 1 {
		t.Fatalf("%d GETs of the label, want 1", gets)
	}
	// A label really gone is still not found.
	mustNoErr(t, fc.DeleteLabel(ctx, web, target.ID))
	if _, err := kept.GetLabel(ctx, web, target.ID); !forge.IsNotFound(err) {
		t.Fatalf("a deleted label: %v, want not found", err)
	}
}

// TestConfirmingListingsSeeWhatAShiftHid: the confirmation of an absence
// (ConfirmingAbsence) is itself a paged listing, and a shift can hide an
// object from it too. Under it a listing of more than one page is walked
// until two walks in a row agree: here the first two walks each miss the
// target, which existed throughout, and the listing still holds every
// label, once.
func TestConfirmingListingsSeeWhatAShiftHid(t *testing.T) {
	fake, srv := fakeforge.NewTestServer(t)
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	mustNoErr(t, err)
	ctx := context.Background()
	_, err = fake.CreateOrg("acme")
	mustNoErr(t, err)
	mustNoErr(t, fake.CreateRepo("acme", "web"))
	web := forge.RepoScope("acme", "web")
	var labels []*forge.Label
	for i := range forge.PageSize + 1 {
		l, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("l%02d", i), Color: "#ededed"})
		mustNoErr(t, err)
		labels = append(labels, l)
	}
	target := labels[forge.PageSize] // first on page 2
	// shiftOnPage2 shifts the target onto page 1 as each of the next walks
	// turns to page 2: one label before it goes, one after it comes.
	var requests atomic.Int64
	gone, early := 0, 0
	shiftOnPage2 := func(walks int) {
		requests.Store(0)
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/web/labels", Count: -1, Before: func() {
			n := requests.Add(1)
			if n > int64(2*walks) {
				return
			}
			if n%2 != 0 {
				// Before each walk but the test's first: a label that sorts
				// first (labels are listed by name) puts the target back at
				// the top of page 2, for the next shift to hide.
				if early++; early > 1 {
					if _, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("a%02d", early), Color: "#ededed"}); err != nil {
						t.Error(err)
					}
				}
				return
			}
			if err := fc.DeleteLabel(ctx, web, labels[gone].ID); err != nil {
				t.Error(err)
			}
			gone++
			if _, err := fc.CreateLabel(ctx, web, forge.CreateLabelOption{Name: fmt.Sprintf("late%d", gone), Color: "#ededed"}); err != nil {
				t.Error(err)
			}
		}})
	}
	has := func(all []forge.Label) int {
		n := 0
		for _, l := range all {
			if l.ID == target.ID {
				n++
			}
		}
		return n
	}

	// An ordinary listing is consistent in itself and misses it.
	shiftOnPage2(1)
	all, err := fc.ListLabels(ctx, web)
	mustNoErr(t, err)
	if has(all) != 0 {
		t.Fatal("the listing was meant to miss the target: the fault did not shift it")
	}

	// A confirming one, through a fresh view of the kept listings as the
	// loop takes it: the first walk and the second each miss the target,
	// the third sees every label, the fourth agrees.
	fake.ClearFaults()
	shiftOnPage2(2)
	kept := forge.NewSnapshots(fc).Reading(&forge.ReadPolicy{MaxAge: time.Hour})
	all, err = forge.Fresh(kept).ListLabels(forge.ConfirmingAbsence(ctx), web)
	mustNoErr(t, err)
	var want, got []int64
	for _, l := range fake.Labels(web) {
		want = append(want, l.ID)
	}
	for _, l := range all {
		got = append(got, l.ID)
	}
	slices.Sort(want)
	slices.Sort(got)
	if has(all) != 1 || !slices.Equal(got, want) {
		t.Fatalf("the confirming listing holds the target %d times and labels %v, want once and the forge's %v (%d requests)", has(all), got, want, requests.Load())
	}
	if got := requests.Load(); got != 8 {
		t.Errorf("%d requests of the labels, want 8: four walks of two pages", got)
	}

	// A list that changes during every walk is an error, never a listing
	// that may lack an object.
	fake.ClearFaults()
	shiftOnPage2(4)
	_, err = forge.Fresh(kept).ListLabels(forge.ConfirmingAbsence(ctx), web)
	if err == nil || !strings.Contains(err.Error(), "the list changed between each of 4 walks") {
		t.Fatalf("a list changing during every walk: %v, want an error saying so", err)
	}
}
