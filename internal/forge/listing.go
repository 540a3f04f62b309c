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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// pageResult is one decoded page: its items and the total the server
// reported (-1 when it did not say).
type pageResult[T any] struct {
	items []T
	total int
}

// errInconsistent marks a walk that saw the list change under it.
var errInconsistent = errors.New("list changed while walking it")

// listAll follows pages of PageSize to the end. Items are deduplicated by
// id; when the list visibly changes under us (the total moves, an item
// repeats, or the count does not add up) the walk restarts, a few times at
// most, so a concurrent create or delete cannot make an item vanish or
// appear twice. A list still changing on the last walk is an error, never
// a partial result.
func listAll[T any](ctx context.Context, c *Client, cl call, decode func(*response) (pageResult[T], error), id func(T) int64) ([]T, error) {
	return settled(ctx, c, cl, func() ([]T, int, error) {
		for attempt := 1; ; attempt++ {
			all, pages, err := listOnce(ctx, c, cl, decode, id)
			if !errors.Is(err, errInconsistent) {
				return all, pages, err
			}
			if attempt == listAttempts {
				return nil, 0, c.fail(cl, &Error{Kind: KindInvalidResponse,
					Err: fmt.Errorf("the list changed during each of %d walks; trying again later", listAttempts)})
			}
		}
	})
}

type confirmingKey struct{}

// ConfirmingAbsence gives a context whose listings may be trusted to show
// every object that existed while they were read: what an absence is
// confirmed on before the object is created (the loop's create path, a
// set's creates). A listing of more than one page is walked again under
// it until two walks in a row agree (settled), which costs one more walk
// of that listing, and only then.
func ConfirmingAbsence(ctx context.Context) context.Context {
	return context.WithValue(ctx, confirmingKey{}, true)
}

func confirming(ctx context.Context) bool {
	v, _ := ctx.Value(confirmingKey{}).(bool)
	return v
}

// settled returns the listing walk reads (the items and the pages it took).
// Under ConfirmingAbsence a walk of more than one page is repeated until
// two walks in a row read the same items, a few times at most; a list
// still changing on the last walk is an error, never a partial result.
//
// Why two walks: the forge pages by offset, and one walk can be consistent
// in itself (the total stays, no item repeats) yet miss an object that
// existed throughout: an object before it deleted once its page was read
// and one made after it keep the total, and it slides back onto a page
// already read. The deleted object is in that walk (its page was read
// before it went) and cannot be in any later one, so the two differ. Two
// walks that agree therefore missed nothing that existed during both: a
// miss in the second would need a delete during it of an object it read,
// which the first read too (it existed before), yet the first then lacks
// the missed object or had a delete of its own. An object that moves in
// the order because it changed (a renamed label, in name order) shows as a
// changed item, or as an item read twice within one walk (errInconsistent).
func settled[T any](ctx context.Context, c *Client, cl call, walk func() ([]T, int, error)) ([]T, error) {
	prev, pages, err := walk()
	if err != nil || pages < 2 || !confirming(ctx) {
		return prev, err
	}
	for attempt := 1; ; attempt++ {
		next, _, err := walk()
		if err != nil {
			return nil, err
		}
		if sameItems(prev, next) {
			return next, nil
		}
		if attempt == listAttempts {
			return nil, c.fail(cl, &Error{Kind: KindInvalidResponse,
				Err: fmt.Errorf("the list changed between each of %d walks; trying again later", listAttempts+1)})
		}
		prev = next
	}
}

// sameItems reports whether two walks read the same items in the same
// order, compared as the JSON they decode to.
func sameItems[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, errX := json.Marshal(a[i])
		y, errY := json.Marshal(b[i])
		if errX != nil || errY != nil || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// listBudget holds one listing walk to MaxListPages, MaxListItems and
// MaxListBytes: every walk of pages (listOnce, ListOrgRepos) counts what
// it read through one.
type listBudget struct {
	c                   *Client
	cl                  call
	pages, items, bytes int
}

func (b *listBudget) exceeded(why string) error {
	return b.c.fail(b.cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf(
		"stopped listing after %s: a listing is limited to %d pages, %d items and %d MiB",
		why, MaxListPages, MaxListItems, MaxListBytes>>20)})
}

// page counts one more page before it is fetched.
func (b *listBudget) page() error {
	if b.pages++; b.pages > MaxListPages {
		return b.exceeded(fmt.Sprintf("%d pages", MaxListPages))
	}
	return nil
}

// read counts a page's body before it is decoded.
func (b *listBudget) read(body []byte) error {
	if b.bytes += len(body); b.bytes > MaxListBytes {
		return b.exceeded(fmt.Sprintf("%d MiB", MaxListBytes>>20))
	}
	return nil
}

