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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// state is the forge's data; every access holds Server.mu.
type state struct {
	seq       map[string]int64
	orgs      map[int64]*org
	repos     map[int64]*repo
	hooks     *table[*hook]
	labels    *table[*label]
	projects  *table[*project]
	runners   *table[*runner]
	teams     *table[*team]
	secrets   *table[*actionsValue]
	variables *table[*actionsValue]
	// branchRules are the repositories' branch protection rules
	// (handlers_branchprotections.go).
	branchRules *table[*branchRule]
	// deployKeys are the repositories' deploy keys, userKeys the users' SSH
	// keys by fingerprint (handlers_deploykeys.go).
	deployKeys *table[*deployKey]
	userKeys   map[string]*userKey
	// tagRules are the repositories' tag protections
	// (handlers_tagprotections.go).
	tagRules  *table[*tagRule]
	regTokens map[owner]string // registration token per scope (owner{}: the instance)
	// oldRegTokens are the tokens a reset invalidated.
	oldRegTokens map[string]bool
	// pushMirrors are the repositories' push mirrors; mirrorsOff is
	// [mirror] ENABLED = false (handlers_pushmirrors.go).
	pushMirrors *table[*pushMirror]
	mirrorsOff  bool
	// renamed are the old names of renamed users and organizations (lower
	// case), which redirect (renames.go).
	renamed map[string]renamed
	// kindTables are the tables a handlers file declares for itself
	// (kindTable), in declaration order.
	kindTables []any
	// tables are all of the above tables (tableIn), for deleteOwned.
	tables []interface{ drop(owner) }
}

func newState() state {
	st := state{
		seq:          map[string]int64{},
		orgs:         map[int64]*org{},
		repos:        map[int64]*repo{},
		regTokens:    map[owner]string{},
		oldRegTokens: map[string]bool{},
		renamed:      map[string]renamed{},
	}
	st.hooks = tableIn[*hook](&st)
	st.labels = tableIn[*label](&st)
	st.projects = tableIn[*project](&st)
	st.runners = tableIn[*runner](&st)
	st.teams = tableIn[*team](&st)
	st.secrets = tableIn[*actionsValue](&st)
	st.variables = tableIn[*actionsValue](&st)
	st.branchRules = tableIn[*branchRule](&st)
	st.deployKeys = tableIn[*deployKey](&st)
	st.userKeys = map[string]*userKey{}
	st.tagRules = tableIn[*tagRule](&st)
	st.pushMirrors = tableIn[*pushMirror](&st)
	for _, mk := range kindTableMakers {
		st.kindTables = append(st.kindTables, mk(&st))
	}
	return st
}

// kindTableMakers make the tables kindTable declared, one per declaration.
var kindTableMakers []func(st *state) any

// kindTableOf is a table a kind's handlers file declares in a
// package-level var (kindTable) instead of a field of state, so a new
// kind's fake keeps its table in its own file.
type kindTableOf[P object] struct{ i int }

// kindTable declares a table of P in every state; call it only from a
// package-level var.
func kindTable[P object]() kindTableOf[P] {
	k := kindTableOf[P]{i: len(kindTableMakers)}
	kindTableMakers = append(kindTableMakers, func(st *state) any { return tableIn[P](st) })
	return k
}

// of is the table in st.
func (k kindTableOf[P]) of(st *state) *table[P] { return st.kindTables[k.i].(*table[P]) }

// tableIn makes a table of st, whose objects go with their owner
// (deleteOwned drops them from every table of st).
func tableIn[P object](st *state) *table[P] {
	t := newTable[P]()
	st.tables = append(st.tables, t)
	return t
}

// next gives the next id of a kind; each kind counts from 1.
func (st *state) next(kind string) int64 {
	st.seq[kind]++
	return st.seq[kind]
}

// owner says where a label, runner or token belongs: an org or a repo.
type owner struct {
	repo bool
	id   int64
}

