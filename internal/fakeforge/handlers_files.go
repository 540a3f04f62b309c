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
	"crypto/sha1" //nolint:gosec // git's object ids
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Files in repositories as Gitea 1.24.6 and 1.27.3 serve them (probed; the
// facts are in internal/forge/files.go and held by the contract suite): a
// branch's tree, paged by page and per_page, with git's real blob and tree
// ids, and the change-files call making one commit of several files.
// Commits are a branch's history of snapshots; their ids are made up (not
// git's), as nothing compares them with a server's.

// gitBranch is one branch: its head commit and the files at it.
type gitBranch struct {
	commits []gitCommit // oldest first
	files   map[string][]byte
}

func (b *gitBranch) head() *gitCommit { return &b.commits[len(b.commits)-1] }

type gitCommit struct {
	sha                           string
	message                       string
	authorName, authorEmail       string
	committerName, committerEmail string
	parents                       []string
	when                          time.Time
	filesAt                       map[string][]byte
}

// branches are r's git branches, made on first use for a repository that
// has content (auto_init: a README.md, as Gitea's default template writes
// it, "# <name>\n\n<description>").
func (s *Server) branches(r *repo) map[string]*gitBranch {
	if r.git == nil {
		r.git = map[string]*gitBranch{}
		if !r.empty {
			files := map[string][]byte{"README.md": []byte("# " + r.name + "\n\n" + r.description)}
			updated := r.updated // the commit the repository was made with, not a move
			s.commitTo(r, r.settings.defaultBranch, "Initial commit", "", "", files)
			r.updated = updated
		}
	}
	return r.git
}

// commitTo records files as a new head of branch.
func (s *Server) commitTo(r *repo, branch, message, name, email string, files map[string][]byte) *gitCommit {
	b := r.git[branch]
	if b == nil {
		b = &gitBranch{}
		r.git[branch] = b
	}
	c := gitCommit{message: message, authorName: name, authorEmail: email, committerName: name, committerEmail: email,
		when: time.Now().UTC().Truncate(time.Second), filesAt: files}
	if len(b.commits) > 0 {
		c.parents = []string{b.head().sha}
	}
	c.sha = hexSHA1(fmt.Sprintf("commit %d %s %s %s", s.st.next("commit"), treeID(files), strings.Join(c.parents, ","), message))
	b.commits = append(b.commits, c)
	b.files = files
	r.touch()
	return b.head()
}

func hexSHA1(s string) string {
	h := sha1.Sum([]byte(s)) //nolint:gosec // an id
	return hex.EncodeToString(h[:])
}

// treeNode is a directory of a branch's files, for git's tree ids and order.
type treeNode struct {
	blobs map[string][]byte
	dirs  map[string]*treeNode
}

func buildTree(files map[string][]byte) *treeNode {
	root := &treeNode{blobs: map[string][]byte{}, dirs: map[string]*treeNode{}}
	for p, content := range files {
		n := root
		parts := strings.Split(p, "/")
		for _, d := range parts[:len(parts)-1] {
			if n.dirs[d] == nil {
				n.dirs[d] = &treeNode{blobs: map[string][]byte{}, dirs: map[string]*treeNode{}}
			}
			n = n.dirs[d]
		}
		n.blobs[parts[len(parts)-1]] = content
	}
	return root
}

// names are the node's entries in git's order: by name, a directory
// compared as if its name ended in "/".
func (n *treeNode) names() []string {
	var out []string
	for k := range n.blobs {
		out = append(out, k)
	}
	for k := range n.dirs {
		out = append(out, k)
	}
	key := func(k string) string {
		if _, dir := n.dirs[k]; dir {
			return k + "/"
		}
		return k
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return out
}

// id is git's tree object id (sha1) of the node.
func (n *treeNode) id() string {
	var body []byte
	for _, k := range n.names() {
		var mode, id string
		if d, ok := n.dirs[k]; ok {
			mode, id = "40000", d.id()
		} else {
			mode, id = "100644", forge.BlobID(n.blobs[k], "")
		}
		raw, _ := hex.DecodeString(id)
		body = append(body, []byte(mode+" "+k+"\x00")...)
		body = append(body, raw...)
	}
	h := sha1.New() //nolint:gosec // git's object id
	h.Write([]byte("tree " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func treeID(files map[string][]byte) string { return buildTree(files).id() }

// entries lists the node recursively as git ls-tree -r -t does: each
// directory before what it holds.
func (n *treeNode) entries(prefix string, out []forge.TreeEntry) []forge.TreeEntry {
	for _, k := range n.names() {
		if d, ok := n.dirs[k]; ok {
			out = append(out, forge.TreeEntry{Path: prefix + k, Mode: "040000", Type: "tree", SHA: d.id()})
			out = d.entries(prefix+k+"/", out)
			continue
		}
		out = append(out, forge.TreeEntry{Path: prefix + k, Mode: "100644", Type: "blob",
			Size: int64(len(n.blobs[k])), SHA: forge.BlobID(n.blobs[k], "")})
	}
	return out
}

func (s *Server) fileRoutes(h func(string, func(*rc))) {
	h("GET /api/v1/repos/{owner}/{repo}/git/trees/{ref}", s.getTree)
	h("POST /api/v1/repos/{owner}/{repo}/contents", s.changeFiles)
	h("GET /api/v1/repos/{owner}/{repo}/git/blobs/{sha}", s.getBlob)
}

// getBlob serves a blob of any commit of r by its id, its content base64;
// an id r lacks (every one, in an empty repository) is 400 "object does
// not exist". The server's blob size limit is not reproduced: no test
// writes 10 MiB.
func (s *Server) getBlob(c *rc) {
	r := c.repo()
	if r == nil {
		return
	}
	sha := c.r.PathValue("sha")
	for _, b := range s.branches(r) {
		for _, cm := range b.commits {
			for _, content := range cm.filesAt {
				if forge.BlobID(content, "") == sha {
					c.json(http.StatusOK, map[string]any{"content": base64.StdEncoding.EncodeToString(content), "encoding": "base64",
						"url": s.root + "/api/v1/repos/" + s.ownerName(r) + "/" + r.name + "/git/blobs/" + sha, "sha": sha, "size": len(content)})
					return
				}
			}
		}
	}
	c.error(http.StatusBadRequest, "object does not exist [id: "+sha+", rel_path: ]")
}

// getTree serves a branch's tree (a commit id of a branch's history too):
// 400 "sha not found [ref]" for an unknown ref or an empty repository;
// page and per_page (at most 1000); X-Total-Count from 1.27 only.
func (s *Server) getTree(c *rc) {
	r := c.repo()
	if r == nil {
		return
	}
	ref := c.r.PathValue("ref")
	var files map[string][]byte
	var sha string
	for name, b := range s.branches(r) {
		if name == ref {
			files, sha = b.files, b.head().sha
			break
		}
		for _, cm := range b.commits {
			if cm.sha == ref {
				files, sha = cm.filesAt, cm.sha
			}
		}
	}
	if sha == "" {
		c.error(http.StatusBadRequest, "sha not found ["+ref+"]")
		return
	}
	var all []forge.TreeEntry
	if c.r.URL.Query().Get("recursive") == "true" {
		all = buildTree(files).entries("", nil)
	} else {
		root := buildTree(files)
		for _, e := range root.entries("", nil) {
			if !strings.Contains(e.Path, "/") {
				all = append(all, e)
			}
		}
	}
	perPage, _ := strconv.Atoi(c.r.URL.Query().Get("per_page"))
	if perPage <= 0 || perPage > 1000 {
		perPage = 1000
	}
	page, _ := strconv.Atoi(c.r.URL.Query().Get("page"))
	page = max(page, 1)
	out := map[string]any{"sha": sha, "url": s.root + "/api/v1/repos/" + s.ownerName(r) + "/" + r.name + "/git/trees/" + sha,
		"tree": nil, "truncated": false, "page": page, "total_count": len(all)}
	if start := perPage * (page - 1); start < len(all) {
		end := min(start+perPage, len(all))
		tree := make([]map[string]any, 0, end-start)
		for _, e := range all[start:end] {
			kind := "blobs"
			if e.Type == "tree" {
				kind = "trees"
			}
			tree = append(tree, map[string]any{"path": e.Path, "mode": e.Mode, "type": e.Type, "size": e.Size, "sha": e.SHA,
				"url": s.root + "/api/v1/repos/" + s.ownerName(r) + "/" + r.name + "/git/" + kind + "/" + e.SHA})
		}
		out["tree"], out["truncated"] = tree, end < len(all)
	}
	if c.fl == flavorGitea127 {
		c.w.Header().Set("X-Total-Count", strconv.Itoa(len(all)))
		c.w.Header().Add("Access-Control-Expose-Headers", "X-Total-Count")
	}
	c.json(http.StatusOK, out)
}

type changeFilesReq struct {
	Branch  string `json:"branch"`
	Message string `json:"message"`
	Author  struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"author"`
	Files []forge.ChangeFileOperation `json:"files"`
}

// changeFiles is POST /repos/{o}/{r}/contents: one commit of every file,
// checked in Gitea's order: the archive (423), write access (403), each
// content's base64 (422), the branch (404, unless the repository is
// empty), the paths (422), the branch's rule (403), then file by file the
// stale-base answers (404, or on 1.24 a 500, for a missing file; 422 for a
// sha that is not the file's or a create of a file that exists) and a
// directory in the way (422).
func (s *Server) changeFiles(c *rc) {
	r := c.repo()
	if r == nil || !c.requireToken() {
		return
	}
	var req changeFilesReq
	if !c.bind(&req) || !s.mayChangeFiles(c, r) {
		return
	}
	contents, ok := decodeContents(c, req.Files)
	if !ok {
		return
	}
	branch := req.Branch
	if branch == "" {
		branch = r.settings.defaultBranch
	}
	b := s.branches(r)[branch]
	if b == nil && !r.empty {
		c.error(http.StatusNotFound, fmt.Sprintf("branch does not exist [repo_id: %d name: %s]", r.id, branch))
		return
	}
	if !s.pathsAllowed(c, r, branch, req.Files) {
		return
	}
	files := map[string][]byte{}
	if b != nil {
		maps.Copy(files, b.files)
	}
	for i, f := range req.Files {
		if !s.applyFile(c, files, f, contents[i]) {
			return
		}
	}
	name, email := req.Author.Name, req.Author.Email
	if name == "" && email == "" {
		name, email = c.doer.login, c.doer.mail()
	}
	message := strings.TrimSpace(req.Message)
	if message == "" {
		message = defaultCommitMessage(req.Files)
	}
	cm := s.commitTo(r, branch, message+"\n", name, email, files)
	if r.empty {
		// The first commit makes the repository and its default branch.
		r.empty, r.settings.defaultBranch = false, branch
	}
	var answered []any
	for _, f := range req.Files {
		p := cleanFilePath(f.Path)
		if f.Operation == forge.FileDelete {
			answered = append(answered, nil)
			continue
		}
		answered = append(answered, map[string]any{"name": path.Base(p), "path": p, "sha": forge.BlobID(files[p], ""),
			"type": "file", "size": len(files[p]), "last_commit_sha": cm.sha})
	}
	// A commit through the contents API is a push to its branch, as
	// Gitea's hooks see it (the operator's own commits too).
	s.pushed(r, branch, cm.sha)
	c.json(http.StatusCreated, map[string]any{"files": answered, "commit": s.commitJSON(r, cm)})
}

// mayChangeFiles refuses an archived repository (423, worded by release)
// and a caller without write access (403).
func (s *Server) mayChangeFiles(c *rc, r *repo) bool {
	if r.archived {
		msg := s.ownerName(r) + "/" + r.name + " is not allowed to edit"
		switch {
		case c.fl == flavorGitea127:
			msg = "repo is not allowed to edit"
		case s.versionIs("1.24."):
			msg = fmt.Sprintf("<Repository %d:%s/%s> is archived", r.id, s.ownerName(r), r.name)
		}
		c.error(http.StatusLocked, msg)
		return false
	}
	if !c.isRepoAdmin(r) {
		c.error(http.StatusForbidden, "user should have a permission to write to the target branch")
		return false
	}
	return true
}

// decodeContents decodes each file's base64 content (422 on the first
// that is not).
func decodeContents(c *rc, files []forge.ChangeFileOperation) ([][]byte, bool) {
	contents := make([][]byte, len(files))
	for i, f := range files {
		b, err := base64.StdEncoding.DecodeString(f.Content)
		if err != nil {
			c.validation(err.Error())
			return nil, false
		}
		contents[i] = b
	}
	return contents, true
}

// pathsAllowed refuses a .git component (422), then what the branch's
// rule refuses: a push the user may not make, a protected path (403).
func (s *Server) pathsAllowed(c *rc, r *repo, branch string, files []forge.ChangeFileOperation) bool {
	for _, f := range files {
		if cleanFilePath(f.Path) == "" {
			c.validation("path contains a malformed path component [path: " + f.Path + "]")
			return false
		}
	}
	rule := s.ruleFor(r, branch)
	if rule == nil {
		return true
	}
	for _, f := range files {
		if !s.canPushTo(rule, c.doer) && !matchesFilePatterns(rule.unprotectedFilePatterns, f.Path) {
			c.error(http.StatusForbidden, "user cannot commit to repo [user: "+strings.ToLower(c.doer.login)+"]")
			return false
		}
		if matchesFilePatterns(rule.protectedFilePatterns, f.Path) {
			c.error(http.StatusForbidden, "path is protected and can not be changed [path: "+cleanFilePath(f.Path)+"]")
			return false
		}
	}
	return true
}

// applyFile applies one operation to files, or answers why the forge
// refuses it: a missing file (404 from 1.25, a 500 on 1.24; before 1.26 a
// delete's own look-up words it otherwise than an update's read), a sha
// that is not the file's or a create of a file that exists (422), a
// directory in the way (422).
func (s *Server) applyFile(c *rc, files map[string][]byte, f forge.ChangeFileOperation, content []byte) bool {
	p := cleanFilePath(f.Path)
	have, exists := files[p]
	if !exists && (f.Operation == forge.FileUpdate || f.Operation == forge.FileDelete) {
		status, msg := http.StatusNotFound, "object does not exist [id: , rel_path: "+p+"]"
		if s.versionIs("1.24.") {
			status = http.StatusInternalServerError
		}
		if f.Operation == forge.FileDelete && (s.versionIs("1.24.") || s.versionIs("1.25.")) {
			msg = "repository file does not exist [path: " + p + "]"
		}
		c.error(status, msg)
		return false
	}
	if exists && f.SHA != "" && f.SHA != forge.BlobID(have, "") && f.Operation != forge.FileCreate {
		c.validation("sha does not match [given: " + f.SHA + ", expected: " + forge.BlobID(have, "") + "]")
		return false
	}
	switch f.Operation {
	case forge.FileCreate, forge.FileUpdate:
		if f.Operation == forge.FileCreate && exists {
			c.validation("repository file already exists [path: " + p + "]")
			return false
		}
		for k := range files {
			if strings.HasPrefix(k, p+"/") {
				c.validation("a directory exists where you’re trying to create a file [path: " + p + "]")
				return false
			}
		}
		files[p] = content
	case forge.FileDelete:
		delete(files, p)
	default:
		c.validation("[Operation]: invalid operation " + f.Operation)
		return false
	}
	return true
}

func (s *Server) commitJSON(r *repo, cm *gitCommit) map[string]any {
	parents := []map[string]any{}
	for _, p := range cm.parents {
		parents = append(parents, map[string]any{"sha": p})
	}
	who := func(n, e string) map[string]any {
		return map[string]any{"name": n, "email": e, "date": cm.when.Format(time.RFC3339)}
	}
	return map[string]any{"sha": cm.sha, "url": s.root + "/api/v1/repos/" + s.ownerName(r) + "/" + r.name + "/git/commits/" + cm.sha,
		"author": who(cm.authorName, cm.authorEmail), "committer": who(cm.committerName, cm.committerEmail),
		"parents": parents, "message": cm.message, "tree": map[string]any{"sha": treeID(cm.filesAt)}}
}

// defaultCommitMessage is Gitea's when none is sent ("Add a", "Update b",
// "Delete c", one line each).
func defaultCommitMessage(files []forge.ChangeFileOperation) string {
	var add, upd, del []string
	for _, f := range files {
		switch f.Operation {
		case forge.FileCreate:
			add = append(add, f.Path)
		case forge.FileUpdate:
			upd = append(upd, f.Path)
		case forge.FileDelete:
			del = append(del, f.Path)
		}
	}
	var lines []string
	for _, g := range []struct {
		verb  string
		paths []string
	}{{"Add", add}, {"Update", upd}, {"Delete", del}} {
		if len(g.paths) > 0 {
			lines = append(lines, g.verb+" "+strings.Join(g.paths, ", "))
		}
	}
	return strings.Join(lines, "\n")
}

// cleanFilePath is Gitea's CleanUploadFileName: the path made relative and
// clean, "" when a component is .git (any case).
func cleanFilePath(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
	for _, part := range strings.Split(p, "/") {
		if strings.EqualFold(part, ".git") {
			return ""
		}
	}
	return p
}

// ruleFor is the first rule of r matching branch: its exact name, else a
// glob (path.Match stands in for Gitea's glob, '/' separating).
func (s *Server) ruleFor(r *repo, branch string) *branchRule {
	rules := sortedRules(s.st.branchRules.in(owner{repo: true, id: r.id}))
	for _, b := range rules {
		if b.name == branch {
			return b
		}
	}
	for _, b := range rules {
		if ok, _ := path.Match(b.name, branch); ok && isGlobRule(b.name) {
			return b
		}
	}
	return nil
}

// canPushTo is CanUserPush: push enabled, and then anyone with write
// access, or only the allow-listed users and teams' members. The 1.27
// bypass allow-list is not consulted by the change-files call.
func (s *Server) canPushTo(b *branchRule, u *user) bool {
	if !b.canPush {
		return false
	}
	if !b.enableWhitelist {
		return true
	}
	if slices.Contains(b.whitelistUsers, u.id) {
		return true
	}
	for _, t := range s.st.teams.where(nil) {
		if slices.Contains(b.whitelistTeams, t.id) && t.members[u.id] {
			return true
		}
	}
	return false
}

// matchesFilePatterns is Gitea's protected/unprotected file pattern test:
// ";"-separated globs, lower-cased, matched against the lower-cased path.
func matchesFilePatterns(patterns, p string) bool {
	for _, g := range strings.Split(strings.ToLower(patterns), ";") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		if ok, _ := path.Match(g, strings.ToLower(p)); ok {
			return true
		}
	}
	return false
}

// ---- Go-side reads for the specs ----

// Files returns the files of a branch ("" the default branch) by path,
// nil when it has none.
func (s *Server) Files(ownerName, repoName, branch string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	if branch == "" {
		branch = r.settings.defaultBranch
	}
	b := s.branches(r)[branch]
	if b == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range b.files {
		out[k] = string(v)
	}
	return out
}

// Commits returns the commits of a branch ("" the default branch), the
// newest first.
func (s *Server) Commits(ownerName, repoName, branch string) []forge.FileCommit {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoByName(ownerName, repoName)
	if r == nil {
		return nil
	}
	if branch == "" {
		branch = r.settings.defaultBranch
	}
	b := s.branches(r)[branch]
	if b == nil {
		return nil
	}
	var out []forge.FileCommit
	for i := len(b.commits) - 1; i >= 0; i-- {
		cm := b.commits[i]
		fc := forge.FileCommit{SHA: cm.sha, Message: cm.message,
			Author:    &forge.CommitUser{Name: cm.authorName, Email: cm.authorEmail},
			Committer: &forge.CommitUser{Name: cm.committerName, Email: cm.committerEmail}}
		for _, p := range cm.parents {
			fc.Parents = append(fc.Parents, struct {
				SHA string `json:"sha"`
			}{SHA: p})
		}
		out = append(out, fc)
	}
	return out
}

var _ = registerRoutes((*Server).fileRoutes)
