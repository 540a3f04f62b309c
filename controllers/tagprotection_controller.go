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
	"context"
	"fmt"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the TagProtection controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=tagprotections,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=tagprotections/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=tagprotections/finalizers,verbs=update

// tagProtectionKind manages one tag protection of a repository, adopted
// by its pattern (compared exactly, as the forge does). The forge keeps
// the pattern unique on create only (a PATCH may rename onto a taken one):
// adoption stalls with the ids when it finds several, rather than guess.
// The API came with Gitea 1.23: an older server stalls Unsupported, decided
// from its version before anything is read or written.
func tagProtectionKind() child.Kind[*forgev1.TagProtection] {
	return child.Kind[*forgev1.TagProtection]{
		Noun:   "tag protection",
		Name:   func(t *forgev1.TagProtection) string { return string(t.Spec.NamePattern) },
		KeyTag: "tagprotection",
		Where:  func(t *forgev1.TagProtection) child.Place { return child.PlaceOf(&t.Spec.Repository, nil) },
		Refs:   tagProtectionRefs,
		List:   &forgev1.TagProtectionList{},
		Gate:   forge.GateTagProtections,
		External: func(_ context.Context, t *forgev1.TagProtection, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			// A deletion on a forge without the API: nothing can have been
			// made there, let it go.
			return &tagProtection{obj: t, fc: pass.Forge, At: at, none: pass.Server.Lacks(forge.GateTagProtections)}, nil
		},
	}
}

// tagProtectionRefs are the users and teams (of its repository's owner)
// of a TagProtection's allow-lists.
func tagProtectionRefs(t *forgev1.TagProtection) []reconciler.Ref {
	return kinds.ListRefs(child.PlaceOf(&t.Spec.Repository, nil).Owner, t.Spec.WhitelistUsernames, t.Spec.WhitelistTeams)
}

type tagProtection struct {
	obj *forgev1.TagProtection
	fc  forge.Interface
	child.At
	found *forge.TagProtection
	// none: the forge has no tag protections (a deletion on such a forge).
	none bool
}

func (e *tagProtection) spec() forgev1.TagProtectionSpec { return e.obj.Spec }

func (e *tagProtection) Observe(ctx context.Context) (reconciler.Observation, error) {
	if e.none {
		return reconciler.Observation{}, nil
	}
	pattern := string(e.spec().NamePattern)
	t, err := child.Lookup[forge.TagProtection]{
		Get: func(ctx context.Context, id int64) (*forge.TagProtection, error) {
			return e.fc.GetTagProtection(ctx, e.Owner, e.Repo, id)
		},
		List: func(ctx context.Context) ([]forge.TagProtection, error) {
			return e.fc.ListTagProtections(ctx, e.Owner, e.Repo)
		},
		Named:   func(t forge.TagProtection) bool { return t.NamePattern == pattern },
		IDOf:    func(t forge.TagProtection) int64 { return t.ID },
		Several: fmt.Sprintf("tag protections of pattern %q", pattern),
		Advice:  "delete all but one on the forge so that one can be adopted",
	}.Find(ctx, e.At, e.obj.Status.ID)
	if err != nil || t == nil {
		return reconciler.Observation{}, err
	}
	return e.observed(t), nil
}

func (e *tagProtection) observed(t *forge.TagProtection) reconciler.Observation {
	e.found = t
	c := tagChanges(e.spec(), t)
	return reconciler.Observation{Exists: true, ID: t.ID, Diff: reconciler.Fields(c.changes), Changes: c.changes}
}

func (e *tagProtection) Create(ctx context.Context) (reconciler.Observation, error) {
	s := e.spec()
	opt := forge.CreateTagProtectionOption{NamePattern: string(s.NamePattern),
		WhitelistUsernames: namesOf(s.WhitelistUsernames), WhitelistTeams: namesOf(s.WhitelistTeams)}
	t, err := e.fc.CreateTagProtection(ctx, e.Owner, e.Repo, opt)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	// What the forge did not show is Rejected; the loop still records the
	// protection made.
	return reconciler.Observation{Exists: true, ID: t.ID}, e.readBack(t)
}

func (e *tagProtection) Update(ctx context.Context, obs reconciler.Observation) error {
	c := tagChanges(e.spec(), e.found)
	if len(c.changes) == 0 {
		return nil
	}
	t, err := e.fc.EditTagProtection(ctx, e.Owner, e.Repo, obs.ID, c.opt)
	if err != nil {
		return err
	}
	return e.readBack(t)
}

