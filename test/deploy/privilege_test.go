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
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
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

// TestNamespacedGrantsTheManagerRoleInTheWatchedNamespacesOnly renders
// config/namespaced: the manager watches a list of namespaces, and its rules
// are bound in exactly those namespaces, never cluster-wide.
func TestNamespacedGrantsTheManagerRoleInTheWatchedNamespacesOnly(t *testing.T) {
	objs := render(t, repoPath("config", "namespaced"))
	def := render(t, repoPath("config", "default"))

	var dep appsv1.Deployment
	objs.one(t, "Deployment", &dep)
	watched := watchNamespaces(t, dep)
	if len(watched) == 0 {
		t.Fatalf("the Deployment's args %v set no --watch-namespaces", dep.Spec.Template.Spec.Containers[0].Args)
	}
	// Otherwise the Deployment is config/default's.
	var defDep appsv1.Deployment
	def.one(t, "Deployment", &defDep)
	args := slices.DeleteFunc(slices.Clone(dep.Spec.Template.Spec.Containers[0].Args),
		func(a string) bool { return strings.HasPrefix(a, "--watch-namespaces=") })
	if !slices.Equal(args, defDep.Spec.Template.Spec.Containers[0].Args) {
		t.Errorf("args %v, want config/default's %v plus --watch-namespaces", args, defDep.Spec.Template.Spec.Containers[0].Args)
	}

	// No ClusterRoleBinding grants the manager's rules.
	var role rbacv1.ClusterRole
	objs.named(t, "ClusterRole", "forge-operator-manager-role", &role)
	for _, o := range objs.ofKind("ClusterRoleBinding") {
		var crb rbacv1.ClusterRoleBinding
		decode(t, o, &crb)
		if crb.RoleRef.Name != "forge-operator-metrics-auth-role" {
			t.Errorf("ClusterRoleBinding %s grants %s %s cluster-wide", crb.Name, crb.RoleRef.Kind, crb.RoleRef.Name)
		}
	}

	// One RoleBinding of manager-role per watched namespace, for the manager alone.
	var bound []string
	for _, o := range objs.ofKind("RoleBinding") {
		var rb rbacv1.RoleBinding
		decode(t, o, &rb)
		// The operator's own namespace: its leader-election Lease and its secret digest key.
		if rb.RoleRef.Kind == "Role" && rb.Namespace == namespace && (rb.RoleRef.Name == "forge-operator-leader-election-role" ||
			rb.RoleRef.Name == "forge-operator-secret-digest-key-role") {
			continue
		}
		if rb.RoleRef.Kind != "ClusterRole" || rb.RoleRef.Name != role.Name {
			t.Errorf("RoleBinding %s/%s refers to %s %q, want ClusterRole %q", rb.Namespace, rb.Name, rb.RoleRef.Kind, rb.RoleRef.Name, role.Name)
		}
		if len(rb.Subjects) != 1 || rb.Subjects[0] != managerSubject {
			t.Errorf("RoleBinding %s/%s subjects %+v, want only %+v", rb.Namespace, rb.Name, rb.Subjects, managerSubject)
		}
		bound = append(bound, rb.Namespace)
	}
	slices.Sort(bound)
	slices.Sort(watched)
	if !slices.Equal(bound, watched) {
		t.Errorf("manager-role bound in namespaces %v, want exactly the watched %v", bound, watched)
	}
}
