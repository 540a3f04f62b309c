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

// RBAC of the OrgHook controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=orghooks,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=orghooks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=orghooks/finalizers,verbs=update

// orgHookKind manages organization webhooks (see hooks.Kind).
func orgHookKind(digests *secretdigest.Digester) child.Kind[*forgev1.OrgHook] {
	return hooks.Kind(digests, secrets.NewSent(), &forgev1.OrgHookList{},
		func(h *forgev1.OrgHook) (*forgev1.HookSpec, *forgev1.HookStatus, child.Place) {
			return &h.Spec.HookSpec, &h.Status, child.PlaceOf(nil, &h.Spec.Organization)
		})
}
