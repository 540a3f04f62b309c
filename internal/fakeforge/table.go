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

package fakeforge

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/forgeops/forge-operator/internal/forge"
)

// row is what every object kept in a table has: its id and its owner (an
// organization or a repository).
type row struct {
	id    int64
	owner owner
}

func (r *row) head() *row { return r }

// object is a pointer to an object that embeds row.
type object interface{ head() *row }

// table keeps one resource's objects by id. Ids count from 1 per table;
// objects go with their owner (drop).
type table[P object] struct {
	last int64
	rows map[int64]P
}

func newTable[P object]() *table[P] { return &table[P]{rows: map[int64]P{}} }

// add gives p the next id and keeps it.
func (t *table[P]) add(p P) P {
	t.last++
	p.head().id = t.last
	t.rows[t.last] = p
	return p
}

// at is the object id, whoever owns it.
func (t *table[P]) at(id int64) (P, bool) {
	p, ok := t.rows[id]
	return p, ok
}

// get is the object id of ow; another owner's is not found.
func (t *table[P]) get(ow owner, id int64) (P, bool) {
	p, ok := t.rows[id]
	if !ok || p.head().owner != ow {
		var none P
		return none, false
	}
	return p, true
}

// in gives the objects of ow, by id.
func (t *table[P]) in(ow owner) []P {
	return t.where(func(p P) bool { return p.head().owner == ow })
}

// first is the first object of ow, by id, that keep is true for.
func (t *table[P]) first(ow owner, keep func(P) bool) (P, bool) {
	for _, p := range t.in(ow) {
		if keep(p) {
			return p, true
		}
	}
	var none P
	return none, false
}

// where gives the objects keep is true for, by id.
func (t *table[P]) where(keep func(P) bool) []P { return sortedByID(t.rows, keep) }

func (t *table[P]) remove(id int64) { delete(t.rows, id) }

// drop deletes the objects of ow, as the forge does when it deletes the owner.
func (t *table[P]) drop(ow owner) {
	for id, p := range t.rows {
		if p.head().owner == ow {
			delete(t.rows, id)
		}
	}
}

// resource serves one resource the forge package declares (forge.Route)
// from its table: listing, get and delete are the same for every resource,
// and its own create and edit handlers resolve their scope (scope) and
// object (find) through it. The fields say only where Gitea differs.
type resource[P object] struct {
	route forge.Route
	// scopes are the scope routes it is listed under (forge.OrgRoute,
	// forge.RepoRoute), and its items too unless the route has Outside.
	scopes []string
	table  func(*state) *table[P]
	// served, when set, answers like a server without the route when false.
	served func(*Server) bool
	// may checks the caller may do verb ("list", "get", "create", "edit",
	// "delete") in the organization o or the repository r, answering the
	// refusal itself.
	may func(c *rc, o *org, r *repo, verb string) bool
	// unseenOrg: {org} resolves an organization the caller cannot see
	// too, and may decides (the teams' routes check membership, not
	// visibility).
	unseenOrg bool
	// missing answers an object not found in ow; other is the object of
	// that id in another scope, if any.
	missing func(c *rc, ow owner, other P)
	// named, when set, finds an item by its name: every item of a
	// "/{name}" route, a non-numeric one of an "/{id}" route (labels).
	named func(p P, name string) bool
	// idThenName: a numeric {id} no item of the scope has is looked up by
	// name too (milestones).
	idThenName bool
	// rest: the item's name is the rest of the path (branch protections).
	rest bool
	// routed, when set, checks the item's name finds a route on this
	// release, answering itself when not.
	routed func(c *rc) bool
	// order filters and orders a listing (nil: by id); false when it answered.
	order func(c *rc, items []P) ([]P, bool)
	// link says whether Link goes with X-Total-Count on a listing (nil:
	// X-Total-Count only).
	link func(c *rc, ow owner) bool
	// page answers a listing itself (nil: servePage).
	page func(c *rc, items []P)
	json func(c *rc, p P) map[string]any
	// quietDelete: deleting an unknown id succeeds, and a name is not
	// looked up (labels).
	quietDelete bool
}

// handler is one route of a resource: a method on its collection or on one
// item.
type handler struct {
	method string
	item   bool
	fn     func(*rc) // nil: no such route
}

func onCollection(method string, fn func(*rc)) handler { return handler{method, false, fn} }
func onItem(method string, fn func(*rc)) handler       { return handler{method, true, fn} }

