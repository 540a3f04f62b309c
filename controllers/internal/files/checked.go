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

package files

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Reading only what moved (DESIGN "RepositoryFile and FileSet").
//
// A file kind's record of its last complete checks (status.checked,
// Checked) holds, by repository id, the repository's updated_at as the
// listing the check read had it, for each repository whose branch the
// check found as the files want. While a repository's updated_at is as
// recorded and the files are those recorded (a digest of them), its
// branch cannot have changed (Gitea moves updated_at on every push and
// commit): the last check stands, and no tree is listed. A repository
// whose check wrote, failed or found a difference has no record: its
// next check lists the tree. Every fullCheckEvery intervals (the
// connection's) each repository's tree is listed regardless, in turns
// by id (due), so that not every repository of a set takes its complete
// check in the same interval; a reconcile requested lists every one.

// Checked is one pass's view of a file kind's record, and the record it
// leaves (Status).
type Checked struct {
	files    string
	by       map[int64]checkedEntry
	on       bool
	every    int64
	interval time.Duration
	epoch    int64 // now, in intervals since the Unix epoch
}

type checkedEntry struct{ updated, due int64 }

// maxCheckedEntries is the CRD's bound on status.checked.entries.
const maxCheckedEntries = 262144

// NewChecked is the record st of files (Digest) for a pass at now: void
// when its files differ. The shortcut is off (every tree listed, the
// record still kept) outside the loop (plan), at fullCheckEvery 1, for a
// reconcile requested, and on a server not known to move updated_at on
// every push (forge.GateUpdatedOnPush).
func NewChecked(st *forgev1.CheckedRepositories, files string, pass *reconciler.Pass, now time.Time) *Checked {
	c := &Checked{files: files, by: map[int64]checkedEntry{}}
	if pass != nil {
		c.every, c.interval = int64(pass.FullCheckEvery), pass.Interval
		c.on = c.every > 1 && c.interval > 0 && !pass.Afresh && pass.Server.Offers(forge.GateUpdatedOnPush)
	}
	if c.interval > 0 {
		c.epoch = now.UnixNano() / int64(c.interval)
	}
	if st != nil && st.Files == files {
		c.by = decodeChecked(st.Entries)
	}
	return c
}

// decodeChecked reads status.checked.entries; a record it cannot read is
// none (every tree is listed, and recorded anew).
func decodeChecked(entries string) map[int64]checkedEntry {
	out := map[int64]checkedEntry{}
	if entries == "" {
		return out
	}
	id := int64(0)
	for e := range strings.SplitSeq(entries, ",") {
		parts := strings.Split(e, ".")
		if len(parts) != 3 {
			return map[int64]checkedEntry{}
		}
		var v [3]int64
		for i, p := range parts {
			n, err := strconv.ParseInt(p, 36, 64)
			if err != nil {
				return map[int64]checkedEntry{}
			}
			v[i] = n
		}
		id += v[0]
		out[id] = checkedEntry{updated: v[1], due: v[2]}
	}
	return out
}

// Stands says whether the last check of repository r (as its scope's
// listing has it) stands: the shortcut is on, r's record has the
// updated_at r has now, and its complete check is not due.
func (c *Checked) Stands(r *forge.Repository) bool {
	if !c.on || r == nil || r.ID == 0 || r.UpdatedAt.IsZero() {
		return false
	}
	e, ok := c.by[r.ID]
	return ok && e.updated == r.UpdatedAt.Unix() && c.epoch < e.due
}

// Checked records a check of r that found its branch as the files want,
// with r's updated_at from the listing the check read (taken before its
// tree): its next complete check is due at the next of its turns.
func (c *Checked) Checked(r *forge.Repository) {
	if r == nil || r.ID == 0 || r.UpdatedAt.IsZero() {
		return
	}
	c.by[r.ID] = checkedEntry{updated: r.UpdatedAt.Unix(), due: c.nextDue(r.ID)}
}

// Spread is how many intervals apart the checks list a tree at most,
// for the forge's drift load (forge.Spaced): fullCheckEvery while the
// shortcut is on, else 1.
func (c *Checked) Spread() int {
	if c == nil || !c.on {
		return 1
	}
	return int(c.every)
}

// Forget drops the record of repository id: its next check lists the
// tree (one that wrote, failed, or found a difference).
func (c *Checked) Forget(id int64) { delete(c.by, id) }

// nextDue is the first interval after this one that is repository id's
// turn for a complete check: one of every fullCheckEvery, by id.
func (c *Checked) nextDue(id int64) int64 {
	n := max(c.every, 1)
	next := c.epoch + 1
	return next + ((n-(next+id)%n)%n+n)%n
}

// Status is the record to keep, of the repositories keep says are still
// there: nil when none is recorded. Over the CRD's bound, the repositories
// of the lowest ids are recorded, the others' trees listed every interval.
func (c *Checked) Status(keep func(id int64) bool) *forgev1.CheckedRepositories {
	ids := make([]int64, 0, len(c.by))
	for id := range c.by {
		if keep == nil || keep(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	var b strings.Builder
	prev, n := int64(0), int32(0)
	for _, id := range ids {
		e := c.by[id]
		entry := strconv.FormatInt(id-prev, 36) + "." + strconv.FormatInt(e.updated, 36) + "." + strconv.FormatInt(e.due, 36)
		if b.Len()+len(entry)+1 > maxCheckedEntries {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(entry)
		prev = id
		n++
	}
	return &forgev1.CheckedRepositories{Files: c.files, Count: n, Entries: b.String()}
}

// Digest is the digest of what a check compares a branch with: the files
// wanted (paths and contents, as read), the branch and the mode they are
// kept with, and whatever else decides the
// comparison (the paths others hold, the interval), in more.
func Digest(spec forgev1.FilesSpec, contents map[string][]byte, more ...string) string {
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	paths := make([]string, 0, len(spec.Files))
	for _, f := range spec.Files {
		paths = append(paths, string(f.Path))
	}
	slices.Sort(paths)
	for _, p := range paths {
		write(p)
		if c, ok := contents[p]; ok {
			write(forge.BlobID(c, ""))
		} else {
			write("?")
		}
	}
	if spec.Branch != nil {
		write("branch " + *spec.Branch)
	}
	write("mode " + string(spec.Mode))
	for _, m := range more {
		write(m)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Pushes are the repositories, by set resource, that a delivered push
// changed since the set's last pass began (a Receiver's wake): the record
// of their last check does not stand, as the listing the next pass reads
// may have been taken before the push. Kept in the manager's memory.
type Pushes struct {
	mu sync.Mutex
	by map[types.NamespacedName]map[string]bool
}

// Note records a push to repository repo ("owner/name") for the set key.
func (p *Pushes) Note(key types.NamespacedName, repo string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.by == nil {
		p.by = map[types.NamespacedName]map[string]bool{}
	}
	if p.by[key] == nil {
		p.by[key] = map[string]bool{}
	}
	p.by[key][strings.ToLower(repo)] = true
}

// Take is the repositories (lower case) pushed to for the set key since
// the last Take, forgotten.
func (p *Pushes) Take(key types.NamespacedName) map[string]bool {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.by[key]
	delete(p.by, key)
	return out
}
