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

package deploy

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// crdPlurals are the resource names of every CRD in config/crd/bases,
// sorted, and of those the cluster-scoped ones (ClusterForge).
func crdPlurals(t *testing.T) (group string, plurals, clusterScoped []string) {
	t.Helper()
	for _, crd := range crdBases(t) {
		group = crd.Spec.Group
		plurals = append(plurals, crd.Spec.Names.Plural)
		if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
			clusterScoped = append(clusterScoped, crd.Spec.Names.Plural)
		}
	}
	slices.Sort(plurals)
	slices.Sort(clusterScoped)
	return group, plurals, clusterScoped
}

// aggregatedRoles is config/rbac/aggregated_roles.yaml as generated from
// the CRDs: read access to every kind aggregated to view (and so edit and
// admin), write access to the namespaced kinds aggregated to edit and
// admin. The cluster-scoped kinds (ClusterForge: the platform's connection,
// its credentials and who may use it) are written by cluster admins only:
// a namespace's admin must not widen its own tenants entry. Neither role
// grants anything on Secrets: the Secrets the kinds reference stay under
// the cluster's own rules.
func aggregatedRoles(group string, plurals, clusterScoped []string) string {
	var b strings.Builder
	b.WriteString(`# forge.forgeops.dev for namespace users: the cluster's view, edit and admin
# ClusterRoles take these rules in (RBAC aggregation), so a RoleBinding to
# edit in a namespace lets its holder manage every namespaced kind there,
# and one to view lets its holder read them. ClusterForges are
# cluster-scoped: view lets those bound to it cluster-wide (a
# ClusterRoleBinding) read them; edit and admin never write them, which is
# left to cluster admins. Nothing here touches Secrets.
# Generated from config/crd/bases: go test ./test/deploy -run TestAggregatedRoles -update
`)
	role := func(name string, labels []string, resources []string, verbs string, status bool) {
		fmt.Fprintf(&b, "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: %s\n  labels:\n", name)
		b.WriteString("    app.kubernetes.io/name: forge-operator\n")
		for _, l := range labels {
			fmt.Fprintf(&b, "    rbac.authorization.k8s.io/aggregate-to-%s: \"true\"\n", l)
		}
		fmt.Fprintf(&b, "rules:\n- apiGroups:\n  - %s\n  resources:\n", group)
		for _, p := range resources {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
		fmt.Fprintf(&b, "  verbs: [%s]\n", verbs)
		if status {
			fmt.Fprintf(&b, "- apiGroups:\n  - %s\n  resources:\n", group)
			for _, p := range resources {
				fmt.Fprintf(&b, "  - %s/status\n", p)
			}
			b.WriteString("  verbs: [get]\n")
		}
	}
	namespaced := slices.DeleteFunc(slices.Clone(plurals), func(p string) bool { return slices.Contains(clusterScoped, p) })
	// Named view and edit here: config/default's namePrefix makes them
	// forge-operator-view and forge-operator-edit.
	role("view", []string{"view", "edit", "admin"}, plurals, "get, list, watch", true)
	role("edit", []string{"edit", "admin"}, namespaced, "create, delete, deletecollection, patch, update", false)
	return b.String()
}

// TestAggregatedRoles checks config/rbac/aggregated_roles.yaml against the
// kinds: a kind added to the API is in the roles, or this fails.
func TestAggregatedRoles(t *testing.T) {
	group, plurals, clusterScoped := crdPlurals(t)
	if !slices.Contains(clusterScoped, "clusterforges") {
		t.Errorf("cluster-scoped kinds %v: want clusterforges among them", clusterScoped)
	}
	path := repoPath("config", "rbac", "aggregated_roles.yaml")
	want := aggregatedRoles(group, plurals, clusterScoped)
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("config/rbac/aggregated_roles.yaml is not what the CRDs give; run go test ./test/deploy -run TestAggregatedRoles -update")
	}
	if len(plurals) != len(testenv.Kinds()) {
		t.Errorf("%d CRDs for %d kinds", len(plurals), len(testenv.Kinds()))
	}
}

