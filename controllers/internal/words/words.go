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

// Package words holds the wording of the kinds' messages and Events: a
// message bounded to what a condition takes, a list bounded to ten
// entries, a noun in the number's grammar. It serves the kinds of package
// controllers and their shared pieces under controllers/internal; it
// imports none of them (only the forge client's bound on a message).
package words

import (
	"fmt"
	"strings"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Bound cuts s to forge.MaxMessage, marking the cut: conditions and
// Events stay small whatever a message gathers.
func Bound(s string) string {
	if len(s) <= forge.MaxMessage {
		return s
	}
	return strings.ToValidUTF8(s[:forge.MaxMessage-3], "") + "..."
}

// Plural is one when n is 1, else many: the number's grammar in Events
// and messages ("1 file", "2 files").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// BoundList joins at most ten entries, saying how many more there are.
func BoundList(items []string) string {
	const shown = 10
	if len(items) <= shown {
		return strings.Join(items, ", ")
	}
	return strings.Join(append(items[:shown:shown], fmt.Sprintf("and %d more", len(items)-shown)), ", ")
}
