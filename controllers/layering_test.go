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
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// kindsModule is the import path of the kinds; their shared pieces are the
// packages under its internal/.
const kindsModule = "github.com/forgeops/forge-operator/controllers"

// sharedPieces are the packages under controllers/internal and which of
// them each may import: the kinds (package controllers) import them, never
// the other way round, and among themselves imports go down only. A new
// package under controllers/internal is declared here, with what it may
// import.
var sharedPieces = map[string][]string{
	"/internal/compare": nil,
	"/internal/rounds":  nil,
	"/internal/secrets": nil,
}

// TestSharedPiecesLayering fails on a package under controllers/internal
// that the table does not declare, that has no package comment, or that
// imports the kinds or a piece the table does not allow.
func TestSharedPiecesLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}\t{{join .Imports \" \"}}", kindsModule+"/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(fields) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		pkg, doc, imports := strings.TrimPrefix(fields[0], kindsModule), fields[1], strings.Fields(fields[2])
		allowed, ok := sharedPieces[pkg]
		if !ok {
			t.Errorf("%s%s is not declared in the sharedPieces table of layering_test.go: say what it may import", kindsModule, pkg)
			continue
		}
		seen++
		if doc == "" {
			t.Errorf("%s%s has no package comment saying what it serves and what may import it", kindsModule, pkg)
		}
		for _, imp := range imports {
			rest, ok := strings.CutPrefix(imp, kindsModule)
			if !ok || rest != "" && !strings.HasPrefix(rest, "/") {
				continue
			}
			if !slices.Contains(allowed, strings.TrimPrefix(rest, "/internal/")) {
				t.Errorf("%s%s imports %s: the shared pieces never import the kinds, and among themselves only what the table allows (%v)", kindsModule, pkg, imp, allowed)
			}
		}
	}
	if seen != len(sharedPieces) {
		t.Errorf("go list found %d of the %d shared pieces declared", seen, len(sharedPieces))
	}
}
