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
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// promtool runs the promtool of hack/promtool/go.mod with args in dir and
// returns its combined output.
func promtool(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(pinnedTool(t, "hack/promtool/go.mod", "promtool"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestChartOperationsKitIsOffByDefault: the PrometheusRule, the dashboards
// and kube-state-metrics' configuration are rendered only when their value
// asks, each on its own.
func TestChartOperationsKitIsOffByDefault(t *testing.T) {
	kit := func(objs rendered) []string {
		var ids []string
		for _, o := range objs {
			if o.Kind == "PrometheusRule" || strings.Contains(o.Name, "-dashboard-") || strings.HasSuffix(o.Name, "-kube-state-metrics") {
				ids = append(ids, o.id())
			}
		}
		slices.Sort(ids)
		return ids
	}
	if got := kit(renderChart(t)); len(got) > 0 {
		t.Errorf("the default values render %v", got)
	}
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"prometheusRule.enabled=true", []string{"PrometheusRule " + namespace + "/forge-operator-alerts"}},
		{"dashboards.enabled=true", []string{"ConfigMap " + namespace + "/forge-operator-dashboard-overview", "ConfigMap " + namespace + "/forge-operator-dashboard-policy"}},
		{"kubeStateMetrics.customResourceState.enabled=true", []string{"ClusterRole /forge-operator-kube-state-metrics", "ConfigMap " + namespace + "/forge-operator-kube-state-metrics"}},
	} {
		if got := kit(renderChart(t, "--set", tc.value)); !slices.Equal(got, tc.want) {
			t.Errorf("%s renders %v, want %v", tc.value, got, tc.want)
		}
	}
}

type ruleGroups struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

func (g ruleGroups) alerts() []string {
	var names []string
	for _, group := range g.Groups {
		for _, r := range group.Rules {
			names = append(names, r.Alert)
		}
	}
	return names
}

// renderedRules renders the chart's PrometheusRule with args and returns
// its groups, read and as rendered (the rule file promtool reads).
func renderedRules(t *testing.T, args ...string) (ruleGroups, []byte, map[string]any) {
	t.Helper()
	pr := renderChart(t, append([]string{"--set", "prometheusRule.enabled=true"}, args...)...).asMapNamed(t, "PrometheusRule", "forge-operator-alerts")
	b, err := yaml.Marshal(pr["spec"])
	if err != nil {
		t.Fatal(err)
	}
	var g ruleGroups
	if err := yaml.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g, b, pr
}

// TestChartAlertRules: the PrometheusRule carries the alerts of
// files/prometheus/rules.yaml; promtool checks them and fires and holds back
// each on the series of testdata/alerts_test.yaml; each has a severity and a
// runbook section of docs/operations.md; prometheusRule's values label the
// object and every alert, and leave alerts out by name.
func TestChartAlertRules(t *testing.T) {
	groups, file, _ := renderedRules(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(repoPath("test", "deploy", "testdata", "alerts_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alerts_test.yaml"), tests, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := promtool(t, dir, "check", "rules", "rules.yaml"); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
	if out, err := promtool(t, dir, "test", "rules", "alerts_test.yaml"); err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, out)
	}

	want := []string{"ForgeConnectionNotReady", "ForgeResourcesStalled", "ForgeSetFailing", "ForgeDriftChecksBehind",
		"ForgeRateBudgetSaturated", "ForgeDeliveriesRefused", "ForgeManagerNotReconciling"}
	if got := groups.alerts(); !slices.Equal(got, want) {
		t.Errorf("alerts %v, want %v", got, want)
	}
	docs, err := os.ReadFile(repoPath("docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range groups.Groups {
		for _, r := range group.Rules {
			// Each alert is both fired and held back in the promtool test.
			fired := regexp.MustCompile(`(?s)alertname: ` + r.Alert + `\n\s+exp_alerts:\n\s+- exp_labels`)
			held := regexp.MustCompile(`alertname: ` + r.Alert + `\n\s+exp_alerts: \[\]`)
			if !fired.Match(tests) || !held.Match(tests) {
				t.Errorf("testdata/alerts_test.yaml does not both fire and hold back %s", r.Alert)
			}
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("%s: severity %q, want critical or warning", r.Alert, s)
			}
			anchor := strings.ToLower(r.Alert)
			if r.Annotations["runbook_url"] != "https://github.com/forgeops/forge-operator/blob/main/docs/operations.md#"+anchor {
				t.Errorf("%s: runbook_url %q, want docs/operations.md#%s", r.Alert, r.Annotations["runbook_url"], anchor)
			}
			if !bytes.Contains(docs, []byte("\n### "+r.Alert+"\n")) {
				t.Errorf("docs/operations.md has no runbook section ### %s", r.Alert)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: no summary or description: %v", r.Alert, r.Annotations)
			}
		}
	}

	labelled, _, pr := renderedRules(t, "--set", "prometheusRule.labels.release=prom", "--set", "prometheusRule.alertLabels.team=platform",
		"--set", "prometheusRule.alertLabels.severity=page", "--set", "prometheusRule.disabled.ForgeRateBudgetSaturated=true")
	if l := pr["metadata"].(map[string]any)["labels"].(map[string]any); l["release"] != "prom" || l["app.kubernetes.io/name"] != "forge-operator" {
		t.Errorf("PrometheusRule labels %v: want release=prom beside the chart's", l)
	}
	if got := labelled.alerts(); slices.Contains(got, "ForgeRateBudgetSaturated") || len(got) != len(want)-1 {
		t.Errorf("prometheusRule.disabled.ForgeRateBudgetSaturated: alerts %v", got)
	}
	for _, group := range labelled.Groups {
		for _, r := range group.Rules {
			// An alert's own severity wins over alertLabels.
			if r.Labels["team"] != "platform" || r.Labels["severity"] == "page" {
				t.Errorf("%s: labels %v, want team=platform and its own severity", r.Alert, r.Labels)
			}
		}
	}
}

// TestChartKubeStateMetricsCoversEveryKind: the custom-resource-state
// configuration has forge_resource_info for every kind of the chart's CRDs
// at its storage version, its labels drawn from object names, conditions
// and references only; the ClusterRole lets kube-state-metrics list and
// watch each kind and no more; the binding comes with a ServiceAccount.
func TestChartKubeStateMetricsCoversEveryKind(t *testing.T) {
	objs := renderChart(t, "--set", "kubeStateMetrics.customResourceState.enabled=true",
		"--set", "kubeStateMetrics.customResourceState.namespace=monitoring")
	var crds []apiextensionsv1.CustomResourceDefinition
	for _, o := range objs.ofKind("CustomResourceDefinition") {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(o.YAML, &crd); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, crd)
	}
	if len(crds) < 25 {
		t.Fatalf("%d CRDs rendered", len(crds))
	}
	cm := objs.asMapNamed(t, "ConfigMap", "forge-operator-kube-state-metrics")
	if ns := cm["metadata"].(map[string]any)["namespace"]; ns != "monitoring" {
		t.Errorf("ConfigMap in namespace %v, want kubeStateMetrics.customResourceState.namespace", ns)
	}
	var cfg struct {
		Kind string `json:"kind"`
		Spec struct {
			Resources []struct {
				GroupVersionKind struct{ Group, Version, Kind string } `json:"groupVersionKind"`
				MetricNamePrefix string                                `json:"metricNamePrefix"`
				Metrics          []struct {
					Name string `json:"name"`
					Help string `json:"help"`
					Each struct {
						Type string `json:"type"`
						Info struct {
							LabelsFromPath map[string][]string `json:"labelsFromPath"`
						} `json:"info"`
					} `json:"each"`
				} `json:"metrics"`
			} `json:"resources"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict([]byte(cm["data"].(map[string]any)["config.yaml"].(string)), &cfg); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	if cfg.Kind != "CustomResourceStateMetrics" {
		t.Errorf("config kind %q", cfg.Kind)
	}
	covered := map[string]string{}
	for _, r := range cfg.Spec.Resources {
		covered[r.GroupVersionKind.Group+"/"+r.GroupVersionKind.Kind] = r.GroupVersionKind.Version
		if len(r.Metrics) != 1 || r.MetricNamePrefix+"_"+r.Metrics[0].Name != "forge_resource_info" || r.Metrics[0].Each.Type != "Info" {
			t.Errorf("%s: metrics %+v, want forge_resource_info", r.GroupVersionKind.Kind, r.Metrics)
			continue
		}
		for label, path := range r.Metrics[0].Each.Info.LabelsFromPath {
			// Names, conditions, suspend and the Forge referred to: nothing a
			// tenant writes beyond object names, nothing secret.
			if p := strings.Join(path, "."); !slices.Contains([]string{"metadata.name", "metadata.namespace", "status.conditions.[type=Ready].status",
				"status.conditions.[type=Ready].reason", "status.conditions.[type=Stalled].status", "spec.suspend", "spec.forgeRef.kind", "spec.forgeRef.name"}, p) {
				t.Errorf("%s: label %s from %s", r.GroupVersionKind.Kind, label, p)
			}
		}
	}
	var plurals []string
	for _, crd := range crds {
		storage := ""
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				storage = v.Name
			}
		}
		if v := covered[crd.Spec.Group+"/"+crd.Spec.Names.Kind]; v != storage {
			t.Errorf("%s: kube-state-metrics reads version %q, the storage version is %q", crd.Spec.Names.Kind, v, storage)
		}
		plurals = append(plurals, crd.Spec.Names.Plural)
	}
	if len(covered) != len(crds) {
		t.Errorf("%d kinds configured, %d CRDs", len(covered), len(crds))
	}
	role := objs.asMapNamed(t, "ClusterRole", "forge-operator-kube-state-metrics")
	rules := role["rules"].([]any)
	rule := rules[0].(map[string]any)
	var resources []string
	for _, r := range rule["resources"].([]any) {
		resources = append(resources, r.(string))
	}
	slices.Sort(plurals)
	slices.Sort(resources)
	if len(rules) != 1 || !slices.Equal(resources, plurals) || strings.Join(toStrings(rule["verbs"]), ",") != "list,watch" {
		t.Errorf("ClusterRole rules %v, want list and watch of %v", rules, plurals)
	}
	if b := objs.ofKind("ClusterRoleBinding"); slices.ContainsFunc(b, func(o object) bool { return o.Name == "forge-operator-kube-state-metrics" }) {
		t.Error("a ClusterRoleBinding without kubeStateMetrics.customResourceState.serviceAccount")
	}
	bound := renderChart(t, "--set", "kubeStateMetrics.customResourceState.enabled=true",
		"--set", "kubeStateMetrics.customResourceState.serviceAccount.name=kube-state-metrics",
		"--set", "kubeStateMetrics.customResourceState.serviceAccount.namespace=monitoring").
		asMapNamed(t, "ClusterRoleBinding", "forge-operator-kube-state-metrics")
	subject := bound["subjects"].([]any)[0].(map[string]any)
	if subject["name"] != "kube-state-metrics" || subject["namespace"] != "monitoring" || bound["roleRef"].(map[string]any)["name"] != "forge-operator-kube-state-metrics" {
		t.Errorf("ClusterRoleBinding %v", bound)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
