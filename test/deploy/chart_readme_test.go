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
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const (
	valuesTableStart = "<!-- values table: generated from values.yaml by go test ./test/deploy -run TestChartREADME -update -->"
	valuesTableEnd   = "<!-- end of the values table -->"
)

var valuesKeyLine = regexp.MustCompile(`^( *)([A-Za-z0-9_./-]+):`)

// valueDoc is one documented key of values.yaml.
type valueDoc struct {
	path, doc string
}

// valuesDocs reads the "# -- text" comment above each key of values.yaml,
// with the key's dotted path (from its indentation), in file order; and
// the paths of every key, documented or not.
func valuesDocs(t *testing.T, values string) (docs []valueDoc, keys []string) {
	t.Helper()
	var stack []string
	var pending string
	for i, line := range strings.Split(values, "\n") {
		trimmed := strings.TrimSpace(line)
		if text, ok := strings.CutPrefix(trimmed, "# -- "); ok {
			pending = text
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "- ") {
			if trimmed == "" {
				pending = ""
			}
			continue
		}
		m := valuesKeyLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("values.yaml line %d: %q is no key", i+1, line)
		}
		depth := len(m[1]) / 2
		if len(m[1])%2 != 0 || depth > len(stack) {
			t.Fatalf("values.yaml line %d: indent by two spaces", i+1)
		}
		stack = append(stack[:depth], m[2])
		path := strings.Join(stack, ".")
		keys = append(keys, path)
		if pending != "" {
			docs = append(docs, valueDoc{path: path, doc: pending})
			pending = ""
		}
	}
	return docs, keys
}

// valuesTable is the README's table of values: key, default (as JSON) and
// what it does.
func valuesTable(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(repoPath(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	docs, keys := valuesDocs(t, string(b))
	documented := map[string]bool{}
	var out strings.Builder
	out.WriteString("| Key | Default | Description |\n|---|---|---|\n")
	for _, d := range docs {
		documented[d.path] = true
		var v any = values
		for _, k := range strings.Split(d.path, ".") {
			v = v.(map[string]any)[k]
		}
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "| `%s` | `%s` | %s |\n", d.path, strings.ReplaceAll(string(j), "|", `\|`), strings.ReplaceAll(d.doc, "|", `\|`))
	}
	// Every key is documented, by itself or by the map it is in.
	for _, k := range keys {
		covered := false
		for p := k; p != ""; {
			if documented[p] {
				covered = true
				break
			}
			i := strings.LastIndex(p, ".")
			if i < 0 {
				break
			}
			p = p[:i]
		}
		if !covered && !hasDocumentedChild(k, documented) {
			t.Errorf("values.yaml: %s has no \"# -- \" comment (nor has the map it is in)", k)
		}
	}
	return out.String()
}

func hasDocumentedChild(k string, documented map[string]bool) bool {
	for p := range documented {
		if strings.HasPrefix(p, k+".") {
			return true
		}
	}
	return false
}

// TestChartREADMEListsEveryValue: the chart README's table of values is
// generated from values.yaml (-update rewrites it) and current.
func TestChartREADMEListsEveryValue(t *testing.T) {
	path := repoPath(chartDir, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	before, rest, ok := strings.Cut(readme, valuesTableStart+"\n")
	_, after, ok2 := strings.Cut(rest, valuesTableEnd)
	if !ok || !ok2 {
		t.Fatalf("%s lacks the markers %q and %q", path, valuesTableStart, valuesTableEnd)
	}
	want := before + valuesTableStart + "\n" + valuesTable(t) + valuesTableEnd + after
	if want == readme {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of values is stale: go test ./test/deploy -run TestChartREADME -update", path)
}
