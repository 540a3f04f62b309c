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
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/secretdigest"
)

const chartDir = "charts/forge-operator"

// The namespaced install of config/namespaced, as chart values.
var namespacedValues = []string{"--set", "manager.watchNamespaces={team-a,team-b}"}

// pinnedTools are the tools of hack/<module>/go.mod the tests run, each
// built once per test binary.
var pinnedTools struct {
	sync.Mutex
	paths map[string]string
}

// pinnedTool is the binary of tool name pinned by modfile (go tool -n builds
// it into Go's build cache and prints its path; later runs reuse it), never
// downloaded.
func pinnedTool(t *testing.T, modfile, name string) string {
	t.Helper()
	pinnedTools.Lock()
	defer pinnedTools.Unlock()
	key := modfile + " " + name
	if p, ok := pinnedTools.paths[key]; ok {
		return p
	}
	cmd := exec.Command("go", "tool", "-n", "-modfile="+modfile, name)
	cmd.Dir = repoPath()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool -n -modfile=%s %s: %v\n%s", modfile, name, err, stderr.String())
	}
	if pinnedTools.paths == nil {
		pinnedTools.paths = map[string]string{}
	}
	pinnedTools.paths[key] = strings.TrimSpace(string(out))
	return pinnedTools.paths[key]
}

// helmBinary is the Helm of hack/helm/go.mod.
func helmBinary(t *testing.T) string {
	t.Helper()
	return pinnedTool(t, "hack/helm/go.mod", "helm")
}

// helm runs the pinned Helm in the repository root with its own cache and
// configuration directories, and returns its standard output.
func helm(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	bin := helmBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Dir = repoPath()
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// renderChart is `helm template` of the chart as release forge-operator in
// forge-operator-system (the namespace of config/default), without the
// `helm test` hooks.
func renderChart(t *testing.T, args ...string) rendered {
	t.Helper()
	return renderChartWithTests(t, append([]string{"--skip-tests"}, args...)...)
}

// renderChartWithTests is renderChart with the `helm test` hooks.
func renderChartWithTests(t *testing.T, args ...string) rendered {
	t.Helper()
	out, err := helm(t, append([]string{"template", "forge-operator", chartDir, "--namespace", namespace}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return splitManifests(t, out)
}

// splitManifests splits a multi-document YAML stream into objects,
// skipping empty documents.
func splitManifests(t *testing.T, stream []byte) rendered {
	t.Helper()
	var out rendered
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(stream)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("split manifests: %v", err)
		}
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("manifest: %v\n%s", err, doc)
		}
		if meta.Kind == "" {
			continue
		}
		out = append(out, object{Kind: meta.Kind, Name: meta.Metadata.Name, Namespace: meta.Metadata.Namespace, YAML: doc})
	}
}

func (o object) id() string { return o.Kind + " " + o.Namespace + "/" + o.Name }

func (o object) asMap(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(o.YAML, &m); err != nil {
		t.Fatalf("%s: %v", o.id(), err)
	}
	return m
}

// takeLabels removes the labels (and annotations) of m's metadata and of its
// pod template, and returns them by path.
func takeLabels(m map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	take := func(path string, meta map[string]any) {
		for _, f := range []string{"labels", "annotations"} {
			if v, ok := meta[f].(map[string]any); ok {
				out[path+f] = v
			}
			delete(meta, f)
		}
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		take("metadata.", meta)
	}
	if spec, ok := m["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			if meta, ok := tmpl["metadata"].(map[string]any); ok {
				take("spec.template.metadata.", meta)
			}
		}
	}
	return out
}

