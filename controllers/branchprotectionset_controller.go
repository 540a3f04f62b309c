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
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// branchProtectionSetKind applies one rule list to many repositories: a
// set kind of the loop on the set machinery LabelSet runs on (package sets).
// Each pass lists the repositories, then each repository's rules once, and
// writes only what differs.
type branchProtectionSetKind struct {
	kinds.Base[forgev1.BranchProtectionSet, forgev1.BranchProtectionSetList]
	*rounds.Store[sets.Repo] // forgets the round of a set that is gone
}

// References of a BranchProtectionSet: the users and teams of every
// allow-list of its rules, the teams of each owner it selects from (an
// organization, or the owners of the repositories it names).
func (branchProtectionSetKind) References(s *forgev1.BranchProtectionSet) []reconciler.Ref {
	var owners []string
	if org := s.Spec.Repositories.Organization; org != nil {
		owners = []string{string(*org)}
	}
	for _, n := range s.Spec.Repositories.Names {
		owner, _, _ := strings.Cut(string(n), "/")
		if !slices.Contains(owners, owner) {
			owners = append(owners, owner)
		}
	}
	var out []reconciler.Ref
	for _, owner := range owners {
		for i := range s.Spec.Rules {
			out = append(out, kinds.RuleRefs(owner, &s.Spec.Rules[i])...)
		}
	}
	return out
}

func (branchProtectionSetKind) WriteScopes(*forgev1.BranchProtectionSet, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteRepository}
}

func (branchProtectionSetKind) Key(*forgev1.BranchProtectionSet) string { return "" }
func (branchProtectionSetKind) Describe(*forgev1.BranchProtectionSet) string {
	return "the branch protection rules of the set"
}
func (branchProtectionSetKind) Connect(context.Context, *forgev1.BranchProtectionSet, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a BranchProtectionSet is synced as a set")
}

func (k branchProtectionSetKind) ConnectSet(_ context.Context, s *forgev1.BranchProtectionSet, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	return &branchProtectionSet{obj: s, Set: sets.New(s, s.Spec.Repositories, pass, k.Store, "rule", "rules")}, nil
}

type branchProtectionSet struct {
	sets.Set
	obj *forgev1.BranchProtectionSet
}

func (e *branchProtectionSet) Sync(ctx context.Context, write bool) (reconciler.SetResult, error) {
	claims, err := e.claims(ctx)
	if err != nil {
		return reconciler.SetResult{}, err
	}
	e.Release = e.removal(claims)
	return e.Run(ctx, write, &e.obj.Status.SetStatus, func(ctx context.Context, r sets.Repo) *sets.Outcome {
		return e.syncRepo(ctx, r, claims, write)
	})
}

// claims lists the other resources that manage rules on the same forge
// server: BranchProtections (always in charge of their rule) and older
// BranchProtectionSets.
func (e *branchProtectionSet) claims(ctx context.Context) ([]claim, error) {
	servers, err := claims.ServersOf(ctx, e.Cache, e.obj)
	if err != nil {
		return nil, err
	}
	var out []claim
	for _, in := range servers.Lists() {
		var rules forgev1.BranchProtectionList
		if err := e.Cache.List(ctx, &rules, in...); err != nil {
			return nil, fmt.Errorf("list BranchProtections: %w", err)
		}
		for _, b := range rules.Items {
			// It holds the rule its status recorded reading or writing
			// (status.externalName), by that name; under the set's own
			// Forge, before it recorded one, its spec's.
			if !servers.HoldsOver(ctx, &b) {
				continue
			}
			name := b.Status.ExternalName
			if name == "" {
				name = string(b.Spec.RuleName)
			}
			target := string(b.Spec.Repository)
			out = append(out, claim{who: claims.HolderFor(e.obj.Namespace, "BranchProtection", &b), older: true,
				names:   map[string]bool{name: true},
				matches: func(r sets.Repo) bool { return strings.EqualFold(r.String(), target) }})
		}
		var others forgev1.BranchProtectionSetList
		if err := e.Cache.List(ctx, &others, in...); err != nil {
			return nil, fmt.Errorf("list BranchProtectionSets: %w", err)
		}
		for i := range others.Items {
			s := &others.Items[i]
			// Another set holds only where its record says it applied.
			if s.UID == e.obj.UID || !servers.HoldsOver(ctx, s) {
				continue
			}
			names := map[string]bool{}
			for _, r := range s.Spec.Rules {
				names[string(r.RuleName)] = true
			}
			out = append(out, claim{who: claims.HolderFor(e.obj.Namespace, "BranchProtectionSet", s), older: claims.Older(s, e.obj), names: names,
				matches: setWhere(servers, s, s.Spec.Repositories)})
		}
	}
	return out, nil
}

