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
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestOneAreaAFile holds the client to one forge area a file. An area is
// an interface that forge.Interface embeds (LabelsClient, TeamsClient,
// ...). A file holds an area when it declares the interface, a method of
// *Client or *Snapshots the interface names, a type that area alone lists
// (a List method answering []T) or alone takes (an option, a rule), or a
// resource declaration (resource[T]) of such a type. Types several areas
// list or take (User, Repository, Scope) are shared and count for none.
// An area's own types are declared beside its interface.
func TestOneAreaAFile(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}

	// The areas: the interfaces Interface embeds, and their methods.
	ifaces := map[string]*ast.InterfaceType{}
	ifaceFile := map[string]string{}
	var embedded []string
	for name, f := range files {
		for _, spec := range typeSpecs(f) {
			it, ok := spec.Type.(*ast.InterfaceType)
			if !ok {
				continue
			}
			ifaces[spec.Name.Name] = it
			ifaceFile[spec.Name.Name] = name
			if spec.Name.Name != "Interface" {
				continue
			}
			for _, m := range it.Methods.List {
				if id, ok := m.Type.(*ast.Ident); ok && len(m.Names) == 0 {
					embedded = append(embedded, id.Name)
				}
			}
		}
	}
	if len(embedded) < 10 {
		t.Fatalf("found %d areas embedded in forge.Interface, want the forge's areas: %v", len(embedded), embedded)
	}
	methodArea := map[string]string{}
	listedBy, takenBy := map[string][]string{}, map[string][]string{}
	for _, area := range embedded {
		it, ok := ifaces[area]
		if !ok {
			t.Fatalf("forge.Interface embeds %s, declared nowhere", area)
		}
		for _, m := range it.Methods.List {
			ft, ok := m.Type.(*ast.FuncType)
			if !ok || len(m.Names) == 0 {
				continue
			}
			name := m.Names[0].Name
			methodArea[name] = area
			if strings.HasPrefix(name, "List") && ft.Results != nil {
				if at, ok := ft.Results.List[0].Type.(*ast.ArrayType); ok {
					if id, ok := at.Elt.(*ast.Ident); ok {
						listedBy[id.Name] = appendOnce(listedBy[id.Name], area)
					}
				}
			}
			for _, p := range ft.Params.List {
				if id := named(p.Type); id != "" {
					takenBy[id] = appendOnce(takenBy[id], area)
				}
			}
		}
	}
	typeArea := map[string]string{}
	for _, by := range []map[string][]string{takenBy, listedBy} {
		for typ := range by {
			areas := takenBy[typ]
			for _, a := range listedBy[typ] {
				areas = appendOnce(areas, a)
			}
			if len(areas) == 1 { // else shared
				typeArea[typ] = areas[0]
			}
		}
	}

	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	held := 0
	for _, name := range names {
		f := files[name]
		areas := map[string][]string{} // area -> what of it the file holds
		note := func(area, what string) {
			if area != "" {
				areas[area] = append(areas[area], what)
			}
		}
		for _, spec := range typeSpecs(f) {
			if slices.Contains(embedded, spec.Name.Name) {
				note(spec.Name.Name, "interface "+spec.Name.Name)
			}
			if area := typeArea[spec.Name.Name]; area != "" {
				note(area, "type "+spec.Name.Name)
				if ifaceFile[area] != name {
					t.Errorf("type %s of %s is declared in %s, not beside its interface in %s", spec.Name.Name, area, name, ifaceFile[area])
				}
			}
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			if recv := named(fd.Recv.List[0].Type); recv == "Client" || recv == "Snapshots" {
				note(methodArea[fd.Name.Name], recv+"."+fd.Name.Name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok {
				if ix, ok := cl.Type.(*ast.IndexExpr); ok {
					if id, ok := ix.X.(*ast.Ident); ok && id.Name == "resource" {
						typ := named(ix.Index)
						note(typeArea[typ], "resource["+typ+"]")
					}
				}
			}
			return true
		})
		if len(areas) > 0 {
			held++
		}
		if len(areas) > 1 {
			var parts []string
			for area, what := range areas {
				parts = append(parts, area+" ("+strings.Join(what, ", ")+")")
			}
			sort.Strings(parts)
			t.Errorf("%s holds %d areas, want one a file (<area>.go, as milestones.go): %s",
				name, len(areas), strings.Join(parts, "; "))
		}
	}
	if held < len(embedded)-1 {
		t.Errorf("only %d files hold an area, for %d areas: the test no longer sees them", held, len(embedded))
	}
}

func typeSpecs(f *ast.File) []*ast.TypeSpec {
	var specs []*ast.TypeSpec
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
			for _, s := range gd.Specs {
				specs = append(specs, s.(*ast.TypeSpec))
			}
		}
	}
	return specs
}

// named gives the name of a type expression T, *T or []T of this
// package, "" for another's or none.
func named(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return named(e.X)
	case *ast.ArrayType:
		return named(e.Elt)
	case *ast.IndexExpr:
		return named(e.X)
	}
	return ""
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
