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
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// checkScopes stalls obj, InsufficientScope, when its Forge's token lacks
// a scope obj's writes need (Scoped); nil when the token has them all, or
// the server does not tell a token's scopes (Pass.Scopes nil: basic auth,
// or a server before Gitea 1.27, whose 403 answers instead).
func (r *Reconciler[T]) checkScopes(obj T, pass *Pass, create bool) error {
	sc, ok := r.kind.(Scoped[T])
	if !ok || pass.Scopes == nil {
		return nil
	}
	missing := forge.MissingScopes(pass.Scopes, sc.WriteScopes(obj, pass, create))
	if len(missing) == 0 {
		return nil
	}
	have := strings.Join(pass.Scopes, ", ")
	if have == "" {
		have = "none"
	}
	return Stall(forgev1.ReasonInsufficientScope,
		"writing %s needs token scope %s, which the token of %s lacks (it has %s, status.tokenScopes): nothing was written; give the Forge a token with that scope",
		r.kind.Describe(obj), strings.Join(missing, " and "), pass.forgeRef, have)
}

// withScopeCheck returns ctx whose every forge write is checked first
// against the scopes obj's writes need (checkScopes, as for an update):
// the check act makes before its first write covers creates; this one
// also covers deletions and sets' members, which decide their writes
// one by one.
func (r *Reconciler[T]) withScopeCheck(ctx context.Context, obj T, pass *Pass) context.Context {
	if _, ok := r.kind.(Scoped[T]); !ok || pass.Scopes == nil {
		return ctx
	}
	return forge.WithWriteCheck(ctx, func(context.Context) error { return r.checkScopes(obj, pass, false) })
}
