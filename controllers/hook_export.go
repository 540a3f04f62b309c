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

// orgHookExport writes an OrgHook per hook of the organization, and
// repoHookExport a RepoHook per hook of each live repository. The forge
// never returns a hook's secret: each is adopted as it is; a URL that may
// carry a credential and an authorization header become references to
// Secrets to create, never text.
var (
	orgHookExport = export.ForOrganization(func(ctx context.Context, b *export.Builder, src hookReader, o *forge.Organization) error {
		return exportHooks(ctx, b, src, forge.OrgScope(o.Name))
	})
	repoHookExport = export.ForLiveRepository(func(ctx context.Context, b *export.Builder, src hookReader, owner, repo string) error {
		return exportHooks(ctx, b, src, forge.RepoScope(owner, repo))
	})
)

// hookReader is what the hook export reads.
type hookReader interface {
	ListHooks(ctx context.Context, scope forge.Scope) ([]forge.Hook, error)
}

func exportHooks(ctx context.Context, b *export.Builder, src hookReader, sc forge.Scope) error {
	hooks, err := src.ListHooks(ctx, sc)
	if err != nil {
		return fmt.Errorf("list the hooks of %s: %w", sc, err)
	}
	slices.SortFunc(hooks, func(x, y forge.Hook) int { return cmp.Compare(x.ID, y.ID) })
	for _, h := range hooks {
		exportHook(b, sc, h)
	}
	return nil
}

// hookConfigKeys are the config keys besides url and content_type that the
// forge returns (Slack's) and that OrgHook manages in spec.config.
var hookConfigKeys = []string{"channel", "username", "icon_url", "color"}

// exportHook writes an OrgHook or, for a repository, a RepoHook.
func exportHook(b *export.Builder, sc forge.Scope, h forge.Hook) {
	kind, base := "OrgHook", sc.Owner
	if sc.Repo != "" {
		kind, base = "RepoHook", sc.Owner+"-"+sc.Repo
	}
	meta := b.Meta(kind, fmt.Sprintf("%s-hook-%d", base, h.ID), h.ID)
	name := meta.Name
	spec := forgev1.HookSpec{
		Type:         forgev1.HookType(h.Type),
		ContentType:  h.Config["content_type"],
		Events:       specHookEvents(h.Events),
		BranchFilter: h.BranchFilter,
		Active:       export.Ptr(h.Active),
		Name:         h.Name,
	}
	comment := []string{fmt.Sprintf("%s hook %d. The forge never returns a hook's secret: this hook is adopted", h.Type, h.ID),
		"as it is (never replaced); add spec.secretRef to set a new secret, which replaces the hook."}
	if forge.URLIsSecret(h.Type, h.Config["url"]) { // a token in the URL: into a Secret
		secret := name + "-url"
		spec.URLSecretRef = &forgev1.SecretKeySelector{Name: secret, Key: "url"}
		comment = append(comment, fmt.Sprintf("Its URL may carry a credential (a chat or Packagist hook, a query or user info): create Secret %s with key url holding the hook's URL before applying:", secret),
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=url=<the hook's URL>", secret))
	} else {
		spec.URL = h.Config["url"]
	}
	for _, k := range hookConfigKeys {
		if v, ok := h.Config[k]; ok && v != "" {
			if spec.Config == nil {
				spec.Config = map[string]string{}
			}
			spec.Config[k] = v
		}
	}
	if h.AuthorizationHeader != "" {
		secret := name + "-authorization"
		spec.AuthorizationHeaderSecretRef = &forgev1.SecretKeySelector{Name: secret, Key: "header"}
		comment = append(comment, fmt.Sprintf("It sends an authorization header: create Secret %s with key header holding it before applying:", secret),
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=header=<the header>", secret))
	}
	if sc.Repo != "" {
		b.Add(&forgev1.RepoHook{TypeMeta: export.TypeMeta(kind), ObjectMeta: meta, Spec: forgev1.RepoHookSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Repository:     forgev1.RepositoryName(sc.Owner + "/" + sc.Repo),
			HookSpec:       spec,
		}}, comment...)
		return
	}
	b.Add(&forgev1.OrgHook{TypeMeta: export.TypeMeta(kind), ObjectMeta: meta, Spec: forgev1.OrgHookSpec{
		ManagedSpec:    b.Managed(),
		DeletionPolicy: forgev1.DeletionPolicyOrphan,
		Organization:   forgev1.OwnerName(sc.Owner),
		HookSpec:       spec,
	}}, comment...)
}

// specHookEvents are the hook's events, sorted, as the spec's set.
func specHookEvents(events []string) []forgev1.HookEvent {
	out := make([]forgev1.HookEvent, 0, len(events))
	for _, e := range slices.Sorted(slices.Values(events)) {
		out = append(out, forgev1.HookEvent(e))
	}
	return slices.Compact(out)
}
