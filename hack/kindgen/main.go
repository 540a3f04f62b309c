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

// Command kindgen writes what every kind of the API package needs besides
// its type, so that adding a kind edits none of it by hand:
//   - api/v1beta1/zz_generated.managed.go: the accessors the shared loop
//     uses (conditions for every kind; for a kind whose spec embeds
//     ManagedSpec also GetManagedSpec, GetManagedStatus and
//     GetDeletionPolicy, whose default is the deletionPolicy field's
//     `+kubebuilder:default=` marker (which every kind has: the CRD
//     stores the default); for a kind whose status embeds
//     SetStatus also GetSetStatus, which the claims mechanism reads a
//     set's record of its repositories through);
//   - PROJECT: kubebuilder's project file, one resource per kind.
//
// `make generate` runs it after controller-gen's deepcopy, which it
// resembles: it reads the types with go/ast and the markers from their
// comments. Run from the repository root.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const (
	apiDir     = "api/v1beta1"
	apiPackage = "github.com/forgeops/forge-operator/api/v1beta1"
	managed    = "ManagedSpec"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kindgen:", err)
		os.Exit(1)
	}
}

func run() error {
	pkg, err := load(apiDir)
	if err != nil {
		return err
	}
	kinds, err := pkg.kinds()
	if err != nil {
		return err
	}
	header, err := os.ReadFile("hack/boilerplate.go.txt")
	if err != nil {
		return err
	}
	src, err := accessors(string(header), kinds)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(apiDir, "zz_generated.managed.go"), src, 0o644); err != nil {
		return err
	}
	return os.WriteFile("PROJECT", project(kinds), 0o644)
}

// field is one field of a struct: its name (the type's name when
// embedded), its type's name and its comment.
type field struct {
	name, typ string
	embedded  bool
	doc       string
}

// types are the struct types of the package, by name, and the comments of
// every type.
type types struct {
	structs map[string][]field
	docs    map[string]string
	order   []string // type names in file and declaration order
}

func load(dir string) (*types, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	t := &types{structs: map[string][]field{}, docs: map[string]string{}}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(filepath.Base(name), "zz_generated") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				t.add(g)
			}
		}
	}
	return t, nil
}

func (t *types) add(g *ast.GenDecl) {
	for _, s := range g.Specs {
		ts := s.(*ast.TypeSpec)
		doc := ts.Doc.Text()
		if doc == "" && len(g.Specs) == 1 {
			doc = g.Doc.Text()
		}
		name := ts.Name.Name
		t.docs[name] = doc
		t.order = append(t.order, name)
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		var fields []field
		for _, f := range st.Fields.List {
			typ := typeName(f.Type)
			if len(f.Names) == 0 {
				fields = append(fields, field{name: typ, typ: typ, embedded: true, doc: f.Doc.Text()})
			}
			for _, n := range f.Names {
				fields = append(fields, field{name: n.Name, typ: typ, doc: f.Doc.Text()})
			}
		}
		t.structs[name] = fields
	}
}

// typeName is the name of an identifier type, "" for any other.
func typeName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// find looks for field name in struct typ and, depth first, in the structs
// of this package it embeds.
func (t *types) find(typ, name string) (field, bool) {
	for _, f := range t.structs[typ] {
		if f.name == name {
			return f, true
		}
		if f.embedded {
			if got, ok := t.find(f.typ, name); ok {
				return got, true
			}
		}
	}
	return field{}, false
}

// kind is one root kind of the package.
type kind struct {
	name       string
	conditions bool   // its status has conditions
	set        bool   // its status embeds SetStatus
	managed    bool   // its spec embeds ManagedSpec
	policy     string // the deletionPolicy field's type, when managed
	defPolicy  string // its default
}

