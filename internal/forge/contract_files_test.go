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

package forge_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// fileBehaviours are what the RepositoryFile kind relies on, read in
// Gitea's routers/api/v1/repo/file.go and tree.go and
// services/repository/files, and probed on 1.24.6 and 1.27.3 before the
// fake learnt them. They register themselves with TestContract.
var _ = registerBehaviours("file", []behaviour{
	{"files/one commit of several files; the tree lists them with git's blob ids", contractFilesCommit, nil},
	{"files/the tree is paged by page and per_page, with truncated and total_count", contractFilesTreePaging, nil},
	{"files/an empty repository: no tree; the files are its first commit", contractFilesEmptyRepo, nil},
	{"files/a stale base, a branch rule, a bad path, an unknown branch, an archived repository are refused", contractFilesRefused, nil},
	{"files/a rule's push allow-list lets the user commit; 1.27's bypass allow-list does not", contractFilesAllowLists, nil},
	{"files/a blob's content by the id a tree lists; an id the repository lacks is a 400", contractFilesBlob, nil},
	{"files/the fake as Gitea 1.24.6 and 1.25.5: a missing file worded otherwise (a 500 on 1.24), the archive too", contractFilesOldFake, needFake},
})

// filesRepo makes a repository with a first commit (auto_init: README.md).
func filesRepo(t *testing.T, tg *target) (org, repo string) {
	org = tg.org()
	repo = uniqueName("files")
	_, err := tg.c.CreateOrgRepo(ctx(t), org, forge.CreateRepoOption{Name: repo, AutoInit: true, DefaultBranch: "main"})
	mustNoErr(t, err)
	return org, repo
}

func create(p, content string) forge.ChangeFileOperation {
	return forge.ChangeFileOperation{Operation: forge.FileCreate, Path: p, Content: forge.FileContent([]byte(content))}
}

func blobsOf(t *testing.T, tg *target, org, repo, ref string) map[string]string {
	t.Helper()
	tree, err := tg.c.ListTree(ctx(t), org, repo, ref)
	mustNoErr(t, err)
	return tree.Blobs()
}

