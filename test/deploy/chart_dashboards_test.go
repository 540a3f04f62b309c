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
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/opsmetrics"
)

// dashboard is what the test reads of a Grafana dashboard.
type dashboard struct {
	UID        string  `json:"uid"`
	Title      string  `json:"title"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Type       string            `json:"type"`
	Title      string            `json:"title"`
	Datasource map[string]string `json:"datasource"`
	Targets    []struct {
		Expr       string            `json:"expr"`
		Datasource map[string]string `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

// grafanaVariable is a dashboard variable or a Grafana macro in a query:
// $name, ${name} or ${name:format}.
var grafanaVariable = regexp.MustCompile(`\$\{[a-zA-Z_][a-zA-Z0-9_]*(:[a-z]+)?\}|\$__[a-z_]+|\$[a-zA-Z_][a-zA-Z0-9_]*`)

// promQL is a query of a dashboard as Prometheus would receive it: label
// selectors' variables become ".*" (what "All" sends), range macros 5m, and
// a variable's label_values(selector, label) its selector.
func promQL(q string) string {
	if m := regexp.MustCompile(`^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$`).FindStringSubmatch(strings.TrimSpace(q)); m != nil {
		q = m[1]
	}
	return grafanaVariable.ReplaceAllStringFunc(q, func(v string) string {
		switch v {
		case "$__rate_interval", "$__interval", "$__range":
			return "5m"
		}
		return ".*"
	})
}

// promqlNames parses exprs with Prometheus's parser (hack/promtool's module,
// whose promtool checks the alert rules) and returns, per expression, the
// metric names it selects, or its parse error.
func promqlNames(t *testing.T, exprs []string) []struct {
	Expr  string   `json:"expr"`
	Names []string `json:"names"`
	Error string   `json:"error"`
} {
	t.Helper()
	in, err := json.Marshal(exprs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./promqlnames")
	cmd.Dir = repoPath("hack", "promtool")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run ./promqlnames: %v\n%s", err, stderr.String())
	}
	var res []struct {
		Expr  string   `json:"expr"`
		Names []string `json:"names"`
		Error string   `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(exprs) {
		t.Fatalf("promqlnames answered %d results for %d expressions (%v):\n%s", len(res), len(exprs), err, out)
	}
	return res
}

// TestChartDashboards: dashboards.enabled renders a ConfigMap per dashboard
// with the sidecar's label and the annotations asked for; every query of
// every panel and variable parses as PromQL and names only series the
// manager registers (opsmetrics.Names) or the chart's kube-state-metrics
// configuration makes; every panel reads the dashboard's data source
// variable; docs/operations.md lists every panel.
func TestChartDashboards(t *testing.T) {
	if objs := renderChart(t); slices.ContainsFunc(objs, func(o object) bool { return strings.Contains(o.Name, "-dashboard-") }) {
		t.Error("dashboards rendered by default")
	}
	objs := renderChart(t, "--set", "dashboards.enabled=true", "--set", "dashboards.label=forge_dashboards", "--set", "dashboards.labelValue=yes",
		"--set", "dashboards.annotations.grafana_folder=Forge", "--set", "dashboards.namespace=monitoring",
		"--set", "kubeStateMetrics.customResourceState.enabled=true")
	known := map[string]bool{}
	for _, n := range opsmetrics.Names() {
		known[n] = true
	}
	var ksm struct {
		Spec struct {
			Resources []struct {
				MetricNamePrefix string `json:"metricNamePrefix"`
				Metrics          []struct {
					Name string `json:"name"`
				} `json:"metrics"`
			} `json:"resources"`
		} `json:"spec"`
	}
	cm := objs.asMapNamed(t, "ConfigMap", "forge-operator-kube-state-metrics")
	if err := yaml.Unmarshal([]byte(cm["data"].(map[string]any)["config.yaml"].(string)), &ksm); err != nil {
		t.Fatal(err)
	}
	for _, r := range ksm.Spec.Resources {
		for _, m := range r.Metrics {
			known[r.MetricNamePrefix+"_"+m.Name] = true
		}
	}
	docs, err := os.ReadFile(repoPath("docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}

	uids := map[string]bool{}
	for _, name := range []string{"overview", "policy"} {
		m := objs.asMapNamed(t, "ConfigMap", "forge-operator-dashboard-"+name)
		meta := m["metadata"].(map[string]any)
		if meta["labels"].(map[string]any)["forge_dashboards"] != "yes" || meta["annotations"].(map[string]any)["grafana_folder"] != "Forge" || meta["namespace"] != "monitoring" {
			t.Errorf("%s: metadata %v, want the label dashboards.label, the annotations and the namespace asked for", name, meta)
		}
		raw, _ := m["data"].(map[string]any)["forge-operator-"+name+".json"].(string)
		var d dashboard
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.UID == "" || uids[d.UID] || !strings.HasPrefix(d.Title, "forge-operator / ") {
			t.Errorf("%s: uid %q, title %q: want a uid of its own and a forge-operator title", name, d.UID, d.Title)
		}
		uids[d.UID] = true

		var exprs, where []string
		hasDatasource := false
		for _, v := range d.Templating.List {
			switch v.Type {
			case "datasource":
				hasDatasource = true
			case "query":
				q, _ := v.Query.(map[string]any)
				s, _ := q["query"].(string)
				exprs, where = append(exprs, promQL(s)), append(where, "variable "+v.Name)
			}
		}
		if !hasDatasource {
			t.Errorf("%s: no data source variable", name)
		}
		var walk func([]panel)
		walk = func(ps []panel) {
			for _, p := range ps {
				walk(p.Panels)
				if p.Type == "row" {
					continue
				}
				if p.Datasource["uid"] != "${datasource}" || len(p.Targets) == 0 {
					t.Errorf("%s: panel %q: data source %v, %d queries: want ${datasource} and a query", name, p.Title, p.Datasource, len(p.Targets))
				}
				if !bytes.Contains(docs, []byte("\n| "+p.Title+" | ")) {
					t.Errorf("%s: docs/operations.md lists no panel %q", name, p.Title)
				}
				for _, q := range p.Targets {
					exprs, where = append(exprs, promQL(q.Expr)), append(where, "panel "+p.Title)
				}
			}
		}
		walk(d.Panels)
		for i, r := range promqlNames(t, exprs) {
			if r.Error != "" {
				t.Errorf("%s: %s: %q does not parse: %s", name, where[i], r.Expr, r.Error)
			}
			if len(r.Names) == 0 && r.Error == "" {
				t.Errorf("%s: %s: %q reads no series", name, where[i], r.Expr)
			}
			for _, n := range r.Names {
				if !known[n] {
					t.Errorf("%s: %s: %q reads %s, which neither the manager nor kube-state-metrics serves", name, where[i], r.Expr, n)
				}
			}
		}
	}
}
