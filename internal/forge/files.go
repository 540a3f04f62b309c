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
	"context"
	"crypto/sha1" //nolint:gosec // git's object ids are SHA-1: this is an id, not a security check
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Files kept in repositories: a branch's tree, GET
// /repos/{o}/{r}/git/trees/{ref}?recursive=true, and one commit of several
// files, POST /repos/{o}/{r}/contents (the change-files call).
//
// What the forge does, read in Gitea's routers/api/v1/repo/file.go and
// tree.go, services/repository/files/update.go and tree.go, probed on
// 1.24.6, 1.25.5, 1.26.4 and 1.27.3 and held by the contract suite
// (contract_files_test.go) on the fake and the live releases; the fake
// (internal/fakeforge/handlers_files.go) answers the same:
//
//   - The tree of a branch (a branch name, a commit or a tree id is taken
//     for {ref}) lists blobs, trees (directories, "040000") and
//     submodules ("commit"), paths from the root, in git's order. It is
//     paged by page and per_page (at most 1000, the server's
//     DefaultGitTreesPerPage, which is also the default), not by limit:
//     each page answers the tree's sha, page, total_count and truncated
//     (true while entries follow); a page past the end answers tree null.
//     1.27.3 also sends X-Total-Count, 1.24.6 does not.
//   - A blob's sha is git's object id of its content:
//     sha1("blob <len>\x00" + content), so the forge's tree is compared with
//     the wanted contents without downloading a file (BlobID). A
//     repository made with object_format_name sha256 names its objects
//     with SHA-256 of the same bytes; Gitea makes one only where its git is
//     2.42 or later (on an older git the create is a 500, as on the test
//     machine, so that format is computed here but not probed).
//   - An empty repository (no commit yet) and a branch that does not exist
//     answer the tree with 400 "sha not found [<ref>]" (IsRefNotFound).
//   - The change-files call makes ONE commit of every operation it carries
//     (create, update, delete; 1.27 adds upload and rename, which the
//     operator does not use), on branch (default: the default branch),
//     with message (default: Gitea's "Add x", "Update y") and author (the
//     committer too when only the author is given; default: the token's
//     user). It answers 201 with the commit (sha, author, committer,
//     message with a "\n" appended, parents). Files empty still makes an
//     (empty) commit: the operator never sends one.
//   - On an empty repository the files become the first commit, on branch
//     (which becomes the default branch): no new_branch is needed.
//   - A create of a path that exists is 422 "repository file already
//     exists [path: p]"; an update or delete whose sha is not the file's is
//     422 "sha does not match [given: a, expected: b]"; an update or delete
//     of a missing file is 404 "object does not exist [id: , rel_path: p]"
//     on 1.26.4 and 1.27.3; 1.25.5 words a delete's "repository file does
//     not exist [path: p]"; 1.24.6 answers both with 500 and those words. Those are what a commit made between the tree listing and the
//     write (a stale base) meets (IsStaleBase). Update and delete accept
//     no sha (the branch's head is taken then): the operator always sends
//     the sha it listed, so that such a concurrent edit is not overwritten.
//   - A branch rule whose push the user may not use is 403 "user cannot
//     commit to repo [user: u]"; a path its protected_file_patterns match
//     403 "path is protected and can not be changed [path: p]"; a .git path
//     component 422 "path contains a malformed path component [path: p]";
//     a path where a directory is 422 "a directory exists where you’re
//     trying to create a file [path: p]"; an unknown branch 404 "branch
//     does not exist [repo_id: n name: b]"; content that is not base64 422;
//     an archived repository 423 ("repo is not allowed to edit" on 1.27.3,
//     "o/r is not allowed to edit" on 1.25.5 and 1.26.4, "<Repository
//     n:o/r> is archived" on 1.24.6).
//   - A blob by its id, GET /repos/{o}/{r}/git/blobs/{sha} (export reads
//     one file's content so, once, never the loop): 200 with content
//     (base64), encoding, sha and size; an id the repository lacks (an
//     empty repository lacks every one) is 400 "object does not exist
//     [id: <sha>, rel_path: ]" on 1.24.6 to 1.27.3. A blob over the
//     server's [api] DEFAULT_MAX_BLOB_SIZE (10 MiB by default) is answered
//     without content (read in services/repository/files/content.go).

// FilesClient reads a branch's tree and commits files.
type FilesClient interface {
	// ListTree lists the whole tree of ref, recursively, every page; an
	// empty repository or an unknown ref is a 400 (IsRefNotFound).
	ListTree(ctx context.Context, owner, repo, ref string) (*Tree, error)
	// ChangeFiles makes one commit of opt.Files and answers it.
	ChangeFiles(ctx context.Context, owner, repo string, opt ChangeFilesOption) (*FileCommit, error)
	// GetBlob reads the content of the blob sha (an id a tree listed).
	GetBlob(ctx context.Context, owner, repo, sha string) ([]byte, error)
}

