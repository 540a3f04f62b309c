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

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// actionsVariableExport writes the Actions variables of the organization
// and of each live repository, with their values; actionsSecretExport
// their secrets, as resources whose valueFrom names a Secret to create
// first (the forge never gives a value back): applying such a resource
// sends the Secret's value once, as any adoption of a secret does. A
// server without the Actions API has none to write.
var (
	actionsVariableExport = export.ForScope(exportActionsVariables)
	actionsSecretExport   = export.ForScope(exportActionsSecrets)
)

// actionsReader is what the Actions exports read.
type actionsReader interface {
	ListActionsSecrets(ctx context.Context, scope forge.Scope) ([]forge.ActionsSecret, error)
	ListActionsVariables(ctx context.Context, scope forge.Scope) ([]forge.ActionsVariable, error)
}

func exportActionsVariables(ctx context.Context, b *export.Builder, src actionsReader, sc forge.Scope) error {
	vars, err := src.ListActionsVariables(ctx, sc)
	if err != nil && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the Actions variables of %s: %w", sc, err)
	}
	scope, base := exportActionsScope(sc)
	for _, v := range vars {
		vs := scope
		vs.Name, vs.Description = export.Ptr(forgev1.ActionsName(v.Name)), export.Ptr(v.Description)
		b.Add(&forgev1.ActionsVariable{TypeMeta: export.TypeMeta("ActionsVariable"),
			ObjectMeta: b.Meta("ActionsVariable", base+"-"+v.Name, 0),
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: b.Managed(), ActionsScope: vs,
				DeletionPolicy: forgev1.DeletionPolicyOrphan, Value: export.Ptr(v.Data)}})
	}
	return nil
}

func exportActionsSecrets(ctx context.Context, b *export.Builder, src actionsReader, sc forge.Scope) error {
	secrets, err := src.ListActionsSecrets(ctx, sc)
	if err != nil && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the Actions secrets of %s: %w", sc, err)
	}
	scope, base := exportActionsScope(sc)
	for _, s := range secrets {
		ss := scope
		ss.Name, ss.Description = export.Ptr(forgev1.ActionsName(s.Name)), export.Ptr(s.Description)
		meta := b.Meta("ActionsSecret", base+"-"+s.Name, 0)
		secret := meta.Name
		b.Add(&forgev1.ActionsSecret{TypeMeta: export.TypeMeta("ActionsSecret"), ObjectMeta: meta,
			Spec: forgev1.ActionsSecretSpec{ManagedSpec: b.Managed(), ActionsScope: ss, DeletionPolicy: forgev1.DeletionPolicyOrphan,
				ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: secret, Key: "value"}}}},
			fmt.Sprintf("Actions secret %s of %s. The forge never gives a secret's value back: create Secret %s", s.Name, sc, secret),
			"with key value holding it before applying (the value is then sent once, on adoption):",
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=value=<the secret's value>", secret))
	}
	return nil
}

// exportActionsScope is the spec's scope for sc and the base of its
// values' names.
func exportActionsScope(sc forge.Scope) (forgev1.ActionsScope, string) {
	if sc.Repo != "" {
		return forgev1.ActionsScope{Repository: export.Ptr(forgev1.RepositoryName(sc.String()))}, sc.Owner + "-" + sc.Repo
	}
	return forgev1.ActionsScope{Organization: export.Ptr(forgev1.OwnerName(sc.Owner))}, sc.Owner
}
