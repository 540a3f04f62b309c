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

// Package deploy checks the install path as a cluster would receive it:
// config/default rendered by kustomize (what `kubectl apply -k` and
// `make deploy` send), the Makefile targets, the Dockerfile's build context,
// and the Argo CD health check run the way Argo CD runs it.
package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/testenv"
)

const (
	namespace      = "forge-operator-system"
	deploymentName = "forge-operator-controller-manager"
	defaultImage   = "forge-operator:latest"
)

// object is one rendered manifest: its kind, name, namespace and YAML.
type object struct {
	Kind, Name, Namespace string
	YAML                  []byte
}

// rendered is the output of one kustomization, in kustomize's order.
type rendered []object

// render builds the kustomization in dir the way `kubectl apply -k` does:
// no plugins, files only from inside the kustomization root, and kubectl's
// order (namespaces and CRDs first) unless the kustomization sets its own.
func render(t *testing.T, dir string) rendered {
	t.Helper()
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionUnspecified
	k := krusty.MakeKustomizer(opts)
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var out rendered
	for _, r := range resMap.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatalf("kustomize build %s: %s as YAML: %v", dir, r.CurId(), err)
		}
		out = append(out, object{Kind: r.GetKind(), Name: r.GetName(), Namespace: r.GetNamespace(), YAML: b})
	}
	return out
}

