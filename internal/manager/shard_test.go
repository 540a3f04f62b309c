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

package manager

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

func TestValidShard(t *testing.T) {
	for _, ok := range []string{"", "eu-1", "a.b_c", "A1", strings.Repeat("x", 63)} {
		if err := ValidShard(ok); err != nil {
			t.Errorf("ValidShard(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"-eu", "eu-", "eu 1", "a/b", "shard=x", strings.Repeat("x", 64)} {
		if err := ValidShard(bad); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("ValidShard(%q): error %v, want one naming --shard", bad, err)
		}
	}
}

// TestCacheOptionsSelectByShard: every managed kind is cached by its shard
// label (a shard's own value; for the default manager, none), and Forges,
// ClusterForges, Secrets and ConfigMaps are cached whole.
func TestCacheOptionsSelectByShard(t *testing.T) {
	s := runtime.NewScheme()
	if err := forgev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	eu1 := labels.Set{forgev1.ShardLabel: "eu-1"}
	us1 := labels.Set{forgev1.ShardLabel: "us-1"}
	none := labels.Set{"app": "x"}
	for shard, want := range map[string]map[string]bool{
		"eu-1": {"eu-1": true, "us-1": false, "none": false},
		"":     {"eu-1": false, "us-1": false, "none": true},
	} {
		o := CacheOptions([]string{"team-a"}, shard, "ops")
		selected := map[string]cache.ByObject{}
		for obj, by := range o.ByObject {
			selected[reflect.TypeOf(obj).Elem().Name()] = by
		}
		for kind, typ := range s.KnownTypes(forgev1.GroupVersion) {
			if _, isObject := reflect.New(typ).Interface().(client.Object); !isObject || strings.HasSuffix(kind, "List") {
				continue
			}
			by, ok := selected[kind]
			whole := kind == "Forge" || kind == "ClusterForge"
			switch {
			case whole && ok:
				t.Errorf("shard %q: %s is selected by %v, want every one cached", shard, kind, by.Label)
			case whole:
			case !ok || by.Label == nil:
				t.Errorf("shard %q: %s is cached whole, want only its shard's", shard, kind)
			default:
				got := map[string]bool{"eu-1": by.Label.Matches(eu1), "us-1": by.Label.Matches(us1), "none": by.Label.Matches(none)}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("shard %q: %s's selector %v matches %v, want %v", shard, kind, by.Label, got, want)
				}
			}
		}
		for _, kind := range []string{"Secret", "ConfigMap", "Namespace"} {
			if _, ok := selected[kind]; ok {
				t.Errorf("shard %q: %s is selected, want it read as without shards", shard, kind)
			}
		}
		leases, ok := selected["Lease"]
		if !ok || !slices.Equal(slices.Collect(maps.Keys(leases.Namespaces)), []string{"ops"}) {
			t.Errorf("shard %q: Leases cached as %+v, want only those of the operator's namespace", shard, leases)
		}
		if selected["Repository"].Label == nil || selected["LabelSet"].Label == nil {
			t.Errorf("shard %q: Repository or LabelSet is not selected: %v", shard, selected)
		}
	}
}

// TestShardMetrics: a shard's manager serves its metrics with the label
// shard; the default manager's keep the series they had.
func TestShardMetrics(t *testing.T) {
	for shard, want := range map[string]string{"eu-1": "eu-1", "": ""} {
		reg := prometheus.NewRegistry()
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "forge_passes_total", Help: "h"}, []string{"kind"})
		other := prometheus.NewCounter(prometheus.CounterOpts{Name: "workqueue_adds_total", Help: "h"})
		reg.MustRegister(c, other)
		served, err := ShardMetrics(reg, shard, c)
		if err != nil {
			t.Fatal(err)
		}
		c.WithLabelValues("Label").Inc()
		other.Inc()
		families, err := served.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range families {
			if len(f.GetMetric()) != 1 {
				t.Fatalf("shard %q: %s has %d series, want 1", shard, f.GetName(), len(f.GetMetric()))
			}
			got[f.GetName()] = "-"
			for _, l := range f.GetMetric()[0].GetLabel() {
				if l.GetName() == "shard" {
					got[f.GetName()] = l.GetValue()
				}
			}
		}
		if want := map[string]string{"forge_passes_total": cmp.Or(want, "-"), "workqueue_adds_total": "-"}; !reflect.DeepEqual(got, want) {
			t.Errorf("shard %q: series' shard labels %v, want %v (- for none)", shard, got, want)
		}
	}
}
