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
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/files"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// RBAC of the RepositoryFile controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositoryfiles,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositoryfiles/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=repositoryfiles/finalizers,verbs=update

// repositoryFileKind keeps a list of files on one branch of one
// repository. The forge object is the branch's files: observed with one
// tree listing per pass (git's blob ids, compared with those of the
// wanted contents computed here, so no file is downloaded), written with
// one commit carrying every file that differs. Its identity is the branch
// (status.externalName); each path is held by the oldest RepositoryFile
// that lists it in that repository and branch.
type repositoryFileKind struct {
	// The ConfigMaps its files come from (reconciler.ConfigMapReader),
	// declared beside the kind's child.Kind.
	child.Kind[*forgev1.RepositoryFile]
	// pushes are the resources whose repository a delivered push changed:
	// their record (status.checked) does not stand in their next pass.
	pushes *files.Pushes
}

// ClaimKinds: a RepositoryFile yields to an older RepositoryFile that
// keeps a path it would in its repository and branch (heldElsewhere), and
// to a FileSet with enforce for the paths it keeps there (enforcedPaths).
func (repositoryFileKind) ClaimKinds() []client.Object {
	return []client.Object{&forgev1.RepositoryFile{}, &forgev1.FileSet{}}
}

func newRepositoryFileKind() repositoryFileKind {
	pushes := &files.Pushes{}
	return repositoryFileKind{Kind: child.Kind[*forgev1.RepositoryFile]{
		Noun:  "files",
		Shown: filePaths,
		Where: func(f *forgev1.RepositoryFile) child.Place { return child.PlaceOf(&f.Spec.Repository, nil) },
		List:  &forgev1.RepositoryFileList{},
		External: func(ctx context.Context, f *forgev1.RepositoryFile, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			return connectRepositoryFile(ctx, f, pass, at, pushes)
		},
	}, pushes: pushes}
}

// WokenByPushes: a push to the branch it keeps its files on passes over
// it at once (reconciler.PushWoken), which Pushed picks; WokenByBranches:
// so does a branch created, which it waits for.
func (repositoryFileKind) WokenByPushes()   {}
func (repositoryFileKind) WokenByBranches() {}

// Pushed: a push concerns the resource when it is to its branch
// (spec.branch, else the default branch the delivery tells; a delivery
// that tells none concerns it).
func (k repositoryFileKind) Pushed(f *forgev1.RepositoryFile, wk reconciler.Wake) bool {
	if !files.PushedOn(f.Spec.Branch, wk) {
		return false
	}
	k.pushes.Note(types.NamespacedName{Namespace: f.Namespace, Name: f.Name}, string(f.Spec.Repository))
	return true
}

// ConfigMaps are those the files' contents come from.
func (repositoryFileKind) ConfigMaps(f *forgev1.RepositoryFile) []string {
	return configMapsOf(f.Spec.Files)
}

// configMapsOf names the ConfigMaps files' contents come from, each once.
func configMapsOf(files []forgev1.RepositoryFileEntry) []string {
	var out []string
	for _, file := range files {
		if file.ConfigMapRef != nil && !slices.Contains(out, file.ConfigMapRef.Name) {
			out = append(out, file.ConfigMapRef.Name)
		}
	}
	return out
}

// filePaths names the files in messages: the first three, then a count.
func filePaths(f *forgev1.RepositoryFile) string {
	var paths []string
	for _, file := range f.Spec.Files {
		paths = append(paths, string(file.Path))
	}
	if len(paths) > 3 {
		return strings.Join(paths[:3], ", ") + fmt.Sprintf(" and %d more", len(paths)-3)
	}
	return strings.Join(paths, ", ")
}

func connectRepositoryFile(ctx context.Context, f *forgev1.RepositoryFile, pass *reconciler.Pass, at child.At, pushes *files.Pushes) (reconciler.External, error) {
	e := &repoFiles{obj: f, cache: pass.Cache, pass: pass, pushed: len(pushes.Take(types.NamespacedName{Namespace: f.Namespace, Name: f.Name})) > 0,
		Branch: files.Branch{Forge: pass.Forge, At: at,
			FilesSpec: f.Spec.FilesSpec, Deleting: !f.DeletionTimestamp.IsZero(), Contents: map[string][]byte{},
			KeptBy: claims.Holder("RepositoryFile", f), Pinned: pass.CommitAuthor}}
	if e.Deleting {
		return e, nil // a deletion removes by path and listed sha
	}
	contents, unknown, err := files.Contents(ctx, pass, f.Namespace, f.Spec.Files)
	if err != nil {
		return nil, err
	}
	e.Contents, e.unknown = contents, unknown
	return e, nil
}