func (r rendered) ofKind(kind string) []object {
	var out []object
	for _, o := range r {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// named decodes the object of kind and name into into.
func (r rendered) named(t *testing.T, kind, name string, into any) {
	t.Helper()
	for _, o := range r.ofKind(kind) {
		if o.Name == name {
			decode(t, o, into)
			return
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
}

// one decodes the single object of kind into into, strictly: a field name
// the Kubernetes type does not have (a typo) fails the test.
func (r rendered) one(t *testing.T, kind string, into any) {
	t.Helper()
	objs := r.ofKind(kind)
	if len(objs) != 1 {
		t.Fatalf("want exactly one %s, got %d", kind, len(objs))
	}
	decode(t, objs[0], into)
}

func decode(t *testing.T, o object, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(o.YAML, into); err != nil {
		t.Fatalf("decode %s %s: %v\n%s", o.Kind, o.Name, err, o.YAML)
	}
}

func repoPath(elem ...string) string {
	return filepath.Join(append([]string{testenv.RepoRoot()}, elem...)...)
}

func TestDefaultRendersNamespacedManagerWithEverythingItNeeds(t *testing.T) {
	objs := render(t, repoPath("config", "default"))

	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.Kind)
		switch o.Kind {
		case "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding":
			if o.Namespace != "" {
				t.Errorf("cluster-scoped %s %s has namespace %q", o.Kind, o.Name, o.Namespace)
			}
		default:
			if o.Namespace != namespace {
				t.Errorf("%s %s is in namespace %q, want %s", o.Kind, o.Name, o.Namespace, namespace)
			}
		}
	}
	bases, err := filepath.Glob(repoPath("config", "crd", "bases", "*.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	crds := len(bases) // one per kind, and every one installed
	for kind, n := range map[string]int{
		"Namespace": 1, "CustomResourceDefinition": crds, "ServiceAccount": 1, "ClusterRole": 5,
		"ClusterRoleBinding": 2, "Role": 2, "RoleBinding": 2, "Deployment": 1, "Service": 1,
	} {
		if got := len(objs.ofKind(kind)); got != n {
			t.Errorf("%d %s objects, want %d (rendered: %v)", got, kind, n, kinds)
		}
	}
	// Secrets, ConfigMaps or webhooks here would be a surprise to whoever installs this.
	if want := 15 + crds; len(objs) != want {
		t.Errorf("%d objects rendered, want %d: %v", len(objs), want, kinds)
	}

	var ns corev1.Namespace
	objs.one(t, "Namespace", &ns)
	if ns.Name != namespace {
		t.Errorf("namespace %q, want %s", ns.Name, namespace)
	}
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace labels %v: want pod-security.kubernetes.io/enforce=restricted", ns.Labels)
	}
}

func TestDefaultInstallsEveryCRDOfConfigCRDBases(t *testing.T) {
	objs := render(t, repoPath("config", "default"))
	bases, err := filepath.Glob(repoPath("config", "crd", "bases", "*.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	var want, got []string
	for _, f := range bases {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want = append(want, crd.Name)
	}
	kinds := map[string]bool{}
	for _, o := range objs.ofKind("CustomResourceDefinition") {
		var crd apiextensionsv1.CustomResourceDefinition
		decode(t, o, &crd)
		got = append(got, crd.Name)
		kinds[crd.Spec.Names.Kind] = true
		if crd.Spec.Group != "forge.forgeops.dev" {
			t.Errorf("CRD %s: group %q", crd.Name, crd.Spec.Group)
		}
		// The prefix must not reach CRD names: the API server requires <plural>.<group>.
		if crd.Name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			t.Errorf("CRD name %q, want %s.%s", crd.Name, crd.Spec.Names.Plural, crd.Spec.Group)
		}
		if crd.Labels["app.kubernetes.io/component"] != "crd" {
			t.Errorf("CRD %s lacks label app.kubernetes.io/component=crd, which `make undeploy` relies on", crd.Name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Errorf("CRDs rendered %v, want those of config/crd/bases %v", got, want)
	}
	for _, k := range testenv.Kinds() {
		if !kinds[k] {
			t.Errorf("no CRD for kind %s", k)
		}
	}
}

func TestDefaultBindsTheGeneratedRoleToTheManagerServiceAccountOnly(t *testing.T) {
	objs := render(t, repoPath("config", "default"))

	var sa corev1.ServiceAccount
	objs.one(t, "ServiceAccount", &sa)
	var dep appsv1.Deployment
	objs.one(t, "Deployment", &dep)
	if got := dep.Spec.Template.Spec.ServiceAccountName; got != sa.Name {
		t.Errorf("Deployment runs as ServiceAccount %q, want %q", got, sa.Name)
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}

	// The ClusterRole is config/rbac/role.yaml, which controller-gen generates: same rules.
	var generated, role rbacv1.ClusterRole
	b, err := os.ReadFile(repoPath("config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &generated); err != nil {
		t.Fatal(err)
	}
	objs.named(t, "ClusterRole", "forge-operator-manager-role", &role)
	if role.Name != "forge-operator-"+generated.Name {
		t.Errorf("ClusterRole %q, want the generated %q with the forge-operator- prefix", role.Name, generated.Name)
	}
	if fmt.Sprint(role.Rules) != fmt.Sprint(generated.Rules) {
		t.Errorf("ClusterRole rules differ from config/rbac/role.yaml:\n%v\n%v", role.Rules, generated.Rules)
	}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v == "*" || (v == "delete" && slices.Contains(r.APIGroups, "")) {
				t.Errorf("ClusterRole grants %q on %v %v", v, r.APIGroups, r.Resources)
			}
		}
		if slices.Contains(r.Resources, "*") || slices.Contains(r.APIGroups, "*") {
			t.Errorf("ClusterRole rule with a wildcard: %+v", r)
		}
	}

	var crb rbacv1.ClusterRoleBinding
	objs.named(t, "ClusterRoleBinding", "forge-operator-manager-rolebinding", &crb)
	if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != role.Name {
		t.Errorf("ClusterRoleBinding refers to %s %q, want ClusterRole %q", crb.RoleRef.Kind, crb.RoleRef.Name, role.Name)
	}
	if len(crb.Subjects) != 1 || crb.Subjects[0] != subject {
		t.Errorf("ClusterRoleBinding subjects %+v, want only %+v", crb.Subjects, subject)
	}

	for _, tc := range []struct {
		role, binding string
		want          []rbacv1.PolicyRule
	}{
		{"forge-operator-leader-election-role", "forge-operator-leader-election-rolebinding", []rbacv1.PolicyRule{
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
				Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		}},
		// The secret digest key Secret is created on first use, in the manager's namespace only.
		{"forge-operator-secret-digest-key-role", "forge-operator-secret-digest-key-rolebinding", []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
		}},
	} {
		var role rbacv1.Role
		objs.named(t, "Role", tc.role, &role)
		if fmt.Sprint(role.Rules) != fmt.Sprint(tc.want) {
			t.Errorf("Role %s rules %+v, want %+v", tc.role, role.Rules, tc.want)
		}
		var rb rbacv1.RoleBinding
		objs.named(t, "RoleBinding", tc.binding, &rb)
		if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role.Name {
			t.Errorf("RoleBinding %s refers to %s %q, want Role %q", tc.binding, rb.RoleRef.Kind, rb.RoleRef.Name, role.Name)
		}
		if len(rb.Subjects) != 1 || rb.Subjects[0] != subject {
			t.Errorf("RoleBinding %s subjects %+v, want only %+v", tc.binding, rb.Subjects, subject)
		}
	}
}

func TestDefaultManagerDeploymentIsHardened(t *testing.T) {
	objs := render(t, repoPath("config", "default"))
	var dep appsv1.Deployment
	objs.one(t, "Deployment", &dep)
	if dep.Name != deploymentName || dep.Namespace != namespace {
		t.Errorf("Deployment %s/%s, want %s/%s", dep.Namespace, dep.Name, namespace, deploymentName)
	}
	pod := dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want the manager alone", len(pod.Containers))
	}
	c := pod.Containers[0]
	for k, v := range dep.Spec.Selector.MatchLabels {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template labels %v", k, v, dep.Spec.Template.Labels)
		}
	}

	if c.Image != defaultImage {
		t.Errorf("image %q, want %q (the Makefile's default IMG)", c.Image, defaultImage)
	}
	if !slices.Contains(c.Args, "--leader-elect") && !slices.Contains(c.Args, "--leader-elect=true") {
		t.Errorf("args %v: leader election is off", c.Args)
	}
	for _, a := range []string{"--metrics-bind-address=:8443", "--metrics-secure=true", "--health-probe-bind-address=:8081"} {
		if !slices.Contains(c.Args, a) {
			t.Errorf("args %v lack %s", c.Args, a)
		}
	}

	probe := func(name string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil {
			t.Errorf("%s probe: none, want GET %s on 8081", name, path)
			return
		}
		if p.HTTPGet.Path != path || p.HTTPGet.Port != intstr.FromInt32(8081) {
			t.Errorf("%s probe: GET %s on %s, want %s on 8081", name, p.HTTPGet.Path, p.HTTPGet.Port.String(), path)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")

	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[res], c.Resources.Limits[res]
		if req.IsZero() || lim.IsZero() {
			t.Errorf("%s: request %s, limit %s; want both set", res, req.String(), lim.String())
		} else if req.Cmp(lim) > 0 {
			t.Errorf("%s: request %s above limit %s", res, req.String(), lim.String())
		}
	}

	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod securityContext.seccompProfile is not RuntimeDefault")
	}
	if sc == nil {
		t.Fatal("container securityContext missing")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation is not false")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem is not true")
	}
	if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("capabilities %+v, want drop [ALL] and nothing added", sc.Capabilities)
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Error("container is privileged")
	}
	// runAsUser is left to the image (65532) so that OpenShift can assign its own.
	if (psc.RunAsUser != nil && *psc.RunAsUser == 0) || (sc.RunAsUser != nil && *sc.RunAsUser == 0) {
		t.Error("runs as UID 0")
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC || len(pod.Volumes) != 0 {
		t.Errorf("pod uses host namespaces or volumes: %+v", pod)
	}

	var svc corev1.Service
	objs.one(t, "Service", &svc)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 8443 || svc.Spec.Ports[0].Name != "https" {
		t.Fatalf("metrics Service ports %+v, want https 8443", svc.Spec.Ports)
	}
	if svc.Spec.Ports[0].TargetPort != intstr.FromString("metrics") {
		t.Errorf("metrics Service targets %s, want the container port named metrics", svc.Spec.Ports[0].TargetPort.String())
	}
	var metricsPort int32
	for _, p := range c.Ports {
		if p.Name == "metrics" {
			metricsPort = p.ContainerPort
		}
	}
	if metricsPort != 8443 {
		t.Errorf("container port metrics is %d, want 8443", metricsPort)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("metrics Service selector %v does not select the manager pods %v", svc.Spec.Selector, dep.Spec.Template.Labels)
		}
	}
}

// TestUndeploySelectorKeepsOnlyTheCRDs renders what `make undeploy` deletes:
// config/default filtered by its label selector. Everything but the CRDs
// goes; the CRDs (and so every forge resource) stay.
func TestUndeploySelectorKeepsOnlyTheCRDs(t *testing.T) {
	mk, err := os.ReadFile(repoPath("Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	const sel = "-l 'app.kubernetes.io/component!=crd'"
	if !strings.Contains(string(mk), "delete -k config/default "+sel) {
		t.Fatalf("the undeploy target no longer deletes with %s; update this test", sel)
	}
	for _, o := range render(t, repoPath("config", "default")) {
		var meta struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(o.YAML, &meta); err != nil {
			t.Fatal(err)
		}
		deleted := meta.Metadata.Labels["app.kubernetes.io/component"] != "crd"
		if deleted == (o.Kind == "CustomResourceDefinition") {
			t.Errorf("undeploy deletes %s %s: %v", o.Kind, o.Name, deleted)
		}
	}
}
