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
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// RBAC of the RepositorySet controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositorysets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositorysets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositorysets/finalizers,verbs=update

// repositorySetKind applies repository settings, topics and team access to
// many repositories: a set kind on the machinery LabelSet runs on
// (repo_set.go). At rest a pass reads the organization's repository
// listing (which carries every setting and the topics: the contract suite
// checks it on each release), the organization's team listing, and one
// listing of each team's repositories; it reads nothing per repository and
// writes nothing.
type repositorySetKind struct {
	kindBase[forgev1.RepositorySet, forgev1.RepositorySetList]
	*rounds.Store[repo] // forgets the round of a set that is gone
}

func (repositorySetKind) Key(*forgev1.RepositorySet) string { return "" }
func (repositorySetKind) Describe(*forgev1.RepositorySet) string {
	return "the repository settings, topics and team access of the set"
}
func (repositorySetKind) Connect(context.Context, *forgev1.RepositorySet, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a RepositorySet is synced as a set")
}

func (k repositorySetKind) ConnectSet(_ context.Context, s *forgev1.RepositorySet, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	return &repositorySet{obj: s, repoSet: newRepoSet(s, s.Spec.Repositories, pass, k.Store, "setting", "settings")}, nil
}

// repositorySet is one pass of a RepositorySet.
type repositorySet struct {
	repoSet
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
	e.release = e
	res, err := e.sync(ctx, write, &e.obj.Status.SetStatus, func(ctx context.Context, r repo) *repoOutcome {
		return e.syncRepo(ctx, r, write)
	})
	if err != nil {
		return res, err
	}
	e.tidyGrants()
	return res, nil
}

// ---- who else sets what the set would ----

// repoSetHolds are the other resources of the set's server (every
// namespace, every Forge or ClusterForge pointing at it) that set what the
// set would: Repositories (their own settings and topics win for their
// repository), other RepositorySets (the older holds a field both set to
// different values) and Teams that list their repositories exactly.
type repoSetHolds struct {
	repositories []repositoryHold
	sets         []setHold
	teams        []teamHold
}

// repositoryHold is a Repository resource: the settings it sets (and
// "topics" when it lists its topics) in its repository, by name or by its
// recorded id.
type repositoryHold struct {
	fields       map[string]bool
	owner, name  string // "" when its connection sees nothing: its id alone holds
	id           int64
	resourceName string
}

func (h repositoryHold) holds(r repo, id int64) bool {
	return (h.id != 0 && h.id == id) || (h.name != "" && strings.EqualFold(h.owner, r.owner) && strings.EqualFold(h.name, r.name))
}

// setHold is another RepositorySet: the values it sets and the teams it
// gives access, where it applies.
type setHold struct {
	who     string
	older   bool
	values  map[string]any
	teams   map[string]bool // lower case
	matches func(r repo) bool
}

// teamHold is a Team resource that lists its repositories: it alone says
// which repositories its team has.
type teamHold struct {
	who       string
	org, team string          // lower case
	repos     map[string]bool // lower case
}