func contractFilesCommit(t *testing.T, tg *target) {
	org, repo := filesRepo(t, tg)
	readme := "# " + repo + "\n\n"
	if d := cmp.Diff(map[string]string{"README.md": forge.BlobID([]byte(readme), "")}, blobsOf(t, tg, org, repo, "main")); d != "" {
		t.Fatalf("auto_init's README (-want +got):\n%s", d)
	}
	// git's own id of "hello\n" (git hash-object), as the forge names it.
	if id := forge.BlobID([]byte("hello\n"), ""); id != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Fatalf("BlobID: %s", id)
	}
	before, err := tg.c.ListTree(ctx(t), org, repo, "main")
	mustNoErr(t, err)
	cm, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{
		Branch: "main", Message: "chore: files kept", Author: &forge.CommitIdentity{Name: "Files Bot", Email: "bot@example.com"},
		Files: []forge.ChangeFileOperation{create(".gitea/CODEOWNERS", "* @acme/platform\n"), create("a.txt", "hello\n"),
			create("docs/deep/b.md", "b")}})
	mustNoErr(t, err)
	if cm.SHA == "" || cm.Message != "chore: files kept\n" || len(cm.Parents) != 1 || cm.Parents[0].SHA != before.SHA {
		t.Fatalf("the commit: %+v (the branch was at %s)", cm, before.SHA)
	}
	// The author is the committer too when only the author is sent.
	for _, u := range []*forge.CommitUser{cm.Author, cm.Committer} {
		if u == nil || u.Name != "Files Bot" || u.Email != "bot@example.com" {
			t.Fatalf("author and committer: %+v %+v", cm.Author, cm.Committer)
		}
	}
	tree, err := tg.c.ListTree(ctx(t), org, repo, "main")
	mustNoErr(t, err)
	if tree.SHA != cm.SHA {
		t.Fatalf("a branch's tree answers its head commit's id: %s, want %s", tree.SHA, cm.SHA)
	}
	want := map[string]string{
		"README.md":         forge.BlobID([]byte(readme), ""),
		".gitea/CODEOWNERS": forge.BlobID([]byte("* @acme/platform\n"), ""),
		"a.txt":             "ce013625030ba8dba906f756967f9e9ca394464a",
		"docs/deep/b.md":    forge.BlobID([]byte("b"), ""),
	}
	if d := cmp.Diff(want, tree.Blobs()); d != "" {
		t.Fatalf("the tree's blobs (-want +got):\n%s", d)
	}
	// Directories are listed as trees, before what they hold, in git's order.
	var paths []string
	for _, e := range tree.Entries {
		paths = append(paths, e.Type+" "+e.Path)
	}
	wantPaths := []string{"tree .gitea", "blob .gitea/CODEOWNERS", "blob README.md", "blob a.txt", "tree docs", "tree docs/deep", "blob docs/deep/b.md"}
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Fatalf("the tree's order (-want +got):\n%s", d)
	}
	// Update and delete in one more commit, each with the sha it replaces;
	// no message: the forge writes its own.
	cm2, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Branch: "main", Files: []forge.ChangeFileOperation{
		{Operation: forge.FileUpdate, Path: "a.txt", SHA: want["a.txt"], Content: forge.FileContent([]byte("bye\n"))},
		{Operation: forge.FileDelete, Path: "docs/deep/b.md", SHA: want["docs/deep/b.md"]}}})
	mustNoErr(t, err)
	if len(cm2.Parents) != 1 || cm2.Parents[0].SHA != cm.SHA || !strings.Contains(cm2.Message, "Update a.txt") || !strings.Contains(cm2.Message, "Delete docs/deep/b.md") {
		t.Fatalf("the second commit: %+v", cm2)
	}
	got := blobsOf(t, tg, org, repo, "main")
	if got["a.txt"] != forge.BlobID([]byte("bye\n"), "") || got["docs/deep/b.md"] != "" || len(got) != 3 {
		t.Fatalf("after update and delete: %v", got)
	}
	// An older commit's tree is still there by its id.
	old := blobsOf(t, tg, org, repo, cm.SHA)
	if old["a.txt"] != want["a.txt"] {
		t.Fatalf("the tree of %s: %v", cm.SHA, old)
	}
}

func contractFilesBlob(t *testing.T, tg *target) {
	org, repo := filesRepo(t, tg)
	binary := string([]byte{0xff, 0x00, 0x01})
	_, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{
		create("a.txt", "hello\n"), create("bin", binary)}})
	mustNoErr(t, err)
	blobs := blobsOf(t, tg, org, repo, "main")
	for p, want := range map[string]string{"a.txt": "hello\n", "bin": binary} {
		got, err := tg.c.GetBlob(ctx(t), org, repo, blobs[p])
		mustNoErr(t, err)
		if string(got) != want {
			t.Fatalf("blob of %s: %q, want %q", p, got, want)
		}
	}
	missing := forge.BlobID([]byte("never written"), "")
	_, err = tg.c.GetBlob(ctx(t), org, repo, missing)
	wantStatus(t, err, http.StatusBadRequest, "object does not exist [id: "+missing+", rel_path: ]")
	empty := tg.repo(org)
	_, err = tg.c.GetBlob(ctx(t), org, empty, blobs["a.txt"])
	wantStatus(t, err, http.StatusBadRequest, "object does not exist")
}

