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

// Package layering holds the import rules between the packages that are
// rooms of one concern: the loop's (internal/reconciler and the packages
// below it) and the kinds' shared pieces (controllers/internal/...).
package layering

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers are groups of packages under one root and which of them each may
// import, as paths relative to the root ("" is the root itself): imports
// go down only, so that each package can be read without the ones above
// it (each package's doc comment says the same). A new package under a
// root is declared here, with what it may import.
var layers = []struct {
	root, pattern string
	may           map[string][]string
}{{
	// The loop and its rooms: the loop imports the rooms beside it, never
	// the other way round.
	root: "github.com/forgeops/forge-operator/internal/reconciler", pattern: "/...",
	may: map[string][]string{
		"":          {"/claims", "/fairness", "/shards"}, // the loop
		"/shards":   {"/claims", "/fairness"},
		"/fairness": nil,
		"/claims":   nil,
	},
}, {
	// The kinds' shared pieces: the kinds (package controllers) import
	// them, never the other way round.
	root: "github.com/forgeops/forge-operator/controllers", pattern: "/internal/...",
	may: map[string][]string{
		"/internal/child":    nil,
		"/internal/compare":  nil,
		"/internal/files":    {"/internal/child"},
		"/internal/hooks":    {"/internal/child", "/internal/compare", "/internal/secrets"},
		"/internal/kinds":    nil,
		"/internal/planning": {"/internal/secrets"},
		"/internal/rounds":   nil,
		"/internal/secrets":  nil,
		"/internal/sets":     {"/internal/rounds", "/internal/words"},
		"/internal/words":    nil,
	},
}}

// TestLayering fails on an import between the packages of a root that
// its table does not allow (an upward or sideways one, which would make a
// cycle or tie two rooms together), on a package the table does not
// declare, and on one without a package comment.
func TestLayering(t *testing.T) {
	for _, l := range layers {
		out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}\t{{join .Imports \" \"}}", l.root+l.pattern).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		seen := 0
		for line := range strings.Lines(strings.TrimSpace(string(out))) {
			fields := strings.Split(strings.TrimRight(line, "\n"), "\t")
			if len(fields) != 3 {
				t.Fatalf("go list printed %q", line)
			}
			pkg, doc, imports := strings.TrimPrefix(fields[0], l.root), fields[1], strings.Fields(fields[2])
			allowed, ok := l.may[pkg]
			if !ok {
				t.Errorf("%s%s is not declared in the layers table of test/layering: say what it may import", l.root, pkg)
				continue
			}
			seen++
			if doc == "" {
				t.Errorf("%s%s has no package comment saying what it serves and what it may import", l.root, pkg)
			}
			for _, imp := range imports {
				rest, ok := strings.CutPrefix(imp, l.root)
				if !ok || rest != "" && !strings.HasPrefix(rest, "/") {
					continue
				}
				if !slices.Contains(allowed, rest) {
					t.Errorf("%s%s imports %s: imports go down only (allowed: %v)", l.root, pkg, imp, allowed)
				}
			}
		}
		if seen != len(l.may) {
			t.Errorf("go list found %d of the %d packages declared under %s", seen, len(l.may), l.root)
		}
	}
}

// TestLayersGoDown: the tables themselves allow no cycle, so that
// following them can never make one.
func TestLayersGoDown(t *testing.T) {
	for _, l := range layers {
		var visit func(pkg string, path []string)
		visit = func(pkg string, path []string) {
			if slices.Contains(path, pkg) {
				t.Fatalf("the layers of %s allow a cycle: %v", l.root, append(path, pkg))
			}
			for _, next := range l.may[pkg] {
				visit(next, append(path, pkg))
			}
		}
		for pkg := range l.may {
			visit(pkg, nil)
		}
	}
}

// maxLines is the longest a hand-written Go file may grow: past it, a
// reader cannot hold the file in mind, and it is split by concern (a kind
// into <kind>_<part>.go beside it, shared code into its own package).
const maxLines = 700

// TestFilesStayReadable fails on a Go file of the module, other than
// generated code, longer than maxLines.
func TestFilesStayReadable(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files", "*.go").CombinedOutput()
	if err != nil {
		t.Fatalf("git ls-files: %v\n%s", err, out)
	}
	for name := range strings.Lines(strings.TrimSpace(string(out))) {
		name = strings.TrimSpace(name)
		if strings.HasPrefix(filepath.Base(name), "zz_generated") {
			continue
		}
		data, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(data, []byte("\n")); n > maxLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern", name, n, maxLines)
		}
	}
}
