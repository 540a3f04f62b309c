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
	"maps"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the RepositorySet controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositorysets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositorysets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositorysets/finalizers,verbs=update

// repositorySetKind applies repository settings, topics and team access to
// many repositories: a set kind on the machinery LabelSet runs on
// (package sets). At rest a pass reads the organization's repository
// listing (which carries every setting and the topics: the contract suite
// checks it on each release), the organization's team listing, and one
// listing of each team's repositories; it reads nothing per repository and
// writes nothing.
type repositorySetKind struct {
	kinds.Base[forgev1.RepositorySet, forgev1.RepositorySetList]
	*rounds.Store[sets.Repo] // forgets the round of a set that is gone
}

func (repositorySetKind) Key(*forgev1.RepositorySet) string { return "" }
func (repositorySetKind) Describe(*forgev1.RepositorySet) string {
	return "the repository settings, topics and team access of the set"
}
func (repositorySetKind) Connect(context.Context, *forgev1.RepositorySet, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a RepositorySet is synced as a set")
}

func (k repositorySetKind) ConnectSet(_ context.Context, s *forgev1.RepositorySet, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	return &repositorySet{obj: s, Set: sets.New(s, s.Spec.Repositories, pass, k.Store, "setting", "settings")}, nil
}

// repositorySet is one pass of a RepositorySet.
type repositorySet struct {
	sets.Set
	obj *forgev1.RepositorySet

	// holds are the other resources that set what the set would (read
	// once per pass).
	holds repoSetHolds
	// listings are the owners' repository listings, by owner (lower case).
	listings map[string][]forge.Repository
	// teams are the organizations' teams by organization (lower case),
	// nil where the owner has none (a user); teamRepos the repositories of
	// a team, by team id, each listed once per pass (never a kept listing:
	// removals decide on them).
	teams     map[string][]forge.Team
	teamRepos map[int64][]forge.Repository
	// tookFrom are the teams a deletion took access back from.
	tookFrom map[int64]bool
}

func (e *repositorySet) Sync(ctx context.Context, write bool) (reconciler.SetResult, error) {
	holds, err := e.readHolds(ctx)
	if err != nil {
		return reconciler.SetResult{}, err
	}
	e.holds = holds
	e.listings, e.teams, e.teamRepos = map[string][]forge.Repository{}, map[string][]forge.Team{}, map[int64][]forge.Repository{}
	e.Release = e
	res, err := e.Run(ctx, write, &e.obj.Status.SetStatus, func(ctx context.Context, r sets.Repo) *sets.Outcome {
		return e.syncRepo(ctx, r, write)
	})
	if err != nil {
		return res, err
	}
	e.tidyGrants()
	return res, nil
}

// syncRepo brings one repository to the spec (or, without write, says
// what differs): its settings, from the owner's listing; its topics; the
// access of each listed team; then takes back the access it gave teams no
// longer listed.
func (e *repositorySet) syncRepo(ctx context.Context, r sets.Repo, write bool) *sets.Outcome {
	o := &sets.Outcome{}
	found, err := e.listed(ctx, r)
	if err != nil {
		o.FailErr(reconciler.ParentMissing(err, "repository "+r.String()))
		return o
	}
	if found == nil {
		o.Fail(forgev1.ReasonParentNotFound, false, "repository %s not found on the forge; waiting for it to exist", r)
		return o
	}
	// Topics as the listing has them: with them, another set's selector
	// decides whether it holds here.
	r.Topics, r.TopicsRead = found.Topics, true
	held := e.leaveHeld(o, r.Owner, found)
	e.syncSettings(ctx, o, r, found, held, write)
	if o.Yielded != nil || o.Cut {
		return o
	}
	e.syncTopics(ctx, o, r, found, held, write)
	if o.Yielded != nil || o.Cut {
		return o
	}
	e.syncTeams(ctx, o, r, found, write)
	if o.Yielded != nil || o.Cut {
		return o
	}
	switch e.obj.GetRemovals() {
	case forgev1.RemovalsApply:
		e.takeBackDropped(ctx, o, r, found.ID, write)
	case forgev1.RemovalsReport:
		e.reportDropped(ctx, o, found.ID)
	}
	return o
}

