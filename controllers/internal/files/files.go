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

// Package files brings the files of one branch of one repository to a
// list (Branch): the one place the RepositoryFile kind (one repository)
// and the FileSet kind (each repository it selects) compare a branch with
// their files and write the difference in one commit. It also reads the
// files' contents (inline or from a ConfigMap) and tells whether a push
// concerns them. It serves those two kinds of package controllers; of the
// shared pieces beside it, it imports child.
package files

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Branch brings the files of one branch of one repository to a list: the
// one place RepositoryFile (one repository) and FileSet (each repository
// it selects) compare a branch with their files and write the
// difference. One tree listing reads every file's git blob id, compared
// with those of the wanted contents computed here (no file is
// downloaded); one commit carries every file that differs.
type Branch struct {
	Forge forge.Interface
	child.At
	// Repository is the repository as its owner's listing has it (empty
	// or not, its object format), BranchName the branch the files are kept
	// on (On decides it).
	Repository *forge.Repository
	BranchName string

	// What the spec wants: the files, how they are kept and written (the
	// spec's own FilesSpec, as RepositoryFile and FileSet share it), their
	// contents by path (a path missing there could not be read, and is
	// left alone); Deleting: the listed files are removed instead.
	forgev1.FilesSpec
	Contents map[string][]byte
	Deleting bool
	// Held are the paths another resource holds here: left alone.
	Held map[string]bool
	// KeptBy names the resource the commits are made for, "<kind>
	// <namespace>/<name>" (claims.Holder), in the trailer every commit's
	// message ends with.
	KeptBy string
	// Pinned is the author the connection pins for every commit
	// (reconciler.Pass.CommitAuthor): it stands for the spec's, which such a
	// connection refuses; nil: the spec's author, else the connection's user.
	Pinned *forgev1.CommitAuthor

	// What Compare found: the operations of the commit that would bring
	// the branch to the spec, and how many files are as the spec wants.
	ops    []forge.ChangeFileOperation
	InSync int
}

// On keeps the files on the spec's branch, else on defaultBranch (the
// repository's, as its owner's listing has it).
func (b *Branch) On(defaultBranch string) {
	b.BranchName = defaultBranch
	if b.Branch != nil {
		b.BranchName = *b.Branch
	}
}

// ListBlobs lists the branch's tree: the blob id of every file. An empty
// repository has none (its first commit makes the branch); a branch a
// repository with commits lacks is waited for.
func (b *Branch) ListBlobs(ctx context.Context) (map[string]string, error) {
	tree, err := b.Forge.ListTree(ctx, b.Owner, b.Repo, b.BranchName)
	switch {
	case forge.IsRefNotFound(err) && b.Repository.Empty:
		return map[string]string{}, nil
	case forge.IsRefNotFound(err):
		return nil, reconciler.Wait(forgev1.ReasonParentNotFound,
			"branch %q of %s not found on the forge; waiting for it to exist", b.BranchName, b.Describe())
	case err != nil:
		return nil, b.Classify(err)
	}
	return tree.Blobs(), nil
}

// Compare makes the operations of one commit from the listed blobs: a
// missing file is created, a differing one (mode Overwrite) updated from
// the sha listed; when deleting, every listed file the mode Overwrite
// keeps and the branch holds is deleted. It answers the changes (none
// when deleting) and whether the branch holds any of the files.
func (b *Branch) Compare(blobs map[string]string) (changes []reconciler.Change, present bool) {
	b.ops, b.InSync = nil, 0
	for _, file := range b.Files {
		p := string(file.Path)
		have, there := blobs[p]
		present = present || there
		if b.Held[p] {
			continue
		}
		if b.Deleting {
			if there && b.Mode != forgev1.FileModeCreateOnly {
				b.ops = append(b.ops, forge.ChangeFileOperation{Operation: forge.FileDelete, Path: p, SHA: have})
			}
			continue
		}
		content, known := b.Contents[p]
		if !known {
			continue // could not be read: Unknown
		}
		want := forge.BlobID(content, b.Repository.ObjectFormat)
		switch {
		case !there:
			b.ops = append(b.ops, forge.ChangeFileOperation{Operation: forge.FileCreate, Path: p, Content: forge.FileContent(content)})
			changes = append(changes, reconciler.Change{Field: "file " + p, Have: "missing", Want: "blob " + short(want)})
		case have != want && b.Mode != forgev1.FileModeCreateOnly:
			b.ops = append(b.ops, forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: p, SHA: have, Content: forge.FileContent(content)})
			changes = append(changes, reconciler.Change{Field: "file " + p, Have: "blob " + short(have), Want: "blob " + short(want)})
		default:
			b.InSync++
		}
	}
	return changes, present
}

