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

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// Enforced policy (DESIGN "Precedence and enforcement"): a RepositorySet
// or FileSet with enforce wins over the Repositories and RepositoryFiles
// of its server for what it sets, in the repositories its record says it
// applied to. Those resources leave it (Observation.Left) and keep the
// rest.

// enforcers lists the sets of a kind (list, whose items are T) on obj's
// server that enforce (enforce(t)) and hold over obj
// (claims.Servers.HoldsOver) in repository r, where their selector (sel)
// picks it and their record says they applied (sets.HeldIn), oldest
// first, each with its name for obj's reader.
func enforcers[T any, PT interface {
	*T
	forgev1.Managed
	GetSetStatus() *forgev1.SetStatus
}](ctx context.Context, cache client.Reader, obj forgev1.Managed, list client.ObjectList, items func() []T,
	enforce func(PT) bool, sel func(PT) forgev1.RepositorySelector, r sets.Repo, kind string) ([]PT, []string, error) {
	if cache == nil {
		return nil, nil, nil // plan: no cache of the other resources
	}
	servers, err := claims.ServersOf(ctx, cache, obj)
	if err != nil {
		return nil, nil, err
	}
	var out []PT
	for _, in := range servers.Lists() {
		if err := cache.List(ctx, list, in...); err != nil {
			return nil, nil, fmt.Errorf("list %ss: %w", kind, err)
		}
		all := items()
		for i := range all {
			s := PT(&all[i])
			if enforce(s) && servers.HoldsOver(ctx, s) && sets.HeldIn(sel(s), s.GetSetStatus())(r) {
				out = append(out, s)
			}
		}
	}
	slices.SortFunc(out, func(a, b PT) int {
		if claims.Older(a, b) {
			return -1
		}
		return 1
	})
	who := make([]string, len(out))
	for i, s := range out {
		who[i] = claims.HolderFor(obj.GetNamespace(), kind, s)
	}
	return out, who, nil
}

// enforcedSettings are the settings (and "topics") of Repository obj that
// an enforcing RepositorySet holds in its repository found, each with the
// oldest such set's name.
func enforcedSettings(ctx context.Context, cache client.Reader, obj *forgev1.Repository, found *forge.Repository) (map[string]string, error) {
	var list forgev1.RepositorySetList
	r := sets.Repo{Owner: string(obj.Spec.Owner), Name: found.Name, ID: found.ID, Topics: found.Topics, TopicsRead: true}
	holders, who, err := enforcers(ctx, cache, obj, &list, func() []forgev1.RepositorySet { return list.Items },
		func(s *forgev1.RepositorySet) bool { return s.Spec.Enforce },
		func(s *forgev1.RepositorySet) forgev1.RepositorySelector { return s.Spec.Repositories }, r, "RepositorySet")
	if err != nil {
		return nil, err
	}
	mine := settingValues(&obj.Spec.RepositorySettings)
	out := map[string]string{}
	for i, s := range holders {
		theirs := settingValues(s.Spec.Settings)
		if len(s.Spec.Topics) > 0 {
			theirs["topics"] = true
		}
		for f := range theirs {
			_, set := mine[f]
			if f == "topics" {
				set = obj.Spec.Topics != nil
			}
			if _, taken := out[f]; set && !taken {
				out[f] = who[i]
			}
		}
	}
	return out, nil
}

// leftToEnforcers is the Conflict of a resource that leaves items (fields,
// paths) to the enforcing sets that hold them (item -> holder), nil when
// none: it writes the rest.
func leftToEnforcers(what string, left map[string]string) error {
	if len(left) == 0 {
		return nil
	}
	byWho := map[string][]string{}
	for item, who := range left {
		byWho[who] = append(byWho[who], item)
	}
	var parts []string
	for _, who := range slices.Sorted(maps.Keys(byWho)) {
		items := slices.Sorted(slices.Values(byWho[who]))
		parts = append(parts, fmt.Sprintf("%s enforced by %s", strings.Join(items, ", "), who))
	}
	return reconciler.Stall(forgev1.ReasonConflict, "%s: %s; this resource leaves them and keeps the rest (drop them from its spec, or the set's enforce)",
		what, strings.Join(parts, "; "))
}

// setWhere says where another set s holds what it sets: under the
// yielding resource's own Forge, wherever its selector picks; under
// another connection, only in the repositories its record
// (status.matched) says it applied to (sets.HeldIn).
func setWhere(servers *claims.Servers, s forgev1.Managed, sel forgev1.RepositorySelector) func(sets.Repo) bool {
	if servers.SameForge(s) {
		return sets.Matches(sel)
	}
	return sets.HeldIn(sel, s.(interface{ GetSetStatus() *forgev1.SetStatus }).GetSetStatus())
}

// recordedBranch is the branch RepositoryFile f holds: the one its status
// recorded, else (under the yielding resource's own Forge) its spec's, nil
// for the repository's default.
func recordedBranch(f *forgev1.RepositoryFile) *string {
	if f.Status.ExternalName != "" {
		return &f.Status.ExternalName
	}
	return f.Spec.Branch
}

// branchOf is the name of the branch RepositoryFile f holds in a
// repository whose default branch is def.
func branchOf(f *forgev1.RepositoryFile, def string) string {
	if b := recordedBranch(f); b != nil {
		return *b
	}
	return def
}
