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

package deploy

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// buildConstraint is the one line a Go file may hold above its license
// header (Go requires it before any block comment), with its blank line.
var buildConstraint = regexp.MustCompile(`\A//go:build [^\n]*\n\n`)

// TestEveryGoFileHasTheLicenseHeader checks every Go file of every module in
// the repository (hack/envtest and hack/tools included, which golangci-lint
// run from the root does not see) starts with hack/boilerplate.go.txt, the
// header controller-gen writes into generated code.
func TestEveryGoFileHasTheLicenseHeader(t *testing.T) {
	header, err := os.ReadFile(repoPath("hack", "boilerplate.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	root := repoPath()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// bin holds build output; dot directories are tools' state.
			if path != root && (d.Name() == "bin" || d.Name()[0] == '.') {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		src = buildConstraint.ReplaceAll(src, nil)
		if !bytes.HasPrefix(src, header) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s does not start with the license header of hack/boilerplate.go.txt (after an optional //go:build line)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk found the tree: a wrong root would pass with nothing checked.
	if checked < 100 {
		t.Fatalf("checked %d Go files; the repository has more", checked)
	}
}
