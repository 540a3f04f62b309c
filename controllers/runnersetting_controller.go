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
	"strconv"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the RunnerSetting controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=runnersettings,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=runnersettings/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=runnersettings/finalizers,verbs=update

// runnerSettingKind keeps an Actions runner enabled or disabled. Runners
// register themselves: there is nothing to create, so a runner not found
// yet keeps the resource waiting (retried with backoff) until it appears.
// Deleting with deletionPolicy Delete re-enables the runner. Its key,
// messages and token scopes are a repository child's (of an organization
// too), but it waits for its runner, not its Repository, and stalls in no
// archived repository (NotResident); its server check is its own, in
// Observe, to say what it cannot do there.
func runnerSettingKind() child.Kind[*forgev1.RunnerSetting] {
	return child.Kind[*forgev1.RunnerSetting]{
		Noun:  "runner",
		Shown: runnerRef,
		// A runner picked by id and one picked by name may still be the
		// same runner; the loop's check on status.id (the runner's id)
		// catches that.
		KeyOf: func(r *forgev1.RunnerSetting) string {
			if id := r.Spec.Runner.ID; id != nil {
				return "runner-id:" + strconv.FormatInt(*id, 10)
			}
			return "runner:" + r.Spec.Runner.Name
		},
		NotResident: true,
		Where:       runnerScope,
		List:        &forgev1.RunnerSettingList{},
		External: func(_ context.Context, r *forgev1.RunnerSetting, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			return &runnerSetting{obj: r, fc: pass.Forge, scope: at.Place, server: at.Server}, nil
		},
	}
}

func runnerScope(r *forgev1.RunnerSetting) child.Place {
	return child.PlaceOf(r.Spec.Repository, r.Spec.Organization)
}

func runnerRef(r *forgev1.RunnerSetting) string {
	if id := r.Spec.Runner.ID; id != nil {
		return fmt.Sprintf("id %d", *id)
	}
	return strconv.Quote(r.Spec.Runner.Name)
}

type runnerSetting struct {
	obj    *forgev1.RunnerSetting
	fc     forge.RunnersClient
	scope  child.Place
	server forge.Server
	found  *forge.Runner
}

func (e *runnerSetting) Observe(ctx context.Context) (reconciler.Observation, error) {
	// Decided from the server's version before looking for the runner, so
	// that the resource says so at once, not only once a runner registers
	// and a PATCH is refused. A deletion goes on: it writes only where the
	// endpoint exists (Delete).
	if e.server.Lacks(forge.GateRunnerEdit) && e.obj.DeletionTimestamp.IsZero() {
		return reconciler.Observation{}, e.unsupported()
	}
	r, err := e.find(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	st := &e.obj.Status
	if r == nil {
		st.RunnerID, st.RunnerName, st.RunnerStatus = 0, "", ""
		if !e.obj.DeletionTimestamp.IsZero() {
			return reconciler.Observation{}, nil // nothing left to re-enable
		}
		return reconciler.Observation{}, reconciler.Wait(forgev1.ReasonRunnerNotFound,
			"no runner %s in %s yet; waiting for it to register", runnerRef(e.obj), e.scope.Describe())
	}
	e.found = r
	st.RunnerID, st.RunnerName, st.RunnerStatus = r.ID, r.Name, r.Status
	obs := reconciler.Observation{Exists: true, ID: r.ID}
	if r.Disabled != e.obj.Spec.Disabled {
		obs.Changes = []reconciler.Change{compare.Change("disabled", r.Disabled, e.obj.Spec.Disabled)}
		obs.Diff = reconciler.Fields(obs.Changes)
	}
	return obs, nil
}

// find returns the runner, nil when none matches (yet).
func (e *runnerSetting) find(ctx context.Context) (*forge.Runner, error) {
	if id := e.obj.Spec.Runner.ID; id != nil {
		r, err := e.fc.GetRunner(ctx, e.scope.Scope, *id)
		if !forge.IsNotFound(err) {
			return r, err
		}
		// Unknown runner, or unknown scope: listing tells which.
		if _, err := e.fc.ListRunners(ctx, e.scope.Scope); err != nil {
			return nil, reconciler.ParentMissing(err, e.scope.Describe())
		}
		return nil, nil
	}
	all, err := e.fc.ListRunners(ctx, e.scope.Scope)
	if err != nil {
		return nil, reconciler.ParentMissing(err, e.scope.Describe())
	}
	name := e.obj.Spec.Runner.Name
	return reconciler.One(all, func(r forge.Runner) bool { return r.Name == name }, func(r forge.Runner) int64 { return r.ID },
		fmt.Sprintf("runners named %q are registered in %s", name, e.scope.Describe()),
		"select one by spec.runner.id, or remove the others")
}

// Create is never reached: Observe waits until the runner exists.
func (e *runnerSetting) Create(context.Context) (reconciler.Observation, error) {
	return reconciler.Observation{}, reconciler.Wait(forgev1.ReasonRunnerNotFound,
		"no runner %s in %s yet; waiting for it to register", runnerRef(e.obj), e.scope.Describe())
}

func (e *runnerSetting) Update(ctx context.Context, obs reconciler.Observation) error {
	r, err := e.fc.EditRunner(ctx, e.scope.Scope, obs.ID, e.obj.Spec.Disabled)
	if forge.IsRouteNotFound(err) {
		// A server of unknown version (or one that hides the endpoint
		// whatever it reports) tells only by refusing.
		return e.unsupported()
	}
	if err != nil {
		return err
	}
	e.obj.Status.RunnerStatus = r.Status
	return nil
}

// Delete re-enables the runner (deletionPolicy Delete). A server without the
// edit endpoint cannot have disabled it through this operator either.
func (e *runnerSetting) Delete(ctx context.Context, obs reconciler.Observation) error {
	if e.found == nil || !e.found.Disabled || e.server.Lacks(forge.GateRunnerEdit) {
		return nil
	}
	_, err := e.fc.EditRunner(ctx, e.scope.Scope, obs.ID, false)
	if forge.IsRouteNotFound(err) {
		return nil
	}
	return err
}

func (e *runnerSetting) unsupported() error {
	return reconciler.Stall(forgev1.ReasonUnsupported, "%s: runners cannot be enabled or disabled there",
		e.server.Unsupported([]forge.Gate{forge.GateRunnerEdit}))
}

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
	if forge.IsNotFound(err) || forge.IsRouteNotFound(err) {
		return nil
	}
	count := export.CountBy(runners, func(r forge.Runner) string { return r.Name })
	return export.EachByID(runners, err, "runners of "+scope.String(), func(r forge.Runner) int64 { return r.ID }, func(r forge.Runner) {
		if !r.Disabled {
			return
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
	})
}