type repo struct {
	id          int64
	orgID       int64 // 0 for a user's repository
	userID      int64
	name        string
	description string
	private     bool
	archived    bool
	empty       bool
	settings    repoSettings
	topics      []string
	// collaborators are the direct collaborators: user id -> read|write|admin.
	collaborators map[int64]string
	// oldNames are the names it had (lower case); their paths redirect here.
	oldNames []string
	// movedFrom are the paths ("owner/name", lower case) it had under
	// owners it was transferred from; they redirect here too.
	movedFrom []string
	issues    []*issue // issues and pull requests, by number - 1 (handlers_issues.go)
	// git holds the branches and their files (handlers_files.go), made on
	// first use.
	git map[string]*gitBranch
	// updated is the repository's updated_at, moved where Gitea moves it
	// (touch): at its creation, on every commit (the contents API, a push:
	// PushFiles) and on a topics change; not on an edit of its settings
	// nor on a transfer (Gitea's edit path updates with NoAutoTime; probed
	// on Gitea 1.24.6 and 1.27.3).
	updated time.Time
}

// touch moves r's updated_at to now, in whole seconds as Gitea keeps it.
func (r *repo) touch() { r.updated = time.Now().UTC().Truncate(time.Second) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ---- lookups (hold mu) ----

// ownerName gives the login of a repository's owner.
func (s *Server) ownerName(r *repo) string {
	if r.orgID != 0 {
		if o := s.st.orgs[r.orgID]; o != nil {
			return o.name
		}
	}
	for _, u := range s.users {
		if u.id == r.userID {
			return u.login
		}
	}
	return ""
}

func (s *Server) repoByName(ownerName, name string) *repo {
	for _, r := range s.st.repos {
		if strings.EqualFold(r.name, name) && strings.EqualFold(s.ownerName(r), ownerName) {
			return r
		}
	}
	return nil
}

// scopeOwner resolves a forge.Scope to an owner; ok false if it is unknown.
func (s *Server) scopeOwner(sc forge.Scope) (owner, bool) {
	if sc.IsOrg() {
		if o := s.orgByName(sc.Owner); o != nil {
			return owner{id: o.id}, true
		}
		return owner{}, false
	}
	if r := s.repoByName(sc.Owner, sc.Repo); r != nil {
		return owner{repo: true, id: r.id}, true
	}
	return owner{}, false
}

func (s *Server) orgHasRepos(o *org) bool {
	for _, r := range s.st.repos {
		if r.orgID == o.id {
			return true
		}
	}
	return false
}

// deleteOwned removes what belongs to an org or repo, as the forge does
// when it deletes the owner.
func (s *Server) deleteOwned(ow owner) {
	for _, t := range s.st.tables {
		t.drop(ow)
	}
	delete(s.st.regTokens, ow)
}

func sortedByID[V any](m map[int64]V, keep func(V) bool) []V {
	ids := make([]int64, 0, len(m))
	for id, v := range m {
		if keep == nil || keep(v) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]V, len(ids))
	for i, id := range ids {
		out[i] = m[id]
	}
	return out
}

// ---- conversions to the client's types ----

// ---- Go-side reads (copies) ----

// Repo returns a repository by owner and name.
func (s *Server) Repo(ownerName, name string) (forge.Repository, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, name)
	if r == nil {
		return forge.Repository{}, false
	}
	return s.repoToForge(r), true
}

