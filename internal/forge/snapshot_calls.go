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
	"strings"
)

// The cached calls of Snapshots for the first resources (declared in
// resource.go, their calls in calls.go); a newer resource keeps its cached
// calls in its own file (tagprotections.go is one).

// ---- repositories: one listing per owner (organization or user) ----

func orgReposKey(org string) string   { return "org:" + strings.ToLower(org) }
func userReposKey(user string) string { return "user:" + strings.ToLower(user) }

func (s *Snapshots) ListOrgRepos(ctx context.Context, org string) ([]Repository, error) {
	return repositories.cache(s).list(ctx, s, orgReposKey(org), func(ctx context.Context) ([]Repository, error) {
		return s.Interface.ListOrgRepos(ctx, org)
	})
}

func (s *Snapshots) ListUserRepos(ctx context.Context, user string) ([]Repository, error) {
	return repositories.cache(s).list(ctx, s, userReposKey(user), func(ctx context.Context) ([]Repository, error) {
		return s.Interface.ListUserRepos(ctx, user)
	})
}

// wroteRepo records a repository's new state in its owner's listing.
func (s *Snapshots) wroteRepo(owner string, r *Repository, err error) {
	repositories.cache(s).wrote(orgReposKey(owner), r, 0, err)
	repositories.cache(s).wrote(userReposKey(owner), r, 0, err)
}

// dropRepos forgets owner's listings: a write whose answer is not the
// repository (topics, a delete by name).
func (s *Snapshots) dropRepos(owner string) {
	repositories.cache(s).drop(orgReposKey(owner))
	repositories.cache(s).drop(userReposKey(owner))
}

func (s *Snapshots) CreateOrgRepo(ctx context.Context, org string, opt CreateRepoOption) (*Repository, error) {
	r, err := s.Interface.CreateOrgRepo(ctx, org, opt)
	s.wroteRepo(org, r, err)
	return r, err
}

func (s *Snapshots) CreateUserRepo(ctx context.Context, opt CreateRepoOption) (*Repository, error) {
	r, err := s.Interface.CreateUserRepo(ctx, opt)
	if err == nil && r.Owner != nil {
		s.wroteRepo(r.Owner.Login, r, nil)
	}
	return r, err
}

// GenerateRepo forgets the owner's listings rather than recording the
// answer, which lists no topics even when the template's were copied.
func (s *Snapshots) GenerateRepo(ctx context.Context, template string, opt GenerateRepoOption) (*Repository, error) {
	r, err := s.Interface.GenerateRepo(ctx, template, opt)
	s.dropRepos(opt.Owner)
	return r, err
}

func (s *Snapshots) EditRepo(ctx context.Context, owner, repo string, opt EditRepoOption) (*Repository, error) {
	r, err := s.Interface.EditRepo(ctx, owner, repo, opt)
	s.wroteRepo(owner, r, err)
	return r, err
}

func (s *Snapshots) DeleteRepo(ctx context.Context, owner, repo string) error {
	err := s.Interface.DeleteRepo(ctx, owner, repo)
	s.dropRepos(owner)
	return err
}

// SetRepoTopics records the new topics (lower-cased, as the forge keeps
// them) in the repository's entry of its owner's listings; the answer
// carries no repository, and dropping the listing instead made every
// adopted repository cost its organization a listing again.
func (s *Snapshots) SetRepoTopics(ctx context.Context, owner, repo string, topics []string) error {
	err := s.Interface.SetRepoTopics(ctx, owner, repo, topics)
	if err != nil {
		s.dropRepos(owner)
		return err
	}
	lower := make([]string, len(topics))
	for i, t := range topics {
		lower[i] = strings.ToLower(t)
	}
	for _, key := range []string{orgReposKey(owner), userReposKey(owner)} {
		r, ok := repositories.cache(s).find(key, func(r Repository) bool { return strings.EqualFold(r.Name, repo) })
		if !ok {
			repositories.cache(s).drop(key)
			continue
		}
		r.Topics = lower
		repositories.cache(s).wrote(key, &r, 0, nil)
	}
	return nil
}

// ---- read afresh, never kept, yet in the drift lane: a team's members
// and repositories, a repository's direct collaborators ----
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

func (s *Snapshots) ListCollaborators(ctx context.Context, owner, repo string) ([]User, error) {
	return afresh(ctx, s, "collaborators", scopeKey(RepoScope(owner, repo)), func(ctx context.Context) ([]User, error) {
		return s.Interface.ListCollaborators(ctx, owner, repo)
	})
}
