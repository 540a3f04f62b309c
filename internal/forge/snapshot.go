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
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Observing from lists.
//
// A drift check of one object used to cost one GET by id, and an adoption
// look-up one listing of the object's whole scope. With hundreds of labels
// per repository and a rate budget of 10 requests a second that does not
// keep up. Snapshots serves the reads of every listed resource
// (resource.go) from one listing per scope instead: every object of a
// repository's labels (or of an organization's hooks, ...) is observed from
// the same listing, which is taken again only when it is older than the
// reader allows (ReadPolicy.MaxAge: the loop passes the object's sync
// interval), so a scope costs one listing per sync interval however many
// objects it holds.
//
// What the operator writes through Snapshots updates the listing at once
// (a create adds the answer, an edit replaces the object, a delete removes
// it), also when the write lands while a listing is under way: writes made
// during a listing are replayed onto its result. So no object ever sees a
// state older than its own writes, and an adoption look-up never misses
// the object a create just made. A failed write may or may not have
// happened (a lost response), so it drops the scope's listing: the next
// read lists again. Errors of a listing are not kept; concurrent readers
// of one scope share one listing and its error.
//
// Organizations are read from the listing of the user's own (GET
// /user/orgs); one missing there may still exist (an organization the user
// does not belong to), so it is read by name.
//
// Reads under no ReadPolicy (plan, export, tests) pass through uncached.

// ErrYield is returned to a background check (ReadPolicy.Background)
// instead of reading the forge before its turn in the forge's drift lane
// (a TurnError is one).
var ErrYield = errors.New("yielding the forge's rate budget to pending creates and updates")

// ReadPolicy is how the reads of one pass through Snapshots may be
// served. The loop makes one per pass and reads the forge through
// Reading(client, policy), a view of the client bound to it; when the pass
// is done, it asks the same value which listings it was served from
// (OldestListing). A Snapshots read under no policy (plan, export, tests)
// passes through uncached.
type ReadPolicy struct {
	// MaxAge lets reads be served from a listing taken at most MaxAge ago.
	// A listing a little younger is taken again already (by a twentieth of
	// MaxAge, at most a second), so that a reader coming back every MaxAge
	// finds it stale rather than a hair too young, and no object sees the
	// forge older than MaxAge. Zero: every read lists afresh.
	MaxAge time.Duration
	// ListedAfter further requires a listing that started after it. An
	// adoption look-up passes the time its resource was created: whatever
	// someone made on the forge before applying the resource is then in
	// the listing, and is adopted rather than duplicated.
	ListedAfter time.Time
	// Background marks a routine drift check: its calls do not count as
	// demand on the forge's budget, and a read that would call the forge
	// first takes a turn in the forge's drift lane (lanes.go), or returns a
	// TurnError (ErrYield) naming a later one.
	Background bool
	// Turn is a background check's turn in the forge's drift lane, kept
	// for it when a read was told to wait for it (TurnError): its first
	// read that calls the forge takes it instead of asking for another.
	Turn time.Time

	seen *listingsSeen // shared by the copies Fresh makes
}

// listingsSeen records when the oldest listing a pass read was taken, and
// whether one held a page or more.
type listingsSeen struct {
	mu     sync.Mutex
	oldest time.Time
	paged  bool
	turn   time.Time // the drift lane's turn held (Turn, or one given since)
}

// Reading is fc reading under p: for Snapshots, a view sharing its
// listings whose reads follow p and record in p the listings they were
// served from; a background policy also has the client's waits for the
// rate budget count as no demand. Any other client is returned as it is.
func Reading(fc Interface, p *ReadPolicy) Interface {
	if s, ok := fc.(*Snapshots); ok {
		return s.Reading(p)
	}
	return fc
}

// Reading is the view of s that reads under p (see the function Reading).
func (s *Snapshots) Reading(p *ReadPolicy) *Snapshots {
	if p.seen == nil {
		p.seen = &listingsSeen{turn: p.Turn}
	}
	v := &Snapshots{Interface: s.inner, inner: s.inner, shared: s.shared, policy: p}
	if b, ok := s.inner.(interface{ asBackground() Interface }); ok && p.Background {
		v.Interface = b.asBackground()
	}
	return v
}

// Fresh is fc with reads that list afresh (MaxAge 0), what they read still
// recorded in its policy: a guard about to remove what a listing does not
// show reads the forge as it is now.
func Fresh(fc Interface) Interface {
	return adjusted(fc, func(p *ReadPolicy) { p.MaxAge = 0 })
}