// serve registers the generic list, get and delete routes and the
// resource's own handlers; an own handler of the same method and place
// replaces a generic one.
func (k *resource[P]) serve(h func(string, func(*rc)), own ...handler) {
	if k.table == nil || k.may == nil || k.missing == nil || k.json == nil {
		// Each is asked on the first request; say so at start instead.
		panic("fakeforge: resource " + k.route.Plural + " needs table, may, missing and json")
	}
	all := []handler{onCollection("GET", k.list), onItem("GET", k.get), onItem("DELETE", k.delete)}
	for _, o := range own {
		all = slices.DeleteFunc(all, func(g handler) bool { return g.method == o.method && g.item == o.item })
		all = append(all, o)
	}
	item := k.route.Item
	if k.rest {
		item = strings.TrimSuffix(item, "}") + "...}"
	}
	for _, hd := range all {
		switch {
		case hd.fn == nil:
		case hd.item && k.route.Outside != "":
			h(hd.method+" /api/v1"+k.route.Outside, hd.fn)
		default:
			for _, scope := range k.scopes {
				p := "/api/v1" + scope + k.route.Path
				if hd.item {
					p += item
				}
				h(hd.method+" "+p, hd.fn)
			}
		}
	}
}

// scope resolves the scope of a route and checks the caller may do verb there.
func (k *resource[P]) scope(c *rc, verb string) (owner, bool) {
	if k.served != nil && !k.served(c.s) {
		c.routeNotFound()
		return owner{}, false
	}
	resolve := c.org
	if k.unseenOrg {
		resolve = c.orgUnseen
	}
	ow, o, r, ok := c.scope(resolve)
	return ow, ok && k.may(c, o, r, verb)
}

// find resolves the scope and the object of a route for verb.
func (k *resource[P]) find(c *rc, verb string) (P, bool) {
	if k.route.Outside != "" {
		return k.findOutside(c, verb)
	}
	var none P
	ow, ok := k.scope(c, verb)
	if !ok || (k.routed != nil && !k.routed(c)) {
		return none, false
	}
	return k.lookup(c, ow)
}

// lookup finds the item of the route in ow, answering when it is missing.
func (k *resource[P]) lookup(c *rc, ow owner) (P, bool) {
	t := k.table(&c.s.st)
	byName := k.route.Item == "/{name}"
	raw := c.r.PathValue("id")
	if byName {
		raw = c.r.PathValue("name")
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	numeric := !byName && err == nil
	if numeric {
		if p, ok := t.get(ow, id); ok {
			return p, true
		}
	}
	if k.named != nil && (!numeric || k.idThenName) {
		if p, ok := t.first(ow, func(p P) bool { return k.named(p, raw) }); ok {
			return p, true
		}
	}
	var other P
	if !byName {
		other, _ = t.at(id)
	}
	k.missing(c, ow, other)
	var none P
	return none, false
}

// findOutside resolves /{id} outside any scope: an unknown id is not found
// before the caller's rights in the object's scope are checked.
func (k *resource[P]) findOutside(c *rc, verb string) (P, bool) {
	var none P
	id, _ := c.id("id")
	p, ok := k.table(&c.s.st).at(id)
	if !ok {
		k.missing(c, owner{}, none)
		return none, false
	}
	var o *org
	var r *repo
	if ow := p.head().owner; ow.repo {
		r = c.s.st.repos[ow.id]
	} else {
		o = c.s.st.orgs[ow.id]
	}
	if !k.may(c, o, r, verb) {
		return none, false
	}
	return p, true
}

func (k *resource[P]) list(c *rc) {
	ow, ok := k.scope(c, "list")
	if !ok {
		return
	}
	items := k.table(&c.s.st).in(ow)
	if k.order != nil {
		if items, ok = k.order(c, items); !ok {
			return
		}
	}
	if k.page != nil {
		k.page(c, items)
		return
	}
	servePage(c, items, k.link != nil && k.link(c, ow), func(p P) map[string]any { return k.json(c, p) })
}

func (k *resource[P]) get(c *rc) {
	if p, ok := k.find(c, "get"); ok {
		c.json(http.StatusOK, k.json(c, p))
	}
}

func (k *resource[P]) delete(c *rc) {
	if !k.quietDelete {
		if p, ok := k.find(c, "delete"); ok {
			k.table(&c.s.st).remove(p.head().id)
			c.noContent()
		}
		return
	}
	ow, ok := k.scope(c, "delete")
	if !ok {
		return
	}
	if id, ok := c.id("id"); ok {
		if _, found := k.table(&c.s.st).get(ow, id); found {
			k.table(&c.s.st).remove(id)
		}
	}
	c.noContent()
}

// withLink: the listing has Link in every scope and release.
func withLink(*rc, owner) bool { return true }

// reads says whether verb only reads.
func reads(verb string) bool { return verb == "list" || verb == "get" }

// administers checks the caller owns the organization or administers the
// repository, whatever the verb (hooks, runners, Actions secrets).
func (c *rc) administers(o *org, r *repo, _ string) bool {
	if o != nil {
		return c.requireOrgOwner(o)
	}
	return c.requireRepoAdmin(r)
}
