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

// Package layering holds the import rules of the house: between its rooms
// (test, hack, main, cmd, controllers, internal, api: the map that opens
// docs/development.md), and inside the rooms of one concern, the loop's
// (internal/reconciler and the packages below it) and the kinds' shared
// pieces (controllers/internal/...).
package layering

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the Go module the house is.
const module = "github.com/forgeops/forge-operator"

// house is the map of the house, its rooms from the top down, as the first
// table of docs/development.md draws them (TestMapIsTheHouse): a package
// is in the room of the longest path that holds it ("" holds main.go's
// package only), and imports from its own room (the layers below rule
// inside one) and the rooms below it, never from one above.
var house = []string{
	"test",        // the suites and their helpers (test/testmanager starts the manager)
	"hack",        // the demo, the fake forge's and Gitea's entry points, the tools
	"",            // main.go: the manager binary
	"cmd",         // its subcommands, which read the registry of the kinds
	"controllers", // the kinds, their registry, their shared pieces
	"internal",    // the shared machinery: the loop, the forge client and its fake, export, ...
	"api",         // the API types
}

// roomOf is the index in house of the room that holds pkg, a path relative
// to the module ("" for its root), or -1.
func roomOf(pkg string) int {
	best, at := -1, -1
	for i, r := range house {
		if pkg == r || r != "" && strings.HasPrefix(pkg, r+"/") {
			if len(r) > best {
				best, at = len(r), i
			}
		}
	}
	return at
}

// upward are the imports of pkg (module paths) that reach up the house, and
// a complaint when pkg is in no room.
func upward(pkg string, imports []string) []string {
	from := roomOf(relative(pkg))
	if from < 0 {
		return []string{fmt.Sprintf("%s is in no room of the house: add its room to house in test/layering and to the map of docs/development.md", pkg)}
	}
	var out []string
	for _, imp := range imports {
		if imp != module && !strings.HasPrefix(imp, module+"/") {
			continue
		}
		if to := roomOf(relative(imp)); to >= 0 && to < from {
			out = append(out, fmt.Sprintf("%s imports %s: an arrow up the house (%s is below %s)", pkg, imp, room(from), room(to)))
		}
	}
	return out
}

// relative is path, a package of the module, relative to the module's root.
func relative(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

// room names house[i] as the map does.
func room(i int) string {
	if house[i] == "" {
		return "main.go"
	}
	return house[i] + "/"
}

// TestHouseGoesDown fails on an import, by a package of the module or by
// its own tests (those of the package itself; an external test package
// is a package above it), from a room below into one above.
func TestHouseGoesDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}} {{join .TestImports \" \"}}", module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		pkg, imports, ok := strings.Cut(strings.TrimRight(line, "\n"), "\t")
		if !ok {
			t.Fatalf("go list printed %q", line)
		}
		for _, e := range upward(pkg, strings.Fields(imports)) {
			t.Error(e)
		}
	}
}

// TestHouseCatchesUpwardArrows: the arrows this house had (the CLI and
// the suites' manager start under internal/ importing controllers) fail,
// and so do the other ways up; the ways down pass.
func TestHouseCatchesUpwardArrows(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		up       bool
	}{
		{"internal/cli", "controllers", true},
		{"internal/testmanager", "controllers", true},
		{"internal/export", "controllers/internal/hooks", true},
		{"internal/forge", "cmd", true},
		{"controllers", "cmd", true},
		{"controllers/internal/child", "cmd", true},
		{"cmd", "", true},
		{"", "hack/demo", true},
		{"api/v1beta1", "internal/forge", true},
		{"internal/reconciler", "test/testmanager", true},
		{"cmd", "controllers", false},
		{"", "cmd", false},
		{"test/testmanager", "controllers", false},
		{"hack/demo", "controllers", false},
		{"controllers", "internal/export", false},
		{"internal/export", "internal/forge", false},
		{"internal/forge", "api/v1beta1", false},
		{"internal/forge", "k8s.io/api/core/v1", false},
	} {
		imp := tc.imp
		if !strings.Contains(imp, ".") {
			imp = strings.TrimSuffix(module+"/"+tc.imp, "/")
		}
		got := upward(strings.TrimSuffix(module+"/"+tc.pkg, "/"), []string{imp})
		if up := len(got) > 0; up != tc.up {
			t.Errorf("%q importing %q: upward %v (%q), want %v", tc.pkg, tc.imp, up, got, tc.up)
		}
	}
	if got := upward(module+"/pkg/new", nil); len(got) != 1 || !strings.Contains(got[0], "no room") {
		t.Errorf("a package in no room: %q, want it named", got)
	}
}

// TestMapIsTheHouse: the first table of docs/development.md, the map of
// the house, names the rooms of house, in its order.
func TestMapIsTheHouse(t *testing.T) {
	data, err := os.ReadFile("../../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	var rooms []string
	inTable := false
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		first := strings.TrimSpace(strings.Split(line, "|")[1])
		if name, ok := strings.CutPrefix(first, "`"); ok {
			name, _, _ = strings.Cut(name, "`")
			rooms = append(rooms, name)
		}
	}
	want := make([]string, len(house))
	for i := range house {
		want[i] = room(i)
	}
	if !slices.Equal(rooms, want) {
		t.Errorf("the map of docs/development.md (its first table) has the rooms %q; test/layering's house %q", rooms, want)
	}
}

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
