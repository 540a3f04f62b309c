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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// shardDeployment is the name of a shard's manager Deployment, in the chart
// and in config/shards.
func shardDeployment(shard string) string {
	return deploymentName + "-shard-" + shard
}

// selects reports whether the Deployment's selector matches the Pod labels.
func selects(t *testing.T, dep appsv1.Deployment, podLabels map[string]string) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		t.Fatalf("Deployment %s: selector %v: %v", dep.Name, dep.Spec.Selector, err)
	}
	return sel.Matches(labels.Set(podLabels))
}

// withoutShard is args without the --shard=... argument, and that argument's value.
func withoutShard(args []string) (rest []string, shard string, n int) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--shard="); ok {
			shard, n = v, n+1
			continue
		}
		rest = append(rest, a)
	}
	return rest, shard, n
}

// checkManagers checks the manager Deployments of a render with the given
// shards: the default manager (no --shard) and one Deployment per shard
// with --shard=<shard> once, nothing else; each shard's Pod spec the
// default one's but for that argument (same ServiceAccount, and so the same
// RBAC; same image, probes, security); no Deployment's selector matching
// another's Pods (Deployments that share Pods fight over them); and the
// metrics Service selecting every manager's Pods and no other Pod of the
// render. Each manager has its own leader-election Lease because its
// --shard differs (shards.LeaderElectionID).
func checkManagers(t *testing.T, objs rendered, shards ...string) map[string]appsv1.Deployment {
	t.Helper()
	deps := map[string]appsv1.Deployment{}
	for _, o := range objs.ofKind("Deployment") {
		var d appsv1.Deployment
		decode(t, o, &d)
		deps[d.Name] = d
	}
	want := []string{deploymentName}
	for _, s := range shards {
		want = append(want, shardDeployment(s))
	}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(deps)); !slices.Equal(got, want) {
		t.Fatalf("manager Deployments %v, want %v", got, want)
	}

	// The default manager's selector is the first release's: a
	// Deployment's selector cannot change on upgrade.
	def := deps[deploymentName]
	if want := map[string]string{"control-plane": "controller-manager", "app.kubernetes.io/name": "forge-operator"}; !maps.Equal(def.Spec.Selector.MatchLabels, want) ||
		len(def.Spec.Selector.MatchExpressions) != 0 {
		t.Errorf("the default manager's selector %v, want %v: it cannot change on upgrade", def.Spec.Selector, want)
	}
	if _, shard, n := withoutShard(def.Spec.Template.Spec.Containers[0].Args); n != 0 {
		t.Errorf("the default manager runs with --shard=%s: it must run without", shard)
	}
	for _, s := range shards {
		dep := deps[shardDeployment(s)]
		args, shard, n := withoutShard(dep.Spec.Template.Spec.Containers[0].Args)
		if n != 1 || shard != s {
			t.Errorf("Deployment %s: args %v, want --shard=%s once", dep.Name, dep.Spec.Template.Spec.Containers[0].Args, s)
		}
		spec := *dep.Spec.Template.Spec.DeepCopy()
		spec.Containers[0].Args = args
		if d := cmp.Diff(def.Spec.Template.Spec, spec); d != "" {
			t.Errorf("Deployment %s's Pod spec differs from the default manager's beyond --shard (-default +shard):\n%s", dep.Name, d)
		}
		if dep.Namespace != def.Namespace {
			t.Errorf("Deployment %s in namespace %q, the default manager in %q", dep.Name, dep.Namespace, def.Namespace)
		}
	}

	var svc corev1.Service
	objs.named(t, "Service", "forge-operator-controller-manager-metrics-service", &svc)
	metrics := labels.SelectorFromSet(svc.Spec.Selector)
	for name, dep := range deps {
		pod := dep.Spec.Template.Labels
		if !selects(t, dep, pod) {
			t.Errorf("Deployment %s: selector %v does not match its own Pods %v", name, dep.Spec.Selector.MatchLabels, pod)
		}
		if !metrics.Matches(labels.Set(pod)) {
			t.Errorf("the metrics Service selector %v does not select the Pods of %s %v: they are not scraped", svc.Spec.Selector, name, pod)
		}
		for other, o := range deps {
			if other != name && selects(t, o, pod) {
				t.Errorf("Deployment %s's selector %v matches the Pods of %s %v", other, o.Spec.Selector.MatchLabels, name, pod)
			}
		}
	}
	for _, o := range objs.ofKind("Pod") {
		var p corev1.Pod
		decode(t, o, &p)
		if metrics.Matches(labels.Set(p.Labels)) {
			t.Errorf("the metrics Service selector %v selects Pod %s, no manager", svc.Spec.Selector, p.Name)
		}
	}
	return deps
}

// TestChartDeploysOneManagerPerShard: shards [eu-1, eu-2] in one release
// give three managers, each scraped by the one metrics Service (and so by
// its ServiceMonitor), with the CRDs and RBAC once.
func TestChartDeploysOneManagerPerShard(t *testing.T) {
	sm := []string{"--set", "metrics.serviceMonitor.enabled=true", "--set", "metrics.serviceMonitor.insecureSkipVerify=true"}
	base := renderChartWithTests(t, sm...)
	objs := renderChartWithTests(t, append(sm, "--set", "shards={eu-1,eu-2}")...)
	checkManagers(t, objs, "eu-1", "eu-2")
	// Besides the two Deployments, the release is the one without shards:
	// one ServiceAccount, the same RBAC, CRDs, Service and ServiceMonitor.
	var got, want []string
	for _, o := range objs {
		if o.Kind != "Deployment" || o.Name == deploymentName {
			got = append(got, o.id())
		}
	}
	for _, o := range base {
		want = append(want, o.id())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("objects besides the shards' Deployments (-without shards +with):\n%s", d)
	}
}