// decoded counts a page's items.
func (b *listBudget) decoded(n int) error {
	if b.items += n; b.items > MaxListItems {
		return b.exceeded(fmt.Sprintf("%d items", MaxListItems))
	}
	return nil
}

// listUnpaged makes cl, a listing the forge answers in one array whatever
// the page and limit asked (a repository's branch or tag rules), and
// decodes it, held to the listing bounds as a paged walk is. A body that
// does not decode is an invalid answer; none at all is an empty list.
func listUnpaged[T any](ctx context.Context, c *Client, cl call) ([]T, error) {
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	budget := &listBudget{c: c, cl: cl}
	if err := budget.read(resp.body); err != nil {
		return nil, err
	}
	var all []T
	if err := json.Unmarshal(resp.body, &all); err != nil {
		red := c.redactorFor(cl, secretsOf(ctx)...)
		return nil, c.failWith(red, cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("decode %d response %s: %w",
			resp.status, quoteAnswer(red, resp.body), err)})
	}
	if err := budget.decoded(len(all)); err != nil {
		return nil, err
	}
	if all == nil {
		all = []T{}
	}
	return all, nil
}

// fetchPage reads and decodes page of the budget's call, counting it.
func fetchPage[T any](ctx context.Context, budget *listBudget, page int, decode func(*response) (pageResult[T], error)) (pageResult[T], error) {
	c, cl := budget.c, budget.cl
	if err := budget.page(); err != nil {
		return pageResult[T]{}, err
	}
	pc := cl
	pc.query = url.Values{}
	for k, v := range cl.query {
		pc.query[k] = v
	}
	pc.query.Set("page", strconv.Itoa(page))
	pc.query.Set("limit", strconv.Itoa(PageSize))
	resp, err := c.do(ctx, pc)
	if err != nil {
		return pageResult[T]{}, err
	}
	if err := budget.read(resp.body); err != nil {
		return pageResult[T]{}, err
	}
	pr, err := decode(resp)
	if err != nil {
		return pageResult[T]{}, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("decode page %d: %w", page, err)})
	}
	if err := budget.decoded(len(pr.items)); err != nil {
		return pageResult[T]{}, err
	}
	return pr, nil
}

// listOnce walks the pages once, and says how many it read;
// errInconsistent when the list changed.
func listOnce[T any](ctx context.Context, c *Client, cl call, decode func(*response) (pageResult[T], error), id func(T) int64) ([]T, int, error) {
	seen := map[int64]bool{}
	all := []T{}
	total, pageLen := -1, 0
	consistent := true
	budget := &listBudget{c: c, cl: cl}
	for page := 1; ; page++ {
		pr, err := fetchPage(ctx, budget, page, decode)
		if err != nil {
			return nil, 0, err
		}
		if page == 1 {
			total, pageLen = pr.total, len(pr.items)
		} else if pr.total != total {
			return nil, 0, errInconsistent
		}
		fresh := 0
		for _, it := range pr.items {
			k := id(it)
			if k <= 0 {
				return nil, 0, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("page %d holds an item with id %d", page, k)})
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			all = append(all, it)
			fresh++
		}
		if fresh > 0 && fresh < len(pr.items) {
			// Some items repeat, some are new: the list shifted.
			consistent = false
		}
		switch {
		case len(pr.items) == 0:
		case total >= 0 && budget.items >= total:
		case total < 0 && page > 1 && len(pr.items) < pageLen:
		case fresh == 0:
			// A server that ignores paging serves the same page again.
		default:
			continue
		}
		break
	}
	if !consistent || (total >= 0 && len(all) != total) {
		return nil, 0, errInconsistent
	}
	return all, budget.pages, nil
}

// decodeArray decodes a JSON array page with X-Total-Count (if sent).
func decodeArray[T any](resp *response) (pageResult[T], error) {
	var items []T
	if err := json.Unmarshal(resp.body, &items); err != nil {
		return pageResult[T]{}, err
	}
	return pageResult[T]{items: items, total: totalCount(resp.header)}, nil
}

func totalCount(h http.Header) int {
	v := h.Get("X-Total-Count")
	if v == "" {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// nameID gives listAll a number per name (an FNV hash), for objects the
// forge keys by name: a name seen twice in one walk is one object.
func nameID[T any](name func(T) string) func(T) int64 {
	return func(v T) int64 { return NameID(name(v)) }
}

// NameID makes a name a non-negative number, for objects the forge names
// but does not number (a push mirror's remote name).
func NameID(name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return int64(h.Sum64() >> 1)
}
