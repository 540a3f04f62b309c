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
	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/hooks"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// RBAC of the RepoHook controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repohooks,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repohooks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repohooks/finalizers,verbs=update

// repoHookKind manages repository webhooks: OrgHook's implementation over
// a repository (see hooks.Kind).
func repoHookKind(digests *secretdigest.Digester) child.Kind[*forgev1.RepoHook] {
	return hooks.Kind(digests, secrets.NewSent(), &forgev1.RepoHookList{},
		func(h *forgev1.RepoHook) (*forgev1.HookSpec, *forgev1.HookStatus, child.Place) {
			return &h.Spec.HookSpec, &h.Status, child.PlaceOf(&h.Spec.Repository, nil)
		})
}