// Lenient is fc with reads that accept listings up to times its policy's
// MaxAge old (ListedAfter still holds), still recorded in its policy: for a
// guard that reads a slowly changing fact of a scope (is the repository
// archived?) before a write, which need not list the scope again every
// interval while a long first sync writes into it piecemeal. A policy that
// lists afresh (MaxAge 0) stays afresh.
func Lenient(fc Interface, times int) Interface {
	return adjusted(fc, func(p *ReadPolicy) { p.MaxAge *= time.Duration(times) })
}

// adjusted is the view of fc under a copy of its policy that change
// alters, recording what it reads in the original's record; fc itself
// when it is no Snapshots view bound to a policy.
func adjusted(fc Interface, change func(*ReadPolicy)) Interface {
	s, ok := fc.(*Snapshots)
	if !ok || s.policy == nil {
		return fc
	}
	p := *s.policy
	change(&p)
	return s.Reading(&p)
}

// pol is the policy s reads under; the zero policy for none.
func (s *Snapshots) pol() *ReadPolicy {
	if s.policy != nil {
		return s.policy
	}
	return &ReadPolicy{}
}

// OldestListing is when the oldest listing read under p was taken; zero
// when none was.
func (p *ReadPolicy) OldestListing() time.Time {
	if p == nil || p.seen == nil {
		return time.Time{}
	}
	p.seen.mu.Lock()
	defer p.seen.mu.Unlock()
	return p.seen.oldest
}

// Paged reports whether a listing read under p held a page (PageSize
// items) or more. Such a listing was walked page by page, and an object
// moving across a page boundary meanwhile (one deleted before it, one made
// after it) is missing from it with nothing to show: an absence read from
// it is confirmed afresh before anything is created on its strength.
func (p *ReadPolicy) Paged() bool {
	if p == nil || p.seen == nil {
		return false
	}
	p.seen.mu.Lock()
	defer p.seen.mu.Unlock()
	return p.seen.paged
}

// PagedListing reports whether a listing of n items was walked page by
// page (it holds a page or more), so that an object moving across a page
// boundary meanwhile may be missing from it (see Paged).
func PagedListing(n int) bool { return n >= PageSize }

// usedListing records a listing of n items read under p.
func (p *ReadPolicy) usedListing(n int) {
	if p.seen == nil || !PagedListing(n) {
		return
	}
	p.seen.mu.Lock()
	defer p.seen.mu.Unlock()
	p.seen.paged = true
}

// used records that a read under p was served from a listing taken at t.
func (p *ReadPolicy) used(t time.Time) {
	if p.seen == nil || t.IsZero() {
		return
	}
	p.seen.mu.Lock()
	defer p.seen.mu.Unlock()
	if p.seen.oldest.IsZero() || t.Before(p.seen.oldest) {
		p.seen.oldest = t
	}
}

// usable reports whether a listing that started at fetched serves p.
func (p *ReadPolicy) usable(fetched time.Time) bool {
	if p.MaxAge <= 0 || fetched.IsZero() || fetched.Before(p.ListedAfter) {
		return false
	}
	return time.Since(fetched) < p.MaxAge-min(p.MaxAge/20, time.Second)
}

// Snapshots wraps fc, serving reads from shared listings per scope (see
// above). Methods not overridden pass through. Each resource's store is
// made from its declaration (resource.go).
type Snapshots struct {
	// Interface is the client the calls go to: inner, or for a background
	// view, inner's background copy.
	Interface
	inner  Interface
	policy *ReadPolicy // nil: reads pass through uncached (Reading)
	*shared
}

// shared is what every view of one Snapshots shares: its listings.
type shared struct {
	kept *budgets

	mu     sync.Mutex
	stores map[any]interface{ forgetAll() } // by resource declaration (resource.cache)
}

// NewSnapshots wraps fc.
func NewSnapshots(fc Interface) *Snapshots {
	return &Snapshots{Interface: fc, inner: fc, shared: &shared{kept: &budgets{forge: NewBudget(MaxKeptBytes)}, stores: map[any]interface{ forgetAll() }{}}}
}

func cloneRepo(r Repository) Repository {
	r.Topics = slices.Clone(r.Topics)
	if r.Owner != nil {
		o := *r.Owner
		r.Owner = &o
	}
	return r
}

