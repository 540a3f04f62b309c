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
	"regexp"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"sigs.k8s.io/yaml"
)

// fluxExprs are the three CEL expressions of one healthCheckExprs entry.
type fluxExprs struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	InProgress string `json:"inProgress"`
	Failed     string `json:"failed"`
	Current    string `json:"current"`
}

// docsFluxExprs is the healthCheckExprs entry docs/gitops.md shows, between
// its markers: what users copy is what is tested.
func docsFluxExprs(t *testing.T) fluxExprs {
	t.Helper()
	b, err := os.ReadFile(repoPath("docs", "gitops.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- flux-health -->\\s*```yaml\\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/gitops.md has no flux-health snippet")
	}
	var k struct {
		Spec struct {
			HealthCheckExprs []fluxExprs `json:"healthCheckExprs"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(m[1], &k); err != nil {
		t.Fatalf("docs/gitops.md flux-health snippet: %v", err)
	}
	if len(k.Spec.HealthCheckExprs) != 1 {
		t.Fatalf("docs/gitops.md flux-health snippet: %d entries, want the one that config/flux repeats per kind", len(k.Spec.HealthCheckExprs))
	}
	return k.Spec.HealthCheckExprs[0]
}

// fluxHealth evaluates exprs on obj as kustomize-controller does: the
// object's top-level fields are variables; inProgress, then failed, then
// current decide, and an object none of them matches (or whose evaluation
// fails) is still in progress.
func fluxHealth(t *testing.T, e fluxExprs, obj map[string]any) string {
	t.Helper()
	env, err := cel.NewEnv(cel.Variable("metadata", cel.DynType), cel.Variable("spec", cel.DynType), cel.Variable("status", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"metadata": map[string]any{}, "spec": map[string]any{}, "status": map[string]any{}}
	for k := range vars {
		if v, ok := obj[k]; ok {
			vars[k] = v
		}
	}
	for _, c := range []struct{ expr, status string }{{e.InProgress, "InProgress"}, {e.Failed, "Failed"}, {e.Current, "Current"}} {
		ast, iss := env.Compile(c.expr)
		if iss.Err() != nil {
			t.Fatalf("compile %q: %v", c.expr, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(vars)
		if err != nil {
			return "InProgress"
		}
		if b, ok := out.Value().(bool); ok && b {
			return c.status
		}
	}
	return "InProgress"
}

// fluxStatus is the kstatus Flux should see where Argo CD shows status:
// Flux has no Suspended, and a suspended resource must not hold a sync.
var fluxStatus = map[string]string{"Healthy": "Current", "Suspended": "Current", "Progressing": "InProgress", "Degraded": "Failed"}

// TestFluxHealthCheckExprs holds the healthCheckExprs of docs/gitops.md to
// every case health.lua is held to, and config/flux to docs/gitops.md.
func TestFluxHealthCheckExprs(t *testing.T) {
	e := docsFluxExprs(t)
	for _, tc := range healthCases() {
		obj := objectFromYAML(t, tc.yaml)
		if obj.GetGeneration() == 0 {
			// Flux reads objects from the API server, which always have a
			// generation; only health.lua is asked about others.
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			if got, want := fluxHealth(t, e, obj.Object), fluxStatus[tc.status]; got != want {
				t.Errorf("Flux health = %s, want %s (Argo CD: %s)", got, want, tc.status)
			}
		})
	}
	group, kinds := crdKinds(t)
	path := repoPath("config", "flux", "health-check-exprs.yaml")
	want := fluxHealthFile(group, kinds, e)
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
		t.Errorf("config/flux/health-check-exprs.yaml differs from the snippet in docs/gitops.md; run go test ./test/deploy -run TestFluxHealthCheckExprs -update")
	}
}

// fluxHealthFile is docs/gitops.md's entry for every kind, ready to paste
// under a Kustomization's spec.
func fluxHealthFile(group string, kinds []string, e fluxExprs) string {
	var b strings.Builder
	b.WriteString("# Flux health checks for forge.forgeops.dev resources: paste under the\n" +
		"# spec of the Kustomization that applies them (kustomize-controller 2.5+).\n" +
		"# Generated from the snippet in docs/gitops.md: go test ./test/deploy -run TestFluxHealthCheckExprs -update\n" +
		"healthCheckExprs:\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "- apiVersion: %s/v1beta1\n  kind: %s\n  inProgress: %q\n  failed: %q\n  current: %q\n", group, k, e.InProgress, e.Failed, e.Current)
	}
	return b.String()
}
