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
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the Team controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=teams,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=teams/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=teams/finalizers,verbs=update

// defaultMaxRemovals applies when a Team sets no spec.maxRemovals.
const defaultMaxRemovals = 10

// teamKind manages an organization's teams: identified by the forge's id,
// adopted by name (or a previous name, then renamed), observed from the
// organization's team listing, with members and repositories listed per
// team when managed.
type teamKind struct {
	kinds.Base[forgev1.Team, forgev1.TeamList]
}

// Key: team names are unique in an organization without case.
func (teamKind) Key(t *forgev1.Team) string {
	return "team:" + strings.ToLower(string(t.Spec.Organization)+"/"+t.TeamName())
}

func (teamKind) Describe(t *forgev1.Team) string {
	return fmt.Sprintf("team %q in organization %s", t.TeamName(), t.Spec.Organization)
}

// Declares: a Team its organization/name.
func (teamKind) Declares(t *forgev1.Team) []reconciler.Ref {
	return []reconciler.Ref{kinds.TeamRef(string(t.Spec.Organization), t.TeamName())}
}

// References of a Team: its organization and its members (its
// repositories are RepoRefs).
func (teamKind) References(t *forgev1.Team) []reconciler.Ref {
	out := []reconciler.Ref{{Kind: reconciler.RefOrganization, Name: string(t.Spec.Organization)}}
	for _, m := range t.Spec.Members {
		out = append(out, reconciler.Ref{Kind: reconciler.RefUser, Name: string(m)})
	}
	return out
}

// RepoRefs of a Team: the repositories it lists, so that one added before
// its Repository exists is retried when that Repository becomes Ready.
func (teamKind) RepoRefs(t *forgev1.Team) []string {
	out := make([]string, 0, len(t.Spec.Repositories))
	for _, r := range t.Spec.Repositories {
		out = append(out, string(t.Spec.Organization)+"/"+string(r))
	}
	return out
}

// WriteScopes of a Team: its create, edit, members and repositories are
// all organization routes (/orgs/{org}/teams, /teams/{id}/...).
func (teamKind) WriteScopes(*forgev1.Team, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteOrganization}
}

func (teamKind) Connect(_ context.Context, t *forgev1.Team, pass *reconciler.Pass) (reconciler.External, error) {
	return &teamExt{obj: t, fc: pass.Forge}, nil
}

type teamExt struct {
	obj   *forgev1.Team
	fc    forge.Interface
	found *forge.Team
	// members and repos are what the forge lists (lower case -> as listed),
	// nil when not managed.
	members, repos map[string]string
}

func (e *teamExt) org() string { return string(e.obj.Spec.Organization) }

func (e *teamExt) Observe(ctx context.Context) (reconciler.Observation, error) {
	all, err := e.fc.ListTeams(ctx, e.org())
	if err != nil {
		return reconciler.Observation{}, reconciler.ParentMissing(err, "organization "+e.org())
	}
	found, err := e.locate(ctx, all)
	if err != nil || found == nil {
		if err == nil {
			e.obj.Status.PendingRemovals = nil // no team, nothing to remove
		}
		return reconciler.Observation{}, err
	}
	e.found = found
	// A deletion goes on to Delete, which leaves an Owners team found
	// either way; a pass writes nothing to a team the spec and the forge
	// disagree about.
	if err := e.ownersMismatch(); err != nil && e.obj.DeletionTimestamp.IsZero() {
		return reconciler.Observation{}, err
	}
	// Failures are of the last pass that wrote: a pass finds them anew.
	e.obj.Status.Failures = nil
	if err := e.listSets(ctx); err != nil {
		return reconciler.Observation{}, err
	}
	e.reportRemovals()
	e.count()
	c := e.changes()
	diff := reconciler.Fields(c)
	if i := slices.Index(diff, "rename"); i >= 0 {
		diff[i] = "name"
	}
	return reconciler.Observation{Exists: true, ID: found.ID, Diff: diff, Changes: c}, nil
}