// TestChartShardOverrides: a shard's overrides are merged over the release's
// values for its Deployment alone (maps key by key), and the other managers
// keep the release's values.
func TestChartShardOverrides(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(`
resources: {limits: {memory: 512Mi}}
shards:
  - eu-1
  - name: eu-2
    replicaCount: 2
    resources: {limits: {memory: 1Gi}}
    nodeSelector: {pool: eu}
    manager: {kubeAPIQPS: 100, log: {level: debug}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := renderChart(t, "-f", values)
	for _, name := range []string{deploymentName, shardDeployment("eu-1"), shardDeployment("eu-2")} {
		var dep appsv1.Deployment
		objs.named(t, "Deployment", name, &dep)
		pod := dep.Spec.Template.Spec
		c := pod.Containers[0]
		eu2 := name == shardDeployment("eu-2")
		wantReplicas, wantMemory, wantPool := int32(1), "512Mi", ""
		if eu2 {
			wantReplicas, wantMemory, wantPool = 2, "1Gi", "eu"
		}
		if *dep.Spec.Replicas != wantReplicas || c.Resources.Limits.Memory().String() != wantMemory || pod.NodeSelector["pool"] != wantPool {
			t.Errorf("%s: %d replicas, memory limit %s, node selector %v; want %d, %s, pool %q",
				name, *dep.Spec.Replicas, c.Resources.Limits.Memory(), pod.NodeSelector, wantReplicas, wantMemory, wantPool)
		}
		// Merged, not replaced: the release's CPU limit and OS selector stay.
		if c.Resources.Limits.Cpu().String() != "500m" || pod.NodeSelector["kubernetes.io/os"] != "linux" {
			t.Errorf("%s: CPU limit %s, node selector %v: the release's values are lost", name, c.Resources.Limits.Cpu(), pod.NodeSelector)
		}
		for _, a := range []string{"--kube-api-qps=100", "--zap-log-level=debug"} {
			if slices.Contains(c.Args, a) != eu2 {
				t.Errorf("%s: args %v: %s only on eu-2", name, c.Args, a)
			}
		}
	}
}

// TestChartRefusesBadShards: helm template fails, naming the entry and
// why, on a shard the manager or the Deployment's name would refuse, on a
// shard listed twice, on overrides a shard cannot have apart, and on
// manager.shard, which shards replaces, and on shards without leader
// election, which their handover needs.
func TestChartRefusesBadShards(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--set-json", `shards=[""]`}, `shards[0]: a shard needs a name`},
		{[]string{"--set-json", `shards=[{"replicaCount":2}]`}, `shards[0]: a shard needs a name`},
		{[]string{"--set", "shards={eu-1,EU_2}"}, `shards[1]: "EU_2" cannot be a shard of the chart`},
		{[]string{"--set", "shards={eu-1.}"}, `shards[0]: "eu-1." cannot be a shard of the chart`},
		{[]string{"--set", "shards={" + strings.Repeat("a", 64) + "}"}, `at most 63 characters`},
		{[]string{"--set", "shards={eu-1,eu-2,eu-1}"}, `shards[2]: "eu-1" is listed twice`},
		{[]string{"--set-json", `shards=[7]`}, `shards[0]: the shard name 7 is not a string`},
		{[]string{"--set-json", `shards="eu-1"`}, `shards: a list of shard names`},
		{[]string{"--set-json", `shards=[{"name":"eu-1","replicas":2}]`}, `shards[0]: "replicas" is not a key a shard may set`},
		{[]string{"--set-json", `shards=[{"name":"eu-1","manager":{"watchNamespaces":["a"]}}]`}, `shards[0]: manager.watchNamespaces cannot be set per shard`},
		{[]string{"--set", "manager.shard=eu-1"}, `manager.shard is replaced by shards`},
		{[]string{"--set", "shards={eu-1}", "--set", "manager.leaderElect=false"}, `shards need manager.leaderElect: true`},
		{[]string{"--set-json", `shards=[{"name":"eu-1","manager":{"leaderElect":false}}]`}, `shards[0]: manager.leaderElect cannot be set per shard`},
	} {
		_, err := helm(t, append([]string{"template", "forge-operator", chartDir}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a failure saying %q", tc.args, err, tc.want)
		}
	}
}

// TestShardsOverlayAddsShardEU1ToConfigDefault: config/shards is
// config/default plus the manager of shard eu-1, and the chart with
// shards={eu-1} installs the same objects.
func TestShardsOverlayAddsShardEU1ToConfigDefault(t *testing.T) {
	objs := render(t, repoPath("config", "shards"))
	checkManagers(t, objs, "eu-1")
	def := map[string]string{}
	for _, o := range render(t, repoPath("config", "default")) {
		def[o.id()] = string(o.YAML)
	}
	for _, o := range objs {
		if o.Kind == "Deployment" && o.Name == shardDeployment("eu-1") {
			continue
		}
		if y, ok := def[o.id()]; !ok || y != string(o.YAML) {
			t.Errorf("%s is not config/default's", o.id())
		}
		delete(def, o.id())
	}
	for id := range def {
		t.Errorf("config/shards lacks %s of config/default", id)
	}
	compareWithKustomize(t, objs, renderChart(t, "--set", "shards={eu-1}"))
}
