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

package reconciler_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path the rooms are under.
const module = "github.com/forgeops/forge-operator/internal/reconciler"

// rooms are the packages of internal/reconciler and which of them each may
// import: imports go down only, from the loop to the rooms beside it, so
// that each can be read without the ones above it (each package's doc
// comment says the same). A new package under internal/reconciler is
// declared here, with what it may import.
var rooms = map[string][]string{
	"":          {"claims", "fairness", "shards"}, // the loop
	"/shards":   {"claims", "fairness"},
	"/fairness": nil,
	"/claims":   nil,
}

// TestLayering fails on an import between the rooms that the table does
// not allow (an upward or sideways one, which with the loop's own imports
// would make a cycle or tie two rooms together), on a package under
// internal/reconciler the table does not declare, and on one without a
// package comment.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}\t{{join .Imports \" \"}}", module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(fields) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		pkg, doc, imports := strings.TrimPrefix(fields[0], module), fields[1], strings.Fields(fields[2])
		allowed, ok := rooms[pkg]
		if !ok {
			t.Errorf("%s%s is not declared in the rooms table of layering_test.go: say what it may import", module, pkg)
			continue
		}
		seen++
		if doc == "" {
			t.Errorf("%s%s has no package comment saying what it serves and what it may import", module, pkg)
		}
		for _, imp := range imports {
			rest, ok := strings.CutPrefix(imp, module)
			if !ok || rest != "" && !strings.HasPrefix(rest, "/") {
				continue
			}
			if !slices.Contains(allowed, strings.TrimPrefix(rest, "/")) {
				t.Errorf("%s%s imports %s: imports between the rooms go down only (allowed: %v)", module, pkg, imp, allowed)
			}
		}
	}
	if seen != len(rooms) {
		t.Errorf("go list found %d of the %d rooms declared", seen, len(rooms))
	}
}

// TestRoomsTableGoesDown: the table itself allows no cycle, so that
// following it can never make one.
func TestRoomsTableGoesDown(t *testing.T) {
	var visit func(room string, path []string)
	visit = func(room string, path []string) {
		if slices.Contains(path, room) {
			t.Fatalf("the rooms table allows a cycle: %v", append(path, room))
		}
		for _, next := range rooms[room] {
			visit("/"+next, append(path, room))
		}
	}
	for room := range rooms {
		visit(room, nil)
	}
}
