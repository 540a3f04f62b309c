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
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// driftCorrections counts forge objects set back to their spec after a
// change made outside the operator.
var driftCorrections = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "forge_drift_corrections_total",
	Help: "Forge objects set back to their spec after a change made outside the operator, by kind.",
}, []string{"kind"})

func init() {
	ctrlmetrics.Registry.MustRegister(driftCorrections)
}
