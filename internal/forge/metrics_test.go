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
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// budgetShare scrapes forge_rate_budget_used_ratio of forge name, and
// says whether it has a series.
func budgetShare(t *testing.T, name string) (float64, bool) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(budgetShares)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == name {
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

// TestRateBudgetUsedRatio: the share of a forge's bucket spent, read at
// scrape, 0 to 1 (calls waiting past an empty bucket are 1, not more), 0
// for an unlimited forge, and no series once the forge is forgotten.
func TestRateBudgetUsedRatio(t *testing.T) {
	const name, unlimited = "budget-ratio-test", "budget-ratio-unlimited"
	t.Cleanup(func() { Forget(name); Forget(unlimited) })
	// 0.001 QPS: no token comes back while the test runs.
	b := limiterFor(name, 0.001, 10)
	if got, ok := budgetShare(t, name); !ok || got != 0 {
		t.Errorf("a fresh bucket: %v (series %v), want 0", got, ok)
	}
	if !b.limiter.AllowN(time.Now(), 4) {
		t.Fatal("4 of 10 tokens refused")
	}
	if got, _ := budgetShare(t, name); math.Abs(got-0.4) > 0.01 {
		t.Errorf("4 of 10 tokens spent: %v, want 0.4", got)
	}
	b.limiter.ReserveN(time.Now(), 10) // 6 left: 4 owed
	if got, _ := budgetShare(t, name); got != 1 {
		t.Errorf("calls waiting past an empty bucket: %v, want 1", got)
	}

	u := limiterFor(unlimited, -1, 10)
	u.limiter.AllowN(time.Now(), 10)
	if got, ok := budgetShare(t, unlimited); !ok || got != 0 {
		t.Errorf("an unlimited forge: %v (series %v), want 0", got, ok)
	}

	Forget(name)
	if got, ok := budgetShare(t, name); ok {
		t.Errorf("a forgotten forge still has its series (%v)", got)
	}
}
