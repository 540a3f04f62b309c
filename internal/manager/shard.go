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
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Shards (--shard, docs/shards.md): several managers split the forge
// servers between them by the forgev1.ShardLabel of each server's deciding
// connection (its oldest ClusterForge, else its oldest Forge). "" is the
// default manager's shard: the servers whose deciding connection has no
// such label.

// ValidShard checks a --shard value: a label value, since it is matched
// against forgev1.ShardLabel; "" (the default manager) is valid.
func ValidShard(shard string) error {
	if errs := validation.IsValidLabelValue(shard); len(errs) > 0 {
		return fmt.Errorf("--shard: %q is not a label value: %s", shard, strings.Join(errs, "; "))
	}
	return nil
}

// managedObjects are an object of each managed kind of the API (every
// kind with a forgev1.Managed spec, Forge and ClusterForge not among
// them), read from its scheme so that a new kind is selected without a
// change here.
func managedObjects() []client.Object {
	s := runtime.NewScheme()
	if err := forgev1.AddToScheme(s); err != nil {
		panic(err)
	}
	var out []client.Object
	kinds := s.KnownTypes(forgev1.GroupVersion)
	for _, name := range slices.Sorted(maps.Keys(kinds)) {
		obj, err := s.New(forgev1.GroupVersion.WithKind(name))
		if err != nil {
			continue
		}
		if m, ok := obj.(forgev1.Managed); ok {
			out = append(out, m)
		}
	}
	return out
}

// ShardMetrics moves collectors, registered with reg, to a registry of
// their own under the const label shard, and returns the registry to
// serve: reg's metrics and theirs. The series of two shards' managers then
// stay apart whatever their scrape labels. The default manager's (shard
// "") are left as they are: no label means the default shard, as on the
// resources. (A registry cannot take back a collector under other label
// names once it had it, hence the second registry.)
func ShardMetrics(reg ctrlmetrics.RegistererGatherer, shard string, collectors ...prometheus.Collector) (ctrlmetrics.RegistererGatherer, error) {
	if shard == "" {
		return reg, nil
	}
	own := prometheus.NewRegistry()
	wrapped := prometheus.WrapRegistererWith(prometheus.Labels{"shard": shard}, own)
	for _, c := range collectors {
		reg.Unregister(c)
		if err := wrapped.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics with the shard label: %w", err)
		}
	}
	return shardRegistry{Registerer: reg, Gatherer: prometheus.Gatherers{reg, own}}, nil
}

// shardRegistry registers with the manager's registry and gathers from it
// and from the shard-labelled one.
type shardRegistry struct {
	prometheus.Registerer
	prometheus.Gatherer
}