// Within has s keep its listings within b too, a budget shared by every
// Snapshots of one manager (MaxManagerKeptBytes); call it before use.
func (s *Snapshots) Within(b *Budget) *Snapshots {
	s.kept.manager = b
	return s
}

// KeptBytes is the estimated size of the listings s keeps.
func (s *Snapshots) KeptBytes() int64 { return s.kept.forge.Used() }

// Close forgets every kept listing, giving their bytes back to the
// manager's budget: a Snapshots replaced or dropped holds nothing.
func (s *Snapshots) Close() {
	s.kept.closed.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.stores {
		st.forgetAll()
	}
}

// Yield is a TurnError (ErrYield) when fc reads for a background check
// (Reading) that holds a turn in the forge's drift lane that has not come
// yet; nil otherwise. The loop asks it before a check reads anything at
// all (a Secret), so that a check brought back early by an event waits
// for its turn again rather than read.
func Yield(fc any) error {
	s, ok := fc.(*Snapshots)
	if !ok || !s.pol().Background || s.policy == nil || s.policy.seen == nil {
		return nil
	}
	s.policy.seen.mu.Lock()
	at := s.policy.seen.turn
	s.policy.seen.mu.Unlock()
	if !at.IsZero() && time.Until(at) > maxLaneWait {
		return &TurnError{At: at}
	}
	return nil
}

// turn is what a read that calls the forge waits for first: for a
// background check, its turn in the forge's drift lane (lanes.go).
func (s *Snapshots) turn(ctx context.Context) error {
	p := s.pol()
	if !p.Background || p.seen == nil {
		return nil
	}
	c, ok := s.inner.(*Client)
	if !ok || c.lane == nil {
		return nil
	}
	return turn(ctx, c.lane, p.seen)
}

// noteScope records that s's reader wants the listing of scope key of
// store name every MaxAge: the forge's drift load (lanes.go).
func (s *Snapshots) noteScope(name, key string) {
	p := s.pol()
	if p.MaxAge <= 0 {
		return
	}
	if c, ok := s.inner.(*Client); ok && c.load != nil {
		c.load.note(name+"\x00"+key, p.MaxAge, time.Now())
	}
}

// ---- organizations: the user's own are listed, others read by name ----

const myOrgs = "user"

func (s *Snapshots) ListMyOrgs(ctx context.Context) ([]Organization, error) {
	return organizations.cache(s).list(ctx, s, myOrgs, s.Interface.ListMyOrgs)
}

func (s *Snapshots) GetOrg(ctx context.Context, name string) (*Organization, error) {
	if s.pol().MaxAge > 0 {
		all, err := s.ListMyOrgs(ctx)
		// A server or token that cannot list them still reads by name.
		if k := KindOf(err); err != nil && k != KindRouteNotFound && k != KindForbidden {
			return nil, err
		}
		for i := range all {
			if strings.EqualFold(all[i].Name, name) {
				return &all[i], nil
			}
		}
	}
	if err := s.turn(ctx); err != nil {
		return nil, err
	}
	return s.Interface.GetOrg(ctx, name)
}

func (s *Snapshots) CreateOrg(ctx context.Context, opt CreateOrgOption) (*Organization, error) {
	o, err := s.Interface.CreateOrg(ctx, opt)
	organizations.cache(s).wrote(myOrgs, o, 0, err)
	return o, err
}

func (s *Snapshots) EditOrg(ctx context.Context, name string, opt EditOrgOption) (*Organization, error) {
	o, err := s.Interface.EditOrg(ctx, name, opt)
	organizations.cache(s).wrote(myOrgs, o, 0, err)
	return o, err
}

// DeleteOrg drops the listing: the id of the name deleted is not at hand.
func (s *Snapshots) DeleteOrg(ctx context.Context, name string) error {
	err := s.Interface.DeleteOrg(ctx, name)
	organizations.cache(s).drop(myOrgs)
	return err
}

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

// ---- teams: one listing per organization ----

func (s *Snapshots) ListTeams(ctx context.Context, org string) ([]Team, error) {
	return listIn(ctx, s, teams, OrgScope(org), func(ctx context.Context, sc Scope) ([]Team, error) {
		return s.Interface.ListTeams(ctx, sc.Owner)
	})
}

func (s *Snapshots) GetTeam(ctx context.Context, org string, id int64) (*Team, error) {
	return byID(s, teams.cache(s), id,
		func() (*Team, error) { return s.Interface.GetTeam(ctx, org, id) },
		func() ([]Team, error) { return s.ListTeams(ctx, org) })
}

