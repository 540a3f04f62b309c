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

// Package compare holds the helpers every kind's comparison uses: a
// differing field as plan shows it, the order of changes, optional spec
// fields and sets of names. It serves the kinds of package controllers
// and their shared pieces under controllers/internal; it imports only the
// loop's vocabulary (reconciler.Change).
package compare

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Change records one differing field for plan: strings quoted, lists as
// lists, the rest as Go prints them.
func Change(field string, have, want any) reconciler.Change {
	return reconciler.Change{Field: field, Have: Show(have), Want: Show(want)}
}

// Show is a value as plan shows it: strings quoted, lists as lists, the
// rest as Go prints them.
func Show(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// ShownSecret stands for a Secret-backed value in a Change: never printed.
const ShownSecret = "(secret)"

// SetIf copies *src into *dst when src is set.
func SetIf[V any](dst *V, src *V) {
	if src != nil {
		*dst = *src
	}
}

// ByField orders changes by field name.
func ByField(a, b reconciler.Change) int { return strings.Compare(a.Field, b.Field) }

// SameSet says whether a and b hold the same strings, in any order and,
// with fold, any case.
func SameSet(a, b []string, fold bool) bool {
	norm := func(s []string) []string {
		out := make([]string, 0, len(s))
		for _, x := range s {
			if fold {
				x = strings.ToLower(x)
			}
			out = append(out, x)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(norm(a), norm(b))
}

// String compares a string field the edit sends only when it differs:
// when want is not have, *dst is set to want and the change is added to
// *changes.
func String(changes *[]reconciler.Change, field, want, have string, dst **string) {
	if want != have {
		*dst, *changes = &want, append(*changes, Change(field, have, want))
	}
}
