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
