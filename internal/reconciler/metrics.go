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

package reconciler

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forgeops/forge-operator/internal/conditions"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// driftCorrections counts forge objects set back to their spec after a
// change made outside the operator: for a set, a pass that corrected drift
// in repositories it governed already, not one that governed new ones
// (Applied).
var driftCorrections = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "forge_drift_corrections_total",
	Help: "Forge objects set back to their spec after a change made outside the operator, by kind.",
}, []string{"kind"})

// passes counts the passes that ran (not those Fairness turned away), by
// kind and by what they ended in: ready, waiting, stalled, idle, turn (a
// drift check told to come back on its turn) or error (of the Kubernetes
// API).
var passes = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "forge_passes_total",
	Help: "Passes over resources that ran, by kind and outcome (ready, waiting, stalled, idle, turn, error).",
}, []string{"kind", "outcome"})

// lastPass is when a pass of each kind last ended (the passes counted),
// so that an alert can tell a kind whose passes stopped.
var lastPass = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "forge_last_pass_timestamp_seconds",
	Help: "Unix time a pass over a resource of the kind last ended, whatever its outcome.",
}, []string{"kind"})

// passEnded counts a pass of kind that ended in outcome, and records when.
func passEnded(kind, outcome string) {
	passes.WithLabelValues(kind, outcome).Inc()
	lastPass.WithLabelValues(kind).SetToCurrentTime()
}

func init() {
	ctrlmetrics.Registry.MustRegister(Collectors()...)
}

// Collectors gives the loop's metrics (main registers them again with the
// shard label, manager.ShardMetrics).
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{driftCorrections, passes, lastPass}
}

// outcomeName names a pass's outcome for the passes metric.
func outcomeName(s conditions.State) string {
	switch s {
	case conditions.Ready:
		return "ready"
	case conditions.Waiting:
		return "waiting"
	case conditions.Stalled:
		return "stalled"
	default:
		return "idle"
	}
}
