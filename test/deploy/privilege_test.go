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
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/secretdigest"
)

const managerSA = "forge-operator-controller-manager"

var managerSubject = rbacv1.Subject{Kind: "ServiceAccount", Name: managerSA, Namespace: namespace}

// TestDefaultServesMetricsToMetricsReadersOnly: the manager may check a
// scraper's token and access, nothing more, and the metrics-reader role a
// scraper is bound to grants GET /metrics alone.
func TestDefaultServesMetricsToMetricsReadersOnly(t *testing.T) {
	objs := render(t, repoPath("config", "default"))

	var auth rbacv1.ClusterRole
	objs.named(t, "ClusterRole", "forge-operator-metrics-auth-role", &auth)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}
	if fmt.Sprint(auth.Rules) != fmt.Sprint(want) {
		t.Errorf("metrics-auth-role rules %+v, want %+v", auth.Rules, want)
	}
	var crb rbacv1.ClusterRoleBinding
	objs.named(t, "ClusterRoleBinding", "forge-operator-metrics-auth-rolebinding", &crb)
	if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != auth.Name {
		t.Errorf("metrics-auth-rolebinding refers to %s %q, want ClusterRole %q", crb.RoleRef.Kind, crb.RoleRef.Name, auth.Name)
	}
	if len(crb.Subjects) != 1 || crb.Subjects[0] != managerSubject {
		t.Errorf("metrics-auth-rolebinding subjects %+v, want only %+v", crb.Subjects, managerSubject)
	}

	var reader rbacv1.ClusterRole
	objs.named(t, "ClusterRole", "forge-operator-metrics-reader", &reader)
	want = []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
	if fmt.Sprint(reader.Rules) != fmt.Sprint(want) {
		t.Errorf("metrics-reader rules %+v, want %+v", reader.Rules, want)
	}
}

// watchNamespaces returns the namespaces of the Deployment's --watch-namespaces.
func watchNamespaces(t *testing.T, dep appsv1.Deployment) []string {
	t.Helper()
	var out []string
	for _, a := range dep.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--watch-namespaces="); ok {
			out = append(out, strings.Split(v, ",")...)
		}
	}
	return out
}