// leaveHeld is what Repository resources hold of the set's settings and
// topics in repository found of owner (their own win, without a failure), each left to
// its holder in o (status.yielded).
func (e *repositorySet) leaveHeld(o *sets.Outcome, owner string, found *forge.Repository) map[string]bool {
	if e.obj.Spec.Enforce {
		return map[string]bool{} // an enforced set's values win; the Repository leaves them
	}
	mine := settingValues(e.obj.Spec.Settings)
	if len(e.obj.Spec.Topics) > 0 {
		mine["topics"] = true
	}
	held := map[string]bool{}
	for f, who := range e.holds.heldFields(owner, found) {
		held[f] = true
		if _, ok := mine[f]; ok {
			o.LeaveTo(who, f)
		}
	}
	return held
}

// listed is repository r as its owner's listing (the one the set's
// repositories came from, cached for the interval) has it; for a user's
// repository, which no organization lists, one read.
func (e *repositorySet) listed(ctx context.Context, r sets.Repo) (*forge.Repository, error) {
	owner := strings.ToLower(r.Owner)
	all, ok := e.listings[owner]
	find := func() *forge.Repository {
		if i := slices.IndexFunc(all, func(x forge.Repository) bool { return strings.EqualFold(x.Name, r.Name) }); i >= 0 {
			return &all[i]
		}
		return nil
	}
	if ok {
		if f := find(); f != nil {
			return f, nil
		}
	}
	// First use, or listed again since (a repository made while the pass
	// ran): the cached listing, as the set's own read took it.
	all, err := e.Forge.ListOrgRepos(ctx, r.Owner)
	if forge.IsNotFound(err) {
		one, err := e.Forge.GetRepo(ctx, r.Owner, r.Name)
		if forge.IsNotFound(err) {
			return nil, nil
		}
		return one, err
	}
	if err != nil {
		return nil, err
	}
	e.listings[owner] = all
	return find(), nil
}

// syncSettings writes the settings that differ, in one edit: each the set
// sets, but those a Repository resource sets for r (its own win, without a
// word) and those an older set sets to another value (Conflict, naming it).
func (e *repositorySet) syncSettings(ctx context.Context, o *sets.Outcome, r sets.Repo, found *forge.Repository, held map[string]bool, write bool) {
	if e.obj.Spec.Settings == nil {
		return
	}
	want := settingValues(e.obj.Spec.Settings)
	drop := maps.Clone(held)
	byWho := map[string][]string{}
	var order []string
	for _, s := range e.holds.sets {
		if !s.older || !s.matches(r) {
			continue
		}
		for f, v := range s.values {
			mine, ok := want[f]
			if !ok || held[f] || drop[f] || reflect.DeepEqual(mine, v) {
				continue
			}
			drop[f] = true
			if _, seen := byWho[s.who]; !seen {
				order = append(order, s.who)
			}
			byWho[s.who] = append(byWho[s.who], f)
		}
	}
	for _, who := range order {
		fields := byWho[who]
		slices.Sort(fields)
		noun := "setting"
		if len(fields) > 1 {
			noun = "settings"
		}
		o.Fail(forgev1.ReasonConflict, true, "%s %s held by %s, an older set that sets otherwise", noun, strings.Join(fields, ", "), who)
	}
	effective := withoutFields(*e.obj.Spec.Settings, drop)
	fields := settingFields(&effective, found)
	opt, n := editOf(fields)
	if n == 0 {
		return
	}
	var names []string
	for _, f := range fields {
		if f.differs() {
			names = append(names, f.name)
		}
	}
	o.Diffs = append(o.Diffs, fmt.Sprintf("settings (%s)", strings.Join(names, ", ")))
	if !write {
		return
	}
	if _, err := e.Forge.EditRepo(ctx, r.Owner, found.Name, opt); err != nil {
		o.FailErr(err)
		return
	}
	o.Updated += n
}

// syncTopics adds the set's topics the repository lacks, keeping its
// others; a Repository resource listing r's topics holds them. The forge
// replaces the whole list on a write, so the topics are read afresh right
// before one (a topic added by hand since the listing stays).
func (e *repositorySet) syncTopics(ctx context.Context, o *sets.Outcome, r sets.Repo, found *forge.Repository, held map[string]bool, write bool) {
	if len(e.obj.Spec.Topics) == 0 || held["topics"] {
		return
	}
	missing := func(have []string) []string {
		var out []string
		for _, t := range e.obj.Spec.Topics {
			if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, string(t)) }) {
				out = append(out, string(t))
			}
		}
		return out
	}
	add := missing(found.Topics)
	if len(add) == 0 {
		return
	}
	o.Diffs = append(o.Diffs, fmt.Sprintf("topics (+%s)", strings.Join(add, ", +")))
	if !write {
		return
	}
	now, err := e.Forge.GetRepo(ctx, r.Owner, found.Name)
	if err != nil {
		o.FailErr(err)
		return
	}
	if add = missing(now.Topics); len(add) == 0 {
		return
	}
	if err := e.Forge.SetRepoTopics(ctx, r.Owner, found.Name, normalTopics(append(slices.Clone(now.Topics), add...))); err != nil {
		o.FailErr(err)
		return
	}
	o.Count("added", len(add), "topic", "topics")
}