func (s *Snapshots) CreateTeam(ctx context.Context, org string, opt CreateTeamOption) (*Team, error) {
	return teams.cache(s).answer(OrgScope(org))(s.Interface.CreateTeam(ctx, org, opt))
}

func (s *Snapshots) EditTeam(ctx context.Context, org string, id int64, opt EditTeamOption) (*Team, error) {
	return teams.cache(s).answer(OrgScope(org))(s.Interface.EditTeam(ctx, org, id, opt))
}

func (s *Snapshots) DeleteTeam(ctx context.Context, org string, id int64) error {
	return teams.cache(s).deleted(OrgScope(org), id)(s.Interface.DeleteTeam(ctx, org, id))
}

// ---- Actions secrets and variables: one listing per scope; a write
// answers no object, so the listing records what was sent (names as the
// forge keeps them, upper case) and a failed write drops it ----

func (s *Snapshots) ListActionsSecrets(ctx context.Context, scope Scope) ([]ActionsSecret, error) {
	return listIn(ctx, s, secrets, scope, s.Interface.ListActionsSecrets)
}

func (s *Snapshots) PutActionsSecret(ctx context.Context, scope Scope, name, data, description string) error {
	return secrets.cache(s).sent(scope, &ActionsSecret{Name: strings.ToUpper(name), Description: description})(
		s.Interface.PutActionsSecret(ctx, scope, name, data, description))
}

func (s *Snapshots) DeleteActionsSecret(ctx context.Context, scope Scope, name string) error {
	return secrets.cache(s).deleted(scope, secrets.key(ActionsSecret{Name: strings.ToUpper(name)}))(
		s.Interface.DeleteActionsSecret(ctx, scope, name))
}

func (s *Snapshots) ListActionsVariables(ctx context.Context, scope Scope) ([]ActionsVariable, error) {
	return listIn(ctx, s, variables, scope, s.Interface.ListActionsVariables)
}

func (s *Snapshots) CreateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	return variables.cache(s).sent(scope, &ActionsVariable{Name: strings.ToUpper(name), Data: value, Description: description})(
		s.Interface.CreateActionsVariable(ctx, scope, name, value, description))
}

func (s *Snapshots) UpdateActionsVariable(ctx context.Context, scope Scope, name, value, description string) error {
	return variables.cache(s).sent(scope, &ActionsVariable{Name: strings.ToUpper(name), Data: value, Description: description})(
		s.Interface.UpdateActionsVariable(ctx, scope, name, value, description))
}

func (s *Snapshots) DeleteActionsVariable(ctx context.Context, scope Scope, name string) error {
	return variables.cache(s).deleted(scope, variables.key(ActionsVariable{Name: strings.ToUpper(name)}))(
		s.Interface.DeleteActionsVariable(ctx, scope, name))
}

// ---- branch protections: one listing per repository, rules kept by
// name; creates and edits answer the rule, which replaces it ----

func cloneRule(bp BranchProtection) BranchProtection {
	for _, l := range []*[]string{&bp.PushWhitelistUsernames, &bp.PushWhitelistTeams, &bp.ForcePushAllowlistUsernames,
		&bp.ForcePushAllowlistTeams, &bp.MergeWhitelistUsernames, &bp.MergeWhitelistTeams, &bp.StatusCheckContexts,
		&bp.ApprovalsWhitelistUsernames, &bp.ApprovalsWhitelistTeams, &bp.BypassAllowlistUsernames, &bp.BypassAllowlistTeams} {
		*l = slices.Clone(*l)
	}
	return bp
}

func (s *Snapshots) ListBranchProtections(ctx context.Context, owner, repo string) ([]BranchProtection, error) {
	return listIn(ctx, s, branchProtections, RepoScope(owner, repo), func(ctx context.Context, sc Scope) ([]BranchProtection, error) {
		return s.Interface.ListBranchProtections(ctx, sc.Owner, sc.Repo)
	})
}

func (s *Snapshots) CreateBranchProtection(ctx context.Context, owner, repo string, bp BranchProtection) (*BranchProtection, error) {
	return branchProtections.cache(s).answer(RepoScope(owner, repo))(s.Interface.CreateBranchProtection(ctx, owner, repo, bp))
}

