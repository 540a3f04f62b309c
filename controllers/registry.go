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

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/files"
	"github.com/forgeops/forge-operator/controllers/internal/hooks"
	"github.com/forgeops/forge-operator/controllers/internal/planning"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// registered is one managed kind with every part of it the manager,
// plan, export and report use, so that a kind is registered once.
type registered struct {
	// kind is the API kind's name ("Label").
	kind string
	// setup registers the kind's controller with the manager.
	setup func(ctx context.Context, mgr ctrl.Manager, pool *connection.Pool, opts reconciler.Options) error
	// object makes an empty resource of the kind, for watches; list an
	// empty list of them, for the shards' handover.
	object func() client.Object
	list   func() client.ObjectList
	// users are the kind's resources, in every namespace, whose forgeRef
	// index value is key (a ClusterForge's users), as the cache holds
	// them: read them, never change them.
	users func(ctx context.Context, c client.Reader, key string) ([]forgev1.Managed, error)
	// planner reads the kind for plan, given every object being planned.
	planner func(objs []*unstructured.Unstructured) (planning.Planner, error)
	// export is the kind's export writer, given what the user asked
	// export for (nil Writer: nothing asked of it); nil when the kind has
	// none of its own (TestExportWritesEveryKind's notExported says why,
	// or names the kind whose writer writes it).
	export func(ExportAsk) (*export.Writer, error)
	// inRepos says the kind's spec names a repository (a `repository`
	// field) or selects repositories (`repositories`); repoScoped and
	// guarded, that it waits for them (reconciler.RepoScoped) and checks
	// before writing into one (reconciler.WriteGuard). Only the registry's
	// tests read them (TestRepositoryKindsWaitForTheirRepositories): the
	// registry is the one place that still knows each kind's type.
	inRepos, repoScoped, guarded bool
	// scoped says the kind declares the token scopes its writes need
	// (reconciler.Scoped), for TestEveryKindDeclaresItsScopes.
	scoped bool
	// yieldsTo are the kinds whose resources this kind's resources yield
	// to (a field, a path, a team's access, a label or a rule they hold),
	// as the kind's ClaimKinds declares them (plan reads the same), each
	// decided by claims.Servers.HoldsOver: TestEveryYieldHoldsFromRecords
	// has a row for every pair, and fails on one without.
	yieldsTo []string
}

// repoParts fills r's inRepos, repoScoped and guarded for kind, and its
// object and users.
func repoParts[T forgev1.Managed](r registered, kind reconciler.Kind[T]) registered {
	r.object = func() client.Object { return kind.New() }
	r.list = kind.NewList
	r.users = func(ctx context.Context, c client.Reader, key string) ([]forgev1.Managed, error) {
		list := kind.NewList()
		if err := c.List(ctx, list, client.MatchingFields{claims.IndexForgeRef: key}, client.UnsafeDisableDeepCopy); err != nil {
			return nil, fmt.Errorf("list %s by forgeRef: %w", r.kind, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		users := make([]forgev1.Managed, 0, len(items))
		for _, it := range items {
			users = append(users, it.(forgev1.Managed))
		}
		return users, nil
	}
	spec, _ := reflect.TypeFor[T]().Elem().FieldByName("Spec")
	r.inRepos = hasJSONField(spec.Type, "repository") || hasJSONField(spec.Type, "repositories")
	_, r.repoScoped = kind.(reconciler.RepoScoped[T])
	_, r.guarded = kind.(reconciler.WriteGuard[T])
	_, r.scoped = kind.(reconciler.Scoped[T])
	if c, ok := kind.(interface{ ClaimKinds() []client.Object }); ok {
		for _, o := range c.ClaimKinds() {
			r.yieldsTo = append(r.yieldsTo, reflect.TypeOf(o).Elem().Name())
		}
	}
	return r
}

// hasJSONField reports whether struct t has a field (or an inlined
// struct's field) serialised as name.
func hasJSONField(t reflect.Type, name string) bool {
	for f := range t.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == name:
			return true
		case f.Anonymous && f.Type.Kind() == reflect.Struct && hasJSONField(f.Type, name):
			return true
		}
	}
	return false
}

