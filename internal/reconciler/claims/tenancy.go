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

package claims

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Tenancy: which namespaces may manage which owners through a ClusterForge
// (DESIGN "ClusterForge"). The platform lists tenants entries; an entry
// selects namespaces (by name, by labels or by regular expression: any of
// the three, as External Secrets' ClusterSecretStore conditions do) and
// grants them owners (organization and user names, globs). A resource
// through a ClusterForge acts only when, for every owner it writes under,
// an entry that selects its namespace has a matching glob (and siteAdmin
// for the site-admin kinds). It is decided on every pass, from the
// namespace's labels as the manager's cache holds them, so that a label
// removed stops the writes at the next pass.

// ForgeKey names the connection obj uses: its Forge's namespace and name,
// or its ClusterForge's name with an empty namespace (as connection.Source
// keys them).
func ForgeKey(obj forgev1.Managed) types.NamespacedName {
	return refKey(obj.GetNamespace(), obj.GetManagedSpec().ForgeRef)
}

func refKey(ns string, ref forgev1.ForgeReference) types.NamespacedName {
	if ref.Cluster() {
		return types.NamespacedName{Name: ref.Name}
	}
	return types.NamespacedName{Namespace: ns, Name: ref.Name}
}

// Permission is what a ClusterForge allows one resource.
type Permission struct {
	// Allowed: every owner is granted to the namespace.
	Allowed bool
	// Why says, when not allowed, what the resource would need.
	Why string
}

// Permits decides whether a resource in namespace ns (with labels nsLabels)
// may write under owners through cf; siteAdmin says its kind needs an
// entry with siteAdmin: true. Owners and globs compare without regard to
// case, as the forge compares names.
func Permits(cf *forgev1.ClusterForge, ns string, nsLabels map[string]string, owners []string, siteAdmin bool) Permission {
	var entries []forgev1.ClusterForgeTenant
	var broken []string
	for i, t := range cf.Spec.Tenants {
		ok, err := selects(t, ns, nsLabels)
		if err != nil {
			broken = append(broken, fmt.Sprintf("tenants[%d]: %v", i, err))
		}
		if ok && (!siteAdmin || t.SiteAdmin) {
			entries = append(entries, t)
		}
	}
	needs := "a tenants entry that selects it"
	if siteAdmin {
		needs = "a tenants entry with siteAdmin: true that selects it"
	}
	note := ""
	if len(broken) > 0 {
		note = " (" + strings.Join(broken, "; ") + ")"
	}
	if len(entries) == 0 {
		return Permission{Why: fmt.Sprintf("ClusterForge %q does not serve namespace %s: it needs %s (namespaces, namespaceSelector or namespaceRegexes)%s",
			cf.Name, ns, needs, note)}
	}
	var denied []string
	for _, o := range owners {
		if !slices.ContainsFunc(entries, func(t forgev1.ClusterForgeTenant) bool { return ownerAllowed(t, o) }) {
			denied = append(denied, o)
		}
	}
	if len(owners) == 0 && siteAdmin {
		// The instance's own objects (its runner registration token): a
		// siteAdmin entry that selects the namespace is all it needs.
		return Permission{Allowed: true}
	}
	if len(owners) == 0 {
		return Permission{Why: fmt.Sprintf("ClusterForge %q: the resource names no organization or user", cf.Name)}
	}
	if len(denied) == 0 {
		return Permission{Allowed: true}
	}
	var granted []string
	for _, t := range entries {
		for _, g := range t.Owners {
			granted = append(granted, string(g))
		}
	}
	slices.Sort(granted)
	return Permission{Why: fmt.Sprintf("ClusterForge %q does not let namespace %s manage %s: it needs an owners glob matching %s in %s (its entries for %s allow %s)%s",
		cf.Name, ns, quoteAll(denied), quoteAll(denied), needs, ns, strings.Join(slices.Compact(granted), ", "), note)}
}

// PermitsAdmins decides whether a resource in namespace ns (with labels
// nsLabels) may make, adopt or keep site administrators under owners
// through cf: each owner needs an entry that selects the namespace with
// siteAdmin and grantAdmin and whose owners glob matches it. siteAdmin
// alone manages the accounts its owners match, never an administrator:
// an administrator's password or email written by a tenant would give
// that tenant the whole server.
func PermitsAdmins(cf *forgev1.ClusterForge, ns string, nsLabels map[string]string, owners []string) Permission {
	var denied []string
	for _, o := range owners {
		if !slices.ContainsFunc(cf.Spec.Tenants, func(t forgev1.ClusterForgeTenant) bool {
			ok, _ := selects(t, ns, nsLabels)
			return ok && t.SiteAdmin && t.GrantAdmin && ownerAllowed(t, o)
		}) {
			denied = append(denied, o)
		}
	}
	if len(owners) > 0 && len(denied) == 0 {
		return Permission{Allowed: true}
	}
	return Permission{Why: fmt.Sprintf("ClusterForge %q does not let namespace %s make, adopt or keep site administrators: %s needs a tenants entry that selects the namespace with siteAdmin: true and grantAdmin: true and an owners glob matching it",
		cf.Name, ns, quoteAll(denied))}
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// selects reports whether entry t selects namespace ns; err names a
// selector or regular expression of t that cannot be used (admission
// cannot check them all), which then selects nothing.
func selects(t forgev1.ClusterForgeTenant, ns string, nsLabels map[string]string) (bool, error) {
	if slices.Contains(t.Namespaces, ns) {
		return true, nil
	}
	var bad error
	if t.NamespaceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
		switch {
		case err != nil:
			bad = fmt.Errorf("namespaceSelector: %w", err)
		case sel.Matches(labels.Set(nsLabels)):
			return true, nil
		}
	}
	for i, expr := range t.NamespaceRegexes {
		re, err := regexp.Compile(string(expr))
		if err != nil {
			bad = fmt.Errorf("namespaceRegexes[%d] is not a valid RE2 regular expression: %w", i, err)
			continue
		}
		if re.MatchString(ns) {
			return true, nil
		}
	}
	return false, bad
}