// ClaimKinds: a Repository yields to a RepositorySet with enforce for the
// settings it sets (enforcedSettings).
func (repositoryKind) ClaimKinds() []client.Object {
	return []client.Object{&forgev1.RepositorySet{}}
}

// ClaimKinds: a RepositorySet yields to the Repositories that set a field
// it would, to older RepositorySets, and to Teams listing their
// repositories (plan reads them among the planned objects).
func (repositorySetKind) ClaimKinds() []client.Object {
	return []client.Object{&forgev1.Repository{}, &forgev1.RepositorySet{}, &forgev1.Team{}}
}

// References of a RepositorySet: its teams, in each owner it selects
// from, so that a set naming a team a Team resource is making waits for it.
func (repositorySetKind) References(s *forgev1.RepositorySet) []reconciler.Ref {
	var out []reconciler.Ref
	for _, owner := range selectorOwnerNames(s.Spec.Repositories) {
		for _, t := range s.Spec.Teams {
			out = append(out, kinds.TeamRef(owner, string(t)))
		}
	}
	return out
}

// selectorOwnerNames are the owners a selector picks from: its
// organization, or the owners of the repositories it names.
func selectorOwnerNames(sel forgev1.RepositorySelector) []string {
	if sel.Organization != nil {
		return []string{string(*sel.Organization)}
	}
	var out []string
	for _, n := range sel.Names {
		owner, _, _ := strings.Cut(string(n), "/")
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, owner) }) {
			out = append(out, owner)
		}
	}
	return out
}

func (repositorySetKind) RepoRefs(s *forgev1.RepositorySet) []string {
	return sets.RepoRefs(s.Spec.Repositories)
}

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it (as LabelSet's).
func (repositorySetKind) SelectsRepository(s *forgev1.RepositorySet, owner, name string) bool {
	return sets.Selects(s.Spec.Repositories, owner, name)
}

// WriteScopes of a RepositorySet: the repositories' settings and topics,
// and the teams' repositories (an organization route).
func (repositorySetKind) WriteScopes(s *forgev1.RepositorySet, _ *reconciler.Pass, _ bool) []string {
	out := []string{forge.ScopeWriteRepository}
	if len(s.Spec.Teams) > 0 || len(s.Status.TeamGrants) > 0 {
		out = append(out, forge.ScopeWriteOrganization)
	}
	return out
}

// repositorySetExport proposes (export --sets) one RepositorySet over the
// organization holding the settings every live repository of it already
// shares, each read from the organization's listing: applied, it writes
// nothing, and a repository made later gets them. A repository's own
// description and website are never policy.
var repositorySetExport = export.AggregateListed(exportRepositorySet)

func exportRepositorySet(b *export.Builder, org string, repos []forge.Repository) {
	if len(repos) == 0 {
		return
	}
	var shared map[string]any
	for i := range repos {
		values := settingValues(new(repositorySettingsOf(b.Server(), &repos[i])))
		if shared == nil {
			shared = values
			delete(shared, "description")
			delete(shared, "website")
			continue
		}
		for f, v := range shared {
			if w, ok := values[f]; !ok || !reflect.DeepEqual(v, w) {
				delete(shared, f)
			}
		}
	}
	if len(shared) == 0 {
		return
	}
	var settings forgev1.RepositorySettings
	v := reflect.ValueOf(&settings).Elem()
	for i := range v.NumField() {
		if val, ok := shared[jsonName(v.Type().Field(i))]; ok {
			p := reflect.New(v.Field(i).Type().Elem())
			p.Elem().Set(reflect.ValueOf(val))
			v.Field(i).Set(p)
		}
	}
	noun := words.Plural(len(repos), "repository holds", "repositories hold")
	b.Add(&forgev1.RepositorySet{
		TypeMeta:   export.TypeMeta("RepositorySet"),
		ObjectMeta: b.Meta("RepositorySet", org+"-shared-settings", int64(b.Len())),
		Spec: forgev1.RepositorySetSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Repositories:   forgev1.RepositorySelector{Organization: new(forgev1.OwnerName(org))},
			Settings:       &settings,
		},
	}, fmt.Sprintf("The settings each of the %d live %s alike: applied, the set writes nothing, and a repository made later gets them.", len(repos), noun))
}
