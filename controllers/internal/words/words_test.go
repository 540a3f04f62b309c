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

package words

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// A message longer than a condition takes is cut, marked and valid UTF-8;
// a short one is left as it is.
func TestBound(t *testing.T) {
	if got := Bound("short"); got != "short" {
		t.Errorf("Bound(short) = %q", got)
	}
	long := strings.Repeat("é", forge.MaxMessage) // two bytes each: a cut may fall inside one
	got := Bound(long)
	if len(got) > forge.MaxMessage || !strings.HasSuffix(got, "...") || !strings.HasPrefix(long, strings.TrimSuffix(got, "...")) {
		t.Errorf("Bound of %d bytes = %d bytes ending %q", len(long), len(got), got[len(got)-5:])
	}
}

// A list of more than ten shows ten and says how many more; the number's
// grammar picks the noun.
func TestBoundListAndPlural(t *testing.T) {
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprint(i))
	}
	if got, want := BoundList(items), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, and 2 more"; got != want {
		t.Errorf("BoundList = %q, want %q", got, want)
	}
	if got := BoundList(items[:2]); got != "0, 1" {
		t.Errorf("BoundList of two = %q", got)
	}
	for n, want := range map[int]string{0: "files", 1: "file", 2: "files"} {
		if got := Plural(n, "file", "files"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
