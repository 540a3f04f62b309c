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

package opsmetrics_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/opsmetrics"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// vec is what every *Vec of client_golang has: a child per label values.
type vec interface {
	prometheus.Collector
	DeleteLabelValues(...string) bool
}

// exercise gives c a series: a vector a child with empty label values (as
// many as it takes), removed when the test ends; other collectors are
// left to collect what they have.
func exercise(t *testing.T, c prometheus.Collector) {
	t.Helper()
	var get func(...string) error
	switch v := c.(type) {
	case *prometheus.CounterVec:
		get = func(l ...string) error { _, err := v.GetMetricWithLabelValues(l...); return err }
	case *prometheus.GaugeVec:
		get = func(l ...string) error { _, err := v.GetMetricWithLabelValues(l...); return err }
	case *prometheus.HistogramVec:
		get = func(l ...string) error { _, err := v.GetMetricWithLabelValues(l...); return err }
	default:
		return
	}
	for n := range 10 {
		labels := make([]string, n)
		if get(labels...) == nil {
			t.Cleanup(func() { c.(vec).DeleteLabelValues(labels...) })
			return
		}
	}
	t.Fatalf("no label count up to 10 makes a series of %T", c)
}

// gatheredNames are the series names reg gathers, a histogram's expanded
// as the exposition format writes them.
func gatheredNames(t *testing.T, reg prometheus.Gatherer) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		name := mf.GetName()
		if !strings.HasPrefix(name, "forge_") {
			continue
		}
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM:
			names = append(names, name+"_bucket", name+"_sum", name+"_count")
		case dto.MetricType_SUMMARY:
			names = append(names, name, name+"_sum", name+"_count")
		default:
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// TestNamesAreWhatIsGathered: Names lists every forge_* series the
// collectors main registers (Collectors) give once each has one, and nothing else,
// so that a dashboard checked against Names names only what exists.
func TestNamesAreWhatIsGathered(t *testing.T) {
	// The resources' metrics: the fixture gives each of them a series.
	ops := opsmetrics.New()
	ops.Read(fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(resourcesFixture()...).Build(), true)
	reg := prometheus.NewPedanticRegistry()
	for _, c := range opsmetrics.Collectors(ops) {
		reg.MustRegister(c)
		exercise(t, c)
	}
	// The rate budgets are read from the forges' limiters: a client makes one.
	const name = "names-test"
	if _, err := forge.New(forge.Config{Name: name, URL: "http://127.0.0.1:1", Token: "t"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forge.Forget(name) })

	if diff := cmp.Diff(opsmetrics.Names(), gatheredNames(t, reg)); diff != "" {
		t.Errorf("Names() differs from what the registered collectors give (-Names +gathered):\n%s", diff)
	}
	// A metric a package registers in controller-runtime's registry but
	// leaves out of its Collectors (so main would not label it by shard)
	// shows here.
	for _, n := range gatheredNames(t, ctrlmetrics.Registry) {
		if !slices.Contains(opsmetrics.Names(), n) {
			t.Errorf("controller-runtime's registry serves %s, which Names() lacks", n)
		}
	}
	if !slices.IsSorted(opsmetrics.Names()) {
		t.Error("Names() is not sorted")
	}
}

// TestMetricsAreDocumented: docs/metrics.md has a row for every metric of
// Names (a histogram's once, by its own name) and none besides.
func TestMetricsAreDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for line := range strings.Lines(string(raw)) {
		if m := docRow.FindStringSubmatch(line); m != nil {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(documented)
	var want []string
	names := opsmetrics.Names()
	for _, n := range names {
		if base, ok := strings.CutSuffix(n, "_bucket"); ok {
			want = append(want, base)
			continue
		}
		if base, ok := strings.CutSuffix(n, "_sum"); ok && slices.Contains(names, base+"_bucket") {
			continue
		}
		if base, ok := strings.CutSuffix(n, "_count"); ok && slices.Contains(names, base+"_bucket") {
			continue
		}
		want = append(want, n)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, documented); diff != "" {
		t.Errorf("docs/metrics.md's tables differ from Names() (-Names +documented):\n%s", diff)
	}
}

// docRow is a row of a table of docs/metrics.md: the metric's name first.
var docRow = regexp.MustCompile("^\\| `(forge_[a-z_]+)` \\|")
