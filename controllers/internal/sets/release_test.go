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

package sets

import (
	"context"
	"fmt"
	"slices"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/words"
)

// The record of a set's repositories reads back as written, stays small
// for thousands of repositories, and one that does not read back is none.
func TestMatchedRecord(t *testing.T) {
	var ids []int64
	for i := range int64(2000) {
		ids = append(ids, 5000+i*37) // 2000 repositories among 74,000
	}
	m := encodeMatched(ids)
	if m == nil || m.Count != 2000 {
		t.Fatalf("encodeMatched = %+v", m)
	}
	if len(m.IDs) > 3*2000+8 {
		t.Errorf("2000 repositories take %d bytes, want about three each", len(m.IDs))
	}
	got, ok := decodeMatched(m)
	if !ok || !slices.Equal(got, ids) {
		t.Fatalf("decodeMatched = %v, %v", got[:min(len(got), 5)], ok)
	}
	if _, ok := decodeMatched(nil); ok {
		t.Error("no record read as one")
	}
	if got, ok := decodeMatched(encodeMatched(nil)); !ok || len(got) != 0 {
		t.Errorf("an empty record = %v, %v; want an empty one", got, ok)
	}
	for _, bad := range []forgev1.MatchedRepositories{
		{Count: 3, IDs: "1,2"}, {Count: 2, IDs: "1,0"}, {Count: 2, IDs: "1,-2"}, {Count: 1, IDs: "#"}, {Count: 1},
	} {
		if _, ok := decodeMatched(&bad); ok {
			t.Errorf("%+v read as a record", bad)
		}
	}
}

// A pass without write, one with no record yet and one whose listing was
// partial release nothing: the first two leave or start the record, the
// last keeps every repository the record held.
func TestReleaseLeftNeedsARecordAndAWholeListing(t *testing.T) {
	matched := []Repo{{Owner: "acme", Name: "web", ID: 1}}
	rs := &Set{obj: &forgev1.LabelSet{Spec: forgev1.LabelSetSpec{DeletionPolicy: forgev1.DeletionPolicyDelete}}}
	var st forgev1.SetStatus
	if note, fs, err := rs.releaseLeft(context.Background(), false, &st, matched, nil); note != "" || fs != nil || err != nil || st.Matched != nil {
		t.Errorf("without write: %q %v %v, record %+v", note, fs, err, st.Matched)
	}
	if note, _, _ := rs.releaseLeft(context.Background(), true, &st, matched, nil); note != "" {
		t.Errorf("first pass released: %q", note)
	}
	if got, ok := decodeMatched(st.Matched); !ok || !slices.Equal(got, []int64{1}) {
		t.Errorf("first pass recorded %v, %v", got, ok)
	}
	st.Matched = encodeMatched([]int64{1, 2, 3})
	rs.partial = true
	if note, _, _ := rs.releaseLeft(context.Background(), true, &st, []Repo{{ID: 1}, {ID: 4}}, nil); note != "" {
		t.Errorf("partial listing released: %q", note)
	}
	if got, _ := decodeMatched(st.Matched); !slices.Equal(got, []int64{1, 2, 3, 4}) {
		t.Errorf("partial listing recorded %v, want the record and the matched", got)
	}
}

// The Event Released counts what the set's releaser removed in the
// releaser's own words (those of a Removal: the set's objects deleted), in
// the number's grammar; under Orphan it names the set's objects.
func TestReleasedNoteNamesEachKindsObjects(t *testing.T) {
	one := releases{names: []string{"acme/api"}, deleted: 1}
	two := releases{names: []string{"acme/api"}, deleted: 2}
	for _, c := range []struct {
		rs       Set
		one, two string
	}{
		{Set{noun: "label", nouns: "labels", Release: Removal[string]{Noun: "label", Nouns: "labels"}}, "deleted 1 label of the set", "deleted 2 labels of the set"},
		{Set{noun: "rule", nouns: "rules", Release: Removal[string]{Noun: "rule", Nouns: "rules"}}, "deleted 1 rule of the set", "deleted 2 rules of the set"},
		{Set{noun: "file", nouns: "files"}, "deleted 1 file of the set", "deleted 2 files of the set"},
		{Set{noun: "setting", nouns: "settings", Release: ownWords{}}, "took back 1 grant", "took back 2 grants"},
	} {
		if got, want := one.note(forgev1.DeletionPolicyDelete, &c.rs), "released acme/api; "+c.one; got != want {
			t.Errorf("note = %q, want %q", got, want)
		}
		if got, want := two.note(forgev1.DeletionPolicyDelete, &c.rs), "released acme/api; "+c.two; got != want {
			t.Errorf("note = %q, want %q", got, want)
		}
		if got, want := one.note(forgev1.DeletionPolicyOrphan, &c.rs), "released acme/api; deletionPolicy Orphan: the "+c.rs.nouns+" the set wrote there stay"; got != want {
			t.Errorf("note = %q, want %q", got, want)
		}
	}
}

// ownWords is a releaser that says in its own words what it removed.
type ownWords struct{ Releaser }

func (ownWords) RemovedNote(n int) string {
	return fmt.Sprintf("took back %d %s", n, words.Plural(n, "grant", "grants"))
}