// listSets reads the team's members and repositories, each when managed.
// A listing that fails stops the pass: nothing is removed on a failed or
// partial read.
func (e *teamExt) listSets(ctx context.Context) error {
	s := e.obj.Spec
	e.members, e.repos = nil, nil
	if s.Members != nil {
		users, err := e.fc.ListTeamMembers(ctx, e.found.ID)
		if err != nil {
			return err
		}
		e.members = map[string]string{}
		for _, u := range users {
			e.members[strings.ToLower(u.Login)] = u.Login
		}
	}
	if s.Repositories != nil {
		repos, err := e.fc.ListTeamRepos(ctx, e.found.ID)
		if err != nil {
			return err
		}
		e.repos = map[string]string{}
		for _, r := range repos {
			e.repos[strings.ToLower(r.Name)] = r.Name
		}
	}
	return nil
}

// locate finds the team by status.id, else by name, else by a previous
// name; a team under the name and another under a previous name is a
// conflict and nothing is renamed.
func (e *teamExt) locate(ctx context.Context, all []forge.Team) (*forge.Team, error) {
	if id := e.obj.Status.ID; id != 0 {
		if i := slices.IndexFunc(all, func(t forge.Team) bool { return t.ID == id }); i >= 0 {
			return &all[i], nil
		}
		t, err := e.fc.GetTeam(ctx, e.org(), id)
		switch {
		case err == nil:
			return t, nil
		case !forge.IsNotFound(err):
			return nil, err
		}
	}
	named := func(name string) *forge.Team {
		if i := slices.IndexFunc(all, func(t forge.Team) bool { return strings.EqualFold(t.Name, name) }); i >= 0 {
			return &all[i]
		}
		return nil
	}
	byName := named(e.obj.TeamName())
	var byPrev *forge.Team
	for _, p := range e.obj.Spec.PreviousNames {
		if t := named(string(p)); t != nil && (byName == nil || t.ID != byName.ID) {
			byPrev = t
			break
		}
	}
	if byName != nil && byPrev != nil {
		return nil, reconciler.Stall(forgev1.ReasonConflict,
			"team %q (id %d) and team %q (id %d, a previous name) both exist in organization %s: nothing is renamed; delete or rename one on the forge, or drop the name from spec.previousNames",
			byName.Name, byName.ID, byPrev.Name, byPrev.ID, e.org())
	}
	if byName != nil {
		return byName, nil
	}
	return byPrev, nil
}

// isOwnersTeam is the forge's answer to "is this its organization's Owners
// team": Gitea reads the access mode of the team it made with the
// organization as permission "owner", which no other team can have (the
// API gives only none, read, write and admin) and which a rename keeps.
func isOwnersTeam(t *forge.Team) bool { return t.Permission == "owner" }

// owners reports whether the team found is the Owners team, as the forge says.
func (e *teamExt) owners() bool { return e.found != nil && isOwnersTeam(e.found) }

// ownersMismatch stalls a Team whose spec name and the team it found
// disagree about Owners: only a Team named Owners manages the forge's
// Owners team, only while the forge calls it Owners (the operator never
// renames it: Gitea knows it by that name), and a Team named Owners
// manages no other team. Conflict, as for any object a resource cannot
// hold: nothing is written until the spec, status.id or the forge changes.
func (e *teamExt) ownersMismatch() error {
	t := e.found
	switch {
	case isOwnersTeam(t) && !e.obj.IsOwners():
		return reconciler.Stall(forgev1.ReasonConflict,
			"team %q (id %d) is the Owners team of organization %s (the forge reads its permission as owner), found by this Team (by its name, status.id or a previous name): only a Team named Owners manages it and it is never renamed, so this Team writes nothing to it; delete this Team (the Owners team stays) and create one for the team it means",
			t.Name, t.ID, e.org())
	case isOwnersTeam(t) && !strings.EqualFold(t.Name, "owners"):
		return reconciler.Stall(forgev1.ReasonConflict,
			"the Owners team of organization %s (id %d) is named %q on the forge: the operator never renames the Owners team and writes nothing to it; rename it back to Owners on the forge",
			e.org(), t.ID, t.Name)
	case !isOwnersTeam(t) && e.obj.IsOwners():
		return reconciler.Stall(forgev1.ReasonConflict,
			"team %q (id %d) in organization %s is not its Owners team (the forge reads its permission as %q): a Team named Owners manages only the Owners team, so nothing is written to it",
			t.Name, t.ID, e.org(), t.Permission)
	}
	return nil
}