func (s *Snapshots) EditBranchProtection(ctx context.Context, owner, repo, name string, opt EditBranchProtectionOption) (*BranchProtection, error) {
	return branchProtections.cache(s).answer(RepoScope(owner, repo))(s.Interface.EditBranchProtection(ctx, owner, repo, name, opt))
}

func (s *Snapshots) DeleteBranchProtection(ctx context.Context, owner, repo, name string) error {
	return branchProtections.cache(s).deleted(RepoScope(owner, repo), branchProtections.key(BranchProtection{RuleName: name}))(
		s.Interface.DeleteBranchProtection(ctx, owner, repo, name))
}

// ---- labels ----

func (s *Snapshots) ListLabels(ctx context.Context, scope Scope) ([]Label, error) {
	return listIn(ctx, s, labels, scope, s.Interface.ListLabels)
}

func (s *Snapshots) GetLabel(ctx context.Context, scope Scope, id int64) (*Label, error) {
	return getIn(ctx, s, labels, scope, id, s.Interface.GetLabel, s.ListLabels)
}

func (s *Snapshots) CreateLabel(ctx context.Context, scope Scope, opt CreateLabelOption) (*Label, error) {
	return labels.cache(s).answer(scope)(s.Interface.CreateLabel(ctx, scope, opt))
}

func (s *Snapshots) EditLabel(ctx context.Context, scope Scope, id int64, opt EditLabelOption) (*Label, error) {
	return labels.cache(s).answer(scope)(s.Interface.EditLabel(ctx, scope, id, opt))
}

func (s *Snapshots) DeleteLabel(ctx context.Context, scope Scope, id int64) error {
	return labels.cache(s).deleted(scope, id)(s.Interface.DeleteLabel(ctx, scope, id))
}

// ---- hooks ----

func (s *Snapshots) ListHooks(ctx context.Context, scope Scope) ([]Hook, error) {
	return listIn(ctx, s, hooks, scope, s.Interface.ListHooks)
}

func (s *Snapshots) GetHook(ctx context.Context, scope Scope, id int64) (*Hook, error) {
	return getIn(ctx, s, hooks, scope, id, s.Interface.GetHook, s.ListHooks)
}

func (s *Snapshots) CreateHook(ctx context.Context, scope Scope, opt CreateHookOption) (*Hook, error) {
	return hooks.cache(s).answer(scope)(s.Interface.CreateHook(ctx, scope, opt))
}

func (s *Snapshots) EditHook(ctx context.Context, scope Scope, id int64, opt EditHookOption) (*Hook, error) {
	return hooks.cache(s).answer(scope)(s.Interface.EditHook(ctx, scope, id, opt))
}

func (s *Snapshots) DeleteHook(ctx context.Context, scope Scope, id int64) error {
	return hooks.cache(s).deleted(scope, id)(s.Interface.DeleteHook(ctx, scope, id))
}

// ---- projects: the listing of state "all" serves every read ----

func (s *Snapshots) ListProjects(ctx context.Context, scope Scope, state string) ([]Project, error) {
	if state != "all" {
		if err := s.turn(ctx); err != nil {
			return nil, err
		}
		return s.Interface.ListProjects(ctx, scope, state)
	}
	return listIn(ctx, s, projects, scope, func(ctx context.Context, sc Scope) ([]Project, error) {
		return s.Interface.ListProjects(ctx, sc, "all")
	})
}

func (s *Snapshots) GetProject(ctx context.Context, scope Scope, id int64) (*Project, error) {
	return getIn(ctx, s, projects, scope, id, s.Interface.GetProject, func(ctx context.Context, sc Scope) ([]Project, error) {
		return s.ListProjects(ctx, sc, "all")
	})
}

func (s *Snapshots) CreateProject(ctx context.Context, scope Scope, opt CreateProjectOption) (*Project, error) {
	return projects.cache(s).answer(scope)(s.Interface.CreateProject(ctx, scope, opt))
}

func (s *Snapshots) EditProject(ctx context.Context, scope Scope, id int64, opt EditProjectOption) (*Project, error) {
	return projects.cache(s).answer(scope)(s.Interface.EditProject(ctx, scope, id, opt))
}

func (s *Snapshots) DeleteProject(ctx context.Context, scope Scope, id int64) error {
	return projects.cache(s).deleted(scope, id)(s.Interface.DeleteProject(ctx, scope, id))
}

// ---- runners ----

func (s *Snapshots) ListRunners(ctx context.Context, scope Scope) ([]Runner, error) {
	return listIn(ctx, s, runners, scope, s.Interface.ListRunners)
}

