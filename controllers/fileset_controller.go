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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/files"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// RBAC of the FileSet controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=filesets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=filesets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=filesets/finalizers,verbs=update

// fileSetKind keeps one list of files in many repositories: a set kind on
// the set machinery (package sets), each repository brought to the list as
// a RepositoryFile brings its one (files.Branch). At rest a pass reads the
// owner's repository listing, and lists the tree only of a repository
// that moved since its last complete check (files.Checked), every one at
// its turn every fullCheckEvery intervals; it writes nothing.
type fileSetKind struct {
	kinds.Base[forgev1.FileSet, forgev1.FileSetList]
	*rounds.Store[sets.Repo] // forgets the round of a set that is gone
	// pushes are the repositories a delivered push changed, by set: their
	// record does not stand in the set's next pass.
	pushes *files.Pushes
}

func (fileSetKind) Key(*forgev1.FileSet) string      { return "" }
func (fileSetKind) Describe(*forgev1.FileSet) string { return "the files of the set" }
func (fileSetKind) Connect(context.Context, *forgev1.FileSet, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a FileSet is synced as a set")
}

func (k fileSetKind) ConnectSet(_ context.Context, s *forgev1.FileSet, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	return &fileSet{obj: s, pass: pass, Set: sets.New(s, s.Spec.Repositories, pass, k.Store, "file", "files"),
		pushed: k.pushes.Take(types.NamespacedName{Namespace: s.Namespace, Name: s.Name})}, nil
}

// ConfigMaps are those the files' contents come from.
func (fileSetKind) ConfigMaps(s *forgev1.FileSet) []string { return configMapsOf(s.Spec.Files) }

// fileSet is one pass of a FileSet.
type fileSet struct {
	sets.Set
	obj  *forgev1.FileSet
	pass *reconciler.Pass
	// contents are the wanted files by path (read once per pass); holds
	// the other resources that keep files where the set would.
	contents map[string][]byte
	holds    fileHolds
	commits  int32
	// unknown are the files whose content could not be read (plan
	// without the ConfigMaps): left alone, and plan says so (Unknown).
	unknown []string
	// checked is the record of the last complete checks (status.checked),
	// pushed the repositories (lower case) a delivered push changed since
	// the last pass: their record does not stand.
	checked *files.Checked
	pushed  map[string]bool
}

func (e *fileSet) Unknown() []string { return e.unknown }

func (e *fileSet) Sync(ctx context.Context, write bool) (reconciler.SetResult, error) {
	contents, unknown, err := files.Contents(ctx, e.pass, e.obj.Namespace, e.obj.Spec.Files)
	if err != nil {
		return reconciler.SetResult{}, err
	}
	e.contents, e.unknown = contents, unknown
	if e.holds, err = e.readHolds(ctx); err != nil {
		return reconciler.SetResult{}, err
	}
	e.checked = files.NewChecked(e.obj.Status.Checked, e.digest(), e.pass, time.Now())
	e.Release = e
	res, err := e.Run(ctx, write, &e.obj.Status.SetStatus, func(ctx context.Context, r sets.Repo) *sets.Outcome {
		return e.syncRepo(ctx, r, write)
	})
	e.obj.Status.Checked = e.checked.Status(e.Listed)
	if err == nil && e.commits > 0 {
		e.obj.Status.Commits = e.commits
	}
	return res, err
}