func contractFilesTreePaging(t *testing.T, tg *target) {
	org, repo := filesRepo(t, tg)
	_, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{
		create("d/x.txt", "x"), create("d/y.txt", "y"), create("z.txt", "z")}})
	mustNoErr(t, err)
	type page struct {
		SHA        string            `json:"sha"`
		Tree       []json.RawMessage `json:"tree"`
		Truncated  bool              `json:"truncated"`
		Page       int               `json:"page"`
		TotalCount int               `json:"total_count"`
	}
	read := func(q string) page {
		t.Helper()
		status, body := tg.raw(http.MethodGet, "/api/v1/repos/"+org+"/"+repo+"/git/trees/main?recursive=true&"+q, nil)
		if status != http.StatusOK {
			t.Fatalf("tree %s: %d %s", q, status, body)
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// README.md, d, d/x.txt, d/y.txt, z.txt: five entries.
	p1, p3, past := read("per_page=2&page=1"), read("per_page=2&page=3"), read("per_page=2&page=9")
	if len(p1.Tree) != 2 || !p1.Truncated || p1.Page != 1 || p1.TotalCount != 5 {
		t.Fatalf("page 1: %+v", p1)
	}
	if len(p3.Tree) != 1 || p3.Truncated || p3.TotalCount != 5 || p3.SHA != p1.SHA {
		t.Fatalf("page 3: %+v", p3)
	}
	if past.Tree != nil || past.Truncated || past.TotalCount != 5 {
		t.Fatalf("past the end: %+v", past)
	}
	// limit is not how it pages: all five at once.
	if all := read("limit=2"); len(all.Tree) != 5 || all.Truncated {
		t.Fatalf("limit ignored: %+v", all)
	}
	tree, err := tg.c.ListTree(ctx(t), org, repo, "main")
	mustNoErr(t, err)
	if len(tree.Entries) != 5 {
		t.Fatalf("ListTree: %+v", tree)
	}
}

func contractFilesEmptyRepo(t *testing.T, tg *target) {
	org := tg.org()
	repo := tg.repo(org)
	_, err := tg.c.ListTree(ctx(t), org, repo, "main")
	wantStatus(t, err, http.StatusBadRequest, "sha not found [main]")
	if !forge.IsRefNotFound(err) {
		t.Fatalf("IsRefNotFound: %v", err)
	}
	// No new_branch: the files become the first commit of the branch sent,
	// which becomes the default one.
	cm, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Branch: "trunk", Message: "first",
		Files: []forge.ChangeFileOperation{create("a.txt", "hello\n"), create(".gitea/CODEOWNERS", "* @x\n")}})
	mustNoErr(t, err)
	if len(cm.Parents) != 0 {
		t.Fatalf("a first commit has no parent: %+v", cm)
	}
	r, err := tg.c.GetRepo(ctx(t), org, repo)
	mustNoErr(t, err)
	if r.Empty || r.DefaultBranch != "trunk" || r.ObjectFormat != "sha1" {
		t.Fatalf("after the first commit: empty %v, default branch %q, object format %q", r.Empty, r.DefaultBranch, r.ObjectFormat)
	}
	if got := blobsOf(t, tg, org, repo, "trunk"); len(got) != 2 || got["a.txt"] != forge.BlobID([]byte("hello\n"), "") {
		t.Fatalf("the first tree: %v", got)
	}
}

