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

package fakeforge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAreasRegisterThemselves holds the fake to one area a file: every
// handlers_<area>.go registers its routes once (registerRoutes, from a
// package-level var), no other file registers any, the areas registered
// at run time are as many as those files, and Server.routes serves only
// the fake's own routes and the loop over the areas: it registers no
// forge object's route and calls no area's routes by name.
func TestAreasRegisterThemselves(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	areas := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		regs := 0
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "registerRoutes" {
					regs++
				}
			}
			return true
		})
		isArea := strings.HasPrefix(name, "handlers_")
		switch {
		case isArea && regs != 1:
			t.Errorf("%s registers %d areas' routes, want one: a handlers_<area>.go file is one area", name, regs)
		case !isArea && regs > 0 && name != "handlers.go":
			t.Errorf("%s registers routes but is no handlers_<area>.go file", name)
		}
		if isArea {
			areas++
		}
		if name == "handlers.go" {
			checkOwnRoutes(t, fset, f, src)
		}
	}
	if len(kindRoutes) != areas {
		t.Errorf("%d areas registered at run time, %d handlers_<area>.go files", len(kindRoutes), areas)
	}
}

// checkOwnRoutes holds (*Server).routes to the fake's own routes.
func checkOwnRoutes(t *testing.T, fset *token.FileSet, f *ast.File, src []byte) {
	t.Helper()
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "routes" || fn.Recv == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING && n.Value != `"GET /api/v1/version"` && n.Value != `"GET /api/v1/settings/api"` &&
					strings.Contains(n.Value, " /api/") {
					t.Errorf("Server.routes serves %s: an area's route belongs in its handlers_<area>.go", n.Value)
				}
			case *ast.SelectorExpr:
				if strings.HasSuffix(n.Sel.Name, "Routes") || strings.HasSuffix(n.Sel.Name, "serve") {
					t.Errorf("Server.routes calls %s: an area registers its routes from its own file", src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
				}
			}
			return true
		})
		return
	}
	t.Error("handlers.go declares no (*Server).routes")
}