// digest is that of what the set's checks compare with (files.Digest):
// its files, whether it enforces them, the paths others hold, and the
// interval and spacing of its complete checks.
func (e *fileSet) digest() string {
	more := []string{fmt.Sprintf("enforce %t", e.obj.Spec.Enforce)}
	if e.pass != nil {
		more = append(more, fmt.Sprintf("every %d of %s", e.pass.FullCheckEvery, e.pass.Interval))
	}
	for _, hs := range [][]fileHold{e.holds.files, e.holds.sets} {
		for _, h := range hs {
			paths := make([]string, 0, len(h.paths))
			for p := range h.paths {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			branch := "-"
			if h.branch != nil {
				branch = *h.branch
			}
			more = append(more, fmt.Sprintf("%s %t %s %s", h.who, h.older, branch, strings.Join(paths, ",")))
		}
	}
	return files.Digest(e.obj.Spec.FilesSpec, e.contents, more...)
}

// ---- who else keeps files where the set would ----

// fileHolds are the other resources of the set's server (every namespace,
// every Forge or ClusterForge pointing at it) that keep files: the
// RepositoryFiles (their files win in their repository, without a word)
// and the other FileSets (the older holds a path both keep).
type fileHolds struct {
	files []fileHold
	sets  []fileHold
}

// fileHold is one resource's paths, on its branch (nil: the repository's
// default), where it applies.
type fileHold struct {
	who     string
	older   bool
	branch  *string
	paths   map[string]bool
	matches func(r sets.Repo) bool
}

func (h fileHold) keeps(r sets.Repo, found *forge.Repository, branch string) bool {
	b := found.DefaultBranch
	if h.branch != nil {
		b = *h.branch
	}
	return b == branch && h.matches(r)
}

func pathSet(files []forgev1.RepositoryFileEntry) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		out[string(f.Path)] = true
	}
	return out
}

func (e *fileSet) readHolds(ctx context.Context) (fileHolds, error) {
	var out fileHolds
	servers, err := claims.ServersOf(ctx, e.Cache, e.obj)
	if err != nil {
		return out, err
	}
	for _, in := range servers.Lists() {
		var files forgev1.RepositoryFileList
		if err := e.Cache.List(ctx, &files, in...); err != nil {
			return out, fmt.Errorf("list RepositoryFiles: %w", err)
		}
		for i := range files.Items {
			f := &files.Items[i]
			// Only a RepositoryFile that read or wrote its branch (its
			// status names it) keeps its paths: a spec alone holds nothing.
			if !servers.HoldsOver(ctx, f) {
				continue
			}
			owner, name, _ := strings.Cut(string(f.Spec.Repository), "/")
			out.files = append(out.files, fileHold{who: claims.HolderFor(e.obj.Namespace, "RepositoryFile", f), branch: recordedBranch(f),
				paths: pathSet(f.Spec.Files), matches: func(r sets.Repo) bool {
					return strings.EqualFold(r.Owner, owner) && strings.EqualFold(r.Name, name)
				}})
		}
		var others forgev1.FileSetList
		if err := e.Cache.List(ctx, &others, in...); err != nil {
			return out, fmt.Errorf("list FileSets: %w", err)
		}
		for i := range others.Items {
			s := &others.Items[i]
			// Another set holds only where its record says it applied.
			if s.UID == e.obj.UID || !servers.HoldsOver(ctx, s) {
				continue
			}
			out.sets = append(out.sets, fileHold{who: claims.HolderFor(e.obj.Namespace, "FileSet", s), older: claims.Older(s, e.obj),
				branch: s.Spec.Branch, paths: pathSet(s.Spec.Files), matches: setWhere(servers, s, s.Spec.Repositories)})
		}
	}
	return out, nil
}

// held are the set's paths another resource keeps in r on branch: a
// RepositoryFile's (most specific wins: no failure), an older set's (a
// Conflict naming the path and the set, in conflicts); releasing, any
// other set's (what another set keeps is never deleted).
func (e *fileSet) held(r sets.Repo, found *forge.Repository, branch string, releasing bool) (held map[string]bool, left map[string][]string, conflicts []string) {
	held, left = map[string]bool{}, map[string][]string{}
	mine := pathSet(e.obj.Spec.Files)
	for _, h := range e.holds.files {
		// An enforced set's paths win (the RepositoryFile leaves them),
		// but releasing removes none a RepositoryFile keeps.
		if (!e.obj.Spec.Enforce || releasing) && h.keeps(r, found, branch) {
			for p := range h.paths {
				if mine[p] {
					held[p] = true
					left[h.who] = append(left[h.who], p)
				}
			}
		}
	}
	for _, h := range e.holds.sets {
		if (!h.older && !releasing) || !h.keeps(r, found, branch) {
			continue
		}
		var took []string
		for p := range h.paths {
			if mine[p] && !held[p] {
				held[p] = true
				took = append(took, p)
			}
		}
		if len(took) > 0 && !releasing {
			slices.Sort(took)
			noun := "path"
			if len(took) > 1 {
				noun = "paths"
			}
			conflicts = append(conflicts, fmt.Sprintf("%s %s held by %s, an older set", noun, strings.Join(took, ", "), h.who))
		}
	}
	return held, left, conflicts
}