// compareWithKustomize checks that the chart installs the objects the
// kustomization installs, field for field (names, kinds, namespaces,
// RBAC rules, CRD schemas, container args, ports, probes, security): only
// labels and annotations may differ, and the chart must carry every label
// and annotation of the kustomization's object but managed-by (Helm, not
// kustomize). The Namespace is the kustomization's alone (Helm installs into
// a namespace it is given), the digest key Secret the chart's alone (the
// manager creates it otherwise).
func compareWithKustomize(t *testing.T, kustomized, chart rendered) {
	t.Helper()
	want := map[string]object{}
	for _, o := range kustomized {
		if o.Kind != "Namespace" {
			want[o.id()] = o
		}
	}
	got := map[string]object{}
	for _, o := range chart {
		if o.Kind == "Secret" && o.Name == secretdigest.DefaultName {
			continue
		}
		got[o.id()] = o
	}
	for _, id := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[id]; !ok {
			t.Errorf("the chart lacks %s", id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(got)) {
		w, ok := want[id]
		if !ok {
			t.Errorf("the chart installs %s, which the kustomization does not", id)
			continue
		}
		wm, gm := w.asMap(t), got[id].asMap(t)
		wl, gl := takeLabels(wm), takeLabels(gm)
		if d := cmp.Diff(wm, gm); d != "" {
			t.Errorf("%s differs (-kustomize +chart):\n%s", id, d)
		}
		for path, labels := range wl {
			for k, v := range labels {
				if k == "app.kubernetes.io/managed-by" {
					continue
				}
				if gl[path][k] != v {
					t.Errorf("%s: %s%s is %v in the chart, want %v", id, path, k, gl[path][k], v)
				}
			}
		}
	}
}

func TestChartInstallsWhatConfigDefaultInstalls(t *testing.T) {
	compareWithKustomize(t, render(t, repoPath("config", "default")), renderChart(t))
}

func TestChartWithWatchNamespacesInstallsWhatConfigNamespacedInstalls(t *testing.T) {
	compareWithKustomize(t, render(t, repoPath("config", "namespaced")), renderChart(t, namespacedValues...))
}

// TestChartCopiesOfGeneratedManifestsAreCurrent: the chart reads the CRDs and
// the manager role from its files/, which `make manifests` copies from
// config/crd/bases and config/rbac/role.yaml. A kind added without `make
// manifests` fails here (and in CI's check of generated files).
func TestChartCopiesOfGeneratedManifestsAreCurrent(t *testing.T) {
	bases, err := filepath.Glob(repoPath("config", "crd", "bases", "*.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	copies, err := filepath.Glob(repoPath(chartDir, "files", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]string{repoPath("config", "rbac", "role.yaml"): repoPath(chartDir, "files", "rbac", "manager-role.yaml")}
	var names []string
	for _, b := range bases {
		pairs[b] = repoPath(chartDir, "files", "crds", filepath.Base(b))
		names = append(names, filepath.Base(b))
	}
	for _, c := range copies {
		if !slices.Contains(names, filepath.Base(c)) {
			t.Errorf("%s has no CRD in config/crd/bases: run make manifests", c)
		}
	}
	for src, dst := range pairs {
		s, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		d, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(s, d) {
			t.Errorf("%s is not a copy of %s (%v): run make manifests", dst, src, err)
		}
	}
}

func TestChartDigestKeySecretIsRandomAndKept(t *testing.T) {
	var keys []string
	for range 2 {
		var s corev1.Secret
		renderChart(t).named(t, "Secret", secretdigest.DefaultName, &s)
		if s.Namespace != namespace || s.Annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("Secret %s/%s annotations %v: want it in %s, kept on uninstall", s.Namespace, s.Name, s.Annotations, namespace)
		}
		key := s.Data[secretdigest.DataKey]
		if len(key) != 32 {
			t.Errorf("digest key of %d bytes, want 32", len(key))
		}
		keys = append(keys, base64.StdEncoding.EncodeToString(key))
	}
	// Without a cluster to look the Secret up in, every render makes a new key.
	if keys[0] == keys[1] {
		t.Errorf("two renders gave the same key %s: not random", keys[0])
	}
	// Another name: the Secret and the flag follow; the namespaced Role reads that name.
	objs := renderChart(t, append([]string{"--set", "secretDigestKey.name=ops-key"}, namespacedValues...)...)
	var s corev1.Secret
	objs.named(t, "Secret", "ops-key", &s)
	var dep appsv1.Deployment
	objs.one(t, "Deployment", &dep)
	if args := dep.Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--secret-digest-key=ops-key") {
		t.Errorf("args %v lack --secret-digest-key=ops-key", args)
	}
	role := objs.asMapNamed(t, "Role", "forge-operator-secret-digest-key-role")
	if !strings.Contains(fmt.Sprint(role["rules"]), "resourceNames:[ops-key]") {
		t.Errorf("the secret digest key Role does not read ops-key: %v", role["rules"])
	}
	// secretDigestKey.create=false: the manager creates it on first use.
	for _, o := range renderChart(t, "--set", "secretDigestKey.create=false") {
		if o.Kind == "Secret" {
			t.Errorf("secretDigestKey.create=false renders Secret %s", o.Name)
		}
	}
}

func (r rendered) asMapNamed(t *testing.T, kind, name string) map[string]any {
	t.Helper()
	for _, o := range r.ofKind(kind) {
		if o.Name == name {
			return o.asMap(t)
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

func TestChartCRDPolicy(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		crds, keep bool
	}{
		{nil, true, true},
		{[]string{"--set", "crds.keep=false"}, true, false},
		{[]string{"--set", "crds.install=false"}, false, false},
	} {
		crds := renderChart(t, tc.args...).ofKind("CustomResourceDefinition")
		if tc.crds != (len(crds) > 0) {
			t.Errorf("%v: %d CRDs rendered", tc.args, len(crds))
		}
		for _, o := range crds {
			m := o.asMap(t)
			ann, _ := m["metadata"].(map[string]any)["annotations"].(map[string]any)
			if kept := ann["helm.sh/resource-policy"] == "keep"; kept != tc.keep {
				t.Errorf("%v: CRD %s kept on uninstall: %v, want %v", tc.args, o.Name, kept, tc.keep)
			}
		}
	}
}

// TestChartRefusesClusterForgesInTheNamespacedInstall: Roles cannot grant
// the watch of a cluster-scoped kind, so the manager would never sync.
func TestChartRefusesClusterForgesInTheNamespacedInstall(t *testing.T) {
	_, err := helm(t, append([]string{"template", "forge-operator", chartDir, "--set", "manager.clusterForges=true"}, namespacedValues...)...)
	if err == nil || !strings.Contains(err.Error(), "cannot watch ClusterForges") {
		t.Errorf("clusterForges=true with watchNamespaces: %v, want a refusal naming ClusterForges", err)
	}
}

// TestChartPodSettingsAndLabelsReachTheObjects: scheduling, security and
// labelling values end up where they act.
func TestChartPodSettingsAndLabelsReachTheObjects(t *testing.T) {
	objs := renderChart(t,
		"--set", "commonLabels.team=platform", "--set", "commonAnnotations.owner=ops",
		"--set", "podLabels.tier=control", "--set", "podAnnotations.scrape=no",
		"--set", "priorityClassName=system-cluster-critical",
		"--set", "tolerations[0].key=dedicated", "--set", "tolerations[0].operator=Exists",
		"--set", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool",
		"--set", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists",
		"--set", "nodeSelector.pool=ops", "--set", "replicaCount=2",
		"--set", "resources.limits.memory=1Gi", "--set", "securityContext.readOnlyRootFilesystem=false",
		"--set", "imagePullSecrets[0].name=regcred", "--set", "serviceAccount.annotations.iam=role")
	for _, o := range objs {
		m := o.asMap(t)
		meta := m["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		annotations, _ := meta["annotations"].(map[string]any)
		if labels["team"] != "platform" || annotations["owner"] != "ops" {
			t.Errorf("%s: labels %v, annotations %v: want commonLabels and commonAnnotations", o.id(), labels, annotations)
		}
	}
	var dep appsv1.Deployment
	objs.one(t, "Deployment", &dep)
	pod := dep.Spec.Template
	if pod.Labels["tier"] != "control" || pod.Annotations["scrape"] != "no" {
		t.Errorf("pod labels %v, annotations %v", pod.Labels, pod.Annotations)
	}
	if *dep.Spec.Replicas != 2 || pod.Spec.PriorityClassName != "system-cluster-critical" ||
		len(pod.Spec.Tolerations) != 1 || pod.Spec.Tolerations[0].Key != "dedicated" ||
		pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil ||
		pod.Spec.NodeSelector["pool"] != "ops" || len(pod.Spec.ImagePullSecrets) != 1 {
		t.Errorf("pod spec %+v: want the replicas, priority class, tolerations, affinity, node selector and pull secret set", pod.Spec)
	}
	c := pod.Spec.Containers[0]
	if c.Resources.Limits.Memory().String() != "1Gi" || *c.SecurityContext.ReadOnlyRootFilesystem {
		t.Errorf("container resources %v, securityContext %+v", c.Resources, c.SecurityContext)
	}
	var sa corev1.ServiceAccount
	objs.one(t, "ServiceAccount", &sa)
	if sa.Annotations["iam"] != "role" {
		t.Errorf("ServiceAccount annotations %v", sa.Annotations)
	}
}

// TestChartMetricsServiceMonitorAndTest: the ServiceMonitor scrapes the
// metrics Service's port the way the endpoint serves it, and the `helm
// test` Pod fetches it with a token that may GET /metrics (secure) or
// without one (plain HTTP).
func TestChartMetricsServiceMonitorAndTest(t *testing.T) {
	for _, secure := range []bool{true, false} {
		objs := renderChartWithTests(t, "--set", "metrics.serviceMonitor.enabled=true", "--set", "metrics.serviceMonitor.labels.release=prom",
			"--set", "metrics.serviceMonitor.insecureSkipVerify=true", "--set", fmt.Sprintf("metrics.secure=%v", secure))
		var svc corev1.Service
		objs.one(t, "Service", &svc)
		sm := objs.asMapNamed(t, "ServiceMonitor", "forge-operator-controller-manager-metrics-monitor")
		endpoint := sm["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
		if endpoint["port"] != svc.Spec.Ports[0].Name {
			t.Errorf("secure %v: ServiceMonitor scrapes port %v, the Service's is %s", secure, endpoint["port"], svc.Spec.Ports[0].Name)
		}
		scheme := map[bool]string{true: "https", false: "http"}[secure]
		if endpoint["scheme"] != scheme || (endpoint["bearerTokenFile"] != nil) != secure {
			t.Errorf("secure %v: ServiceMonitor endpoint %v", secure, endpoint)
		}
		if sm["metadata"].(map[string]any)["labels"].(map[string]any)["release"] != "prom" {
			t.Errorf("ServiceMonitor labels lack release=prom: %v", sm["metadata"])
		}
		var pod corev1.Pod
		objs.one(t, "Pod", &pod)
		script := strings.Join(pod.Spec.Containers[0].Command, " ")
		url := scheme + "://forge-operator-controller-manager-metrics-service." + namespace + ".svc:8443/metrics"
		if pod.Annotations["helm.sh/hook"] != "test" || !strings.Contains(script, url) || strings.Contains(script, "Bearer") != secure {
			t.Errorf("secure %v: helm test Pod %v runs %q: want a test hook fetching %s", secure, pod.Annotations, script, url)
		}
		var readers []string
		for _, o := range objs.ofKind("ClusterRoleBinding") {
			m := o.asMap(t)
			if m["roleRef"].(map[string]any)["name"] == "forge-operator-metrics-reader" {
				readers = append(readers, fmt.Sprint(m["subjects"]))
			}
		}
		if secure != (len(readers) == 1 && strings.Contains(readers[0], pod.Spec.ServiceAccountName)) {
			t.Errorf("secure %v: metrics-reader bindings %v, the test Pod runs as %q", secure, readers, pod.Spec.ServiceAccountName)
		}
	}
}
