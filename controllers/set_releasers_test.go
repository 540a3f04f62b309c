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
	"testing"

	"github.com/forgeops/forge-operator/controllers/internal/sets"
)

// The Event Released says what each kind's releaser removed in that
// kind's own words, in the number's grammar.
func TestReleasedNoteNamesEachKindsObjects(t *testing.T) {
	for _, c := range []struct {
		rel      sets.Releaser
		one, two string
	}{
		{&fileSet{}, "deleted 1 file of the set", "deleted 2 files of the set"},
		{&repositorySet{}, "took back 1 team access the set gave; settings and topics stay", "took back 2 team accesses the set gave; settings and topics stay"},
	} {
		if got := c.rel.RemovedNote(1); got != c.one {
			t.Errorf("RemovedNote(1) = %q, want %q", got, c.one)
		}
		if got := c.rel.RemovedNote(2); got != c.two {
			t.Errorf("RemovedNote(2) = %q, want %q", got, c.two)
		}
	}
}

// A deleted RepositorySet's Event says what a release says (above),
// counting the teams too.
func TestRepositorySetTookBackWords(t *testing.T) {
	if got, want := tookBack(2, "1 team"), "took back 2 team accesses the set gave (1 team); settings and topics stay"; got != want {
		t.Errorf("tookBack = %q, want %q", got, want)
	}
}