func (s *Snapshots) GetRunner(ctx context.Context, scope Scope, id int64) (*Runner, error) {
	return getIn(ctx, s, runners, scope, id, s.Interface.GetRunner, s.ListRunners)
}

func (s *Snapshots) EditRunner(ctx context.Context, scope Scope, id int64, disabled bool) (*Runner, error) {
	return runners.cache(s).answer(scope)(s.Interface.EditRunner(ctx, scope, id, disabled))
}

// ---- the shapes every resource's cached calls share ----

// scopeKey is what a store keeps scope's listing by: the forge's owner and
// repository names are case-insensitive.
func scopeKey(scope Scope) string { return strings.ToLower(scope.String()) }

// listIn serves scope's listing of resource r (list takes it from the
// forge).
func listIn[T any](ctx context.Context, s *Snapshots, r *resource[T], scope Scope, list func(context.Context, Scope) ([]T, error)) ([]T, error) {
	return r.cache(s).list(ctx, s, scopeKey(scope), func(ctx context.Context) ([]T, error) { return list(ctx, scope) })
}

// getIn reads object id of resource r in scope (byID): get is the forge's
// GET, list the cached listing.
func getIn[T any](ctx context.Context, s *Snapshots, r *resource[T], scope Scope, id int64,
	get func(context.Context, Scope, int64) (*T, error), list func(context.Context, Scope) ([]T, error)) (*T, error) {
	return byID(s, r.cache(s), id,
		func() (*T, error) { return get(ctx, scope, id) },
		func() ([]T, error) { return list(ctx, scope) })
}

// answer records what a create or an edit in scope answered (or its
// failure) and passes it on.
func (st *store[T]) answer(scope Scope) func(*T, error) (*T, error) {
	return func(v *T, err error) (*T, error) {
		st.wrote(scopeKey(scope), v, 0, err)
		return v, err
	}
}

// sent records v as what a write in scope that answers no object made.
func (st *store[T]) sent(scope Scope, v *T) func(error) error {
	return func(err error) error {
		st.wrote(scopeKey(scope), v, 0, err)
		return err
	}
}

// deleted records the delete of the object keyed id in scope.
func (st *store[T]) deleted(scope Scope, id int64) func(error) error {
	return func(err error) error {
		st.wrote(scopeKey(scope), nil, id, err)
		return err
	}
}

// byID reads object id: by get (the forge's GET) when s's policy allows no
// listing, else out of the scope's listing (list); one the listing lacks is
// asked of get, which answers not found when it is gone.
func byID[T any](s *Snapshots, st *store[T], id int64, get func() (*T, error), list func() ([]T, error)) (*T, error) {
	if s.pol().MaxAge <= 0 {
		return get()
	}
	all, err := list()
	if err != nil {
		return nil, err
	}
	for i := range all {
		if st.id(all[i]) == id {
			return &all[i], nil
		}
	}
	// A listing can miss an object that exists: one that moved across a
	// page boundary while the pages were walked (a delete before it and a
	// create after it keep the total, so the walk looks consistent). The
	// forge's GET confirms a miss before anyone creates the object again.
	return get()
}

// Bounds on what kept listings hold. Objects are counted (MaxKeptItems)
// and their bytes estimated as their JSON size: a few large objects (a
// label with a 6 MiB description) weigh what they weigh.
const (
	// MaxKeptBytes bounds the listings one Forge keeps.
	MaxKeptBytes = 32 << 20
	// MaxManagerKeptBytes bounds the listings all Forges of one manager
	// keep together (connection.Pool hands one Budget to all).
	MaxManagerKeptBytes = 128 << 20
)

// Budget is a number of bytes that kept listings share.
type Budget struct {
	max  int64
	used atomic.Int64
}

// NewBudget allows max bytes.
func NewBudget(max int64) *Budget { return &Budget{max: max} }

// Used is how many bytes are taken.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// take takes n bytes (n may be negative: given back) if they fit.
func (b *Budget) take(n int64) bool {
	if b == nil {
		return true
	}
	if b.used.Add(n) > b.max && n > 0 {
		b.used.Add(-n)
		return false
	}
	return true
}

// budgets are what one Forge's stores keep within.
type budgets struct {
	closed  atomic.Bool  // Close was called: nothing more is kept
	items   atomic.Int64 // objects kept by all stores of the Forge
	forge   *Budget
	manager *Budget // nil: no manager-wide bound
}

