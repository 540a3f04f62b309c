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
	"errors"
	"strings"
	"sync"
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
	// Spread is how many of its intervals apart a scope read afresh is
	// read at most, for the drift load (lanes.go): a file kind lists a
	// repository's tree only when it moved, or at its complete check
	// every fullCheckEvery intervals (Spaced). 0 or 1: every interval.
	Spread int

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

// Spaced is fc with reads that count in the forge's drift load as made
// once every spread intervals (ReadPolicy.Spread): the tree listings of a
// file kind that lists a tree only where the repository moved, and every
// tree at its complete check, every spread intervals.
func Spaced(fc Interface, spread int) Interface {
	return adjusted(fc, func(p *ReadPolicy) { p.Spread = spread })
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
		c.load.note(name+"\x00"+key, p.MaxAge, max(p.Spread, 1), time.Now())
	}
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