// ---- one repository ----

// repoAsListed is repository r as its owner's listing (the one the set's
// repositories came from, cached for the interval) has it, else read by
// name (made since); nil when it is gone.
func repoAsListed(ctx context.Context, fc forge.Interface, r sets.Repo) (*forge.Repository, error) {
	all, err := child.OwnerRepos(ctx, fc, r.Owner)
	if err != nil {
		return nil, err
	}
	if found := child.FindRepo(all, r.Name); found != nil {
		return found, nil
	}
	found, err := fc.GetRepo(ctx, r.Owner, r.Name)
	if forge.IsNotFound(err) {
		return nil, nil
	}
	return found, err
}

// branchFilesIn is the set's files on its branch of r (found: as listed),
// with the paths others hold there: those RepositoryFiles keep, by
// holder (left), and the Conflicts with older sets.
func (e *fileSet) branchFilesIn(fc forge.Interface, r sets.Repo, found *forge.Repository, releasing bool) (b *files.Branch, left map[string][]string, conflicts []string) {
	s := e.obj.Spec
	b = &files.Branch{Forge: forge.Spaced(fc, e.checked.Spread()), At: child.At{Place: child.Place{Scope: forge.Scope{Owner: r.Owner, Repo: found.Name}}, What: "files"},
		Repository: found, FilesSpec: s.FilesSpec, Contents: e.contents, Deleting: releasing, KeptBy: claims.Holder("FileSet", e.obj),
		Pinned: e.pass.CommitAuthor}
	b.On(found.DefaultBranch)
	b.Held, left, conflicts = e.held(r, found, b.BranchName, releasing)
	return b, left, conflicts
}

// syncRepo brings one repository's branch to the files (or, without
// write, says what differs): one tree listing, one commit carrying every
// file that differs, none when nothing does. A repository whose record
// stands (it did not move since its last complete check, which found it
// as the files want) is not listed: that check stands.
func (e *fileSet) syncRepo(ctx context.Context, r sets.Repo, write bool) *sets.Outcome {
	o := &sets.Outcome{}
	found, err := repoAsListed(ctx, e.Forge, r)
	if err != nil {
		o.FailErr(reconciler.ParentMissing(err, "repository "+r.String()))
		return o
	}
	if found == nil {
		o.Fail(forgev1.ReasonParentNotFound, false, "repository %s not found on the forge; waiting for it to exist", r)
		return o
	}
	b, left, conflicts := e.branchFilesIn(e.Forge, r, found, false)
	for _, c := range conflicts {
		o.Fail(forgev1.ReasonConflict, true, "%s", c)
	}
	for who, paths := range left {
		o.LeaveTo(who, paths...) // a RepositoryFile's own paths win, told in status.yielded
	}
	if len(conflicts) == 0 && !e.pushed[strings.ToLower(r.String())] && e.checked.Stands(found) {
		return o
	}
	e.checked.Forget(found.ID)
	blobs, err := b.ListBlobs(ctx)
	if err != nil {
		o.FailErr(err)
		return o
	}
	b.Compare(blobs)
	o.Diffs = append(o.Diffs, b.Diffs()...)
	if b.Pending() == 0 && len(conflicts) == 0 {
		e.checked.Checked(found)
	}
	if !write || b.Pending() == 0 {
		return o
	}
	sha, err := b.Commit(ctx)
	if err != nil {
		o.FailErr(err)
		return o
	}
	if sha != "" {
		o.Created += b.Count(forge.FileCreate)
		o.Updated += b.Count(forge.FileUpdate)
		e.recordCommit(r, found, sha)
	}
	return o
}

// recordCommit keeps the set's last commit in its status.
func (e *fileSet) recordCommit(r sets.Repo, found *forge.Repository, sha string) {
	e.obj.Status.Commit, e.obj.Status.CommitRepository = sha, r.Owner+"/"+found.Name
	e.commits++
}

