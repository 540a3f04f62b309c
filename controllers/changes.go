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

package controllers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Helpers every kind's comparison uses.

// change records one differing field for plan: strings quoted, lists as
// lists, the rest as Go prints them.
func change(field string, have, want any) reconciler.Change {
	return reconciler.Change{Field: field, Have: show(have), Want: show(want)}
}

func show(v any) string {
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

// setIf copies *src into *dst when src is set.
func setIf[V any](dst *V, src *V) {
	if src != nil {
		*dst = *src
	}
}

// byField orders changes by field name.
func byField(a, b reconciler.Change) int { return strings.Compare(a.Field, b.Field) }