func contractFilesRefused(t *testing.T, tg *target) {
	org, repo := filesRepo(t, tg)
	z := forge.BlobID([]byte("z"), "")
	_, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{create("z.txt", "z"), create("d/x.txt", "x")}})
	mustNoErr(t, err)
	write := func(files ...forge.ChangeFileOperation) error {
		_, err := tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Branch: "main", Files: files})
		return err
	}
	// A stale base: what another commit changed since the listing.
	err = write(create("z.txt", "z2"))
	wantStatus(t, err, http.StatusUnprocessableEntity, "repository file already exists [path: z.txt]")
	stale := forge.BlobID([]byte("y"), "")
	err = write(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: "z.txt", SHA: stale, Content: forge.FileContent([]byte("z2"))})
	wantStatus(t, err, http.StatusUnprocessableEntity, "sha does not match [given: "+stale+", expected: "+z+"]")
	if !forge.IsStaleBase(err) {
		t.Fatalf("IsStaleBase: %v", err)
	}
	for _, op := range []string{forge.FileUpdate, forge.FileDelete} {
		err = write(forge.ChangeFileOperation{Operation: op, Path: "nope.txt", SHA: z, Content: forge.FileContent([]byte("n"))})
		status, msg := http.StatusNotFound, "object does not exist [id: , rel_path: nope.txt]"
		if before(tg, 1, 25) {
			status = http.StatusInternalServerError
		}
		if op == forge.FileDelete && before(tg, 1, 26) {
			msg = "repository file does not exist [path: nope.txt]"
		}
		wantStatus(t, err, status, msg)
		if !forge.IsStaleBase(err) {
			t.Fatalf("IsStaleBase of a missing file: %v", err)
		}
	}
	// Paths the forge refuses.
	err = write(create(".git/hooks/x", "x"))
	wantStatus(t, err, http.StatusUnprocessableEntity, "path contains a malformed path component [path: .git/hooks/x]")
	err = write(create("d", "x"))
	wantStatus(t, err, http.StatusUnprocessableEntity, "a directory exists where you’re trying to create a file [path: d]")
	if forge.IsStaleBase(err) {
		t.Fatalf("a refused path is no stale base: %v", err)
	}
	_, err = tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Branch: "nobranch", Files: []forge.ChangeFileOperation{create("q.txt", "q")}})
	wantStatus(t, err, http.StatusNotFound, "branch does not exist [repo_id: ")
	_, err = tg.c.ListTree(ctx(t), org, repo, "nobranch")
	wantStatus(t, err, http.StatusBadRequest, "sha not found [nobranch]")
	// A branch rule: no push at all, then protected file patterns.
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, forge.BranchProtection{RuleName: "main"})
	mustNoErr(t, err)
	err = write(create("p.txt", "p"))
	wantStatus(t, err, http.StatusForbidden, "user cannot commit to repo [user: ")
	_, err = tg.c.EditBranchProtection(ctx(t), org, repo, "main", forge.EditBranchProtectionOption{EnablePush: ptr(true), ProtectedFilePatterns: ptr("*.lock")})
	mustNoErr(t, err)
	err = write(create("p.lock", "p"))
	wantStatus(t, err, http.StatusForbidden, "path is protected and can not be changed [path: p.lock]")
	mustNoErr(t, write(create("p.txt", "p")))
	// An archived repository: 423.
	_, err = tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Archived: ptr(true)})
	mustNoErr(t, err)
	err = write(create("r.txt", "r"))
	switch {
	case before(tg, 1, 25):
		wantStatus(t, err, http.StatusLocked, org+"/"+repo+"> is archived")
	case giteaSince(tg, 1, 27):
		wantStatus(t, err, http.StatusLocked, "repo is not allowed to edit")
	default:
		wantStatus(t, err, http.StatusLocked, org+"/"+repo+" is not allowed to edit")
	}
}

func contractFilesOldFake(t *testing.T, tg *target) {
	for _, v := range []string{"1.24.6", "1.25.5"} {
		t.Run(v, func(t *testing.T) { contractFilesRefused(t, tg.sibling(t, fakeforge.WithVersion(v))) })
	}
}

// contractFilesAllowLists: the change-files call asks the rule's push
// allow-list only (CanUserPush, in services/repository/files/update.go's
// VerifyBranchProtection); 1.27's bypass allow-list is not asked there.
func contractFilesAllowLists(t *testing.T, tg *target) {
	org, repo := filesRepo(t, tg)
	me, err := tg.c.CurrentUser(ctx(t))
	mustNoErr(t, err)
	rule := forge.BranchProtection{RuleName: "main"}
	if hasBypass(tg) {
		rule.EnableBypassAllowlist, rule.BypassAllowlistUsernames = true, []string{me.Login}
	}
	_, err = tg.c.CreateBranchProtection(ctx(t), org, repo, rule)
	mustNoErr(t, err)
	_, err = tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{create("a.txt", "a")}})
	wantStatus(t, err, http.StatusForbidden, "user cannot commit to repo [user: "+strings.ToLower(me.Login)+"]")
	_, err = tg.c.EditBranchProtection(ctx(t), org, repo, "main", forge.EditBranchProtectionOption{
		EnablePush: ptr(true), EnablePushWhitelist: ptr(true), PushWhitelistUsernames: &[]string{me.Login}})
	mustNoErr(t, err)
	_, err = tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{create("a.txt", "a")}})
	mustNoErr(t, err)
}
