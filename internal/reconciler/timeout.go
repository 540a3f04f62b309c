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
	"context"
	"errors"
	"time"
)

// DefaultReconcileTimeout bounds one pass when no timeout is configured.
const DefaultReconcileTimeout = 2 * time.Minute

// finishBudget bounds the Kubernetes writes that record a pass's outcome.
const finishBudget = 15 * time.Second

// FinishContext gives the Kubernetes writes that record a pass's outcome a
// budget of their own, so that a pass cut short by the reconcile timeout
// still records why (a Waiting condition with the forge's error) instead
// of failing its status write with the same expired context. A context
// cancelled for another reason (the manager stopping) is kept.
func FinishContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), finishBudget)
}
