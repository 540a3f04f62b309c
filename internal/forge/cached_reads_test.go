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

package forge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// uncachedReads are the reads Snapshots passes through on purpose, and
// why; every other List or Get of the Interface must be served from a
// listing (listIn, getIn) by a method of Snapshots' own.
var uncachedReads = map[string]string{
	"GetRepo":                   "a repository by name, also one the owner's listing lacks (renamed, a user's)",
	"GetRepoByID":               "the fallback of a renamed repository, read once",
	"GetCollaboratorPermission": "read by export only, once per collaborator it writes",
	"ListIssuesWithLabel":       "plan's and export's counts, never the loop's",
	"GetBlob":                   "a file's content, export's read, once per path; never the loop's",
}

// TestSnapshotsCacheEveryRead: a resource's reads go through its listing.
// Snapshots embeds the Interface, so a read it does not override builds
// and passes through: every drift check would cost a call of its own.
func TestSnapshotsCacheEveryRead(t *testing.T) {
	own := map[string]bool{}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Snapshots" {
					own[fd.Name.Name] = true
				}
			}
		}
	}
	for m := range reflect.TypeFor[Interface]().Methods() {
		read := strings.HasPrefix(m.Name, "List") || strings.HasPrefix(m.Name, "Get")
		_, uncached := uncachedReads[m.Name]
		switch {
		case read && !own[m.Name] && !uncached:
			t.Errorf("Snapshots does not cache %s: add its cached call (listIn, getIn) beside the resource's declaration, or name it in uncachedReads with why", m.Name)
		case uncached && own[m.Name]:
			t.Errorf("%s is in uncachedReads but Snapshots caches it", m.Name)
		}
	}
}
