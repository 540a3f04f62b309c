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

package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

// TestPlanFileSets: plan tells, per repository a FileSet selects, which
// files its commit would create and update there, from one tree listing
// each (an empty repository: every file; an archived one: none), a set
// whose files every repository holds as in sync, and a set whose contents
// come from a ConfigMap it cannot read as unknown; in text and in JSON,
// and it writes nothing.
func TestPlanFileSets(t *testing.T) {
	ctx := context.Background()
	ff, fc, url := testForge(t, "acme")
	for _, r := range []string{"api", "web", "old"} {
		if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, AutoInit: true}); err != nil {
			t.Fatal(err)
		}
		files := []forge.ChangeFileOperation{{Operation: forge.FileCreate, Path: "kept.txt", Content: forge.FileContent([]byte("kept\n"))}}
		if r == "web" {
			files = append(files, forge.ChangeFileOperation{Operation: forge.FileCreate, Path: "edited.txt", Content: forge.FileContent([]byte("by hand\n"))})
		}
		if _, err := fc.ChangeFiles(ctx, "acme", r, forge.ChangeFilesOption{Files: files}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "fresh"}); err != nil { // empty
		t.Fatal(err)
	}
	ff.SetArchived("acme", "old", true)
	ff.ClearRequests()
	doc := func(name, rest string) string {
		return fmt.Sprintf("apiVersion: forge.forgeops.dev/v1beta1\nkind: FileSet\nmetadata: {name: %s, namespace: team}\n"+
			"spec:\n  forgeRef: {name: gitea}\n%s", name, rest)
	}
	manifests := planObjects(t, strings.Join([]string{
		doc("insync", "  repositories: {organization: acme, exclude: [fresh]}\n  files:\n  - {path: kept.txt, content: \"kept\\n\"}\n"),
		doc("drift", "  repositories: {organization: acme}\n  files:\n  - {path: kept.txt, content: \"kept\\n\"}\n"+
			"  - {path: edited.txt, content: \"kept\\n\"}\n  - {path: new.txt, content: \"new\\n\"}\n"),
		doc("fromconfigmap", "  repositories: {names: [acme/web]}\n  files:\n  - {path: kept.txt, content: \"kept\\n\"}\n"+
			"  - {path: ci.yaml, configMapRef: {name: ci, key: ci.yaml}}\n"),
	}, "---\n"))
	items := Plan(ctx, PlanEnv{Forge: fc, Server: forge.NewServer(fakeforge.DefaultVersion), WebURL: url, Namespace: "team"}, manifests)
	got := map[string]plan.Item{}
	for _, it := range items {
		got[it.Name] = it
	}
	compareItems(t, map[string]plan.Item{
		"insync": {Action: plan.InSync, Reason: "2 of 2 repositories match"},
		"drift": {Action: plan.Update, Reason: "0 of 3 repositories match", Changes: []plan.Change{
			{Field: "acme/api", Spec: `create "edited.txt", create "new.txt"`},
			{Field: "acme/fresh", Spec: `create "kept.txt", create "edited.txt", create "new.txt"`},
			{Field: "acme/web", Spec: `update "edited.txt", create "new.txt"`},
		}},
		"fromconfigmap": {Action: plan.Unknown, Reason: "contents from ConfigMaps plan could not read (--kubeconfig lets it); 1 of 1 repository match",
			Changes: []plan.Change{{Field: "file ci.yaml", Spec: plan.UnknownValue}}},
	}, got)

	var text, js bytes.Buffer
	p := plan.New(items)
	if err := p.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FileSet team/drift: update (0 of 3 repositories match)\n", "  acme/web: update \"edited.txt\", create \"new.txt\"\n",
		"FileSet team/fromconfigmap: unknown", "  file ci.yaml: unknown\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var decoded plan.Plan
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range decoded.Objects {
		for _, c := range it.Changes {
			found = found || (it.Name == "drift" && c.Field == "acme/fresh" && c.Spec == `create "kept.txt", create "edited.txt", create "new.txt"`)
		}
	}
	if !found {
		t.Errorf("the JSON lacks acme/fresh's files:\n%s", js.String())
	}
	if w := ff.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
	for _, r := range ff.Requests() {
		if strings.Contains(r.Path, "/repos/acme/old/") || strings.Contains(r.Path, "/git/blobs/") || strings.Contains(r.Path, "/contents") {
			t.Errorf("plan read %s %s: an archived repository is skipped, and no file is downloaded", r.Method, r.Path)
		}
	}
}
