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
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The store behind Snapshots: one per resource, keeping listings by scope
// within the byte and item budgets, sharing one listing among concurrent
// readers and replaying the writes made while it was read.

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