// generatedManagerRole reads config/rbac/role.yaml, the ClusterRole
// controller-gen writes from the +kubebuilder:rbac markers.
func generatedManagerRole(t *testing.T) rbacv1.ClusterRole {
	t.Helper()
	b, err := os.ReadFile(repoPath("config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(b, &role); err != nil {
		t.Fatalf("config/rbac/role.yaml: %v", err)
	}
	if len(role.Rules) == 0 {
		t.Fatal("config/rbac/role.yaml has no rules")
	}
	return role
}

// grants reports whether rule grants any verb on a resource (or a
// subresource of one) that one of manager's rules names.
func grants(rule rbacv1.PolicyRule, manager []rbacv1.PolicyRule) bool {
	for _, m := range manager {
		for _, g := range rule.APIGroups {
			if g != "*" && !slices.Contains(m.APIGroups, g) {
				continue
			}
			for _, r := range rule.Resources {
				base, _, _ := strings.Cut(r, "/")
				for _, mr := range m.Resources {
					mbase, _, _ := strings.Cut(mr, "/")
					if r == "*" || base == mbase {
						return true
					}
				}
			}
		}
	}
	return false
}

// TestNamespacedGrantsTheManagerRoleInTheWatchedNamespacesOnly renders
// config/namespaced: the manager watches a list of namespaces, and its rules
// are held by a Role in exactly those namespaces, never by a ClusterRole.
func TestNamespacedGrantsTheManagerRoleInTheWatchedNamespacesOnly(t *testing.T) {
	objs := render(t, repoPath("config", "namespaced"))
	def := render(t, repoPath("config", "default"))
	generated := generatedManagerRole(t)
	const roleName = "forge-operator-manager-role"

	var dep appsv1.Deployment
	objs.one(t, "Deployment", &dep)
	watched := watchNamespaces(t, dep)
	if len(watched) == 0 {
		t.Fatalf("the Deployment's args %v set no --watch-namespaces", dep.Spec.Template.Spec.Containers[0].Args)
	}
	// It serves no ClusterForge: no Role can grant watching them.
	if !slices.Contains(dep.Spec.Template.Spec.Containers[0].Args, "--cluster-forges=false") {
		t.Errorf("the Deployment's args %v lack --cluster-forges=false", dep.Spec.Template.Spec.Containers[0].Args)
	}
	// Otherwise the Deployment is config/default's.
	var defDep appsv1.Deployment
	def.one(t, "Deployment", &defDep)
	args := slices.DeleteFunc(slices.Clone(dep.Spec.Template.Spec.Containers[0].Args),
		func(a string) bool {
			return strings.HasPrefix(a, "--watch-namespaces=") || a == "--cluster-forges=false"
		})
	if !slices.Equal(args, defDep.Spec.Template.Spec.Containers[0].Args) {
		t.Errorf("args %v, want config/default's %v plus --watch-namespaces and --cluster-forges=false", args, defDep.Spec.Template.Spec.Containers[0].Args)
	}

	// Cluster-wide, only the metrics RBAC: no ClusterRole holds any of the
	// manager's rules, and only the metrics check is bound cluster-wide.
	// The aggregated view and edit roles are for namespace users, bound to
	// no one: the cluster's view, edit and admin take them in.
	for _, o := range objs.ofKind("ClusterRole") {
		var cr rbacv1.ClusterRole
		decode(t, o, &cr)
		if cr.Name == "forge-operator-view" || cr.Name == "forge-operator-edit" {
			if !strings.HasPrefix(cr.Labels["rbac.authorization.k8s.io/aggregate-to-edit"], "true") {
				t.Errorf("ClusterRole %s is not aggregated to edit", cr.Name)
			}
			continue
		}
		if cr.Name != "forge-operator-metrics-auth-role" && cr.Name != "forge-operator-metrics-reader" {
			t.Errorf("ClusterRole %s rendered; config/namespaced wants only the metrics ClusterRoles", cr.Name)
		}
		for _, r := range cr.Rules {
			if grants(r, generated.Rules) {
				t.Errorf("ClusterRole %s grants %v on %v %v, one of the manager's resources", cr.Name, r.Verbs, r.APIGroups, r.Resources)
			}
		}
	}
	for _, o := range objs.ofKind("ClusterRoleBinding") {
		var crb rbacv1.ClusterRoleBinding
		decode(t, o, &crb)
		if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != "forge-operator-metrics-auth-role" {
			t.Errorf("ClusterRoleBinding %s grants %s %s cluster-wide", crb.Name, crb.RoleRef.Kind, crb.RoleRef.Name)
		}
	}

	// In each watched namespace a Role with exactly the generated rules...
	var roles []string
	for _, o := range objs.ofKind("Role") {
		var role rbacv1.Role
		decode(t, o, &role)
		if role.Namespace == namespace {
			continue // leader election and the secret digest key, below
		}
		if role.Name != roleName {
			t.Errorf("Role %s/%s rendered; want only %s outside %s", role.Namespace, role.Name, roleName, namespace)
			continue
		}
		if fmt.Sprint(role.Rules) != fmt.Sprint(generated.Rules) {
			t.Errorf("Role %s/%s rules differ from config/rbac/role.yaml:\n%v\n%v", role.Namespace, role.Name, role.Rules, generated.Rules)
		}
		roles = append(roles, role.Namespace)
	}
	// ...and one RoleBinding of it, for the manager alone.
	var bound []string
	for _, o := range objs.ofKind("RoleBinding") {
		var rb rbacv1.RoleBinding
		decode(t, o, &rb)
		if len(rb.Subjects) != 1 || rb.Subjects[0] != managerSubject {
			t.Errorf("RoleBinding %s/%s subjects %+v, want only %+v", rb.Namespace, rb.Name, rb.Subjects, managerSubject)
		}
		if rb.Namespace == namespace {
			continue
		}
		if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != roleName {
			t.Errorf("RoleBinding %s/%s refers to %s %q, want Role %q", rb.Namespace, rb.Name, rb.RoleRef.Kind, rb.RoleRef.Name, roleName)
		}
		bound = append(bound, rb.Namespace)
	}
	slices.Sort(roles)
	slices.Sort(bound)
	slices.Sort(watched)
	if !slices.Equal(roles, watched) {
		t.Errorf("Role %s in namespaces %v, want exactly the watched %v", roleName, roles, watched)
	}
	if !slices.Equal(bound, watched) {
		t.Errorf("Role %s bound in namespaces %v, want exactly the watched %v", roleName, bound, watched)
	}

	// The operator's own namespace: its leader-election Lease, and its secret
	// digest key (create, and read that one Secret by name: config/default's
	// cluster-wide manager-role is not there to cover the read).
	for _, tc := range []struct {
		role, binding string
		want          []rbacv1.PolicyRule
	}{
		{"forge-operator-leader-election-role", "forge-operator-leader-election-rolebinding", nil},
		{"forge-operator-secret-digest-key-role", "forge-operator-secret-digest-key-rolebinding", []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{secretdigest.DefaultName}, Verbs: []string{"get"}},
		}},
	} {
		var role, defRole rbacv1.Role
		objs.named(t, "Role", tc.role, &role)
		if tc.want == nil {
			def.named(t, "Role", tc.role, &defRole)
			tc.want = defRole.Rules
		}
		if role.Namespace != namespace || fmt.Sprint(role.Rules) != fmt.Sprint(tc.want) {
			t.Errorf("Role %s/%s rules %+v, want in %s %+v", role.Namespace, role.Name, role.Rules, namespace, tc.want)
		}
		var rb rbacv1.RoleBinding
		objs.named(t, "RoleBinding", tc.binding, &rb)
		if rb.Namespace != namespace || rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role.Name {
			t.Errorf("RoleBinding %s/%s refers to %s %q, want Role %q in %s", rb.Namespace, rb.Name, rb.RoleRef.Kind, rb.RoleRef.Name, role.Name, namespace)
		}
	}
	if n := len(objs.ofKind("Role")) - len(roles); n != 2 {
		t.Errorf("%d Roles in %s, want the leader-election and secret digest key ones", n, namespace)
	}
	if n := len(objs.ofKind("RoleBinding")) - len(bound); n != 2 {
		t.Errorf("%d RoleBindings in %s, want the leader-election and secret digest key ones", n, namespace)
	}
}