var _ FilesClient = (*Client)(nil)

// Tree is a branch's tree as listed: its id and every entry.
type Tree struct {
	SHA     string
	Entries []TreeEntry
}

// TreeEntry is one entry of a tree listing.
type TreeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	// Type is blob, tree or commit (a submodule).
	Type string `json:"type"`
	Size int64  `json:"size"`
	SHA  string `json:"sha"`
}

// Blobs gives the blobs of the tree by path.
func (t *Tree) Blobs() map[string]string {
	out := make(map[string]string, len(t.Entries))
	for _, e := range t.Entries {
		if e.Type == "blob" {
			out[e.Path] = e.SHA
		}
	}
	return out
}

// ChangeFilesOption is the body of POST /repos/{o}/{r}/contents.
type ChangeFilesOption struct {
	Branch  string                `json:"branch,omitempty"`
	Message string                `json:"message,omitempty"`
	Author  *CommitIdentity       `json:"author,omitempty"`
	Files   []ChangeFileOperation `json:"files"`
}

// CommitIdentity names a commit's author.
type CommitIdentity struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// File operations of the change-files call the operator uses.
const (
	FileCreate = "create"
	FileUpdate = "update"
	FileDelete = "delete"
)

// ChangeFileOperation is one file of a commit: its content (base64) for a
// create or an update, the sha it replaces for an update or a delete.
type ChangeFileOperation struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Content   string `json:"content,omitempty"`
	SHA       string `json:"sha,omitempty"`
}

// FileContent gives content as the change-files call takes it.
func FileContent(content []byte) string { return base64.StdEncoding.EncodeToString(content) }

// FileCommit is the commit the change-files call made.
type FileCommit struct {
	SHA       string      `json:"sha"`
	Message   string      `json:"message"`
	Author    *CommitUser `json:"author"`
	Committer *CommitUser `json:"committer"`
	Parents   []struct {
		SHA string `json:"sha"`
	} `json:"parents"`
}

// CommitUser is a commit's author or committer.
type CommitUser struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// ObjectFormatSHA256 is the object_format_name of a repository whose git
// objects are named by SHA-256; any other (sha1, or none on an old
// server) is SHA-1.
const ObjectFormatSHA256 = "sha256"

// BlobID is git's id of a blob holding content, in the object format of
// the repository: the hash of "blob <len>\x00" followed by content.
func BlobID(content []byte, objectFormat string) string {
	header := "blob " + strconv.Itoa(len(content)) + "\x00"
	if objectFormat == ObjectFormatSHA256 {
		h := sha256.New()
		h.Write([]byte(header))
		h.Write(content)
		return hex.EncodeToString(h.Sum(nil))
	}
	h := sha1.New() //nolint:gosec // git's object id
	h.Write([]byte(header))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// asForgeError unwraps the client's error.
func asForgeError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsRefNotFound reports the tree listing's answer for a ref the
// repository lacks, also every ref of an empty repository.
func IsRefNotFound(err error) bool {
	e, ok := asForgeError(err)
	return ok && e.StatusCode == http.StatusBadRequest && strings.HasPrefix(e.Message, "sha not found")
}

// IsStaleBase reports a change-files call refused because the branch
// changed since its tree was listed: a file created, edited or deleted by
// another commit in between (see the facts above). Listing again and
// writing again is the answer.
func IsStaleBase(err error) bool {
	e, ok := asForgeError(err)
	if !ok {
		return false
	}
	switch e.StatusCode {
	case http.StatusUnprocessableEntity:
		return strings.HasPrefix(e.Message, "sha does not match") || strings.HasPrefix(e.Message, "repository file already exists")
	case http.StatusNotFound, http.StatusInternalServerError:
		return strings.HasPrefix(e.Message, "object does not exist") || strings.HasPrefix(e.Message, "repository file does not exist")
	}
	return false
}

// treePerPage is the largest page the forge serves (its default too).
const treePerPage = 1000

// maxTreePages bounds a tree listing (a million entries would take a
// thousand pages): a tree larger is refused rather than read for ever.
const maxTreePages = 100

type treePage struct {
	SHA        string      `json:"sha"`
	Entries    []TreeEntry `json:"tree"`
	Truncated  bool        `json:"truncated"`
	Page       int         `json:"page"`
	TotalCount int         `json:"total_count"`
}

// ListTree implements FilesClient: page by page while the forge says the
// tree is truncated. Every page must be of one tree (the same sha) and
// the entries must add up to total_count; a branch moved during the walk
// is walked again, once.
func (c *Client) ListTree(ctx context.Context, owner, repo, ref string) (*Tree, error) {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var t *Tree
		t, err = c.listTreeOnce(ctx, owner, repo, ref)
		if err == nil || !isInconsistent(err) {
			return t, err
		}
	}
	return nil, err
}

