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

// runnerSettingExport writes a RunnerSetting per disabled runner of the
// organization and of each live repository: an enabled runner is the
// forge's default and needs no resource. A server that cannot list them
// has none to write.
var runnerSettingExport = export.ForScope(exportRunnerSettings)

// runnerReader is what the runner setting export reads.
type runnerReader interface {
	ListRunners(ctx context.Context, scope forge.Scope) ([]forge.Runner, error)
}

func exportRunnerSettings(ctx context.Context, b *export.Builder, src runnerReader, scope forge.Scope) error {
	runners, err := src.ListRunners(ctx, scope)
	if err != nil && !forge.IsNotFound(err) && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the runners of %s: %w", scope, err)
	}
	slices.SortFunc(runners, func(x, y forge.Runner) int { return cmp.Compare(x.ID, y.ID) })
	count := map[string]int{}
	for _, r := range runners {
		count[r.Name]++
	}
	for _, r := range runners {
		if !r.Disabled {
			continue
		}
		spec := forgev1.RunnerSettingSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Disabled:       true,
		}
		if count[r.Name] == 1 {
			spec.Runner.Name = r.Name
		} else {
			spec.Runner.ID = export.Ptr(r.ID) // several of that name: the name would not select one
		}
		if scope.Repo != "" {
			spec.Repository = export.Ptr(forgev1.RepositoryName(scope.Owner + "/" + scope.Repo))
		} else {
			spec.Organization = export.Ptr(forgev1.OwnerName(scope.Owner))
		}
		base := scope.Owner
		if scope.Repo != "" {
			base += "-" + scope.Repo
		}
		b.Add(&forgev1.RunnerSetting{
			TypeMeta:   export.TypeMeta("RunnerSetting"),
			ObjectMeta: b.Meta("RunnerSetting", fmt.Sprintf("%s-runner-%d", base, r.ID), r.ID),
			Spec:       spec,
		})
	}
	return nil
}
