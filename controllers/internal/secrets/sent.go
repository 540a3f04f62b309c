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

package secrets

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Sent remembers, per resource, the status.appliedSecrets records of
// the Secret values this manager last sent, and the forge object it sent
// them to. A pass may start from a cached resource older than the status
// the pass before it wrote (two events close together): its status then
// names values the forge no longer holds. Taken as the truth, such a status
// would resend a value already sent, or, when the Secret was rolled back to
// the value status names (A, then B sent, then A again), send nothing and
// leave B on the forge. What this manager sent last is newer than any
// status it has not seen yet, so it stands wherever the two differ.
// status.appliedSecrets stays the record that outlives the manager; this
// only bridges the cache's lag. Every kind that keeps appliedSecrets
// (ActionsSecret, OrgHook, RepoHook) decides through one of these.
type Sent struct {
	mu sync.Mutex
	m  map[types.UID]sentRecord
}

// sentRecord is what one resource last sent: the records status would
// hold, and the forge object they went to (a hook's id; 0 for an object
// addressed by its name, which is immutable).
type sentRecord struct {
	target  int64
	applied []forgev1.AppliedSecret
}

// NewSent is an empty memory.
func NewSent() *Sent { return &Sent{m: map[types.UID]sentRecord{}} }

// Sent records that the values of applied were just sent to target.
func (s *Sent) Sent(uid types.UID, target int64, applied []forgev1.AppliedSecret) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[uid] = sentRecord{target: target, applied: slices.Clone(applied)}
}

// Settled keeps records re-stamped without a send (the Secret's version, the
// digest key) in step with status, where the resource sent to target.
func (s *Sent) Settled(uid types.UID, target int64, applied []forgev1.AppliedSecret) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.m[uid]; ok && r.target == target {
		s.m[uid] = sentRecord{target: target, applied: slices.Clone(applied)}
	}
}

// Forget drops what the resource sent to target: that object is deleted.
func (s *Sent) Forget(uid types.UID, target int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.m[uid]; ok && r.target == target {
		delete(s.m, uid)
	}
}

// Have is what the forge object target holds as far as this manager knows:
// the records of what it last sent there, else status's.
func (s *Sent) Have(uid types.UID, target int64, status []forgev1.AppliedSecret) []forgev1.AppliedSecret {
	if s == nil {
		return status
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.m[uid]; ok && r.target == target {
		return slices.Clone(r.applied)
	}
	return status
}
