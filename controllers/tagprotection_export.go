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
	"fmt"
	"slices"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

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
	if err != nil {
		return fmt.Errorf("list the tag protections of %s/%s: %w", owner, repo, err)
	}
	slices.SortFunc(all, func(x, y forge.TagProtection) int { return cmp.Compare(x.ID, y.ID) })
	count := map[string]int{}
	for _, t := range all {
		count[t.NamePattern]++
	}
	for _, t := range all {
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
	}
	return nil
}