func (s *Server) repoToForge(r *repo) forge.Repository {
	ownerLogin := s.ownerName(r)
	ownerID := r.userID
	if r.orgID != 0 {
		ownerID = r.orgID
	}
	st := r.settings
	html := s.root + "/" + ownerLogin + "/" + r.name
	return forge.Repository{
		ID: r.id, Name: r.name, FullName: ownerLogin + "/" + r.name,
		Owner:   &forge.User{ID: ownerID, Login: ownerLogin},
		Private: r.private, HTMLURL: html, CloneURL: html + ".git",
		SSHURL:   "git@" + strings.TrimPrefix(strings.TrimPrefix(s.root, "http://"), "https://") + ":" + ownerLogin + "/" + r.name + ".git",
		Archived: r.archived, Empty: r.empty, ObjectFormat: "sha1", Description: r.description, Topics: append([]string{}, r.topics...),
		UpdatedAt: r.updated,
		Website:   st.website, Template: st.template, DefaultBranch: st.defaultBranch,
		HasIssues: st.hasIssues, HasWiki: st.hasWiki, HasPullRequests: st.hasPullRequests, HasProjects: st.hasProjects,
		HasReleases: st.hasReleases, HasPackages: st.hasPackages, HasActions: st.hasActions,
		AllowMergeCommits: st.allowMergeCommits, AllowRebase: st.allowRebase, AllowRebaseExplicit: st.allowRebaseExplicit,
		AllowSquashMerge: st.allowSquashMerge, AllowFastForwardOnlyMerge: st.allowFastForwardOnlyMerge,
		AllowManualMerge: st.allowManualMerge, AutodetectManualMerge: st.autodetectManualMerge,
		AllowRebaseUpdate: st.allowRebaseUpdate, DefaultMergeStyle: st.defaultMergeStyle,
		DefaultDeleteBranchAfterMerge: st.defaultDeleteBranchAfterMerge,
		DefaultAllowMaintainerEdit:    st.defaultAllowMaintainerEdit, IgnoreWhitespaceConflicts: st.ignoreWhitespaceConflicts,
		HasCode: st.hasCode, AllowMergeUpdate: st.allowMergeUpdate, DefaultUpdateStyle: st.defaultUpdateStyle,
	}
}

// ---- Go-side scene setting ----

// CreateRepo creates a repository under an existing organization or user,
// with the same checks as POST /orgs/{org}/repos.
func (s *Server) CreateRepo(ownerName, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &repo{name: name}
	if o := s.orgByName(ownerName); o != nil {
		r.orgID = o.id
	} else if u := s.userByLogin(ownerName); u != nil {
		r.userID = u.id
	} else {
		return fmt.Errorf("create repository %s/%s: no organization or user %q", ownerName, name, ownerName)
	}
	if _, msg := s.checkNewRepo(r); msg != "" {
		return fmt.Errorf("create repository %s/%s: %s", ownerName, name, msg)
	}
	s.addRepo(r)
	return nil
}

// DeleteRepo deletes a repository and what it holds; unknown is a no-op.
func (s *Server) DeleteRepo(ownerName, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.repoByName(ownerName, name); r != nil {
		s.removeRepo(r)
	}
}

func (s *Server) addRepo(r *repo) {
	r.id = s.st.next("repo")
	if r.settings == (repoSettings{}) {
		r.settings = defaultRepoSettings()
		r.empty = true
	}
	if r.collaborators == nil {
		r.collaborators = map[int64]string{}
	}
	// A new repository takes its name back from a renamed or transferred
	// one's redirect.
	path := strings.ToLower(s.ownerName(r) + "/" + r.name)
	for _, other := range s.st.repos {
		if other.orgID == r.orgID && other.userID == r.userID {
			other.oldNames = slices.DeleteFunc(other.oldNames, func(n string) bool { return strings.EqualFold(n, r.name) })
		}
		other.movedFrom = slices.DeleteFunc(other.movedFrom, func(p string) bool { return p == path })
	}
	s.st.repos[r.id] = r
	r.touch()
	s.deliver("repository", r, map[string]any{"action": "created"}, "")
}

func (s *Server) removeRepo(r *repo) {
	s.deliver("repository", r, map[string]any{"action": "deleted"}, "")
	s.deleteOwned(owner{repo: true, id: r.id})
	delete(s.st.repos, r.id)
}

func randomUUID() string {
	h := randomHex(16)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