func isInconsistent(err error) bool { return errors.Is(err, errInconsistent) }

func (c *Client) listTreeOnce(ctx context.Context, owner, repo, ref string) (*Tree, error) {
	base, args := RepoScope(owner, repo).routePrefix()
	cl := call{op: fmt.Sprintf("list tree %q of repository %s/%s", ref, owner, repo), method: http.MethodGet,
		route: base + "/git/trees/{ref}", args: append(args, ref)}
	out := &Tree{}
	for page := 1; ; page++ {
		if page > maxTreePages {
			return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the tree has more than %d pages of %d entries", maxTreePages, treePerPage)})
		}
		pc := cl
		pc.query = url.Values{"recursive": {"true"}, "page": {strconv.Itoa(page)}, "per_page": {strconv.Itoa(treePerPage)}}
		var p treePage
		if _, err := c.doJSON(ctx, pc, &p); err != nil {
			return nil, err
		}
		switch {
		case page == 1:
			out.SHA = p.SHA
		case p.SHA != out.SHA:
			return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the branch moved from tree %s to %s during the listing: %w", out.SHA, p.SHA, errInconsistent)})
		}
		out.Entries = append(out.Entries, p.Entries...)
		if !p.Truncated || len(p.Entries) == 0 {
			if len(out.Entries) != p.TotalCount {
				return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the listing holds %d entries of %d: %w", len(out.Entries), p.TotalCount, errInconsistent)})
			}
			return out, nil
		}
	}
}

// ChangeFiles implements FilesClient. The answer must name the commit.
func (c *Client) ChangeFiles(ctx context.Context, owner, repo string, opt ChangeFilesOption) (*FileCommit, error) {
	base, args := RepoScope(owner, repo).routePrefix()
	paths := make([]string, 0, len(opt.Files))
	for _, f := range opt.Files {
		paths = append(paths, f.Path)
	}
	cl := call{op: fmt.Sprintf("commit %s to repository %s/%s", strings.Join(paths, ", "), owner, repo), method: http.MethodPost,
		route: base + "/contents", args: args, body: opt}
	var out struct {
		Commit *FileCommit `json:"commit"`
	}
	if _, err := c.doJSON(ctx, cl, &out); err != nil {
		return nil, err
	}
	if out.Commit == nil || out.Commit.SHA == "" {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the forge answered the commit without its sha")})
	}
	return out.Commit, nil
}

// ListTree through Snapshots: a branch's tree is read afresh by the one
// pass that compares it, never kept, but a drift check's listing still
// takes its turn in the forge's drift lane and counts in its drift load
// (status.driftScopes), as the kept listings do; otherwise the file kinds'
// checks would spend the half of the rate kept for creates and updates,
// and a Forge's sizing would not see them.
func (s *Snapshots) ListTree(ctx context.Context, owner, repo, ref string) (*Tree, error) {
	return afresh(ctx, s, "trees", strings.ToLower(owner+"/"+repo)+"@"+ref, func(ctx context.Context) (*Tree, error) {
		return s.Interface.ListTree(ctx, owner, repo, ref)
	})
}

// GetBlob implements FilesClient. A blob the forge answers without its
// content (over its size limit) is an error, as is content that is not
// base64 or not of the blob's size.
func (c *Client) GetBlob(ctx context.Context, owner, repo, sha string) ([]byte, error) {
	base, args := RepoScope(owner, repo).routePrefix()
	cl := call{op: fmt.Sprintf("read blob %s of repository %s/%s", sha, owner, repo), method: http.MethodGet,
		route: base + "/git/blobs/{sha}", args: append(args, sha)}
	var out struct {
		Content  *string `json:"content"`
		Encoding *string `json:"encoding"`
		Size     int64   `json:"size"`
	}
	if _, err := c.doJSON(ctx, cl, &out); err != nil {
		return nil, err
	}
	if out.Content == nil {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the forge sends no content of the blob (%d bytes, over its limit of blobs it serves)", out.Size)})
	}
	if out.Encoding == nil || *out.Encoding != "base64" {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the blob's content is not base64")})
	}
	data, err := base64.StdEncoding.DecodeString(*out.Content)
	if err != nil || int64(len(data)) != out.Size {
		return nil, c.fail(cl, &Error{Kind: KindInvalidResponse, Err: fmt.Errorf("the blob's content is not %d bytes of base64", out.Size)})
	}
	return data, nil
}
