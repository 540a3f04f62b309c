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

package child

import (
	"context"
	"errors"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// tagProtections is a declaration as a kind file writes one.
var tagProtections = Kind[*forgev1.TagProtection]{
	Noun:   "tag protection",
	Name:   func(t *forgev1.TagProtection) string { return string(t.Spec.NamePattern) },
	KeyTag: "tagprotection",
	Where:  func(t *forgev1.TagProtection) Place { return PlaceOf(&t.Spec.Repository, nil) },
	List:   &forgev1.TagProtectionList{},
}

func tagProtection(repo, pattern string) *forgev1.TagProtection {
	return &forgev1.TagProtection{Spec: forgev1.TagProtectionSpec{
		Repository: forgev1.RepositoryName(repo), NamePattern: forgev1.TagNamePattern(pattern)}}
}

// TestKindKeyAndMessages: two resources of one repository (its names in
// any case, as the forge compares them) and one name have one key, and
// so conflict; messages name the object and where it lives.
func TestKindKeyAndMessages(t *testing.T) {
	a, b := tagProtection("acme/web", "v*"), tagProtection("ACME/Web", "v*")
	if ka, kb := tagProtections.Key(a), tagProtections.Key(b); ka != kb || ka != "repo:acme/web|tagprotection:v*" {
		t.Errorf("keys %q and %q, want both repo:acme/web|tagprotection:v*", ka, kb)
	}
	if k := tagProtections.Key(tagProtection("acme/web", "release-*")); k == tagProtections.Key(a) {
		t.Errorf("another pattern has the same key %q", k)
	}
	if d := tagProtections.Describe(a); d != `tag protection "v*" in repository acme/web` {
		t.Errorf("Describe = %q", d)
	}
	of := tagProtections
	of.Of, of.Noun, of.Shown = true, "deploy key", func(*forgev1.TagProtection) string { return "ci" }
	if d := of.Describe(a); d != "deploy key ci of repository acme/web" {
		t.Errorf("Describe with Of and Shown = %q", d)
	}
	described := tagProtections
	described.DescribeOf = func(t *forgev1.TagProtection) string { return "the protection of " + string(t.Spec.Repository) }
	if d := described.Describe(a); d != "the protection of acme/web" {
		t.Errorf("Describe with DescribeOf = %q", d)
	}
	keyed := tagProtections
	keyed.KeyOf = func(*forgev1.TagProtection) string { return "runner-id:5" }
	if k := keyed.Key(a); k != "repo:acme/web|runner-id:5" {
		t.Errorf("Key with KeyOf = %q", k)
	}
	nameless := tagProtections
	nameless.Name = nil
	if k := nameless.Key(a); k != "" {
		t.Errorf("a kind without a natural name has key %q, want none", k)
	}
	if _, ok := tagProtections.NewList().(*forgev1.TagProtectionList); !ok || tagProtections.New() == nil {
		t.Error("New and NewList do not make the kind's objects")
	}
}

// TestKindWaitsForItsRepository: an object of a repository waits for its
// Repository and takes its token scope; one of an organization waits for
// none; a kind that is not resident waits for its own object instead;
// one kept elsewhere waits for its Repository before a write too.
func TestKindWaitsForItsRepository(t *testing.T) {
	obj := tagProtection("acme/web", "v*")
	if refs := tagProtections.RepoRefs(obj); len(refs) != 1 || refs[0] != "acme/web" {
		t.Errorf("RepoRefs = %v, want [acme/web]", refs)
	}
	if s := tagProtections.WriteScopes(obj, nil, true); len(s) != 1 || s[0] != forge.ScopeWriteRepository {
		t.Errorf("WriteScopes = %v, want [%s]", s, forge.ScopeWriteRepository)
	}
	notResident := tagProtections
	notResident.NotResident = true
	if refs := notResident.RepoRefs(obj); refs != nil {
		t.Errorf("RepoRefs of a kind not resident = %v, want none", refs)
	}
	if err := notResident.BeforeWrite(context.Background(), obj, nil); err != nil {
		t.Errorf("BeforeWrite of a kind not resident = %v, want nothing checked", err)
	}
	if !tagProtections.LivesInRepository() {
		t.Error("a repository's child reads its repository before it writes: want LivesInRepository")
	}
	kept := tagProtections
	kept.KeptElsewhere = true
	if kept.LivesInRepository() {
		t.Error("a kind kept elsewhere reads nothing in its repository: want the loop to wait for its Repository before the write")
	}
	if refs := kept.RepoRefs(obj); len(refs) != 1 || refs[0] != "acme/web" {
		t.Errorf("RepoRefs of a kind kept elsewhere = %v, want [acme/web]", refs)
	}
	org := forgev1.OwnerName("acme")
	if refs := PlaceOf(nil, &org).RepoRefs(); refs != nil {
		t.Errorf("RepoRefs of an organization = %v, want none", refs)
	}
}

// TestLookup: an object is found by its recorded id while the forge has
// it, adopted by name when it is gone, and several of one name stall
// Conflict with their ids; a missing repository is its parent's wait.
func TestLookup(t *testing.T) {
	type obj struct {
		id   int64
		name string
	}
	notFound := &forge.Error{Op: "get", Kind: forge.KindNotFound, StatusCode: 404}
	at := At{Place: Place{forge.Scope{Owner: "acme", Repo: "web"}}, What: `label "bug"`}
	lookup := func(byID map[int64]obj, listed []obj, listErr error) Lookup[obj] {
		return Lookup[obj]{
			Get: func(_ context.Context, id int64) (*obj, error) {
				if o, ok := byID[id]; ok {
					return &o, nil
				}
				return nil, notFound
			},
			List:    func(context.Context) ([]obj, error) { return listed, listErr },
			Named:   func(o obj) bool { return o.name == "bug" },
			IDOf:    func(o obj) int64 { return o.id },
			Several: `labels named "bug"`, Advice: "delete all but one",
		}
	}
	ctx := context.Background()
	if o, err := lookup(map[int64]obj{7: {7, "renamed"}}, nil, nil).Find(ctx, at, 7); err != nil || o == nil || o.id != 7 {
		t.Errorf("by recorded id: %v, %v; want id 7", o, err)
	}
	if o, err := lookup(nil, []obj{{3, "other"}, {9, "bug"}}, nil).Find(ctx, at, 7); err != nil || o == nil || o.id != 9 {
		t.Errorf("recorded id gone: %v, %v; want adopted id 9", o, err)
	}
	if o, err := lookup(nil, []obj{{3, "other"}}, nil).Find(ctx, at, 0); err != nil || o != nil {
		t.Errorf("none of the name: %v, %v; want none", o, err)
	}
	var re *reconciler.Error
	_, err := lookup(nil, []obj{{3, "bug"}, {4, "bug"}}, nil).Find(ctx, at, 0)
	if !errors.As(err, &re) || re.Reason != forgev1.ReasonConflict ||
		re.Message != `2 labels named "bug" exist in repository acme/web (ids 3, 4); delete all but one` {
		t.Errorf("several of the name: %v; want a Conflict naming their ids", err)
	}
	_, err = lookup(nil, nil, notFound).Find(ctx, at, 0)
	if !errors.As(err, &re) || re.Reason != forgev1.ReasonParentNotFound {
		t.Errorf("repository missing: %v; want ParentNotFound", err)
	}
}