func (e *teamExt) Create(ctx context.Context) (reconciler.Observation, error) {
	// Nothing was found: the spec's name is all there is to go by.
	if e.obj.IsOwners() {
		return reconciler.Observation{}, reconciler.Stall(forgev1.ReasonNotFound,
			"organization %s has no Owners team; the operator adopts it and never creates it", e.org())
	}
	s := e.obj.Spec
	opt := forge.CreateTeamOption{Name: e.obj.TeamName()}
	compare.SetIf(&opt.Description, s.Description)
	compare.SetIf(&opt.IncludesAllRepositories, s.IncludesAllRepositories)
	compare.SetIf(&opt.CanCreateOrgRepo, s.CanCreateOrgRepo)
	compare.SetIf(&opt.Visibility, s.Visibility)
	if e.wantAdmin() {
		opt.Permission = "admin"
	} else {
		// Without units the forge answers 500: they are always sent.
		opt.UnitsMap = e.wantUnits()
	}
	t, err := e.fc.CreateTeam(ctx, e.org(), opt)
	if err != nil {
		return reconciler.Observation{}, reconciler.ParentMissing(err, "organization "+e.org())
	}
	e.found = t
	if s.Members != nil {
		e.members = map[string]string{}
	}
	if s.Repositories != nil {
		e.repos = map[string]string{}
	}
	// Members and repositories follow as an update; should that fail (a
	// user that does not exist), the loop still records the team made.
	made := reconciler.Observation{Exists: true, ID: t.ID}
	if len(e.changes()) > 0 {
		if err := e.Update(ctx, made); err != nil {
			return made, err
		}
	}
	return made, nil
}

// Update edits the team's fields, then adds the missing members and
// repositories, then removes the unlisted ones (decided on listings taken
// after the additions, and only within spec.maxRemovals).
func (e *teamExt) Update(ctx context.Context, _ reconciler.Observation) error {
	if opt, ok := e.edit(); ok {
		t, err := e.fc.EditTeam(ctx, e.org(), e.found.ID, opt)
		if err != nil {
			return err
		}
		e.found = t
	}
	var failures []forgev1.TeamFailure
	addMembers, _ := diffSet(e.members, names(e.obj.Spec.Members))
	for _, u := range addMembers {
		err := e.fc.AddTeamMember(ctx, e.found.ID, u)
		switch {
		case forge.IsNotFound(err):
			failures = append(failures, forgev1.TeamFailure{Member: u, Reason: forgev1.ReasonUserNotFound,
				Message: fmt.Sprintf("user %s does not exist on the forge", u)})
		case err != nil:
			return err
		default:
			e.members[strings.ToLower(u)] = u
		}
	}
	addRepos, _ := diffSet(e.repos, names(e.obj.Spec.Repositories))
	for _, r := range addRepos {
		err := e.fc.AddTeamRepo(ctx, e.found.ID, e.org(), r)
		switch {
		case forge.IsNotFound(err):
			failures = append(failures, forgev1.TeamFailure{Member: r, Reason: forgev1.ReasonParentNotFound,
				Message: fmt.Sprintf("repository %s/%s does not exist on the forge", e.org(), r)})
		case err != nil:
			return err
		default:
			e.repos[strings.ToLower(r)] = r
		}
	}
	stall, err := e.removeUnlisted(ctx)
	if err != nil {
		return err
	}
	e.obj.Status.Failures = failures
	if stall != nil {
		return stall
	}
	if len(failures) > 0 {
		var who []string
		for _, f := range failures {
			who = append(who, f.Member)
		}
		// Users first: their reason names what most often needs a fix.
		return reconciler.Wait(failures[0].Reason,
			"team %q in %s: %s could not be added (see status.failures); the rest is applied", e.obj.TeamName(), e.org(), strings.Join(who, ", "))
	}
	return nil
}