// RemoveIn removes the set's files from repository r in one commit (the
// set's releaser, and each repository of a deletion under Delete): those
// no RepositoryFile or other FileSet keeps there; a file already gone is
// done; files written CreateOnly stay. It answers how many it deleted.
func (e *fileSet) RemoveIn(ctx context.Context, fresh forge.Interface, r sets.Repo) (int, error) {
	if e.obj.Spec.Mode == forgev1.FileModeCreateOnly {
		return 0, nil
	}
	found, err := fresh.GetRepo(ctx, r.Owner, r.Name)
	if forge.IsNotFound(err) {
		return 0, nil // the repository is gone, and its files with it
	}
	if err != nil {
		return 0, err
	}
	b, _, _ := e.branchFilesIn(fresh, r, found, true)
	blobs, err := b.ListBlobs(ctx)
	if err != nil {
		var c reconciler.Class
		if c, _ = reconciler.Classify(err); c.Reason == forgev1.ReasonParentNotFound {
			return 0, nil // no branch: no file to remove
		}
		return 0, err
	}
	b.Compare(blobs)
	sha, err := b.Commit(ctx)
	if err != nil {
		return 0, err
	}
	if sha == "" {
		return 0, nil
	}
	e.recordCommit(r, found, sha)
	return b.Count(forge.FileDelete), nil
}

// RemovedNote: a release under Delete removes files.
func (e *fileSet) RemovedNote(n int) string { return sets.DeletedOfSet(n, "file", "files") }

// Remove removes (deletionPolicy Delete) the set's files from every
// repository it matches now, in one commit per repository; CreateOnly
// files stay.
func (e *fileSet) Remove(ctx context.Context) (string, error) {
	if e.obj.Spec.Mode == forgev1.FileModeCreateOnly {
		return "left the files: files written CreateOnly belong to the repositories once written", nil
	}
	holds, err := e.readHolds(ctx)
	if err != nil {
		return "", err
	}
	e.holds = holds
	fresh := e.Set
	fresh.Forge = forge.Fresh(e.Forge)
	repos, _, err := fresh.Repositories(ctx)
	if forge.IsNotFound(err) {
		return "the organization is gone; no files to delete", nil
	}
	if err != nil {
		return "", err
	}
	deleted, touched := 0, 0
	var errs []error
	for _, r := range repos {
		n, err := e.RemoveIn(ctx, fresh.Forge, r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n > 0 {
			deleted += n
			touched++
		}
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	return fmt.Sprintf("deleted %d files of the set in %d of %d repositories, one commit each", deleted, touched, len(repos)), nil
}

// WokenByBranches: a branch created in a repository the set selects
// passes over the set at once (reconciler.BranchWoken): a repository
// waiting for the set's branch is tried again. WokenByPushes: so does a
// push to the branch the set keeps its files on there, which Pushed picks.
func (fileSetKind) WokenByBranches() {}
func (fileSetKind) WokenByPushes()   {}

// Pushed: a push concerns the set when it is to the branch the set keeps
// its files on in that repository (spec.branch, else the default branch
// the delivery tells; a delivery that tells none concerns it). The set's
// round compared the repository already: it forgets that one alone, so
// the woken pass compares it again (one tree listing) and not the others.
// The operator's own commit is a push too: its pass finds the repository
// in sync and writes nothing.
func (k fileSetKind) Pushed(s *forgev1.FileSet, wk reconciler.Wake) bool {
	if !files.PushedOn(s.Spec.Branch, wk) {
		return false
	}
	key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
	k.Recompare(key, sets.Repo{Owner: wk.Owner, Name: wk.Repo})
	k.pushes.Note(key, wk.Owner+"/"+wk.Repo)
	return true
}

// ClaimKinds: a FileSet yields to the RepositoryFiles and the older
// FileSets that keep a path it would (plan reads them among the planned
// objects).
func (fileSetKind) ClaimKinds() []client.Object {
	return []client.Object{&forgev1.RepositoryFile{}, &forgev1.FileSet{}}
}

func (fileSetKind) RepoRefs(s *forgev1.FileSet) []string {
	return sets.RepoRefs(s.Spec.Repositories)
}

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it (as LabelSet's).
func (fileSetKind) SelectsRepository(s *forgev1.FileSet, owner, name string) bool {
	return sets.Selects(s.Spec.Repositories, owner, name)
}

// WriteScopes of a FileSet: the repositories' contents.
func (fileSetKind) WriteScopes(*forgev1.FileSet, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteRepository}
}