// ownerAllowed reports whether an owners glob of t matches owner.
func ownerAllowed(t forgev1.ClusterForgeTenant, owner string) bool {
	owner = strings.ToLower(owner)
	for _, g := range t.Owners {
		// Admission allows only names with * and ?, which are always
		// valid patterns.
		if ok, err := path.Match(strings.ToLower(string(g)), owner); err == nil && ok {
			return true
		}
	}
	return false
}

// TenantErrors lists the tenants entries' selectors and regular
// expressions that cannot be used, for the ClusterForge's status.
func TenantErrors(cf *forgev1.ClusterForge) []string {
	var out []string
	for i, t := range cf.Spec.Tenants {
		if _, err := selects(t, "", nil); err != nil {
			out = append(out, fmt.Sprintf("tenants[%d]: %v", i, err))
		}
	}
	return out
}

// PermissionOf decides whether obj may act through ClusterForge cf, reading
// its namespace's labels from c (the manager's cache). A namespace that is
// gone has no labels.
func PermissionOf(ctx context.Context, c client.Reader, cf *forgev1.ClusterForge, obj forgev1.Managed) (Permission, error) {
	labels, err := namespaceLabels(ctx, c, obj.GetNamespace())
	if err != nil {
		return Permission{}, err
	}
	p := Permits(cf, obj.GetNamespace(), labels, obj.ForgeOwners(), forgev1.NeedsSiteAdmin(obj))
	if p.Allowed {
		p = PermitsAuthor(cf, forgev1.SpecAuthorOf(obj))
	}
	return p, nil
}

// PermitsAuthor decides whether a resource whose spec asks for author may
// commit through cf: a ClusterForge that pins its commits' author
// (commitAuthor) refuses every spec.author, so that no tenant signs a
// commit with a name of its choosing on the platform's account.
func PermitsAuthor(cf *forgev1.ClusterForge, author *forgev1.CommitAuthor) Permission {
	if cf.Spec.CommitAuthor == nil || author == nil {
		return Permission{Allowed: true}
	}
	return Permission{Why: fmt.Sprintf("ClusterForge %q pins the author of every commit made through it (spec.commitAuthor): spec.author is not the resource's to set; remove it",
		cf.Name)}
}

// AdminsPermission decides whether obj may make, adopt or keep site
// administrators through ClusterForge name, reading it and its namespace's
// labels from c (the manager's cache). A ClusterForge that is gone permits
// nothing.
func AdminsPermission(ctx context.Context, c client.Reader, name string, obj forgev1.Managed) (Permission, error) {
	var cf forgev1.ClusterForge
	if err := c.Get(ctx, types.NamespacedName{Name: name}, &cf); err != nil {
		if apierrors.IsNotFound(err) {
			return Permission{Why: fmt.Sprintf("ClusterForge %q not found", name)}, nil
		}
		return Permission{}, err
	}
	labels, err := namespaceLabels(ctx, c, obj.GetNamespace())
	if err != nil {
		return Permission{}, err
	}
	return PermitsAdmins(&cf, obj.GetNamespace(), labels, obj.ForgeOwners()), nil
}

// namespaceLabels are the labels of namespace ns, read from c (the
// manager's cache) as metadata; none for a namespace that is gone.
func namespaceLabels(ctx context.Context, c client.Reader, ns string) (map[string]string, error) {
	var obj metav1.PartialObjectMetadata
	obj.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if err := c.Get(ctx, types.NamespacedName{Name: ns}, &obj); err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("read namespace %s: %w", ns, err)
	}
	return obj.Labels, nil
}

// GrantsEverywhere reports whether a resource of namespace ns on
// connection ref speaks for owner in every namespace: ref is a
// ClusterForge (the platform's connection) and an entry of its tenants
// that selects ns grants owner, reading both from c (the manager's
// cache). A Forge of a namespace's own speaks for that namespace alone,
// whatever its token may do on the forge.
func GrantsEverywhere(ctx context.Context, c client.Reader, ns string, ref forgev1.ForgeReference, owner string) (bool, error) {
	if !ref.Cluster() || owner == "" {
		return false, nil
	}
	var cf forgev1.ClusterForge
	if err := c.Get(ctx, types.NamespacedName{Name: ref.Name}, &cf); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	labels, err := namespaceLabels(ctx, c, ns)
	if err != nil {
		return false, err
	}
	return Permits(&cf, ns, labels, []string{owner}, false).Allowed, nil
}