// removeUnlisted removes the members and repositories the spec does not
// list, read afresh after this pass's additions; more than the limit
// together removes none and stalls with TooManyRemovals.
func (e *teamExt) removeUnlisted(ctx context.Context) (error, error) {
	_, members := diffSet(e.members, names(e.obj.Spec.Members))
	_, repos := diffSet(e.repos, names(e.obj.Spec.Repositories))
	if len(members)+len(repos) == 0 {
		e.count()
		return nil, nil
	}
	if err := e.listSets(ctx); err != nil {
		return nil, err
	}
	_, members = diffSet(e.members, names(e.obj.Spec.Members))
	_, repos = diffSet(e.repos, names(e.obj.Spec.Repositories))
	if e.obj.Spec.Removals.Reports() {
		// Decided on the listings just taken, as a removal would be; none
		// is made, so no limit applies.
		e.obj.Status.PendingRemovals = reconciler.PendingRemovals(e.removals())
		e.count()
		return nil, nil
	}
	if e.owners() && len(members) > 0 && len(members) == len(e.members) {
		// The forge refuses it too (500), after the others are gone.
		e.count()
		return reconciler.Stall(forgev1.ReasonRejected,
			"the Owners team of organization %s would lose its last member (%s): an organization keeps an owner, so none was removed; list a user who exists in spec.members",
			e.org(), strings.Join(members, ", ")), nil
	}
	limit := int(ptrOr(e.obj.Spec.MaxRemovals, defaultMaxRemovals))
	if n := len(members) + len(repos); n > limit {
		e.count()
		return reconciler.Stall(forgev1.ReasonTooManyRemovals,
			"team %q in %s would lose %d members and repositories (%s), more than spec.maxRemovals (%d): none was removed; raise the limit or list them",
			e.obj.TeamName(), e.org(), n, strings.Join(slices.Concat(members, repos), ", "), limit), nil
	}
	for _, u := range members {
		if err := e.fc.RemoveTeamMember(ctx, e.found.ID, u); err != nil {
			return nil, err
		}
		delete(e.members, strings.ToLower(u))
	}
	for _, r := range repos {
		if err := e.fc.RemoveTeamRepo(ctx, e.found.ID, e.org(), r); err != nil && !forge.IsNotFound(err) {
			return nil, err
		}
		delete(e.repos, strings.ToLower(r))
	}
	e.count()
	return nil, nil
}

// reportRemovals keeps, with removals Report, the members and
// repositories the lists leave out in status.pendingRemovals, from the
// listings this pass took (never kept ones; a pass that adds lists again
// after its additions, as a removal would, in removeUnlisted). None is
// removed, so spec.maxRemovals does not apply. With Apply it clears the
// field.
func (e *teamExt) reportRemovals() {
	if !e.obj.Spec.Removals.Reports() {
		e.obj.Status.PendingRemovals = nil
		return
	}
	e.obj.Status.PendingRemovals = reconciler.PendingRemovals(e.removals())
}

// removals are the members and repositories the lists leave out.
func (e *teamExt) removals() []forgev1.PendingRemoval {
	var out []forgev1.PendingRemoval
	_, members := diffSet(e.members, names(e.obj.Spec.Members))
	for _, u := range members {
		out = append(out, forgev1.PendingRemoval{Kind: "Member", Name: u})
	}
	_, repos := diffSet(e.repos, names(e.obj.Spec.Repositories))
	for _, r := range repos {
		out = append(out, forgev1.PendingRemoval{Kind: "Repository", Name: r})
	}
	return out
}

