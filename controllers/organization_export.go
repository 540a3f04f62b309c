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

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// organizationExport writes the Organization with every setting the forge
// holds.
var organizationExport = export.ForOrganization(func(_ context.Context, b *export.Builder, _ any, o *forge.Organization) error {
	obj := &forgev1.Organization{
		TypeMeta:   export.TypeMeta("Organization"),
		ObjectMeta: b.Meta("Organization", o.Name, o.ID),
		Spec: forgev1.OrganizationSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Name:           export.Ptr(forgev1.OwnerName(o.Name)),
			FullName:       export.NonEmpty(o.FullName),
			Description:    export.NonEmpty(o.Description),
			Email:          export.NonEmpty(o.Email),
			Website:        export.NonEmpty(o.Website),
			Location:       export.NonEmpty(o.Location),
			Visibility:     export.NonEmpty(o.Visibility),
		},
	}
	if o.RepoAdminChangeTeamAccess {
		obj.Spec.RepoAdminChangeTeamAccess = export.Ptr(true)
	}
	b.Add(obj)
	return nil
})