// registry is the one list of the managed kinds (every kind of the API but
// Forge and ClusterForge, which have controllers of their own), one entry
// per kind with all its parts: Setup runs its controller, Plan plans it,
// Exporters writes it, report reads the sets' compliance from it.
// TestRegistryHoldsEveryKind fails when a kind of the API is missing here
// or lacks a controller or a planner, TestExportWritesEveryKind when
// export does not write it. The order is the export's output (see
// export.Options.Writers): in the organization's pass the organization's
// own and its scope's, then the teams; in each repository's pass the
// Repository, then what the repository holds; the sets last; the kinds
// export does not write after them. digests keeps the hook kinds' secret
// digests; endpoint is the manager's receiver (nil for plan and export,
// which serve nothing).
func registry(digests *secretdigest.Digester, endpoint *receiver.Endpoint) []registered {
	return []registered{
		managedKind[*forgev1.Organization](organizationKind{}, creates, exports(organizationExport)),
		managedKind[*forgev1.OrgHook](orgHookKind(digests), creates, exports(hooks.OrgExport)),
		managedKind[*forgev1.Label](labelKind(), creates, exports(labelExport)),
		managedKind[*forgev1.Repository](repositoryKind{}, creates, exports(repositoryExport)),
		managedKind[*forgev1.RepoHook](repoHookKind(digests), creates, exports(hooks.RepoExport)),
		managedKind[*forgev1.RunnerSetting](runnerSettingKind(), selects, exports(runnerSettingExport)),
		managedKind[*forgev1.ActionsVariable](newActionsVariableKind(), creates, exports(actionsVariableExport)),
		managedKind[*forgev1.ActionsSecret](actionsSecretKind(digests, secrets.NewSent()), creates, exports(actionsSecretExport)),
		managedKind[*forgev1.Team](teamKind{}, creates, exports(teamExport)),
		managedKind[*forgev1.Project](projectKind(), creates, exports(projectExport)),
		managedKind[*forgev1.DeployKey](deployKeyKind(), creates, exports(deployKeyExport)),
		managedKind[*forgev1.TagProtection](tagProtectionKind(), creates, exports(tagProtectionExport)),
		managedKind[*forgev1.PushMirror](pushMirrorKind(digests, secrets.NewSent()), creates, exports(pushMirrorExport)),
		managedKind[*forgev1.Milestone](milestoneKind(), creates, exports(milestoneExport)),
		setKind[*forgev1.LabelSet](labelSetKind{Store: rounds.NewStore[sets.Repo]()}, exports(labelSetExport)),
		// Its writer proposes the BranchProtectionSets too, for the
		// repositories whose rules are equal.
		managedKind[*forgev1.BranchProtection](branchWoken[*forgev1.BranchProtection]{branchProtectionKind()}, creates, exports(branchProtectionExport)),
		setKind[*forgev1.BranchProtectionSet](branchProtectionSetKind{Store: rounds.NewStore[sets.Repo]()}, nil),
		setKind[*forgev1.RepositorySet](repositorySetKind{Store: rounds.NewStore[sets.Repo]()}, repositorySetExports),
		setKind[*forgev1.FileSet](fileSetKind{Store: rounds.NewStore[sets.Repo](), pushes: &files.Pushes{}}, fileSetExports),
		managedKind[*forgev1.RepositoryFile](newRepositoryFileKind(), creates, nil),
		managedKind[*forgev1.User](userKind{digests: digests, sent: secrets.NewSent()}, creates, nil),
		managedKind[*forgev1.RunnerRegistrationToken](runnerTokenKind(), creates, nil),
		setKind[*forgev1.Receiver](receiverKind{endpoint: endpoint}, nil),
	}
}

// Whether plan may report a create for a kind of one forge object per
// resource: RunnerSetting only selects a runner that registers itself.
const (
	creates = true
	selects = false
)

// setKind registers a set kind (one resource, many repositories) with its
// export writer.
func setKind[T forgev1.Managed](kind reconciler.SetKind[T], exporter func(ExportAsk) (*export.Writer, error)) registered {
	return repoParts[T](registered{
		kind:  kindName[T](kind),
		setup: setupOf[T](kind),
		planner: func(objs []*unstructured.Unstructured) (planning.Planner, error) {
			return planning.ForSet(kind, objs)
		},
		export: exporter,
	}, kind)
}

