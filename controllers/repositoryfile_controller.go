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
	"net/http"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
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
	// declared beside the kind's repoChild.
	repoChild[*forgev1.RepositoryFile]
}

func newRepositoryFileKind() repositoryFileKind {
	return repositoryFileKind{repoChild[*forgev1.RepositoryFile]{
		noun:    "files",
		shown:   filePaths,
		where:   func(f *forgev1.RepositoryFile) scope { return scopeOf(&f.Spec.Repository, nil) },
		list:    &forgev1.RepositoryFileList{},
		connect: connectRepositoryFile,
	}}
}

// ConfigMaps are those the files' contents come from.
func (repositoryFileKind) ConfigMaps(f *forgev1.RepositoryFile) []string {
	var out []string
	for _, file := range f.Spec.Files {
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

func connectRepositoryFile(ctx context.Context, f *forgev1.RepositoryFile, pass *reconciler.Pass, at childAt) (reconciler.External, error) {
	e := &repoFiles{obj: f, fc: pass.Forge, cache: pass.Cache, childAt: at, contents: map[string][]byte{}}
	if !f.DeletionTimestamp.IsZero() {
		return e, nil // a deletion removes by path and listed sha
	}
	for _, file := range f.Spec.Files {
		p := string(file.Path)
		switch {
		case file.Content != nil:
			e.contents[p] = []byte(*file.Content)
		case file.ConfigMapRef != nil:
			v, err := fileFromConfigMap(ctx, pass.Reader, f.Namespace, file.ConfigMapRef)
			if errors.Is(err, reconciler.ErrUnreadable) {
				e.unknown = append(e.unknown, "file "+p)
				continue
			}
			if err != nil {
				return nil, err
			}
			e.contents[p] = v
		}
	}
	return e, nil
}

// fileFromConfigMap reads one key of a ConfigMap, from its data or its
// binaryData; a missing ConfigMap or key waits (SecretNotFound names it:
// it is a referenced object, not a secret). An empty value is a file's
// content like any other.
func fileFromConfigMap(ctx context.Context, r client.Reader, ns string, ref *forgev1.ConfigMapKeySelector) ([]byte, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, reconciler.Wait(forgev1.ReasonSecretNotFound, "ConfigMap %s/%s not found", ns, ref.Name)
		}
		return nil, err
	}
	if v, ok := cm.Data[ref.Key]; ok {
		return []byte(v), nil
	}
	if v, ok := cm.BinaryData[ref.Key]; ok {
		return v, nil
	}
	return nil, reconciler.Wait(forgev1.ReasonSecretNotFound, "ConfigMap %s/%s has no key %q", ns, ref.Name, ref.Key)
}

// repoFiles is one pass over a RepositoryFile's files.
type repoFiles struct {
	obj   *forgev1.RepositoryFile
	fc    forge.Interface
	cache client.Reader
	childAt
	// contents are the wanted files by path; unknown the files plan could
	// not read (a ConfigMap it may not read).
	contents map[string][]byte
	unknown  []string

	// What Observe found: the repository, the branch, the paths another
	// (older) RepositoryFile holds, and the operations that would bring
	// the branch to the spec.
	repo   *forge.Repository
	branch string
	held   map[string]bool
	ops    []forge.ChangeFileOperation
}

