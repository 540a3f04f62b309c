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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// labelSetExport writes the live repositories' labels as LabelSets, one
// per label list: repositories whose lists are equal share one, naming
// them all. The sets are Additive (the default), so adopting them never
// deletes a label.
var labelSetExport = export.Aggregate(
	func(ctx context.Context, src labelReader, sc forge.Scope) ([]forge.Label, error) {
		labels, err := src.ListLabels(ctx, sc)
		if err != nil {
			return nil, fmt.Errorf("list the labels of %s: %w", sc, err)
		}
		return labels, nil
	},
	exportLabelSets)

func exportLabelSets(b *export.Builder, org string, repos []export.RepoObjects[forge.Label]) {
	type group struct {
		repos  []string
		labels []forgev1.LabelSetLabel
		skip   []string
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range repos {
		labels, skip := setLabels(r.Objects)
		count := nameCounts(r.Objects)
		key, _ := json.Marshal(labels)
		g, ok := groups[string(key)]
		if !ok {
			g = &group{labels: labels}
			groups[string(key)] = g
			order = append(order, string(key))
		}
		g.repos = append(g.repos, r.Repo)
		for _, n := range skip {
			g.skip = append(g.skip, fmt.Sprintf("%s has %d labels named %q: left out, a LabelSet cannot adopt one of several.", r.Repo, count[n], n))
		}
	}
	for _, key := range order {
		g := groups[key]
		if len(g.labels) == 0 {
			continue
		}
		base := strings.ReplaceAll(g.repos[0], "/", "-") + "-labels"
		var comment []string
		if len(g.repos) > 1 {
			base = fmt.Sprintf("%s-labels-%d-repositories", org, len(g.repos))
			comment = append(comment, fmt.Sprintf("%d repositories hold exactly these labels.", len(g.repos)))
		}
		names := make([]forgev1.RepositoryName, len(g.repos))
		for i, r := range g.repos {
			names[i] = forgev1.RepositoryName(r)
		}
		b.Add(&forgev1.LabelSet{
			TypeMeta:   export.TypeMeta("LabelSet"),
			ObjectMeta: b.Meta("LabelSet", base, int64(b.Len())),
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repositories:   forgev1.RepositorySelector{Names: names},
				Labels:         g.labels,
			},
		}, append(comment, g.skip...)...)
	}
}

// setLabels turns a repository's labels into a LabelSet's, sorted by name;
// names held by several labels are left out and returned.
func setLabels(labels []forge.Label) ([]forgev1.LabelSetLabel, []string) {
	var out []forgev1.LabelSetLabel
	var skip []string
	count := nameCounts(labels)
	for _, l := range slices.SortedFunc(slices.Values(labels), byNameThenID) {
		if count[l.Name] > 1 {
			if !slices.Contains(skip, l.Name) {
				skip = append(skip, l.Name)
			}
			continue
		}
		out = append(out, forgev1.LabelSetLabel{
			Name:        forgev1.LabelName(l.Name),
			Color:       "#" + l.Color,
			Description: export.NonEmpty(l.Description),
			Exclusive:   export.TrueOnly(l.Exclusive),
			Archived:    export.TrueOnly(l.IsArchived),
		})
	}
	return out, skip
}