// permissions lists every (API group, resource, verb) and (URL, verb) the
// Roles and ClusterRoles of objs grant, wherever they are bound.
func permissions(t *testing.T, objs rendered) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, o := range append(objs.ofKind("Role"), objs.ofKind("ClusterRole")...) {
		var role struct {
			Rules []rbacv1.PolicyRule `json:"rules"`
		}
		if err := yaml.Unmarshal(o.YAML, &role); err != nil {
			t.Fatalf("%s %s: %v", o.Kind, o.Name, err)
		}
		for _, r := range role.Rules {
			for _, v := range r.Verbs {
				for _, g := range r.APIGroups {
					for _, res := range r.Resources {
						out[fmt.Sprintf("%s %q/%s", v, g, res)] = true
					}
				}
				for _, u := range r.NonResourceURLs {
					out[fmt.Sprintf("%s %s", v, u)] = true
				}
			}
		}
	}
	return out
}

// TestNamespacedGrantsNothingDefaultDoesNot: config/namespaced moves rules
// from cluster-wide to namespaced (and narrows the digest key read to one
// name); it never adds a kind of access config/default does not have.
func TestNamespacedGrantsNothingDefaultDoesNot(t *testing.T) {
	def := permissions(t, render(t, repoPath("config", "default")))
	for p := range permissions(t, render(t, repoPath("config", "namespaced"))) {
		if !def[p] {
			t.Errorf("config/namespaced grants %s, which config/default does not", p)
		}
	}
}
