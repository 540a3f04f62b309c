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

package claims

import (
	"context"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
)

// setRecord is a set kind: its record is the repositories it applied to.
type setRecord interface {
	GetSetStatus() *forgev1.SetStatus
}

// Recorded reports whether holder's status records having read or written
// the objects it would hold: a set's record of the repositories it applied
// to (status.matched), or another resource's forge id (status.id) or the
// name it read or wrote (status.externalName: a RepositoryFile's branch, a
// BranchProtection's rule). What its spec names is not a record. Which
// object the record is of (the repository id, the label id) the caller
// matches.
func Recorded(holder forgev1.Managed) bool {
	if s, ok := holder.(setRecord); ok {
		m := s.GetSetStatus().Matched
		return m != nil && m.Count > 0
	}
	st := holder.GetManagedStatus()
	return st.ID != 0 || st.ExternalName != ""
}

// withheldReasons are the Ready reasons, besides Unauthorized (Refused,
// which Wins checks), of a resource its token's scopes, its ClusterForge
// or a move keep from writing its object: it holds none of it (a
// read-only token reads a public repository, and so records its id, as
// well as anyone).
var withheldReasons = map[string]bool{
	forgev1.ReasonInsufficientScope: true, forgev1.ReasonNotPermitted: true, forgev1.ReasonMoved: true,
}

// writes reports whether holder writes its object: it manages it (under
// another connection than the yielding resource's own Forge, one that only
// observes holds nothing: a tenant's read-only token observes as well as
// anyone), and nothing withheld its last pass.
func (s *Servers) writes(holder forgev1.Managed) bool {
	if holder.GetManagedSpec().ManagementPolicy == forgev1.ManagementPolicyObserve && !s.SameForge(holder) {
		return false
	}
	reason, _ := conditions.ReadyReason(holder)
	return !withheldReasons[reason]
}

// HoldsOver is the one decision of every pair of kinds where one yields
// to another (the registry declares the pairs; its table test lists each):
// whether holder, a resource of the same server, holds what it claims over
// the writes of the resource these Servers are of: a field, a path, a
// team's access, a label or a rule; it then wins over a set, keeps what a
// set takes back, or blocks another resource's write. It does only when it
// is not being deleted, writes its object (it does not only observe, and
// the forge did not refuse it: a tenant's read-only token records a public
// repository's id as well as anyone) and Wins with its record (Recorded):
// under another connection a spec alone holds nothing, and neither does a
// connection that is not Ready or that its ClusterForge does not permit
// (DESIGN "Precedence and enforcement"); under the yielding resource's own
// Forge an observing resource and a spec hold as they always did.
func (s *Servers) HoldsOver(ctx context.Context, holder forgev1.Managed) bool {
	return holder.GetDeletionTimestamp().IsZero() && s.writes(holder) && s.Wins(ctx, holder, Recorded(holder))
}
