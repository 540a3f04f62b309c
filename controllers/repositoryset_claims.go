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
	"reflect"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// What a RepositorySet yields to: the other resources of its server that
// set what it would (Repositories, older RepositorySets, Teams listing
// their repositories), read once per pass, and the settings by field.

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
// "topics" when it lists its topics) in its repository, by its recorded id
// (a name in a spec holds nothing), or, under the set's own Forge before
// its first pass recorded one, by its spec's owner and name.
type repositoryHold struct {
	fields      map[string]bool
	id          int64
	owner, name string
	who         string
}

func (h repositoryHold) holds(owner string, r *forge.Repository) bool {
	if h.id != 0 {
		return h.id == r.ID
	}
	return strings.EqualFold(h.owner, owner) && strings.EqualFold(h.name, r.Name)
}

// setHold is another RepositorySet: the values it sets and the teams it
// gives access, where it applies.
type setHold struct {
	who     string
	older   bool
	values  map[string]any
	teams   map[string]bool // lower case
	matches func(r sets.Repo) bool
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
	servers, err := claims.ServersOf(ctx, e.Cache, e.obj)
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
// topics, by their recorded id.
func (e *repositorySet) repositoryHolds(ctx context.Context, servers *claims.Servers, in []client.ListOption, out *repoSetHolds) error {
	var repos forgev1.RepositoryList
	if err := e.Cache.List(ctx, &repos, in...); err != nil {
		return fmt.Errorf("list Repositories: %w", err)
	}
	for i := range repos.Items {
		r := &repos.Items[i]
		// Only a Repository that read its repository (status.id), through a
		// connection that is Ready, holds its fields there: by that id
		// (under the set's own Forge, before it read it, by its name).
		if !servers.HoldsOver(ctx, r) || r.Status.ID == 0 && !servers.SameForge(r) {
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
		out.repositories = append(out.repositories, repositoryHold{fields: fields, id: r.Status.ID, owner: string(r.Spec.Owner), name: r.RepoName(),
			who: claims.HolderFor(e.obj.Namespace, "Repository", r)})
	}
	return nil
}

// setHolds adds the other RepositorySets: what they set and give.
func (e *repositorySet) setHolds(ctx context.Context, servers *claims.Servers, in []client.ListOption, out *repoSetHolds) error {
	var others forgev1.RepositorySetList
	if err := e.Cache.List(ctx, &others, in...); err != nil {
		return fmt.Errorf("list RepositorySets: %w", err)
	}
	for i := range others.Items {
		s := &others.Items[i]
		// Another set holds only where its record says it applied.
		if s.UID == e.obj.UID || !servers.HoldsOver(ctx, s) {
			continue
		}
		teams := map[string]bool{}
		for _, t := range s.Spec.Teams {
			teams[strings.ToLower(string(t))] = true
		}
		out.sets = append(out.sets, setHold{who: claims.HolderFor(e.obj.Namespace, "RepositorySet", s), older: claims.Older(s, e.obj),
			values: settingValues(s.Spec.Settings), teams: teams, matches: setWhere(servers, s, s.Spec.Repositories)})
	}
	return nil
}

// teamHolds adds the Teams that list their repositories.
func (e *repositorySet) teamHolds(ctx context.Context, servers *claims.Servers, in []client.ListOption, out *repoSetHolds) error {
	var teams forgev1.TeamList
	if err := e.Cache.List(ctx, &teams, in...); err != nil {
		return fmt.Errorf("list Teams: %w", err)
	}
	for i := range teams.Items {
		t := &teams.Items[i]
		// Only a Team that read its team (status.id) keeps an access: a
		// spec alone holds nothing.
		if t.Spec.Repositories == nil || !servers.HoldsOver(ctx, t) {
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

// heldFields are the fields a Repository resource holds in repository r
// of owner, each with that resource's name for the set's reader.
func (h repoSetHolds) heldFields(owner string, r *forge.Repository) map[string]string {
	out := map[string]string{}
	for _, rh := range h.repositories {
		if rh.holds(owner, r) {
			for f := range rh.fields {
				out[f] = rh.who
			}
		}
	}
	return out
}

// wantsAccess names another resource that wants team (of org) to keep its
// access to r: a RepositorySet giving it, or a Team resource listing r.
func (h repoSetHolds) wantsAccess(r sets.Repo, org, team string) string {
	for _, s := range h.sets {
		if s.teams[strings.ToLower(team)] && s.matches(r) {
			return s.who
		}
	}
	for _, t := range h.teams {
		if t.org == strings.ToLower(org) && t.team == strings.ToLower(team) && t.repos[strings.ToLower(r.Name)] {
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