func (t *types) kinds() ([]kind, error) {
	var out []kind
	for _, name := range t.order {
		spec, ok := t.find(name, "Spec")
		if !strings.Contains(t.docs[name], "+kubebuilder:object:root=true") || !ok {
			continue // not a kind (a list has no spec)
		}
		k := kind{name: name}
		if status, ok := t.find(name, "Status"); ok {
			_, k.conditions = t.find(status.typ, "Conditions")
			_, k.set = t.find(status.typ, "SetStatus")
		}
		if _, k.managed = t.find(spec.typ, managed); k.managed {
			f, ok := t.find(spec.typ, "DeletionPolicy")
			if !ok {
				return nil, fmt.Errorf("%s embeds %s but has no deletionPolicy", spec.typ, managed)
			}
			k.policy = f.typ
			if k.defPolicy = marker(f.doc, "+kubebuilder:default="); k.defPolicy == "" {
				return nil, fmt.Errorf("%s.DeletionPolicy has no default: give it +kubebuilder:default=, so that the CRD stores it (docs/api.md)", spec.typ)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// marker is the value of the first of markers found in doc.
func marker(doc string, markers ...string) string {
	for _, m := range markers {
		for line := range strings.Lines(doc) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), m); ok {
				return v
			}
		}
	}
	return ""
}

func accessors(header string, kinds []kind) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n// Code generated by hack/kindgen. DO NOT EDIT.\n\npackage v1beta1\n\n", header)
	b.WriteString("import metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n")
	b.WriteString("// The accessors below let the shared reconcile loop treat every managed\n// kind alike (see Managed).\n\nvar (\n")
	for _, k := range kinds {
		if k.managed {
			fmt.Fprintf(&b, "\t_ Managed = &%s{}\n", k.name)
		}
	}
	b.WriteString(")\n")
	for _, k := range kinds {
		if k.conditions {
			fmt.Fprintf(&b, `
// GetConditions returns the status conditions.
func (in *%[1]s) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the status conditions.
func (in *%[1]s) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }
`, k.name)
		}
		if k.set {
			fmt.Fprintf(&b, `
// GetSetStatus returns the status block every set kind has.
func (in *%[1]s) GetSetStatus() *SetStatus { return &in.Status.SetStatus }
`, k.name)
		}
		if !k.managed {
			continue
		}
		policy := "in.Spec.DeletionPolicy"
		if k.policy != "DeletionPolicy" {
			policy = "DeletionPolicy(" + policy + ")"
		}
		fmt.Fprintf(&b, `
// GetManagedSpec returns the shared spec fields.
func (in *%[1]s) GetManagedSpec() *ManagedSpec { return &in.Spec.ManagedSpec }

// GetManagedStatus returns the shared status block.
func (in *%[1]s) GetManagedStatus() *ManagedStatus { return &in.Status.ManagedStatus }

// GetDeletionPolicy returns the deletion policy, %[3]s by default.
func (in *%[1]s) GetDeletionPolicy() DeletionPolicy {
	return effective(%[2]s, DeletionPolicy%[3]s)
}
`, k.name, policy, k.defPolicy)
	}
	return format.Source(b.Bytes())
}

// project is kubebuilder's PROJECT file (go/v3 layout) listing kinds.
func project(kinds []kind) []byte {
	var b bytes.Buffer
	b.WriteString("# kubebuilder project configuration (https://book.kubebuilder.io/reference/project-config.html).\n")
	b.WriteString("# Generated by `make generate` (hack/kindgen) from the kinds of api/v1beta1.\n")
	b.WriteString("domain: forgeops.dev\nlayout:\n- go.kubebuilder.io/v3\nprojectName: forge-operator\n")
	b.WriteString("repo: github.com/forgeops/forge-operator\nresources:\n")
	names := make([]string, 0, len(kinds))
	for _, k := range kinds {
		names = append(names, k.name)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, `- api:
    crdVersion: v1
    namespaced: true
  controller: true
  domain: forgeops.dev
  group: forge
  kind: %s
  path: %s
  version: v1beta1
`, n, apiPackage)
	}
	b.WriteString("version: \"3\"\n")
	return b.Bytes()
}