// take takes items objects and n bytes from every bound, or nothing.
func (k *budgets) take(items, n int64) bool {
	if k.closed.Load() && (items > 0 || n > 0) {
		return false // a pass still under way on a replaced client keeps nothing
	}
	if k.items.Add(items) > MaxKeptItems && items > 0 {
		k.items.Add(-items)
		return false
	}
	if !k.forge.take(n) {
		k.items.Add(-items)
		return false
	}
	if !k.manager.take(n) {
		k.items.Add(-items)
		k.forge.take(-n)
		return false
	}
	return true
}

// sizeOf estimates what items hold in memory: their JSON size, and a
// little for each object's own words.
func sizeOf[T any](items []T) int64 {
	var n int64
	for i := range items {
		b, _ := json.Marshal(&items[i])
		n += int64(len(b)) + 64
	}
	return n
}

// store keeps the listings of one kind of object, by scope.
type store[T any] struct {
	name  string // the resource's plural, naming its scopes in the drift load
	id    func(T) int64
	clone func(T) T
	kept  *budgets

	mu      sync.Mutex
	entries map[string]*entry[T]
}

type entry[T any] struct {
	items   []T
	bytes   int64     // sizeOf(items), taken from the budgets
	read    time.Time // when a reader was last served, for eviction
	fetched time.Time // when the listing held in items started; zero: none
	seq     uint64    // writes recorded so far
	// listing is the listing under way, journal the writes made since it
	// started, replayed onto its result.
	listing *flight[T]
	journal []change[T]
}

type flight[T any] struct {
	done    chan struct{}
	items   []T
	err     error
	start   time.Time
	seq     uint64 // entry.seq when it started
	spoiled bool   // a write failed meanwhile: do not keep the result
}

// change is one write: the object as the forge answered, or a deleted id.
type change[T any] struct {
	seq     uint64
	item    *T
	deleted int64
}

// MaxKeptItems bounds the objects one Forge's listings keep in memory, as
// MaxListItems bounds one listing: a tenant whose scopes hold more has
// the listings past the bound served to their reader and not kept.
const MaxKeptItems = MaxListItems

func newStore[T any](kept *budgets, id func(T) int64, clone func(T) T) *store[T] {
	return &store[T]{id: id, clone: clone, kept: kept, entries: map[string]*entry[T]{}}
}

// keep replaces e's listing with items (taken at fetched) if the bounds on
// kept objects and bytes allow, evicting idle scopes of the store (least
// recently read first) to make room; else it forgets e's listing (its
// readers list again).
func (st *store[T]) keep(e *entry[T], items []T, fetched time.Time) {
	items0, bytes := int64(len(items)-len(e.items)), sizeOf(items)-e.bytes
	for !st.kept.take(items0, bytes) {
		if !st.evictOne(e) {
			st.forget(e)
			return
		}
	}
	e.items, e.fetched, e.bytes = items, fetched, e.bytes+bytes
}

// IdleAfter is how long a scope's listing may go unread before it is
// evicted to make room for another (longer than the default sync interval:
// scopes still checked are never evicted for idle ones' sake).
const IdleAfter = 15 * time.Minute

// evictOne forgets the listing of the idle scope read least recently,
// other than keep, and drops that scope's entry; false when there is none.
func (st *store[T]) evictOne(keep *entry[T]) bool {
	var oldest string
	for k, e := range st.entries {
		if e == keep || e.fetched.IsZero() || time.Since(e.read) < IdleAfter {
			continue
		}
		if oldest == "" || e.read.Before(st.entries[oldest].read) {
			oldest = k
		}
	}
	if oldest == "" {
		return false
	}
	e := st.entries[oldest]
	st.forget(e)
	if e.listing == nil {
		delete(st.entries, oldest)
	}
	return true
}

// forget drops e's listing, also the one under way when it ends.
func (st *store[T]) forget(e *entry[T]) {
	st.kept.take(-int64(len(e.items)), -e.bytes)
	e.items, e.fetched, e.bytes = nil, time.Time{}, 0
	if e.listing != nil {
		e.listing.spoiled = true
	}
}

// forgetAll forgets every scope's listing.
func (st *store[T]) forgetAll() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for k, e := range st.entries {
		st.forget(e)
		if e.listing == nil {
			delete(st.entries, k)
		}
	}
}

