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
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// FileSet's export (export --files PATHS): which files a user keeps alike
// is no fact of the forge, so nothing is proposed unless the user names
// the paths. For those, one FileSet over the organization holds each path
// whose file is the same git blob on the default branch of every live
// (not archived) repository that has a commit: compared by the blob ids
// of one tree listing per repository, the content read once, from the
// first repository. Applied, the set writes nothing; a repository made
// later gets the files.

// maxExportedFiles is a FileSet's most files (its CRD's maxItems).
const maxExportedFiles = 100

// maxFileContent is the longest content a FileSet's entry holds (its
// CRD's maxLength, in characters).
const maxFileContent = 262144

// fileSetExportSource is what the FileSet's export reads: each
// repository's tree, and one blob per path proposed.
type fileSetExportSource interface {
	ListTree(ctx context.Context, owner, repo, ref string) (*forge.Tree, error)
	GetBlob(ctx context.Context, owner, repo, sha string) ([]byte, error)
}

// FileSetExporter is the writer of export --files: paths are the files the
// user names, each a FileSet's path (relative, "/"-separated, no ".", ".."
// or ".git" component), at most a FileSet's 100; an invalid one is an
// error naming it.
func FileSetExporter(paths []string) (export.Writer, error) {
	var want []string
	for _, p := range paths {
		if err := validFilePath(p); err != nil {
			return export.Writer{}, fmt.Errorf("path %q: %w", p, err)
		}
		if !slices.Contains(want, p) {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return export.Writer{}, errors.New("no path")
	}
	if len(want) > maxExportedFiles {
		return export.Writer{}, fmt.Errorf("%d paths: a FileSet keeps at most %d", len(want), maxExportedFiles)
	}
	return export.AggregateRepositories(
		func(ctx context.Context, src fileSetExportSource, r forge.Repository) (exportedRepoFiles, error) {
			return listRepoFiles(ctx, src, r, want)
		},
		func(ctx context.Context, b *export.Builder, src fileSetExportSource, org string, repos []exportedRepoFiles) error {
			return exportFileSet(ctx, b, src, org, want, repos)
		}), nil
}

// dotComponent is a "." or ".." path component; gitComponent ".git" in
// any case (the forge refuses it), as FilePath's admission says.
var (
	dotComponent = regexp.MustCompile(`(^|/)[.][.]?(/|$)`)
	gitComponent = regexp.MustCompile(`(^|/)[.][gG][iI][tT](/|$)`)
)

// validFilePath holds p to FilePath's admission rules.
func validFilePath(p string) error {
	switch {
	case p == "":
		return errors.New("empty")
	case len(p) > 500:
		return errors.New("longer than 500 characters")
	case strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//"):
		return errors.New("must be relative: no leading or trailing '/', no empty component")
	case strings.Contains(p, `\`):
		return errors.New("must separate directories with '/'")
	case dotComponent.MatchString(p):
		return errors.New("must not hold a '.' or '..' component")
	case gitComponent.MatchString(p):
		return errors.New("must not hold a '.git' component (the forge refuses it)")
	}
	return nil
}

// exportedRepoFiles is one live repository and the tree entries of the named
// paths on its default branch (none listed when it is empty).
type exportedRepoFiles struct {
	repo    forge.Repository
	entries map[string]forge.TreeEntry
	// noBranch: its default branch could not be listed.
	noBranch bool
}

func (f exportedRepoFiles) name() string { return f.repo.FullName }

// listRepoFiles lists r's default branch once and keeps the entries of paths.
func listRepoFiles(ctx context.Context, src fileSetExportSource, r forge.Repository, paths []string) (exportedRepoFiles, error) {
	out := exportedRepoFiles{repo: r, entries: map[string]forge.TreeEntry{}}
	if out.repo.FullName == "" && r.Owner != nil {
		out.repo.FullName = r.Owner.Login + "/" + r.Name
	}
	if r.Empty {
		return out, nil
	}
	owner, name, _ := strings.Cut(out.repo.FullName, "/")
	tree, err := src.ListTree(ctx, owner, name, r.DefaultBranch)
	if forge.IsRefNotFound(err) {
		out.noBranch = true
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("list the files of %s: %w", out.repo.FullName, err)
	}
	for _, e := range tree.Entries {
		if slices.Contains(paths, e.Path) {
			out.entries[e.Path] = e
		}
	}
	return out, nil
}

// exportFileSet writes the FileSet of the paths every repository with a
// commit holds alike, with a comment naming those left out and why (a
// document of comments alone when none is alike).
func exportFileSet(ctx context.Context, b *export.Builder, src fileSetExportSource, org string, paths []string, repos []exportedRepoFiles) error {
	var withCommits []exportedRepoFiles
	var empty []forgev1.RepositoryGlob
	for _, r := range repos {
		if r.repo.Empty {
			empty = append(empty, forgev1.RepositoryGlob(r.repo.Name))
			continue
		}
		withCommits = append(withCommits, r)
	}
	if len(withCommits) == 0 {
		b.Note(fmt.Sprintf("export --files: no live repository of %s has a commit: no FileSet is proposed.", org))
		return nil
	}
	var files []forgev1.RepositoryFileEntry
	var left []string
	for _, p := range paths {
		content, why, err := sharedFile(ctx, src, p, withCommits)
		if err != nil {
			return err
		}
		if why != "" {
			left = append(left, fmt.Sprintf("%s: %s", p, why))
			continue
		}
		files = append(files, forgev1.RepositoryFileEntry{Path: forgev1.FilePath(p), Content: new(string(content))})
	}
	var notes []string
	if len(left) > 0 {
		notes = append(notes, "Left out (the repositories do not hold it alike):")
		for _, l := range left {
			notes = append(notes, "  "+l)
		}
	}
	if len(files) == 0 {
		b.Note(append([]string{fmt.Sprintf("export --files: no named file is the same in every live repository of %s: no FileSet is proposed.", org)}, notes...)...)
		return nil
	}
	noun := "repositories hold"
	if len(withCommits) == 1 {
		noun = "repository holds"
	}
	comment := []string{fmt.Sprintf("The files each of the %d live %s alike (the same git blob on the default branch):", len(withCommits), noun),
		"applied, the set writes nothing, and a repository made later gets them."}
	if len(empty) > 0 {
		comment = append(comment, "The empty repositories are excluded: the files would be their first commit; drop them from exclude for that.")
	}
	b.Add(&forgev1.FileSet{
		TypeMeta:   export.TypeMeta("FileSet"),
		ObjectMeta: b.Meta("FileSet", org+"-shared-files", int64(b.Len())),
		Spec: forgev1.FileSetSpec{
			ManagedSpec:    b.Managed(),
			DeletionPolicy: forgev1.DeletionPolicyOrphan,
			Repositories:   forgev1.RepositorySelector{Organization: new(forgev1.OwnerName(org)), Exclude: empty},
			FilesSpec:      forgev1.FilesSpec{Files: files},
		},
	}, append(comment, notes...)...)
	return nil
}

// sharedFile is the content of path p when every repository holds it as
// the same regular file, read once from the first; else why not. The
// content is compared with each repository's blob id in that
// repository's object format (a sha256 repository names the same bytes
// otherwise).
func sharedFile(ctx context.Context, src fileSetExportSource, p string, repos []exportedRepoFiles) ([]byte, string, error) {
	var missing, notFile []string
	for _, r := range repos {
		e, ok := r.entries[p]
		switch {
		case !ok && r.noBranch:
			missing = append(missing, r.name()+" (its default branch "+r.repo.DefaultBranch+" is not there)")
		case !ok:
			missing = append(missing, r.name())
		case e.Type != "blob" || e.Mode == "120000":
			notFile = append(notFile, r.name())
		}
	}
	if len(missing) > 0 {
		return nil, "missing in " + someOf(missing), nil
	}
	if len(notFile) > 0 {
		return nil, "not a regular file (a directory, a link or a submodule) in " + someOf(notFile), nil
	}
	first := repos[0]
	e := first.entries[p]
	if e.Size > 4*maxFileContent {
		return nil, fmt.Sprintf("%d bytes, over the %d characters a FileSet's content holds", e.Size, maxFileContent), nil
	}
	owner, name, _ := strings.Cut(first.name(), "/")
	content, err := src.GetBlob(ctx, owner, name, e.SHA)
	var fe *forge.Error
	if errors.As(err, &fe) && fe.Kind == forge.KindInvalidResponse {
		return nil, "its content could not be read from " + first.name() + ": " + fe.Error(), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read %s of %s: %w", p, first.name(), err)
	}
	switch {
	case !utf8.Valid(content):
		return nil, "not text (a FileSet's content is UTF-8 text)", nil
	case utf8.RuneCount(content) > maxFileContent:
		return nil, fmt.Sprintf("over the %d characters a FileSet's content holds", maxFileContent), nil
	}
	var differs []string
	for _, r := range repos {
		if r.entries[p].SHA != forge.BlobID(content, r.repo.ObjectFormat) {
			differs = append(differs, r.name())
		}
	}
	if len(differs) > 0 {
		return nil, "differs from " + first.name() + "'s in " + someOf(differs), nil
	}
	return content, "", nil
}

// someOf names the first few of names, and how many more.
func someOf(names []string) string {
	const shown = 5
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}
