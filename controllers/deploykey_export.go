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

// deployKeyExport writes a DeployKey per deploy key of each live
// repository, with its public key as the forge holds it (never generate:
// the private half is not the forge's to give) and its title and
// readOnly, so that applying it adopts each key by fingerprint without a
// write.
var deployKeyExport = export.ForLiveRepository(exportDeployKeys)

// deployKeyReader is what the deploy key export reads.
type deployKeyReader interface {
	ListDeployKeys(ctx context.Context, owner, repo string) ([]forge.DeployKey, error)
}

func exportDeployKeys(ctx context.Context, b *export.Builder, src deployKeyReader, owner, repo string) error {
	keys, err := src.ListDeployKeys(ctx, owner, repo)
	if err != nil {
		return fmt.Errorf("list the deploy keys of %s/%s: %w", owner, repo, err)
	}
	slices.SortFunc(keys, func(x, y forge.DeployKey) int { return cmp.Compare(x.ID, y.ID) })
	for _, k := range keys {
		b.Add(&forgev1.DeployKey{
			TypeMeta:   export.TypeMeta("DeployKey"),
			ObjectMeta: b.Meta("DeployKey", fmt.Sprintf("%s-%s-deploykey-%d", owner, repo, k.ID), k.ID),
			Spec: forgev1.DeployKeySpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				Title:          export.Ptr(k.Title),
				ReadOnly:       export.Ptr(k.ReadOnly),
				PublicKey:      export.Ptr(k.Key),
			},
		})
	}
	return nil
}