// readHolds lists what the other resources of the set's server hold.
func (e *repositorySet) readHolds(ctx context.Context) (repoSetHolds, error) {
	var out repoSetHolds
	servers, err := claims.ServersOf(ctx, e.cache, e.obj)
	if err != nil {
		return out, err
	}
	for _, in := range servers.Lists() {
		if err := e.repositoryHolds(ctx, servers, in, &out); err != nil {
			return out, err
		}
		if err := e.setHolds(ctx, servers, in, &out); err != nil {
			return out, err
		}
		if err := e.teamHolds(ctx, servers, in, &out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// repositoryHolds adds the Repositories that set a setting or their
// topics: by name, or only by their recorded id when their connection
// sees nothing.
func (e *repositorySet) repositoryHolds(ctx context.Context, servers *claims.Servers, in []client.ListOption, out *repoSetHolds) error {
	var repos forgev1.RepositoryList
	if err := e.cache.List(ctx, &repos, in...); err != nil {
		return fmt.Errorf("list Repositories: %w", err)
	}
	for i := range repos.Items {
		r := &repos.Items[i]
		if !r.DeletionTimestamp.IsZero() || !servers.Permitted(ctx, r) {
			continue
		}
		fields := map[string]bool{}
		for f := range settingValues(&r.Spec.RepositorySettings) {
			fields[f] = true
		}
		if r.Spec.Topics != nil {
			fields["topics"] = true
		}
		if len(fields) == 0 {
			continue
		}
		h := repositoryHold{fields: fields, id: r.Status.ID, resourceName: r.Name}
		if servers.Sees(r) {
			h.owner, h.name = string(r.Spec.Owner), r.RepoName()
		} else if h.id == 0 {
			continue // its connection sees nothing: it holds only what it recorded
		}
		out.repositories = append(out.repositories, h)
	}
	return nil
}

// setHolds adds the other RepositorySets: what they set and give.
func (e *repositorySet) setHolds(ctx context.Context, servers *claims.Servers, in []client.ListOption, out *repoSetHolds) error {
	var sets forgev1.RepositorySetList
	if err := e.cache.List(ctx, &sets, in...); err != nil {
		return fmt.Errorf("list RepositorySets: %w", err)
	}
	for i := range sets.Items {
		s := &sets.Items[i]
		// A set records no ids: one whose connection sees nothing holds nothing.
		if s.UID == e.obj.UID || !s.DeletionTimestamp.IsZero() || !servers.Permitted(ctx, s) || !servers.Sees(s) {
			continue
		}
		teams := map[string]bool{}
		for _, t := range s.Spec.Teams {
			teams[strings.ToLower(string(t))] = true
		}
		out.sets = append(out.sets, setHold{who: claims.HolderFor(e.obj.Namespace, "RepositorySet", s), older: claims.Older(s, e.obj),
			values: settingValues(s.Spec.Settings), teams: teams, matches: setMatches(s.Spec.Repositories)})
	}
	return nil
}

// teamHolds adds the Teams that list their repositories.
func (e *repositorySet) teamHolds(ctx context.Context, servers *claims.Servers, in []client.ListOption, out *repoSetHolds) error {
	var teams forgev1.TeamList
	if err := e.cache.List(ctx, &teams, in...); err != nil {
		return fmt.Errorf("list Teams: %w", err)
	}
	for i := range teams.Items {
		t := &teams.Items[i]
		if t.Spec.Repositories == nil || !t.DeletionTimestamp.IsZero() || !servers.Permitted(ctx, t) || !servers.Sees(t) {
			continue
		}
		h := teamHold{who: claims.HolderFor(e.obj.Namespace, "Team", t), org: strings.ToLower(string(t.Spec.Organization)),
			team: strings.ToLower(t.TeamName()), repos: map[string]bool{}}
		for _, r := range t.Spec.Repositories {
			h.repos[strings.ToLower(string(r))] = true
		}
		out.teams = append(out.teams, h)
	}
	return nil
}

// settingValues are the settings s sets, by their JSON names.
func settingValues(s *forgev1.RepositorySettings) map[string]any {
	out := map[string]any{}
	if s == nil {
		return out
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); !f.IsNil() {
			out[jsonName(v.Type().Field(i))] = f.Elem().Interface()
		}
	}
	return out
}

// withoutFields is s with the settings drop names unset.
func withoutFields(s forgev1.RepositorySettings, drop map[string]bool) forgev1.RepositorySettings {
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		if drop[jsonName(v.Type().Field(i))] {
			v.Field(i).SetZero()
		}
	}
	return s
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// heldFields are the fields a Repository resource holds in r (id: r's).
func (h repoSetHolds) heldFields(r repo, id int64) map[string]bool {
	out := map[string]bool{}
	for _, rh := range h.repositories {
		if rh.holds(r, id) {
			for f := range rh.fields {
				out[f] = true
			}
		}
	}
	return out
}

// wantsAccess names another resource that wants team (of org) to keep its
// access to r: a RepositorySet giving it, or a Team resource listing r.
func (h repoSetHolds) wantsAccess(r repo, org, team string) string {
	for _, s := range h.sets {
		if s.teams[strings.ToLower(team)] && s.matches(r) {
			return s.who
		}
	}
	for _, t := range h.teams {
		if t.org == strings.ToLower(org) && t.team == strings.ToLower(team) && t.repos[strings.ToLower(r.name)] {
			return t.who
		}
	}
	return ""
}

// teamListedBy is the Team resource that lists team's repositories exactly, if any.
func (h repoSetHolds) teamListedBy(org, team string) *teamHold {
	for i, t := range h.teams {
		if t.org == strings.ToLower(org) && t.team == strings.ToLower(team) {
			return &h.teams[i]
		}
	}
	return nil
}

// ---- one repository ----

// syncRepo brings one repository to the spec (or, without write, says
// what differs): its settings, from the owner's listing; its topics; the
// access of each listed team; then takes back the access it gave teams no
// longer listed.
func (e *repositorySet) syncRepo(ctx context.Context, r repo, write bool) *repoOutcome {
	o := &repoOutcome{}
	found, err := e.listed(ctx, r)
	if err != nil {
		o.failErr(reconciler.ParentMissing(err, "repository "+r.String()))
		return o
	}
	if found == nil {
		o.fail(forgev1.ReasonParentNotFound, false, "repository %s not found on the forge; waiting for it to exist", r)
		return o
	}
	// Topics as the listing has them: with them, another set's selector
	// decides whether it holds here.
	r.topics, r.topicsRead = found.Topics, true
	held := e.holds.heldFields(r, found.ID)
	e.syncSettings(ctx, o, r, found, held, write)
	if o.yielded != nil || o.cut {
		return o
	}
	e.syncTopics(ctx, o, r, found, held, write)
	if o.yielded != nil || o.cut {
		return o
	}
	e.syncTeams(ctx, o, r, found, write)
	if o.yielded != nil || o.cut {
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

// listed is repository r as its owner's listing (the one the set's
// repositories came from, cached for the interval) has it; for a user's
// repository, which no organization lists, one read.
func (e *repositorySet) listed(ctx context.Context, r repo) (*forge.Repository, error) {
	owner := strings.ToLower(r.owner)
	all, ok := e.listings[owner]
	find := func() *forge.Repository {
		if i := slices.IndexFunc(all, func(x forge.Repository) bool { return strings.EqualFold(x.Name, r.name) }); i >= 0 {
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
	all, err := e.fc.ListOrgRepos(ctx, r.owner)
	if forge.IsNotFound(err) {
		one, err := e.fc.GetRepo(ctx, r.owner, r.name)
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
func (e *repositorySet) syncSettings(ctx context.Context, o *repoOutcome, r repo, found *forge.Repository, held map[string]bool, write bool) {
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
		o.fail(forgev1.ReasonConflict, true, "%s %s held by %s, an older set that sets otherwise", noun, strings.Join(fields, ", "), who)
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
	o.diffs = append(o.diffs, fmt.Sprintf("settings (%s)", strings.Join(names, ", ")))
	if !write {
		return
	}
	if _, err := e.fc.EditRepo(ctx, r.owner, found.Name, opt); err != nil {
		o.failErr(err)
		return
	}
	o.updated += n
}

// syncTopics adds the set's topics the repository lacks, keeping its
// others; a Repository resource listing r's topics holds them. The forge
// replaces the whole list on a write, so the topics are read afresh right
// before one (a topic added by hand since the listing stays).
func (e *repositorySet) syncTopics(ctx context.Context, o *repoOutcome, r repo, found *forge.Repository, held map[string]bool, write bool) {
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
	o.diffs = append(o.diffs, fmt.Sprintf("topics (+%s)", strings.Join(add, ", +")))
	if !write {
		return
	}
	now, err := e.fc.GetRepo(ctx, r.owner, found.Name)
	if err != nil {
		o.failErr(err)
		return
	}
	if add = missing(now.Topics); len(add) == 0 {
		return
	}
	if err := e.fc.SetRepoTopics(ctx, r.owner, found.Name, normalTopics(append(slices.Clone(now.Topics), add...))); err != nil {
		o.failErr(err)
		return
	}
	o.updated++
}

// orgTeams are the teams of org (the cached listing of the pass); nil and
// no error when org is no organization.
func (e *repositorySet) orgTeams(ctx context.Context, org string) ([]forge.Team, error) {
	key := strings.ToLower(org)
	if ts, ok := e.teams[key]; ok {
		return ts, nil
	}
	ts, err := e.fc.ListTeams(ctx, org)
	if forge.IsNotFound(err) {
		ts, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	e.teams[key] = ts
	return ts, nil
}

// teamNamed finds team name among ts (the forge compares names without case).
func teamNamed(ts []forge.Team, name string) *forge.Team {
	for i := range ts {
		if strings.EqualFold(ts[i].Name, name) {
			return &ts[i]
		}
	}
	return nil
}

// reposOf lists team t's repositories once per pass, afresh: the listing
// is no snapshot, so the access the pass takes back is decided on a
// listing taken in the pass.
func (e *repositorySet) reposOf(ctx context.Context, id int64) ([]forge.Repository, error) {
	if rs, ok := e.teamRepos[id]; ok {
		return rs, nil
	}
	rs, err := e.fc.ListTeamRepos(ctx, id)
	if err != nil {
		return nil, err
	}
	e.teamRepos[id] = rs
	return rs, nil
}

// syncTeams gives each listed team access to r: a team the forge lacks is
// TeamNotFound (never made); a team with every repository needs nothing;
// a Team resource listing its team's repositories says which it has (the
// set lists the repository it leaves out as a Conflict, never fighting
// it). Access given is recorded in status.teamGrants once the forge gave
// it: the record is the only access the set ever takes back.
func (e *repositorySet) syncTeams(ctx context.Context, o *repoOutcome, r repo, found *forge.Repository, write bool) {
	if len(e.obj.Spec.Teams) == 0 {
		return
	}
	ts, err := e.orgTeams(ctx, r.owner)
	if err != nil {
		o.failErr(err)
		return
	}
	if ts == nil {
		o.fail(forgev1.ReasonRejected, true, "%s is not an organization's repository: teams are given access only to an organization's", r)
		return
	}
	for _, name := range e.obj.Spec.Teams {
		t := teamNamed(ts, string(name))
		if t == nil {
			o.fail(forgev1.ReasonTeamNotFound, false, "team %q not found in organization %s: the set gives access only to a team that exists", name, r.owner)
			continue
		}
		if t.IncludesAllRepositories {
			continue // it has every repository of its organization, this one too
		}
		if th := e.holds.teamListedBy(r.owner, t.Name); th != nil {
			if !th.repos[strings.ToLower(found.Name)] {
				o.fail(forgev1.ReasonConflict, true, "the repositories of team %q are listed by %s, which does not list %s: add it there", t.Name, th.who, found.Name)
			}
			continue
		}
		have, err := e.reposOf(ctx, t.ID)
		if err != nil {
			o.failErr(err)
			return
		}
		if slices.ContainsFunc(have, func(x forge.Repository) bool { return x.ID == found.ID }) {
			continue
		}
		o.diffs = append(o.diffs, fmt.Sprintf("give team %q access", t.Name))
		if !write {
			continue
		}
		if err := e.fc.AddTeamRepo(ctx, t.ID, r.owner, found.Name); err != nil {
			o.failErr(err)
			return
		}
		e.teamRepos[t.ID] = append(have, *found)
		e.recordGrant(r.owner, t, found.ID)
		o.updated++
	}
}

// ---- the record of access given, and taking it back ----

// recordGrant records that the set gave team t of org access to the
// repository of id.
func (e *repositorySet) recordGrant(org string, t *forge.Team, id int64) {
	st := &e.obj.Status
	i := slices.IndexFunc(st.TeamGrants, func(g forgev1.TeamGrant) bool { return g.ID == t.ID })
	if i < 0 {
		st.TeamGrants = append(st.TeamGrants, forgev1.TeamGrant{Organization: org, Team: t.Name, ID: t.ID})
		i = len(st.TeamGrants) - 1
	}
	g := &st.TeamGrants[i]
	g.Team = t.Name
	if !slices.Contains(g.RepositoryIDs, id) {
		g.RepositoryIDs = append(g.RepositoryIDs, id)
	}
}

// forgetGrant drops the record of team id's access to repository repoID,
// into a new list: callers range over copies of the record while they
// take access back.
func (e *repositorySet) forgetGrant(id, repoID int64) {
	for i := range e.obj.Status.TeamGrants {
		g := &e.obj.Status.TeamGrants[i]
		if g.ID == id {
			g.RepositoryIDs = slices.DeleteFunc(slices.Clone(g.RepositoryIDs), func(x int64) bool { return x == repoID })
		}
	}
}

// tidyGrants drops empty records and sorts the rest.
func (e *repositorySet) tidyGrants() {
	st := &e.obj.Status
	st.TeamGrants = slices.DeleteFunc(st.TeamGrants, func(g forgev1.TeamGrant) bool { return len(g.RepositoryIDs) == 0 })
	for i := range st.TeamGrants {
		slices.Sort(st.TeamGrants[i].RepositoryIDs)
	}
	slices.SortFunc(st.TeamGrants, func(a, b forgev1.TeamGrant) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Organization), strings.ToLower(b.Organization)),
			cmp.Compare(strings.ToLower(a.Team), strings.ToLower(b.Team)), cmp.Compare(a.ID, b.ID))
	})
	if len(st.TeamGrants) == 0 {
		st.TeamGrants = nil
	}
}

// dropped are the recorded grants of teams the spec no longer gives
// access: a grant whose team no listed name resolves to. A listed name
// the forge does not know (yet) keeps the grant of that name: nothing is
// taken back on a failed lookup.
func (e *repositorySet) dropped(ctx context.Context) ([]forgev1.TeamGrant, error) {
	var out []forgev1.TeamGrant
	for _, g := range e.obj.Status.TeamGrants {
		ts, err := e.orgTeams(ctx, g.Organization)
		if err != nil {
			return nil, err
		}
		listed := false
		for _, name := range e.obj.Spec.Teams {
			t := teamNamed(ts, string(name))
			if (t != nil && t.ID == g.ID) || (t == nil && strings.EqualFold(string(name), g.Team)) {
				listed = true
			}
		}
		if !listed {
			out = append(out, g)
		}
	}
	return out, nil
}

// takeBackDropped takes back, in r (its repository id), the access the set
// gave teams it no longer lists, unless another resource wants it kept.
func (e *repositorySet) takeBackDropped(ctx context.Context, o *repoOutcome, r repo, id int64, write bool) {
	drop, err := e.dropped(ctx)
	if err != nil {
		o.failErr(err)
		return
	}
	for _, g := range drop {
		if !slices.Contains(g.RepositoryIDs, id) {
			continue
		}
		if err := e.takeBack(ctx, o, r, g, id, write); err != nil {
			o.failErr(err)
			return
		}
	}
}

// reportDropped lists, with removals Report, the access the set gave
// teams it no longer lists in repository id that their listings, taken in
// this pass, still show, and takes none back: the repository's pending
// removals, which the set's status lists as every set kind's.
func (e *repositorySet) reportDropped(ctx context.Context, o *repoOutcome, id int64) {
	drop, err := e.dropped(ctx)
	if err != nil {
		o.failErr(err)
		return
	}
	var items []forgev1.PendingRemoval
	for _, g := range drop {
		if !slices.Contains(g.RepositoryIDs, id) {
			continue
		}
		have, i, err := e.stillHas(ctx, g, id)
		if err != nil {
			o.failErr(err)
			return
		}
		if i >= 0 {
			items = append(items, forgev1.PendingRemoval{Repository: g.Organization + "/" + have[i].Name, Kind: "TeamAccess", Name: g.Team})
		}
	}
	o.reportRemovals(items...)
}

// stillHas finds repository id in the listing, taken in this pass, of the
// team of grant g: the listing and the repository's index in it, -1 when
// the team no longer has it. A team that is gone, or a repository it no
// longer has, drops the record: there is nothing left to take back.
func (e *repositorySet) stillHas(ctx context.Context, g forgev1.TeamGrant, id int64) ([]forge.Repository, int, error) {
	have, err := e.reposOf(ctx, g.ID)
	if forge.IsNotFound(err) {
		for _, x := range g.RepositoryIDs {
			e.forgetGrant(g.ID, x)
		}
		return nil, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	i := slices.IndexFunc(have, func(x forge.Repository) bool { return x.ID == id })
	if i < 0 {
		e.forgetGrant(g.ID, id)
	}
	return have, i, nil
}

// takeBack takes back the access recorded in grant g to repository id (r:
// the repository as the set selects it, for the resources that may want
// the access kept), from the team's listing taken in this pass: it removes
// the repository under the name that listing gives it now, and only if it
// is there. A team that is gone, or a repository it no longer has, only
// drops the record; a repository another resource wants the team to keep
// (another RepositorySet, a Team resource listing it) stays, and the
// record of it is dropped: the set gave it, another keeps it now. Without
// write it only says what it would do. Deleting the set and releasing a
// repository take access back through it.
func (e *repositorySet) takeBack(ctx context.Context, o *repoOutcome, r repo, g forgev1.TeamGrant, id int64, write bool) error {
	have, i, err := e.stillHas(ctx, g, id)
	if err != nil || i < 0 {
		return err
	}
	now := have[i]
	if who := e.holds.wantsAccess(repo{owner: g.Organization, name: now.Name, topics: r.topics, topicsRead: r.topicsRead}, g.Organization, g.Team); who != "" {
		e.forgetGrant(g.ID, id)
		return nil
	}
	o.diffs = append(o.diffs, fmt.Sprintf("take back team %q's access", g.Team))
	o.removes++
	if !write {
		return nil
	}
	if err := e.fc.RemoveTeamRepo(ctx, g.ID, g.Organization, now.Name); err != nil && !forge.IsNotFound(err) {
		return err
	}
	e.teamRepos[g.ID] = slices.Delete(slices.Clone(have), i, i+1)
	e.forgetGrant(g.ID, id)
	if e.tookFrom != nil {
		e.tookFrom[g.ID] = true
	}
	o.deleted++
	return nil
}

// takeBackIn takes back, in repository id (r: as the set selects it),
// every access the set recorded giving there, whichever team's: what a
// deletion with deletionPolicy Delete does in each repository, and what
// releasing a repository that left the selector does under Delete (under
// Orphan, a release only drops the record: forgetGrant).
// e.holds and e.teamRepos must be read (Sync and Remove read them).
func (e *repositorySet) takeBackIn(ctx context.Context, o *repoOutcome, r repo, id int64, write bool) error {
	for _, g := range slices.Clone(e.obj.Status.TeamGrants) {
		if !slices.Contains(g.RepositoryIDs, id) {
			continue
		}
		if err := e.takeBack(ctx, o, r, g, id, write); err != nil {
			return err
		}
	}
	return nil
}

// removeIn releases repository r under deletionPolicy Delete: it takes
// back the access the set recorded giving there, as deleting the set does
// (the set's releaser). Settings and topics stay.
func (e *repositorySet) removeIn(ctx context.Context, _ forge.Interface, r repo) (int, error) {
	var o repoOutcome
	err := e.takeBackIn(ctx, &o, r, r.id, true)
	return o.deleted, err
}

// releaseNouns: a release under Delete takes back team access; settings
// and topics stay.
func (e *repositorySet) releaseNouns() (string, string) { return "team access", "team accesses" }

// forget drops the record of the access the set gave in repository id,
// released without a removal: the access stays, no longer the set's.
func (e *repositorySet) forget(id int64) {
	for _, g := range slices.Clone(e.obj.Status.TeamGrants) {
		e.forgetGrant(g.ID, id)
	}
}

// Remove takes back (deletionPolicy Delete) every access the set recorded
// giving, from the teams' listings taken now, leaving what another
// resource wants kept; settings and topics stay.
func (e *repositorySet) Remove(ctx context.Context) (string, error) {
	holds, err := e.readHolds(ctx)
	if err != nil {
		return "", err
	}
	e.holds = holds
	e.teamRepos = map[int64][]forge.Repository{}
	o := &repoOutcome{}
	e.tookFrom = map[int64]bool{}
	var ids []int64
	for _, g := range e.obj.Status.TeamGrants {
		for _, id := range g.RepositoryIDs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		// Without its topics at hand, another set selecting by topics
		// counts as wanting the access: it is left rather than taken.
		org := ""
		if i := slices.IndexFunc(e.obj.Status.TeamGrants, func(g forgev1.TeamGrant) bool { return slices.Contains(g.RepositoryIDs, id) }); i >= 0 {
			org = e.obj.Status.TeamGrants[i].Organization
		}
		if err := e.takeBackIn(ctx, o, repo{owner: org}, id, true); err != nil {
			return "", err
		}
	}
	e.tidyGrants()
	return fmt.Sprintf("took back %d team %s the set gave (%d %s); settings and topics stay",
		o.deleted, plural(o.deleted, "access", "accesses"), len(e.tookFrom), plural(len(e.tookFrom), "team", "teams")), nil
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
			out = append(out, teamRef(owner, string(t)))
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
	return selectedRepos(s.Spec.Repositories)
}

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it (as LabelSet's).
func (repositorySetKind) SelectsRepository(s *forgev1.RepositorySet, owner, name string) bool {
	return setMatches(s.Spec.Repositories)(repo{owner: owner, name: name})
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
	noun := plural(len(repos), "repository holds", "repositories hold")
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
