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

package forge

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The route label is always the template (/orgs/{org}/hooks/{id}) so the
// series count stays bounded whatever the forge holds. code is the HTTP
// status, or "error" when no response arrived.
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "forge_requests_total",
		Help: "HTTP requests made to forges, by forge, method, route template and status code.",
	}, []string{"forge", "method", "route", "code"})

	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "forge_request_duration_seconds",
		Help:    "Latency of HTTP requests made to forges, by forge, method and route template.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"forge", "method", "route"})

	driftCheckIntervals = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "forge_drift_check_intervals",
		Help: "Sync intervals one drift check of every scope of a forge takes within the half of its rate checks may use: 1 while they fit, more when the scopes' listings a second are more than that half.",
	}, []string{"forge"})

	driftScopes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "forge_drift_scopes",
		Help: "Scopes (listings) of a forge that drift checks read, each once per sync interval.",
	}, []string{"forge"})
)

// Registered with controller-runtime's registry so the manager's /metrics
// endpoint serves them without further wiring.
func init() {
	ctrlmetrics.Registry.MustRegister(Collectors()...)
}

// Collectors gives the client's metrics, for registering in another registry.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{requestsTotal, requestDuration, driftCheckIntervals, driftScopes}
}

func observe(forge, method, route, code string, d time.Duration) {
	requestsTotal.WithLabelValues(forge, method, route, code).Inc()
	requestDuration.WithLabelValues(forge, method, route).Observe(d.Seconds())
}

func forgetMetrics(forge string) {
	requestsTotal.DeletePartialMatch(prometheus.Labels{"forge": forge})
	requestDuration.DeletePartialMatch(prometheus.Labels{"forge": forge})
	driftCheckIntervals.DeletePartialMatch(prometheus.Labels{"forge": forge})
	driftScopes.DeletePartialMatch(prometheus.Labels{"forge": forge})
}