func (e *tagProtection) Delete(ctx context.Context, obs reconciler.Observation) error {
	err := e.fc.DeleteTagProtection(ctx, e.Owner, e.Repo, obs.ID)
	if forge.IsNotFound(err) {
		return nil
	}
	return err
}

// readBack compares the forge's answer to a write with the spec. The forge
// keeps every name it resolved but shows only those with access to the
// repository, and a user's repository has no teams: writing again would
// not help, so what differs is Rejected, naming it.
func (e *tagProtection) readBack(t *forge.TagProtection) error {
	c := tagChanges(e.spec(), t)
	if len(c.changes) == 0 {
		return nil
	}
	return reconciler.Stall(forgev1.ReasonRejected,
		"the forge did not apply %s to tag protection %q in %s/%s (it shows %s); it shows only users with read access "+
			"to the repository's pull requests and teams of the repository's organization with read access to its code or pull requests",
		strings.Join(reconciler.Fields(c.changes), ", "), t.NamePattern, e.Owner, e.Repo, haveOf(c.changes))
}

type tagProtectionChanges struct {
	opt     forge.EditTagProtectionOption
	changes []reconciler.Change
}

// tagChanges compares the pattern (the forge lets a PATCH rename the
// protection this resource holds by id) and the lists the spec sets (nil:
// not managed) with the forge's, the lists as sets of names without case;
// only what differs is sent.
func tagChanges(s forgev1.TagProtectionSpec, t *forge.TagProtection) tagProtectionChanges {
	var c tagProtectionChanges
	if pattern := string(s.NamePattern); pattern != t.NamePattern {
		c.opt.NamePattern = &pattern
		c.changes = append(c.changes, compare.Change("namePattern", t.NamePattern, pattern))
	}
	diff := func(field string, want, have []string, dst **[]string) {
		if want == nil || compare.SameSet(want, have, true) {
			return
		}
		*dst = &want
		c.changes = append(c.changes, compare.Change(field, sortedCopy(have), sortedCopy(want)))
	}
	diff("whitelistUsernames", namesOf(s.WhitelistUsernames), t.WhitelistUsernames, &c.opt.WhitelistUsernames)
	diff("whitelistTeams", namesOf(s.WhitelistTeams), t.WhitelistTeams, &c.opt.WhitelistTeams)
	slices.SortFunc(c.changes, compare.ByField)
	return c
}

// namesOf reads a list of names of any string type; nil stays nil (not managed).
func namesOf[S ~string](l []S) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, n := range l {
		out[i] = string(n)
	}
	return out
}

// tagProtectionExport writes each live repository's tag protections, one
// TagProtection each, with both lists as the forge shows them (so that
// adoption writes nothing). A server without the API (Gitea before 1.23)
// has none to write. The forge may hold several of one pattern (a PATCH
// can rename onto a taken one): each is written, and said to stall.
var tagProtectionExport = export.ForLiveRepository(exportTagProtections)

// tagProtectionReader is what the tag protection export reads.
type tagProtectionReader interface {
	ListTagProtections(ctx context.Context, owner, repo string) ([]forge.TagProtection, error)
}

func exportTagProtections(ctx context.Context, b *export.Builder, src tagProtectionReader, owner, repo string) error {
	all, err := src.ListTagProtections(ctx, owner, repo)
	if forge.IsRouteNotFound(err) {
		return nil
	}
	count := export.CountBy(all, func(t forge.TagProtection) string { return t.NamePattern })
	return export.EachByID(all, err, "tag protections of "+owner+"/"+repo, func(t forge.TagProtection) int64 { return t.ID }, func(t forge.TagProtection) {
		var comment []string
		if n := count[t.NamePattern]; n > 1 {
			comment = append(comment, fmt.Sprintf("The forge holds %d tag protections of pattern %q in %s/%s: this one "+
				"stalls (Conflict) until all but one are deleted on the forge.", n, t.NamePattern, owner, repo))
		}
		b.Add(&forgev1.TagProtection{
			TypeMeta:   export.TypeMeta("TagProtection"),
			ObjectMeta: b.Meta("TagProtection", fmt.Sprintf("%s-%s-tags-%d", owner, repo, t.ID), t.ID),
			Spec: forgev1.TagProtectionSpec{
				ManagedSpec:        b.Managed(),
				DeletionPolicy:     forgev1.DeletionPolicyOrphan,
				Repository:         forgev1.RepositoryName(owner + "/" + repo),
				NamePattern:        forgev1.TagNamePattern(t.NamePattern),
				WhitelistUsernames: export.AsNames[forgev1.UserName](t.WhitelistUsernames),
				WhitelistTeams:     export.AsNames[forgev1.TeamName](t.WhitelistTeams),
			},
		}, comment...)
	})
}