// count records the sizes of the managed sets in status.
func (e *teamExt) count() {
	st := &e.obj.Status
	st.Members, st.Repositories = nil, nil
	if e.members != nil {
		st.Members = new(int32(len(e.members)))
	}
	if e.repos != nil {
		st.Repositories = new(int32(len(e.repos)))
	}
}

// Delete deletes the team, unless the forge says it is the Owners team, or
// the spec names Owners (a team named Owners that is not the owner team is
// not this Team's to delete either).
func (e *teamExt) Delete(ctx context.Context, _ reconciler.Observation) error {
	if e.owners() || e.obj.IsOwners() {
		return reconciler.Leave(corev1.EventTypeWarning, forgev1.ReasonOrphaned,
			"left team %q (id %d), the Owners team of organization %s, on the forge: it is never deleted", e.found.Name, e.found.ID, e.org())
	}
	return e.fc.DeleteTeam(ctx, e.org(), e.found.ID)
}

// wantAdmin: spec.permission admin.
func (e *teamExt) wantAdmin() bool {
	return e.obj.Spec.Permission != nil && *e.obj.Spec.Permission == "admin"
}

// wantUnits is a non-admin team's units map: spec.units (a unit left out
// has none), or every unit at spec.permission (default read).
func (e *teamExt) wantUnits() map[string]string {
	if u := e.obj.Spec.Units; u != nil {
		return u.Map()
	}
	p := ptrOr(e.obj.Spec.Permission, "read")
	m := map[string]string{}
	for _, k := range forgev1.TeamUnitKeys {
		m[k] = p
	}
	return m
}

// haveUnits is the forge's units map with every unit present.
func (e *teamExt) haveUnits() map[string]string {
	m := map[string]string{}
	for _, k := range forgev1.TeamUnitKeys {
		m[k] = "none"
		if v := e.found.UnitsMap[k]; v != "" {
			m[k] = v
		}
	}
	return m
}

// accessDiffers reports whether the permission or a unit differs. The
// Owners team's access is the forge's; a non-admin team is compared by
// units only (the forge reads "none" for it, as for one made in the web
// UI), an admin team by its permission.
func (e *teamExt) accessDiffers() (permission bool, units []string) {
	if e.owners() {
		return false, nil
	}
	isAdmin := e.found.Permission == "admin"
	if e.wantAdmin() || isAdmin {
		return e.wantAdmin() != isAdmin, nil
	}
	have, want := e.haveUnits(), e.wantUnits()
	for _, k := range forgev1.TeamUnitKeys {
		if have[k] != want[k] {
			units = append(units, k)
		}
	}
	return false, units
}

// edit is the PATCH of the fields that differ, and whether there is one.
// The permission is always sent with a units map and with
// includes_all_repositories, which the forge ignores without it.
func (e *teamExt) edit() (forge.EditTeamOption, bool) {
	s, t := e.obj.Spec, e.found
	var opt forge.EditTeamOption
	changed := false
	if name := e.obj.TeamName(); name != t.Name && !e.owners() {
		opt.Name, changed = name, true
	}
	if s.Description != nil && *s.Description != t.Description {
		opt.Description, changed = s.Description, true
	}
	if s.CanCreateOrgRepo != nil && *s.CanCreateOrgRepo != t.CanCreateOrgRepo && !e.owners() {
		opt.CanCreateOrgRepo, changed = s.CanCreateOrgRepo, true
	}
	if e.visibilityDiffers() {
		opt.Visibility, changed = s.Visibility, true
	}
	permission, units := e.accessDiffers()
	includeAll := s.IncludesAllRepositories != nil && *s.IncludesAllRepositories != t.IncludesAllRepositories && !e.owners()
	if permission || len(units) > 0 || includeAll {
		changed = true
		opt.Permission = "none"
		if e.wantAdmin() {
			opt.Permission = "admin"
		} else if permission || len(units) > 0 {
			opt.UnitsMap = e.wantUnits()
		}
		if includeAll {
			opt.IncludesAllRepositories = s.IncludesAllRepositories
		}
	}
	return opt, changed
}

