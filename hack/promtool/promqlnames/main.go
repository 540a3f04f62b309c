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

// Command promqlnames parses PromQL expressions with Prometheus's own parser
// and prints the metric names each one selects. It reads a JSON array of
// expressions on standard input and writes a JSON array of results, one per
// expression, in order: {"expr", "names", "error"}. The dashboard test of
// test/deploy runs it to hold that every dashboard query parses and names
// only metrics that exist; it lives in hack/promtool's module so that the
// parser is the one promtool (which checks the alert rules) is built from.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

type result struct {
	Expr  string   `json:"expr"`
	Names []string `json:"names"`
	Error string   `json:"error,omitempty"`
}

func main() {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintln(os.Stderr, "promqlnames: standard input: want a JSON array of strings:", err)
		os.Exit(2)
	}
	p := parser.NewParser(parser.Options{})
	out := make([]result, 0, len(exprs))
	for _, e := range exprs {
		out = append(out, parse(p, e))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "promqlnames:", err)
		os.Exit(1)
	}
}

// parse returns the metric names expr selects. A selector that names no
// metric by equality (e.g. {__name__=~"forge_.+"}) is an error: the names it
// reads cannot be checked.
func parse(p parser.Parser, expr string) result {
	r := result{Expr: expr, Names: []string{}}
	ast, err := p.ParseExpr(expr)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	for _, sel := range parser.ExtractSelectors(ast) {
		name := ""
		for _, m := range sel {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		if name == "" {
			r.Error = fmt.Sprintf("a selector names no metric by equality: %v", sel)
			return r
		}
		if !slices.Contains(r.Names, name) {
			r.Names = append(r.Names, name)
		}
	}
	slices.Sort(r.Names)
	return r
}
