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

package v1beta1_test

import (
	"errors"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// kindCases are a kind's admission, immutability and defaults cases, kept
// in the kind's own test file (<kind>_admission_test.go) and registered
// with registerKind, so a new kind adds no row to the shared tables.
type kindCases struct {
	// accepted are rows of "accepts valid objects": Entry(name, u).
	accepted []TableEntry
	// rejected are rows of "rejects an invalid object": Entry(name, u, field).
	rejected []TableEntry
	// immutable are rows of "refuses a change": Entry(name, u, change, field).
	immutable []TableEntry
	// mutable are rows of "allows changes to mutable fields": Entry(name, u, change).
	mutable []TableEntry
	// defaults are specs of "defaults".
	defaults []kindDefault
}

// kindDefault is one defaults spec: check creates an object with storedAs
// and checks what the API server filled in.
type kindDefault struct {
	name  string
	check func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object))
}

// registeredCases are the kinds' cases, made when the spec tree is built
// (after every base is registered, which obj needs).
var registeredCases []func() kindCases

// registerKind adds a kind's base object (as in bases) and its cases; call
// it only from a package-level var.
func registerKind(kind, base string, cases func() kindCases) bool {
	if _, dup := bases[kind]; dup {
		panic("two base objects for " + kind)
	}
	bases[kind] = base
	registeredCases = append(registeredCases, cases)
	return true
}

// kindRows are the registered kinds' rows, each table's as arguments after
// its own rows.
func kindRows() (accepted, rejected, immutable, mutable []any, defaults []kindDefault) {
	for _, cases := range registeredCases {
		c := cases()
		for _, e := range c.accepted {
			accepted = append(accepted, e)
		}
		for _, e := range c.rejected {
			rejected = append(rejected, e)
		}
		for _, e := range c.immutable {
			immutable = append(immutable, e)
		}
		for _, e := range c.mutable {
			mutable = append(mutable, e)
		}
		defaults = append(defaults, c.defaults...)
	}
	return accepted, rejected, immutable, mutable, defaults
}

// bases holds one valid object per kind: the least a user writes. Every
// test object is a base with a few edits, so that an invalid object has
// exactly the one defect its test names. Each kind's file registers its own
// (registerKind).
var bases = map[string]string{}

// edit changes one field of an object given as its JSON map.
type edit func(obj map[string]any)

// set puts v at the dotted path, creating the maps on the way.
func set(path string, v any) edit {
	return func(obj map[string]any) {
		if err := unstructured.SetNestedField(obj, v, strings.Split(path, ".")...); err != nil {
			panic(fmt.Sprintf("set %s: %v", path, err))
		}
	}
}

// unset removes the field at the dotted path.
func unset(path string) edit {
	return func(obj map[string]any) {
		unstructured.RemoveNestedField(obj, strings.Split(path, ".")...)
	}
}

// strs is a YAML list of strings.
func strs(s ...string) []any {
	l := make([]any, len(s))
	for i := range s {
		l[i] = s[i]
	}
	return l
}

// obj is a fresh copy of the base object of kind with edits applied.
func obj(kind string, edits ...edit) *unstructured.Unstructured {
	src, ok := bases[kind]
	if !ok {
		panic("no base object for kind " + kind)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(src), &u.Object); err != nil {
		panic(fmt.Sprintf("base %s: %v", kind, err))
	}
	for _, e := range edits {
		e(u.Object)
	}
	return u
}

// expectRejected asserts that the API server refused an object as invalid
// (422) and that the message, and every single cause in it, names field: a
// cause about another field would mean the test object has a second defect.
func expectRejected(err error, field string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), "the API server accepted the object")
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want 422 Invalid, got: %v", err)
	Expect(err.Error()).To(ContainSubstring(field))
	var status apierrors.APIStatus
	Expect(errors.As(err, &status)).To(BeTrue())
	Expect(status.Status().Details).NotTo(BeNil())
	var causes []string
	for _, c := range status.Status().Details.Causes {
		// When a schema error blocks the CEL rules, the server adds this
		// notice, about no field (shown as "<nil>"); it is no second defect.
		if strings.Contains(c.Message, "some validation rules were not checked") {
			continue
		}
		causes = append(causes, c.Field+": "+c.Message)
	}
	Expect(causes).NotTo(BeEmpty())
	for _, c := range causes {
		Expect(c).To(ContainSubstring(field),
			"every cause should be about %s (one defect per object); all of them: %v", field, err)
	}
}