// managedKind registers a kind of one forge object per resource with its
// export writer; creates says whether plan may report a create.
func managedKind[T forgev1.Managed](kind reconciler.Kind[T], creates bool, exporter func(ExportAsk) (*export.Writer, error)) registered {
	return repoParts[T](registered{
		kind:  kindName(kind),
		setup: setupOf(kind),
		planner: func([]*unstructured.Unstructured) (planning.Planner, error) {
			return planning.ForKind(kind, creates), nil
		},
		export: exporter,
	}, kind)
}

func setupOf[T forgev1.Managed](kind reconciler.Kind[T]) func(context.Context, ctrl.Manager, *connection.Pool, reconciler.Options) error {
	return func(ctx context.Context, mgr ctrl.Manager, pool *connection.Pool, opts reconciler.Options) error {
		return reconciler.Setup(ctx, mgr, kind, pool, opts)
	}
}

// kindName is the API kind of the resources kind manages.
func kindName[T forgev1.Managed](kind reconciler.Kind[T]) string {
	return reflect.TypeOf(kind.New()).Elem().Name()
}

// ExportAsk is what export proposes beyond what the forge holds, only
// when the user asks for it.
type ExportAsk struct {
	// Sets asks for a RepositorySet holding the settings every repository
	// shares (export --sets).
	Sets bool
	// Files asks, when not nil, for a FileSet holding those of these paths
	// that are alike in every repository (export --files; empty is an
	// error: no path).
	Files []string
}

// exports is the export part of a kind whose writer always writes.
func exports(w export.Writer) func(ExportAsk) (*export.Writer, error) {
	return func(ExportAsk) (*export.Writer, error) { return &w, nil }
}

// repositorySetExports proposes a policy (repositorySetExport) only when
// asked.
func repositorySetExports(ask ExportAsk) (*export.Writer, error) {
	if !ask.Sets {
		return nil, nil
	}
	return &repositorySetExport, nil
}

// fileSetExports proposes the files named (FileSetExporter) only when
// asked.
func fileSetExports(ask ExportAsk) (*export.Writer, error) {
	if ask.Files == nil {
		return nil, nil
	}
	w, err := FileSetExporter(ask.Files)
	if err != nil {
		return nil, fmt.Errorf("--files: %w", err)
	}
	return &w, nil
}

// Exporters are the export writers of the registry's kinds, in its order
// (the output's), with those proposed only when asked if ask asks for
// them; an error says what of ask is invalid.
func Exporters(ask ExportAsk) ([]export.Writer, error) {
	var writers []export.Writer
	for _, k := range registry(nil, nil) {
		if k.export == nil {
			continue
		}
		w, err := k.export(ask)
		if err != nil {
			return nil, err
		}
		if w != nil {
			writers = append(writers, *w)
		}
	}
	return writers, nil
}

// SetLists are empty lists of the set kinds whose status embeds
// SetStatus (the sets over repositories), in the registry's order: report
// reads their compliance from there, so that a new set kind is in it
// without an edit.
func SetLists() []client.ObjectList {
	var lists []client.ObjectList
	for _, k := range registry(nil, nil) {
		if _, ok := k.object().(interface{ GetSetStatus() *forgev1.SetStatus }); ok {
			lists = append(lists, k.list())
		}
	}
	return lists
}

// PlanEnv is what Plan works with.
type PlanEnv = planning.Env

// Plan tells, per object of the operator's kinds in objs, what the operator
// would do: it runs each kind's own Connect and Observe (the code the loop
// runs) over a forge client that refuses every write, and maps the
// observation as the loop would (package planning). The kinds are the
// registry's; objects of other kinds are left out.
func Plan(ctx context.Context, env PlanEnv, objs []*unstructured.Unstructured) []plan.Item {
	return planning.Run(ctx, env, objs, func(digests *secretdigest.Digester, objs []*unstructured.Unstructured) map[string]planning.Planner {
		planners := map[string]planning.Planner{}
		for _, k := range registry(digests, nil) {
			if p, err := k.planner(objs); err == nil {
				planners[k.kind] = p
			}
		}
		return planners
	})
}