// Commit sends the operations Compare found in one commit and answers its
// sha ("" when nothing differs). A stale base (a commit since the listing
// changed one of the files) is listed again and written again once in the
// same pass; twice in a row waits for the next pass.
func (b *Branch) Commit(ctx context.Context) (string, error) {
	for attempt := 0; ; attempt++ {
		if len(b.ops) == 0 {
			return "", nil
		}
		opt := forge.ChangeFilesOption{Branch: b.BranchName, Message: Message(b.Message, b.KeptBy), Files: b.ops}
		if a := b.author(); a != nil {
			opt.Author = &forge.CommitIdentity{Name: a.Name, Email: a.Email}
		}
		cm, err := b.Forge.ChangeFiles(ctx, b.Owner, b.Repo, opt)
		if err == nil {
			if !b.Deleting {
				b.InSync = len(b.Files) - len(b.Held)
			}
			return cm.SHA, nil
		}
		if !forge.IsStaleBase(err) {
			return "", b.refused(err)
		}
		if attempt > 0 {
			return "", reconciler.Wait(forgev1.ReasonForgeError,
				"branch %q of %s changed under two commits in a row (%v); writing again at the next pass", b.BranchName, b.Describe(), err)
		}
		blobs, err := b.ListBlobs(ctx)
		if err != nil {
			return "", err
		}
		b.Compare(blobs)
	}
}

// author is who the commits are by: the pinned author, else the spec's.
func (b *Branch) author() *forgev1.CommitAuthor {
	if b.Pinned != nil {
		return b.Pinned
	}
	return b.Author
}

// TrailerKey is the git trailer naming, in every commit the operator
// makes, the resource that made it (DESIGN "RepositoryFile and FileSet"):
// who reads a repository's history can tell which resource, in which
// namespace, to ask about a commit, whoever its author says it is.
const TrailerKey = "Kept-by"

// Message is message ending in the trailer "Kept-by: keptBy", placed as
// git interpret-trailers places one: in the message's trailer block when
// its last paragraph (not its first) is one, else after a blank line.
// Without keptBy the message is as the spec has it.
func Message(message, keptBy string) string {
	if keptBy == "" {
		return message
	}
	body := strings.TrimRight(message, " \t\n")
	trailer := TrailerKey + ": " + keptBy
	if i := strings.LastIndex(body, "\n\n"); i >= 0 && trailerBlock(body[i+2:]) {
		return body + "\n" + trailer
	}
	return body + "\n\n" + trailer
}

// trailerBlock reports whether every line of paragraph is a git trailer
// ("Token: value", the token letters, digits and dashes).
func trailerBlock(paragraph string) bool {
	for line := range strings.SplitSeq(paragraph, "\n") {
		token, value, ok := strings.Cut(line, ": ")
		if !ok || token == "" || value == "" || strings.TrimLeft(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

// Diffs say what the pending commit would do, one file each, as a set
// shows a repository that differs (plan, DriftDetected): create "p",
// update "p", delete "p".
func (b *Branch) Diffs() []string {
	out := make([]string, 0, len(b.ops))
	for _, o := range b.ops {
		out = append(out, fmt.Sprintf("%s %q", o.Operation, o.Path))
	}
	return out
}

// Count is how many of the pending operations are op.
func (b *Branch) Count(op string) int {
	n := 0
	for _, o := range b.ops {
		if o.Operation == op {
			n++
		}
	}
	return n
}

// Pending is how many operations the pending commit holds (none: the
// branch is as the spec wants).
func (b *Branch) Pending() int { return len(b.ops) }

// refused makes the forge's refusal of a commit the resource's condition:
// a branch rule (403) or a path (422) the forge refuses is Rejected with
// its message, an archived repository (423) RepositoryArchived, a branch
// gone a wait.
func (b *Branch) refused(err error) error {
	var fe *forge.Error
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.StatusCode {
	case http.StatusForbidden, http.StatusUnprocessableEntity:
		return reconciler.Stall(forgev1.ReasonRejected, "the forge refuses the commit to branch %q of %s: %s", b.BranchName, b.Describe(), fe.Message)
	case http.StatusLocked:
		return reconciler.Stall(forgev1.ReasonRepositoryArchived, "repository %s/%s is archived: no write is attempted until it is unarchived", b.Owner, b.Repo)
	}
	return b.Classify(err)
}

// Contents reads the contents of files (inline, or a ConfigMap key of
// namespace ns): by path, and the files that could not be read (plan may
// not read a ConfigMap), named for Unknown.
func Contents(ctx context.Context, pass *reconciler.Pass, ns string, files []forgev1.RepositoryFileEntry) (map[string][]byte, []string, error) {
	out := map[string][]byte{}
	var unknown []string
	for _, file := range files {
		p := string(file.Path)
		switch {
		case file.Content != nil:
			out[p] = []byte(*file.Content)
		case file.ConfigMapRef != nil:
			v, err := fileFromConfigMap(ctx, pass.Reader, ns, file.ConfigMapRef)
			if errors.Is(err, reconciler.ErrUnreadable) {
				unknown = append(unknown, "file "+p)
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			out[p] = v
		}
	}
	return out, unknown, nil
}

// PushedOn says whether a push concerns files kept on branch (nil: the
// repository's default branch, which the delivery tells; a delivery that
// tells none concerns them).
func PushedOn(branch *string, wk reconciler.Wake) bool {
	b := wk.DefaultBranch
	if branch != nil {
		b = *branch
	}
	return b == "" || b == wk.Branch
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

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
