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

package controllers_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

// exportFiles runs the export with only export --files' writer.
func exportFiles(t *testing.T, fc *forge.Client, org string, paths ...string) string {
	t.Helper()
	w, err := controllers.FileSetExporter(paths)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	opts := export.Options{Org: org, Namespace: "team-a", Server: "https://git.example.com", Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		Writers: []export.Writer{w}}
	if err := export.Export(context.Background(), fc, opts, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func decodeAll(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%v in\n%s", err, stream)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// TestExportFileSet: export --files proposes one FileSet over the
// organization holding the named files that are the same blob in every
// live repository with a commit (an archived one aside, an empty one
// excluded), read once each from one repository; a file missing
// somewhere, differing, a directory or not text is left out, with a
// comment saying why. Planned, the set is in sync: applied, it writes
// nothing.
func TestExportFileSet(t *testing.T) {
	fake, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	licence := "MIT License\n\nCopyright (c) 2026 Acme\n"
	binary := string([]byte{0xff, 0x00, 0xfe})
	for _, r := range []string{"api", "lib", "web"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, AutoInit: true}))
		files := []forge.ChangeFileOperation{
			{Operation: forge.FileCreate, Path: "LICENSE", Content: forge.FileContent([]byte(licence))},
			{Operation: forge.FileCreate, Path: "docs/a.md", Content: forge.FileContent([]byte("a"))},
			{Operation: forge.FileCreate, Path: "logo.bin", Content: forge.FileContent([]byte(binary))},
			{Operation: forge.FileCreate, Path: ".editorconfig", Content: forge.FileContent([]byte("root = true\n"))},
		}
		if r != "lib" {
			files = append(files, forge.ChangeFileOperation{Operation: forge.FileCreate, Path: ".gitea/CODEOWNERS", Content: forge.FileContent([]byte("* @acme/core\n"))})
		}
		if r == "web" {
			files[3].Content = forge.FileContent([]byte("root = false\n"))
		}
		must(fc.ChangeFiles(ctx, "acme", r, forge.ChangeFilesOption{Files: files}))
	}
	must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "fresh"}))               // empty
	must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "old", AutoInit: true})) // archived, without LICENSE
	fake.SetArchived("acme", "old", true)
	fake.ClearRequests()

	out := exportFiles(t, fc, "acme", "LICENSE", ".gitea/CODEOWNERS", ".editorconfig", "docs", "logo.bin")
	blobReads := 0
	for _, r := range fake.Requests() {
		if strings.Contains(r.Path, "/git/blobs/") {
			blobReads++
		}
		if strings.Contains(r.Path, "/repos/acme/old/") || strings.Contains(r.Path, "/repos/acme/fresh/") {
			t.Errorf("read %s %s: an archived or empty repository is not listed", r.Method, r.Path)
		}
	}
	if blobReads != 3 {
		t.Errorf("%d blob reads, want 3: one for each file every repository holds (LICENSE, .editorconfig, logo.bin)", blobReads)
	}
	for _, want := range []string{
		"# The files each of the 3 live repositories hold alike",
		"#   .gitea/CODEOWNERS: missing in acme/lib\n",
		"#   .editorconfig: differs from acme/api's in acme/web\n",
		"#   docs: not a regular file (a directory, a link or a submodule) in acme/api, acme/lib, acme/web\n",
		"#   logo.bin: not text",
		"# The empty repositories are excluded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
	objs := decodeAll(t, out)
	if len(objs) != 1 || objs[0].GetKind() != "FileSet" {
		t.Fatalf("want one FileSet:\n%s", out)
	}
	var set forgev1.FileSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, &set); err != nil {
		t.Fatal(err)
	}
	if set.Name != "acme-shared-files" || set.Spec.DeletionPolicy != forgev1.DeletionPolicyOrphan ||
		set.Spec.Repositories.Organization == nil || *set.Spec.Repositories.Organization != "acme" ||
		len(set.Spec.Repositories.Exclude) != 1 || set.Spec.Repositories.Exclude[0] != "fresh" || set.Spec.Branch != nil {
		t.Errorf("the FileSet's metadata and selector:\n%s", out)
	}
	if len(set.Spec.Files) != 1 || set.Spec.Files[0].Path != "LICENSE" || set.Spec.Files[0].Content == nil || *set.Spec.Files[0].Content != licence {
		t.Errorf("the FileSet's files: %+v", set.Spec.Files)
	}

	fake.ClearRequests()
	items := controllers.Plan(ctx, controllers.PlanEnv{Forge: fc, Server: forge.NewServer(fakeforge.DefaultVersion), Namespace: "team-a"}, objs)
	if len(items) != 1 || items[0].Action != plan.InSync {
		t.Errorf("the proposed FileSet planned: %+v", items)
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Errorf("plan wrote: %v", w)
	}
}

// TestExportFileSetNoneAlike: when no named file is alike, no FileSet is
// proposed and a comment says which and why.
func TestExportFileSetNoneAlike(t *testing.T) {
	_, fc, must := newForge(t)
	ctx := context.Background()
	must(fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}))
	for _, r := range []string{"api", "web"} {
		must(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, AutoInit: true}))
		must(fc.ChangeFiles(ctx, "acme", r, forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{
			{Operation: forge.FileCreate, Path: "LICENSE", Content: forge.FileContent([]byte("licence of " + r + "\n"))}}}))
	}
	out := exportFiles(t, fc, "acme", "LICENSE", "NOTICE")
	if objs := decodeAll(t, out); len(objs) != 0 {
		t.Fatalf("a resource proposed:\n%s", out)
	}
	for _, want := range []string{
		"# export --files: no named file is the same in every live repository of acme: no FileSet is proposed.",
		"#   LICENSE: differs from acme/api's in acme/web\n",
		"#   NOTICE: missing in acme/api, acme/web\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
}
