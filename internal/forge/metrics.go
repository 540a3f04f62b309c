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
	"maps"
	"math"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
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
	return []prometheus.Collector{requestsTotal, requestDuration, driftCheckIntervals, driftScopes, budgetShares}
}

// budgetUsed is the share of each forge's rate budget (its token bucket,
// shared by every client of the forge: limiterFor) spent: 1 - tokens/burst,
// read when scraped, so that a forge Forget drops has no series left.
var budgetUsed = prometheus.NewDesc("forge_rate_budget_used_ratio",
	"Share of a forge's rate budget (its token bucket of QPS and burst) spent, 0 to 1: 1 when calls wait for tokens.",
	[]string{"forge"}, nil)

// budgetShares collects budgetUsed from limiters at scrape time.
var budgetShares prometheus.Collector = budgetCollector{}

type budgetCollector struct{}

func (budgetCollector) Describe(ch chan<- *prometheus.Desc) { ch <- budgetUsed }

func (budgetCollector) Collect(ch chan<- prometheus.Metric) {
	limitersMu.Lock()
	used := make(map[string]float64, len(limiters))
	for name, b := range limiters {
		used[name] = usedShare(b.limiter)
	}
	limitersMu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(used)) {
		ch <- prometheus.MustNewConstMetric(budgetUsed, prometheus.GaugeValue, used[name], name)
	}
}

// usedShare is 1 - tokens/burst of l, within [0, 1]: negative tokens
// (calls waiting on reservations) count as all spent. An unlimited bucket
// (a negative QPS) spends nothing.
func usedShare(l *rate.Limiter) float64 {
	if l.Limit() == rate.Inf || l.Burst() <= 0 {
		return 0
	}
	v := 1 - l.Tokens()/float64(l.Burst())
	if math.IsNaN(v) {
		return 0
	}
	return min(max(v, 0), 1)
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
