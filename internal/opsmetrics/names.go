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

package opsmetrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Collectors are every collector of the manager's forge_* metrics: the
// forge client's, the loop's, the receiver's and resources (this
// package's): main gives them the shard label (manager.ShardMetrics), and
// TestNamesAreWhatIsGathered gathers them, so that the two cannot differ.
func Collectors(resources *Collector) []prometheus.Collector {
	return slices.Concat(forge.Collectors(), reconciler.Collectors(), receiver.Collectors(), []prometheus.Collector{resources})
}

// Names are the names of every forge_* series the manager serves, from
// every package that registers them (forge, reconciler, receiver and this
// one), a histogram's as its _bucket, _sum and _count, sorted: what a
// dashboard or an alert rule may name. TestNamesAreWhatIsGathered keeps
// the list and the registered collectors the same.
func Names() []string {
	return []string{
		"forge_connection_ready",
		"forge_drift_check_intervals",
		"forge_drift_corrections_total",
		"forge_drift_scopes",
		"forge_last_pass_timestamp_seconds",
		"forge_passes_total",
		"forge_rate_budget_used_ratio",
		"forge_receiver_deliveries_total",
		"forge_request_duration_seconds_bucket",
		"forge_request_duration_seconds_count",
		"forge_request_duration_seconds_sum",
		"forge_requests_total",
		"forge_resources",
		"forge_resources_stalled",
		"forge_set_pending_removals",
		"forge_set_repositories",
		"forge_set_repositories_failing",
		"forge_set_repositories_in_sync",
		"forge_set_repositories_yielded",
	}
}