// repoFiles is one pass over a RepositoryFile's files: the branch's
// files (files.Branch, with the paths another, older RepositoryFile holds)
// and the files plan could not read (a ConfigMap it may not read).
type repoFiles struct {
	obj   *forgev1.RepositoryFile
	cache client.Reader
	files.Branch
	unknown []string
	// pass is the loop's (for the record of the last complete check,
	// files.Checked); pushed: a delivered push changed the repository
	// since the last pass, and the record does not stand.
	pass   *reconciler.Pass
	pushed bool
}

func (e *repoFiles) Observe(ctx context.Context) (reconciler.Observation, error) {
	repo, err := e.findRepo(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	e.Repository = repo
	e.On(repo.DefaultBranch)
	e.obj.Status.Branch = e.BranchName
	held, holder, err := e.heldElsewhere(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	e.Held = held
	if len(held) > 0 && e.obj.DeletionTimestamp.IsZero() {
		return reconciler.Observation{}, reconciler.Stall(forgev1.ReasonConflict,
			"%s keeps %s in repository %s on branch %q: the older resource holds a path, this one writes nothing",
			holder, strings.Join(sortedKeys(held), ", "), e.Owner+"/"+e.Repo, e.BranchName)
	}
	enforced, err := e.enforcedPaths(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	for p := range enforced {
		e.Held[p] = true // the enforcing set's: neither written nor, on deletion, removed
	}
	var left error
	if e.obj.DeletionTimestamp.IsZero() {
		left = leftToEnforcers(fmt.Sprintf("files of repository %s on branch %q", e.Owner+"/"+e.Repo, e.BranchName), enforced)
	}
	// The last complete check stands while the repository did not move
	// (files.Checked): no tree is listed.
	checked := files.NewChecked(e.obj.Status.Checked, e.digest(), e.pass, time.Now())
	if !e.Deleting && !e.pushed && checked.Stands(repo) {
		return reconciler.Observation{Name: e.BranchName, Unknown: e.unknown, Exists: true, Left: left}, nil
	}
	checked.Forget(repo.ID)
	e.Forge = forge.Spaced(e.Forge, checked.Spread())
	blobs, err := e.ListBlobs(ctx)
	if err != nil {
		e.obj.Status.Checked = nil
		return reconciler.Observation{}, err
	}
	obs := e.compare(blobs)
	obs.Left = left
	if !e.Deleting && obs.Exists && len(obs.Diff) == 0 {
		checked.Checked(repo)
	}
	e.obj.Status.Checked = checked.Status(nil)
	return obs, nil
}

// digest is that of what the resource's checks compare with
// (files.Digest): its files, the paths others hold, and the interval and
// spacing of its complete checks.
func (e *repoFiles) digest() string {
	more := []string{"held " + strings.Join(sortedKeys(e.Held), ",")}
	if e.pass != nil {
		more = append(more, fmt.Sprintf("every %d of %s", e.pass.FullCheckEvery, e.pass.Interval))
	}
	return files.Digest(e.obj.Spec.FilesSpec, e.Contents, more...)
}

// enforcedPaths are the paths of the spec that a FileSet with enforce
// keeps in this repository on this branch, each with the oldest such
// set's name.
func (e *repoFiles) enforcedPaths(ctx context.Context) (map[string]string, error) {
	var list forgev1.FileSetList
	found := e.Repository
	r := sets.Repo{Owner: e.Owner, Name: found.Name, ID: found.ID, Topics: found.Topics, TopicsRead: true}
	holders, who, err := enforcers(ctx, e.cache, e.obj, &list, func() []forgev1.FileSet { return list.Items },
		func(s *forgev1.FileSet) bool { return s.Spec.Enforce },
		func(s *forgev1.FileSet) forgev1.RepositorySelector { return s.Spec.Repositories }, r, "FileSet")
	if err != nil {
		return nil, err
	}
	mine := pathSet(e.obj.Spec.Files)
	out := map[string]string{}
	for i, s := range holders {
		branch := found.DefaultBranch
		if s.Spec.Branch != nil {
			branch = *s.Spec.Branch
		}
		if branch != e.BranchName {
			continue
		}
		for p := range pathSet(s.Spec.Files) {
			if _, taken := out[p]; mine[p] && !taken {
				out[p] = who[i]
			}
		}
	}
	return out, nil
}

// findRepo reads the repository from its owner's listing (shared by every
// resource of the owner, one per interval), or by name when the listing
// lacks it (made since).
func (e *repoFiles) findRepo(ctx context.Context) (*forge.Repository, error) {
	all, err := child.OwnerRepos(ctx, e.Forge, e.Owner)
	if err != nil {
		return nil, err
	}
	if r := child.FindRepo(all, e.Repo); r != nil {
		return r, nil
	}
	r, err := e.Forge.GetRepo(ctx, e.Owner, e.Repo)
	if err != nil {
		return nil, e.Classify(err)
	}
	return r, nil
}

// compare makes the commit's operations from the listed blobs, and the
// resource's observation.
func (e *repoFiles) compare(blobs map[string]string) reconciler.Observation {
	obs := reconciler.Observation{Name: e.BranchName, Unknown: e.unknown}
	obs.Changes, obs.Exists = e.Compare(blobs)
	e.obj.Status.InSync = e.InSync
	obs.Diff = reconciler.Fields(obs.Changes)
	// Once the operator wrote the files (its status names the branch), the
	// branch is its object even when every file has gone since.
	if e.obj.Status.ExternalName != "" {
		obs.Exists = true
	}
	return obs
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Create writes the files into a branch that holds none of them (an empty
// repository's first commit among them).
func (e *repoFiles) Create(ctx context.Context) (reconciler.Observation, error) {
	if err := e.commit(ctx); err != nil {
		return reconciler.Observation{}, err
	}
	return reconciler.Observation{Exists: true, Name: e.BranchName}, nil
}

// Update writes every differing file in one commit.
func (e *repoFiles) Update(ctx context.Context, _ reconciler.Observation) error {
	return e.commit(ctx)
}

// Delete removes the listed files in one commit; a file already gone is
// done, CreateOnly files stay.
func (e *repoFiles) Delete(ctx context.Context, _ reconciler.Observation) error {
	if e.obj.Spec.Mode == forgev1.FileModeCreateOnly {
		return reconciler.Leave(corev1.EventTypeNormal, forgev1.ReasonOrphaned,
			"left %s in %s: files written CreateOnly belong to the repository once written", filePaths(e.obj), e.Describe())
	}
	return e.commit(ctx)
}

// commit sends the operations Observe found in one commit (files.Branch).
func (e *repoFiles) commit(ctx context.Context) error {
	e.obj.Status.Checked = nil // the next pass lists the branch it wrote
	sha, err := e.Commit(ctx)
	if sha != "" {
		e.obj.Status.Commit = sha
		if !e.Deleting {
			e.obj.Status.InSync = e.InSync
		}
	}
	return err
}

// heldElsewhere finds the paths of this resource that an older
// RepositoryFile of the same server keeps in the same repository and
// branch (any namespace), and names that holder for a reader of this
// namespace. A holder being deleted, one whose status records no read of
// that branch (a spec alone), or one whose connection is not Ready or not
// permitted holds nothing (claims.Servers.HoldsOver).
func (e *repoFiles) heldElsewhere(ctx context.Context) (map[string]bool, string, error) {
	held := map[string]bool{}
	if e.cache == nil {
		return held, "", nil
	}
	servers, err := claims.ServersOf(ctx, e.cache, e.obj)
	if err != nil {
		return nil, "", err
	}
	var all forgev1.RepositoryFileList
	if err := e.cache.List(ctx, &all); err != nil {
		return nil, "", err
	}
	mine := map[string]bool{}
	for _, f := range e.obj.Spec.Files {
		mine[string(f.Path)] = true
	}
	var holders []string
	for i := range all.Items {
		o := &all.Items[i]
		// It holds the branch its status recorded writing or reading
		// (status.externalName, or under this one's Forge its spec's), in
		// its repository (immutable).
		if o.UID == e.obj.UID || !claims.Older(o, e.obj) || branchOf(o, e.Repository.DefaultBranch) != e.BranchName ||
			!strings.EqualFold(string(o.Spec.Repository), string(e.obj.Spec.Repository)) || !servers.HoldsOver(ctx, o) {
			continue
		}
		took := false
		for _, f := range o.Spec.Files {
			if mine[string(f.Path)] {
				held[string(f.Path)], took = true, true
			}
		}
		if took {
			if h := claims.HolderFor(e.obj.Namespace, "RepositoryFile", o); !slices.Contains(holders, h) {
				holders = append(holders, h)
			}
		}
	}
	return held, strings.Join(holders, " and "), nil
}
