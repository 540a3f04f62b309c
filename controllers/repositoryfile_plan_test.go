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
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

// TestPlanRepositoryFiles: plan tells which files would be committed (a
// missing one, one whose blob differs) from one tree listing, files in
// sync, and a CreateOnly file that differs as in sync; it writes nothing.
func TestPlanRepositoryFiles(t *testing.T) {
	ctx := context.Background()
	ff, fc, url := testForge(t, "acme")
	if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web", AutoInit: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ChangeFiles(ctx, "acme", "web", forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{
		{Operation: forge.FileCreate, Path: "kept.txt", Content: forge.FileContent([]byte("kept\n"))},
		{Operation: forge.FileCreate, Path: "edited.txt", Content: forge.FileContent([]byte("by hand\n"))}}}); err != nil {
		t.Fatal(err)
	}
	ff.ClearRequests()
	doc := func(name, rest string) string {
		return fmt.Sprintf("apiVersion: forge.forgeops.dev/v1beta1\nkind: RepositoryFile\nmetadata: {name: %s, namespace: team}\n"+
			"spec:\n  forgeRef: {name: gitea}\n  repository: acme/web\n%s", name, rest)
	}
	manifests := planObjects(t, strings.Join([]string{
		doc("insync", "  files:\n  - {path: kept.txt, content: \"kept\\n\"}\n"),
		doc("drift", "  files:\n  - {path: kept.txt, content: \"kept\\n\"}\n  - {path: edited.txt, content: \"kept\\n\"}\n  - {path: new.txt, content: \"new\\n\"}\n"),
		doc("starter", "  mode: CreateOnly\n  files:\n  - {path: edited.txt, content: \"starter\\n\"}\n"),
	}, "---\n"))
	_, got := planOnFake(ctx, fc, url, manifests)
	kept, by := forge.BlobID([]byte("kept\n"), "")[:12], forge.BlobID([]byte("by hand\n"), "")[:12]
	compareItems(t, map[string]plan.Item{
		"insync": {Action: plan.InSync},
		"drift": {Action: plan.Update, Changes: []plan.Change{
			{Field: "file edited.txt", Forge: "blob " + by, Spec: "blob " + kept},
			{Field: "file new.txt", Forge: "missing", Spec: "blob " + forge.BlobID([]byte("new\n"), "")[:12]},
		}},
		"starter": {Action: plan.InSync},
	}, got)
	if w := ff.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
}