// visibilityDiffers: the spec sets a visibility the team has not. The
// forge keeps the Owners team's as it is (admission refuses it there).
func (e *teamExt) visibilityDiffers() bool {
	v := e.obj.Spec.Visibility
	return v != nil && *v != e.found.Visibility && !e.owners()
}

// changes lists every difference for the loop and plan: fields, units
// ("units.code: read -> write"), members and repositories ("+alice -bob").
func (e *teamExt) changes() []reconciler.Change {
	s, t := e.obj.Spec, e.found
	var out []reconciler.Change
	if name := e.obj.TeamName(); name != t.Name && !e.owners() {
		out = append(out, reconciler.Change{Field: "rename", Have: t.Name, Want: name})
	}
	if s.Description != nil && *s.Description != t.Description {
		out = append(out, compare.Change("description", t.Description, *s.Description))
	}
	if s.CanCreateOrgRepo != nil && *s.CanCreateOrgRepo != t.CanCreateOrgRepo && !e.owners() {
		out = append(out, compare.Change("canCreateOrgRepo", t.CanCreateOrgRepo, *s.CanCreateOrgRepo))
	}
	if e.visibilityDiffers() {
		out = append(out, compare.Change("visibility", t.Visibility, *s.Visibility))
	}
	if s.IncludesAllRepositories != nil && *s.IncludesAllRepositories != t.IncludesAllRepositories && !e.owners() {
		out = append(out, compare.Change("includesAllRepositories", t.IncludesAllRepositories, *s.IncludesAllRepositories))
	}
	permission, units := e.accessDiffers()
	if permission {
		out = append(out, reconciler.Change{Field: "permission", Have: t.Permission, Want: ptrOr(s.Permission, "read")})
	}
	have, want := e.haveUnits(), e.wantUnits()
	for _, k := range units {
		out = append(out, reconciler.Change{Field: "units." + strings.TrimPrefix(k, "repo."), Have: have[k], Want: want[k]})
	}
	// With removals Report, what the lists leave out is no change: it is
	// in status.pendingRemovals.
	report := s.Removals.Reports()
	if d := setChange(e.members, names(s.Members), report); d != "" {
		out = append(out, reconciler.Change{Field: "members", Want: d})
	}
	if d := setChange(e.repos, names(s.Repositories), report); d != "" {
		out = append(out, reconciler.Change{Field: "repositories", Want: d})
	}
	slices.SortFunc(out, compare.ByField)
	return out
}

// names turns a list of names into strings; nil stays nil (not managed).
func names[S ~string](list []S) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = string(n)
	}
	return out
}

// diffSet compares the forge's set (lower case -> as listed; nil when not
// managed) with the wanted names: the names to add (as the spec spells
// them) and to remove (as the forge does), both sorted, compared without case.
func diffSet(have map[string]string, want []string) (add, remove []string) {
	if have == nil || want == nil {
		return nil, nil
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[strings.ToLower(w)] = true
		if _, ok := have[strings.ToLower(w)]; !ok {
			add = append(add, w)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(have)) {
		if !wanted[k] {
			remove = append(remove, have[k])
		}
	}
	slices.Sort(add)
	return add, remove
}

// setChange shows a set's difference as plan prints it: "+alice -bob";
// only the additions when report (removals Report).
func setChange(have map[string]string, want []string, report bool) string {
	add, remove := diffSet(have, want)
	if report {
		remove = nil
	}
	var parts []string
	for _, a := range add {
		parts = append(parts, "+"+a)
	}
	for _, r := range remove {
		parts = append(parts, "-"+r)
	}
	return strings.Join(parts, " ")
}
