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
)

// Listings read afresh, never kept, yet in the drift lane: a team's
// members and repositories (teams.go), a repository's direct collaborators
// (repositories.go).
//
// Each is read by the one pass that compares it (a Team's, a
// RepositorySet's, a Repository's) and decides removals on it, so it is
// never kept (DESIGN "Removals": never on a kept listing). A drift check's
// listing still takes its turn in the forge's drift lane and counts in its
// drift load (status.driftScopes), as the kept listings do: otherwise
// these checks would spend the half of the rate kept for creates and
// updates, and a Forge's sizing would not see them. A read afresh (Fresh:
// the guard a pass reads before its removals) counts in no load, as a kept
// listing's does not; in a routine check it still waits for its turn. A
// check that reads two of them (a Team's members and repositories) and is
// told to wait for the second lists the first again on its turn: while
// the lane is that busy it may be told again, until it is no routine
// check any more (the loop's maxDeferral, two intervals) and reads at once.

// afresh is a listing read through s, never kept: noted in the drift load
// as scope key of name, after its turn in the drift lane (a check's). A
// branch's tree is read so too (ListTree).
func afresh[T any](ctx context.Context, s *Snapshots, name, key string, read func(context.Context) (T, error)) (T, error) {
	s.noteScope(name, key)
	if err := s.turn(ctx); err != nil {
		var zero T
		return zero, err
	}
	return read(ctx)
}