// syncRepo brings one repository's rules to the spec (or, without write,
// only says what differs), from one listing of its rules.
func (e *branchProtectionSet) syncRepo(ctx context.Context, r sets.Repo, claims []claim, write bool) *sets.Outcome {
	o := &sets.Outcome{}
	all, err := e.Forge.ListBranchProtections(ctx, r.Owner, r.Name)
	if err != nil {
		o.FailErr(reconciler.ParentMissing(err, "repository "+r.String()))
		return o
	}
	listed := map[string]bool{}
	for i := range e.obj.Spec.Rules {
		if o.Yielded != nil {
			return o
		}
		spec := &e.obj.Spec.Rules[i]
		name := string(spec.RuleName)
		listed[name] = true
		if who := claimedBy(claims, r, true, name); who != "" {
			o.Fail(forgev1.ReasonConflict, true, "rule %q is managed by %s", name, who)
			continue
		}
		have := findRule(all, name)
		if have == nil {
			o.Diffs = append(o.Diffs, fmt.Sprintf("create %q", name))
			if write {
				if err := createRule(ctx, e.Forge, r.Owner, r.Name, spec); err != nil {
					o.FailErr(err)
				} else {
					o.Created++
				}
			}
			continue
		}
		d := ruleDiff(spec, have)
		if len(d.changes) == 0 {
			continue
		}
		o.Diffs = append(o.Diffs, fmt.Sprintf("update %q (%s)", name, strings.Join(reconciler.Fields(d.changes), ", ")))
		if write {
			if err := editRule(ctx, e.Forge, r.Owner, r.Name, spec, have); err != nil {
				o.FailErr(err)
			} else {
				o.Updated++
			}
		}
	}
	if e.obj.GetMode() == forgev1.SetModeAuthoritative && o.Yielded == nil {
		sets.DeleteUnlisted(ctx, e.Forge, o, all, sets.Unlisted[forge.BranchProtection]{
			Report: e.obj.Spec.Removals.Reports(), Kind: "BranchProtection",
			Keep: func(b forge.BranchProtection) bool {
				return listed[b.RuleName] || claimedBy(claims, r, false, b.RuleName) != ""
			},
			Relist: func(ctx context.Context, fresh forge.Interface) ([]forge.BranchProtection, error) {
				return fresh.ListBranchProtections(ctx, r.Owner, r.Name)
			},
			Name: func(b forge.BranchProtection) string { return b.RuleName },
			Del: func(ctx context.Context, b forge.BranchProtection) error {
				return e.Forge.DeleteBranchProtection(ctx, r.Owner, r.Name, b.RuleName)
			},
			Max: e.obj.GetMaxDeletionsPerRepository(), Nouns: "rules",
		}, write)
	}
	return o
}

// Remove deletes, in every matched repository, the rules the spec lists,
// leaving rules another resource manages.
func (e *branchProtectionSet) Remove(ctx context.Context) (string, error) {
	claims, err := e.claims(ctx)
	if err != nil {
		return "", err
	}
	rm := e.removal(claims)
	return sets.RemoveListed(ctx, &e.Set, rm.Max, rm.Doomed, rm.Del)
}

// removal is what deleting the set removes from one repository, and what
// releasing a repository removes there (deletionPolicy Delete): the rules
// the spec lists that no other resource holds.
func (e *branchProtectionSet) removal(claims []claim) sets.Removal[string] {
	return sets.Removal[string]{Max: e.obj.GetMaxDeletionsPerRepository(), Noun: "rule", Nouns: "rules",
		Doomed: func(ctx context.Context, fresh forge.Interface, r sets.Repo) ([]string, error) {
			all, err := fresh.ListBranchProtections(ctx, r.Owner, r.Name)
			var out []string
			for _, spec := range e.obj.Spec.Rules {
				name := string(spec.RuleName)
				if findRule(all, name) != nil && claimedBy(claims, r, false, name) == "" {
					out = append(out, name)
				}
			}
			return out, err
		},
		Del: func(ctx context.Context, r sets.Repo, name string) error {
			return e.Forge.DeleteBranchProtection(ctx, r.Owner, r.Name, name)
		}}
}

// ClaimKinds: a BranchProtectionSet yields to the BranchProtections and
// the other sets that hold a rule it would manage (plan reads them among
// the planned objects).
func (branchProtectionSetKind) ClaimKinds() []client.Object {
	return []client.Object{&forgev1.BranchProtection{}, &forgev1.BranchProtectionSet{}}
}

func (branchProtectionSetKind) RepoRefs(s *forgev1.BranchProtectionSet) []string {
	return sets.RepoRefs(s.Spec.Repositories)
}

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it (as LabelSet's).
func (branchProtectionSetKind) SelectsRepository(s *forgev1.BranchProtectionSet, owner, name string) bool {
	return sets.Selects(s.Spec.Repositories, owner, name)
}
