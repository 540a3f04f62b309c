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
	"context"
	"net/http"
)

// WriteCheck decides, before each write, whether the caller may still
// write: a resource served through a ClusterForge re-checks its tenancy
// (a namespace relabelled during a long pass stops its writes at the next
// one, not at the next pass).
type WriteCheck func(ctx context.Context) error

type writeCheckKey struct{}

// WithWriteCheck returns ctx whose writes through any client are first
// checked by check: one that fails is not sent, and its error is the
// call's. A check ctx holds already runs first (a ClusterForge's tenancy,
// then the token's scopes).
func WithWriteCheck(ctx context.Context, check WriteCheck) context.Context {
	if prev, ok := ctx.Value(writeCheckKey{}).(WriteCheck); ok && prev != nil {
		next := check
		check = func(ctx context.Context) error {
			if err := prev(ctx); err != nil {
				return err
			}
			return next(ctx)
		}
	}
	return context.WithValue(ctx, writeCheckKey{}, check)
}

// checkWrite is do's check of a write against its context's WriteCheck.
func checkWrite(ctx context.Context, cl call) error {
	if cl.method == http.MethodGet {
		return nil
	}
	if check, ok := ctx.Value(writeCheckKey{}).(WriteCheck); ok && check != nil {
		return check(ctx)
	}
	return nil
}
