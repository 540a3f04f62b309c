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
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The label behaviours are what the Label and LabelSet kinds rely on, on
// organizations and repositories. TestContract runs them.
var _ = registerBehaviours("label", []behaviour{
	{"labels/colour normalisation and 422", contractLabelColour, nil},
	{"labels/required fields", contractLabelRequired, nil},
	{"labels/duplicate names allowed", contractLabelDuplicates, nil},
	{"labels/PATCH without is_archived un-archives", contractLabelArchiveQuirk, nil},
	{"labels/org create ignores is_archived", contractOrgLabelArchived, nil},
	{"labels/delete unknown id is 204", contractLabelDeleteUnknown, nil},
	{"labels/unknown scope is 404", contractLabelScopeNotFound, nil},
	{"labels/list pages past 50", contractLabelPaging, nil},
})

func labelScopes(t *testing.T, tg *target) []forge.Scope {
	org := tg.org()
	return []forge.Scope{forge.RepoScope(org, tg.repo(org)), forge.OrgScope(org)}
}

func contractLabelColour(t *testing.T, tg *target) {
	for _, sc := range labelScopes(t, tg) {
		for in, want := range map[string]string{"#F00": "ff0000", "ABCDEF": "abcdef", " #AbC ": "aabbcc", "#00aa11": "00aa11"} {
			l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "c" + want, Color: in})
			mustNoErr(t, err)
			if l.Color != want {
				t.Fatalf("%s: colour %q came back %q, want %q", sc, in, l.Color, want)
			}
		}
		_, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "bad", Color: "#12345g"})
		badColour := "invalid color: "
		if before(tg, 1, 25) {
			badColour = "bad color code: " // Gitea 1.24's wording
		}
		wantRejected(t, err, badColour+"#12345g")
		if !strings.Contains(err.Error(), `create label "bad" in `+sc.String()+": 422 "+badColour+"#12345g") {
			t.Fatalf("error string: %v", err)
		}
		for _, bad := range []string{"#1234", "red", "#ff00ff00"} {
			_, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "bad", Color: bad})
			wantKind(t, err, forge.KindValidation)
		}
		l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "edit-me", Color: "#000"})
		mustNoErr(t, err)
		_, err = tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Color: ptr("zzz")})
		wantRejected(t, err, badColour)
		got, err := tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Color: ptr("#FFF")})
		mustNoErr(t, err)
		if got.Color != "ffffff" {
			t.Fatalf("edited colour %q", got.Color)
		}
	}
}

func contractLabelRequired(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[0]
	_, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Color: "#fff"})
	wantRejected(t, err, "[Name]: Required")
	_, err = tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "x"})
	wantRejected(t, err, "[Color]: Required")
}

func contractLabelDuplicates(t *testing.T, tg *target) {
	for _, sc := range labelScopes(t, tg) {
		a, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "kind/bug", Color: "#f00", Exclusive: true})
		mustNoErr(t, err)
		b, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "kind/bug", Color: "#0f0", Exclusive: true})
		mustNoErr(t, err)
		if a.ID == b.ID || !a.Exclusive {
			t.Fatalf("duplicates: %+v %+v", a, b)
		}
		labels, err := tg.c.ListLabels(ctx(t), sc)
		mustNoErr(t, err)
		n := 0
		for _, l := range labels {
			if l.Name == "kind/bug" {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("%s: %d labels named kind/bug, want 2", sc, n)
		}
	}
}

func contractLabelArchiveQuirk(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[0]
	l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "old", Color: "#123", IsArchived: true, Description: "keep"})
	mustNoErr(t, err)
	if !l.IsArchived {
		t.Fatal("repository label created archived is not archived")
	}
	// The client always sends is_archived, so other edits keep it.
	got, err := tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{Name: ptr("older"), IsArchived: true})
	mustNoErr(t, err)
	if !got.IsArchived || got.Name != "older" || got.Description != "keep" || got.Color != "112233" {
		t.Fatalf("after client edit: %+v", got)
	}
	// The forge un-archives on a PATCH that omits it.
	var raw forge.Label
	tg.rawJSON(http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/%s/labels/%d", sc.Owner, sc.Repo, l.ID), map[string]any{"description": "changed"}, &raw)
	if raw.IsArchived || raw.Description != "changed" || raw.Name != "older" {
		t.Fatalf("after a PATCH without is_archived: %+v", raw)
	}
}

func contractOrgLabelArchived(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[1]
	l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "old", Color: "#123", IsArchived: true})
	mustNoErr(t, err)
	if l.IsArchived {
		t.Fatal("organization label create honoured is_archived; the forge ignores it")
	}
	got, err := tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{IsArchived: true})
	mustNoErr(t, err)
	if !got.IsArchived {
		t.Fatal("organization label edit did not archive")
	}
}

func contractLabelDeleteUnknown(t *testing.T, tg *target) {
	for _, sc := range labelScopes(t, tg) {
		mustNoErr(t, tg.c.DeleteLabel(ctx(t), sc, 987654321))
		l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "gone", Color: "#000"})
		mustNoErr(t, err)
		mustNoErr(t, tg.c.DeleteLabel(ctx(t), sc, l.ID))
		_, err = tg.c.GetLabel(ctx(t), sc, l.ID)
		wantKind(t, err, forge.KindNotFound)
		_, err = tg.c.EditLabel(ctx(t), sc, l.ID, forge.EditLabelOption{})
		wantKind(t, err, forge.KindNotFound)
	}
}

func contractLabelScopeNotFound(t *testing.T, tg *target) {
	org := tg.org()
	_, err := tg.c.ListLabels(ctx(t), forge.RepoScope(org, "no-such-repo"))
	wantKind(t, err, forge.KindNotFound)
	_, err = tg.c.CreateLabel(ctx(t), forge.OrgScope(uniqueName("missing")), forge.CreateLabelOption{Name: "x", Color: "#fff"})
	wantKind(t, err, forge.KindNotFound)
	// A label of one scope is not found through another.
	scopes := labelScopes(t, tg)
	l, err := tg.c.CreateLabel(ctx(t), scopes[0], forge.CreateLabelOption{Name: "x", Color: "#fff"})
	mustNoErr(t, err)
	_, err = tg.c.GetLabel(ctx(t), scopes[1], l.ID)
	wantKind(t, err, forge.KindNotFound)
}

func contractLabelPaging(t *testing.T, tg *target) {
	sc := labelScopes(t, tg)[0]
	want := map[int64]string{}
	for i := range 57 {
		name := fmt.Sprintf("l%02d", 56-i) // created in reverse name order
		if i%10 == 0 {
			name = "dup"
		}
		l, err := tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: name, Color: "#abc"})
		mustNoErr(t, err)
		want[l.ID] = name
	}
	labels, err := tg.c.ListLabels(ctx(t), sc)
	mustNoErr(t, err)
	got := map[int64]string{}
	for _, l := range labels {
		got[l.ID] = l.Name
	}
	if len(labels) != 57 || !cmp.Equal(want, got) {
		t.Fatalf("listed %d labels (%d distinct), want the 57 created", len(labels), len(got))
	}
}
