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
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

func TestNormalizeColor(t *testing.T) {
	for in, want := range map[string]string{
		"#ABC":      "aabbcc",
		"abc":       "aabbcc",
		"#aBc":      "aabbcc",
		"#D73A4A":   "d73a4a",
		"d73a4a":    "d73a4a",
		" #00ff00 ": "00ff00",
		"#000":      "000000",
		"FFF":       "ffffff",
	} {
		if got := forge.NormalizeColor(in); got != want {
			t.Errorf("NormalizeColor(%q) = %q, want %q", in, got, want)
		}
	}
}