func (e *repoFiles) Observe(ctx context.Context) (reconciler.Observation, error) {
	repo, err := e.findRepo(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	e.repo = repo
	e.branch = repo.DefaultBranch
	if b := e.obj.Spec.Branch; b != nil {
		e.branch = *b
	}
	e.obj.Status.Branch = e.branch
	held, holder, err := e.heldElsewhere(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	e.held = held
	if len(held) > 0 && e.obj.DeletionTimestamp.IsZero() {
		return reconciler.Observation{}, reconciler.Stall(forgev1.ReasonConflict,
			"%s keeps %s in repository %s on branch %q: the older resource holds a path, this one writes nothing",
			holder, strings.Join(sortedKeys(held), ", "), e.Owner+"/"+e.Repo, e.branch)
	}
	blobs, err := e.listBlobs(ctx)
	if err != nil {
		return reconciler.Observation{}, err
	}
	return e.compare(blobs), nil
}

// findRepo reads the repository from its owner's listing (shared by every
// resource of the owner, one per interval), or by name when the listing
// lacks it (made since).
func (e *repoFiles) findRepo(ctx context.Context) (*forge.Repository, error) {
	all, err := ownerRepos(ctx, e.fc, e.Owner)
	if err != nil {
		return nil, err
	}
	if r := findRepo(all, e.Repo); r != nil {
		return r, nil
	}
	r, err := e.fc.GetRepo(ctx, e.Owner, e.Repo)
	if err != nil {
		return nil, e.classify(err)
	}
	return r, nil
}

// listBlobs lists the branch's tree: the blob id of every file. An empty
// repository has none (its first commit makes the branch); a branch a
// repository with commits lacks is waited for.
func (e *repoFiles) listBlobs(ctx context.Context) (map[string]string, error) {
	tree, err := e.fc.ListTree(ctx, e.Owner, e.Repo, e.branch)
	switch {
	case forge.IsRefNotFound(err) && e.repo.Empty:
		return map[string]string{}, nil
	case forge.IsRefNotFound(err):
		return nil, reconciler.Wait(forgev1.ReasonParentNotFound,
			"branch %q of %s not found on the forge; waiting for it to exist", e.branch, e.describe())
	case err != nil:
		return nil, e.classify(err)
	}
	return tree.Blobs(), nil
}

// compare makes the operations of one commit from the listed blobs: a
// missing file is created, a differing one (mode Overwrite) updated from
// the sha listed; on deletion, every listed file the mode Overwrite keeps
// and the branch holds is deleted.
func (e *repoFiles) compare(blobs map[string]string) reconciler.Observation {
	s := e.obj.Spec
	obs := reconciler.Observation{Name: e.branch, Unknown: e.unknown}
	e.ops = nil
	inSync := 0
	for _, file := range s.Files {
		p := string(file.Path)
		have, present := blobs[p]
		if present {
			obs.Exists = true
		}
		if e.held[p] {
			continue
		}
		if !e.obj.DeletionTimestamp.IsZero() {
			if present && s.Mode != forgev1.FileModeCreateOnly {
				e.ops = append(e.ops, forge.ChangeFileOperation{Operation: forge.FileDelete, Path: p, SHA: have})
			}
			continue
		}
		content, known := e.contents[p]
		if !known {
			continue // plan could not read it: Unknown
		}
		want := forge.BlobID(content, e.repo.ObjectFormat)
		switch {
		case !present:
			e.ops = append(e.ops, forge.ChangeFileOperation{Operation: forge.FileCreate, Path: p, Content: forge.FileContent(content)})
			obs.Changes = append(obs.Changes, reconciler.Change{Field: "file " + p, Have: "missing", Want: "blob " + short(want)})
		case have != want && s.Mode != forgev1.FileModeCreateOnly:
			e.ops = append(e.ops, forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: p, SHA: have, Content: forge.FileContent(content)})
			obs.Changes = append(obs.Changes, reconciler.Change{Field: "file " + p, Have: "blob " + short(have), Want: "blob " + short(want)})
		default:
			inSync++
		}
	}
	e.obj.Status.InSync = inSync
	obs.Diff = reconciler.Fields(obs.Changes)
	// Once the operator wrote the files (its status names the branch), the
	// branch is its object even when every file has gone since.
	if e.obj.Status.ExternalName != "" {
		obs.Exists = true
	}
	return obs
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
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
	return reconciler.Observation{Exists: true, Name: e.branch}, nil
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
			"left %s in %s: files written CreateOnly belong to the repository once written", filePaths(e.obj), e.describe())
	}
	return e.commit(ctx)
}

// commit sends the operations Observe found in one commit. A stale base
// (a commit since the listing changed one of the files) is listed again
// and written again once in the same pass; twice in a row waits for the
// next pass.
func (e *repoFiles) commit(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		if len(e.ops) == 0 {
			return nil
		}
		opt := forge.ChangeFilesOption{Branch: e.branch, Message: e.obj.Spec.Message, Files: e.ops}
		if a := e.obj.Spec.Author; a != nil {
			opt.Author = &forge.CommitIdentity{Name: a.Name, Email: a.Email}
		}
		cm, err := e.fc.ChangeFiles(ctx, e.Owner, e.Repo, opt)
		if err == nil {
			e.obj.Status.Commit = cm.SHA
			if e.obj.DeletionTimestamp.IsZero() {
				e.obj.Status.InSync = len(e.obj.Spec.Files) - len(e.held)
			}
			return nil
		}
		if !forge.IsStaleBase(err) {
			return e.refused(err)
		}
		if attempt > 0 {
			return reconciler.Wait(forgev1.ReasonForgeError,
				"branch %q of %s changed under two commits in a row (%v); writing again at the next pass", e.branch, e.describe(), err)
		}
		blobs, err := e.listBlobs(ctx)
		if err != nil {
			return err
		}
		e.compare(blobs)
	}
}

// refused makes the forge's refusal of a commit the resource's condition:
// a branch rule (403) or a path (422) the forge refuses is Rejected with
// its message, an archived repository (423) RepositoryArchived, a branch
// gone a wait.
func (e *repoFiles) refused(err error) error {
	var fe *forge.Error
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.StatusCode {
	case http.StatusForbidden, http.StatusUnprocessableEntity:
		return reconciler.Stall(forgev1.ReasonRejected, "the forge refuses the commit to branch %q of %s: %s", e.branch, e.describe(), fe.Message)
	case http.StatusLocked:
		return reconciler.Stall(forgev1.ReasonRepositoryArchived, "repository %s/%s is archived: no write is attempted until it is unarchived", e.Owner, e.Repo)
	}
	return e.classify(err)
}

// heldElsewhere finds the paths of this resource that an older
// RepositoryFile of the same server keeps in the same repository and
// branch (any namespace), and names that holder for a reader of this
// namespace. A holder being deleted, or one whose connection cannot act,
// holds nothing.
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
		if o.UID == e.obj.UID || !o.DeletionTimestamp.IsZero() || !claims.Older(o, e.obj) ||
			!strings.EqualFold(string(o.Spec.Repository), string(e.obj.Spec.Repository)) ||
			!servers.Reach(o.Namespace, o.Spec.ForgeRef) || !servers.Permitted(ctx, o) {
			continue
		}
		branch := e.repo.DefaultBranch
		if o.Spec.Branch != nil {
			branch = *o.Spec.Branch
		}
		if branch != e.branch {
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
