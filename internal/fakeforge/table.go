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