// TestAggregatedRolesOnAnAPIServer asks the API server what a namespace's
// edit and view users may do with every kind, once the cluster's roles have
// taken the operator's in. envtest runs no controller manager, whose
// clusterrole-aggregation controller fills view, edit and admin: the test
// does what it does, with the roles' own aggregation rules.
func TestAggregatedRolesOnAnAPIServer(t *testing.T) {
	cfg := startAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range render(t, repoPath("config", "default")) {
		if o.Kind != "ClusterRole" || o.Name != "forge-operator-view" && o.Name != "forge-operator-edit" {
			continue
		}
		var r rbacv1.ClusterRole
		if err := yaml.Unmarshal(o.YAML, &r); err != nil {
			t.Fatal(err)
		}
		for _, rule := range r.Rules {
			if slices.Contains(rule.Resources, "secrets") || slices.Contains(rule.Resources, "*") {
				t.Errorf("%s grants %v: the aggregated roles must not touch Secrets", r.Name, rule)
			}
		}
		if err := admin.Create(ctx, &r); err != nil {
			t.Fatalf("create %s: %v", r.Name, err)
		}
	}
	aggregate := func(name string) {
		var target rbacv1.ClusterRole
		poll(ctx, t, "bootstrap ClusterRole "+name, func() (bool, error) {
			err := admin.Get(ctx, client.ObjectKey{Name: name}, &target)
			return err == nil, nil
		})
		if target.AggregationRule == nil {
			t.Fatalf("ClusterRole %s has no aggregation rule", name)
		}
		var rules []rbacv1.PolicyRule
		for _, sel := range target.AggregationRule.ClusterRoleSelectors {
			s, err := metav1.LabelSelectorAsSelector(&sel)
			if err != nil {
				t.Fatal(err)
			}
			var roles rbacv1.ClusterRoleList
			if err := admin.List(ctx, &roles, client.MatchingLabelsSelector{Selector: s}); err != nil {
				t.Fatal(err)
			}
			for _, r := range roles.Items {
				if r.Name != name {
					rules = append(rules, r.Rules...)
				}
			}
		}
		target.Rules = rules
		if err := admin.Update(ctx, &target); err != nil {
			t.Fatalf("aggregate into %s: %v", name, err)
		}
	}
	aggregate("view")
	aggregate("edit")
	aggregate("admin")

	const ns = "team"
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for user, role := range map[string]string{"editor": "edit", "viewer": "view", "ns-admin": "admin"} {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}}
		if err := admin.Create(ctx, rb); err != nil {
			t.Fatal(err)
		}
	}
	// Bound cluster-wide: what each role allows on cluster-scoped kinds.
	for user, role := range map[string]string{"cluster-editor": "edit", "cluster-viewer": "view", "cluster-admin-role": "admin"} {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}}
		if err := admin.Create(ctx, crb); err != nil {
			t.Fatal(err)
		}
	}
	group, plurals, clusterScoped := crdPlurals(t)
	mayIn := func(ns, user, verb, group, resource string) bool {
		t.Helper()
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: resource}}}
		if err := admin.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		return sar.Status.Allowed
	}
	may := func(user, verb, group, resource string) bool {
		t.Helper()
		return mayIn(ns, user, verb, group, resource)
	}
	writes := []string{"create", "update", "patch", "delete", "deletecollection"}
	for _, p := range clusterScoped {
		// No namespace: a RoleBinding grants nothing here, whatever its role.
		for _, user := range []string{"editor", "viewer", "ns-admin"} {
			if mayIn("", user, "get", group, p) {
				t.Errorf("a namespace %s user may get %s, which are cluster-scoped", user, p)
			}
		}
		for _, verb := range []string{"get", "list", "watch"} {
			for _, user := range []string{"cluster-viewer", "cluster-editor", "cluster-admin-role"} {
				if !mayIn("", user, verb, group, p) {
					t.Errorf("%s, bound cluster-wide, may not %s %s", user, verb, p)
				}
			}
		}
		if !mayIn("", "cluster-viewer", "get", group, p+"/status") {
			t.Errorf("view bound cluster-wide may not get %s/status", p)
		}
		// The tenants entries say who may use the platform's credentials:
		// edit and admin, even cluster-wide, must not rewrite them.
		for _, verb := range writes {
			for _, user := range []string{"cluster-viewer", "cluster-editor", "cluster-admin-role"} {
				if mayIn("", user, verb, group, p) {
					t.Errorf("%s, bound cluster-wide, may %s %s: only cluster admins may", user, verb, p)
				}
			}
		}
	}
	for _, p := range plurals {
		if slices.Contains(clusterScoped, p) {
			continue
		}
		for _, verb := range []string{"get", "list", "watch", "create", "update", "patch", "delete"} {
			if !may("editor", verb, group, p) {
				t.Errorf("a namespace edit user may not %s %s", verb, p)
			}
			if want := verb == "get" || verb == "list" || verb == "watch"; may("viewer", verb, group, p) != want {
				t.Errorf("a namespace view user: %s %s allowed %v, want %v", verb, p, !want, want)
			}
		}
		if may("editor", "update", group, p+"/status") || may("viewer", "update", group, p+"/status") {
			t.Errorf("%s/status is the operator's to write", p)
		}
	}
	if may("viewer", "get", "", "secrets") || may("viewer", "list", "", "secrets") {
		t.Error("a namespace view user may read Secrets")
	}
}