// list returns the scope's objects: the kept listing when s's policy allows its
// age, else a new one (shared with concurrent readers of the scope).
func (st *store[T]) list(ctx context.Context, s *Snapshots, key string, fetch func(context.Context) ([]T, error)) ([]T, error) {
	s.noteScope(st.name, key)
	out, err := st.listKept(ctx, s, key, fetch)
	if err == nil {
		s.pol().usedListing(len(out))
	}
	return out, err
}

// listKept is list: from a kept listing when the policy allows, else afresh.
func (st *store[T]) listKept(ctx context.Context, s *Snapshots, key string, fetch func(context.Context) ([]T, error)) ([]T, error) {
	pol := s.pol()
	st.mu.Lock()
	e := st.entries[key]
	if e == nil {
		e = &entry[T]{}
		st.entries[key] = e
	}
	for e.listing != nil || pol.usable(e.fetched) {
		if pol.usable(e.fetched) {
			out := st.copyOf(e.items)
			pol.used(e.fetched)
			e.read = time.Now()
			st.mu.Unlock()
			return out, nil
		}
		// Share the listing under way; one that started too early for
		// ctx is waited for, then another is taken.
		f := e.listing
		st.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, &Error{Op: "wait for a listing of " + key, Kind: KindNetwork, Err: ctx.Err()}
		}
		st.mu.Lock()
		if pol.MaxAge > 0 && !f.start.Before(pol.ListedAfter) {
			defer st.mu.Unlock()
			if f.err != nil {
				return nil, f.err
			}
			pol.used(f.start)
			if !e.fetched.IsZero() {
				return st.copyOf(e.items), nil // with the writes made since
			}
			return st.copyOf(f.items), nil
		}
	}
	if err := s.turn(ctx); err != nil {
		st.mu.Unlock()
		return nil, err
	}
	f := &flight[T]{done: make(chan struct{}), start: time.Now(), seq: e.seq}
	e.listing = f
	st.mu.Unlock()

	items, err := fetch(ctx)

	st.mu.Lock()
	defer st.mu.Unlock()
	if err == nil {
		for _, c := range e.journal {
			if c.seq > f.seq {
				items = apply(st, items, c)
			}
		}
		if !f.spoiled {
			st.keep(e, items, f.start)
		}
	}
	e.listing, e.journal = nil, nil
	e.read = time.Now()
	f.items, f.err = items, err
	close(f.done)
	if err != nil {
		return nil, err
	}
	pol.used(f.start)
	return st.copyOf(items), nil
}

// wrote records a write to the scope: the answer of a create or an edit
// (item), or a deleted id. A failed write drops the scope's listing.
// find returns a copy of the item of key's kept listing that match picks;
// false when there is no kept listing or no such item.
func (st *store[T]) find(key string, match func(T) bool) (T, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var zero T
	e := st.entries[key]
	if e == nil || e.fetched.IsZero() {
		return zero, false
	}
	for _, it := range e.items {
		if match(it) {
			return st.clone(it), true
		}
	}
	return zero, false
}

func (st *store[T]) wrote(key string, item *T, deleted int64, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e := st.entries[key]
	if e == nil {
		return
	}
	// A delete answered 404 found the object already gone: it is removed
	// from the listing as a delete that succeeded.
	if err != nil && (deleted == 0 || !IsNotFound(err)) {
		st.forget(e)
		return
	}
	e.seq++
	c := change[T]{seq: e.seq, deleted: deleted}
	if item != nil {
		v := st.clone(*item)
		c.item = &v
	}
	if !e.fetched.IsZero() {
		st.keep(e, apply(st, e.items, c), e.fetched)
	}
	if e.listing != nil {
		e.journal = append(e.journal, c)
	}
}

// drop forgets the scope's listing.
func (st *store[T]) drop(key string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e := st.entries[key]; e != nil {
		st.forget(e)
	}
}

// apply returns items with change c made: the object put in place of the
// one with its id (or added), or the deleted id removed.
func apply[T any](st *store[T], items []T, c change[T]) []T {
	if c.item == nil {
		return slices.DeleteFunc(slices.Clone(items), func(t T) bool { return st.id(t) == c.deleted })
	}
	id := st.id(*c.item)
	out := slices.Clone(items)
	for i := range out {
		if st.id(out[i]) == id {
			out[i] = *c.item
			return out
		}
	}
	return append(out, *c.item)
}

func (st *store[T]) copyOf(items []T) []T {
	out := make([]T, len(items))
	for i, t := range items {
		out[i] = st.clone(t)
	}
	return out
}
