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
	"testing"
	"time"
)

func TestFinishContext(t *testing.T) {
	expired, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-expired.Done()
	ctx, done := FinishContext(expired)
	defer done()
	if ctx.Err() != nil {
		t.Fatalf("writes after a pass that ran out of time get a dead context: %v", ctx.Err())
	}
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > finishBudget {
		t.Fatalf("writes after a pass get no bounded budget: %v %v", dl, ok)
	}

	stopping, stop := context.WithCancel(context.Background())
	stop()
	if ctx, done := FinishContext(stopping); ctx.Err() == nil {
		done()
		t.Fatal("a stopping manager's context was revived")
	}
}
