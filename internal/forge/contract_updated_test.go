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
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/forge"
)

// updatedBehaviours: a repository's updated_at, which the file kinds read
// to list a branch's tree only where it moved (DESIGN "Reading only what
// moved"). Gitea moves it on a push and a force-push
// (services/repository/push.go calls UpdateRepositoryUpdatedTime, from
// its push queue: about a second after the branch moved) and on a commit
// through the contents API (services/repository/files goes through the
// same push path), and so does the web editor's route
// (routers/web/repo/editor.go calls the same ChangeRepoFiles), and a
// topics change; an edit of the repository's settings (description,
// has_wiki) does not move it, nor does a transfer. Probed on Gitea 1.24.6
// and 1.27.3 (2026-12-03; the web editor by its form, logged in through
// /user/login with its _csrf): each the same.
var _ = registerBehaviours("updated", []behaviour{
	{"updated/updated_at moves on a contents-API commit and a push, in the listing too; not on a settings edit", contractUpdatedAt, nil},
})

// updatedAt is the repository's updated_at as its organization's listing
// and GET /repos/{o}/{r} answer it: the two must agree.
func updatedAt(t *testing.T, tg *target, org, repo string) time.Time {
	t.Helper()
	got, err := tg.c.GetRepo(ctx(t), org, repo)
	mustNoErr(t, err)
	all, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	for _, r := range all {
		if r.ID == got.ID && !r.UpdatedAt.Equal(got.UpdatedAt) {
			t.Fatalf("updated_at: the listing has %s, the repository %s", r.UpdatedAt, got.UpdatedAt)
		}
	}
	if got.UpdatedAt.IsZero() {
		t.Fatal("the repository has no updated_at")
	}
	return got.UpdatedAt
}

// movedFrom waits (Gitea moves updated_at from its push queue, about a
// second after the commit is in the branch) for the repository's
// updated_at to move past at, and answers it; a failure after 10 s.
func movedFrom(t *testing.T, tg *target, org, repo string, at time.Time, what string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		now := updatedAt(t, tg, org, repo)
		if now.After(at) {
			return now
		}
		if time.Now().After(deadline) {
			t.Fatalf("updated_at did not move on %s: %s, then %s", what, at, now)
		}
	}
}

func contractUpdatedAt(t *testing.T, tg *target) {
	org, repo := filesRepo(t, tg)
	// updated_at is kept in whole seconds: each step waits one out, and
	// an edit that would move it asynchronously as a commit does, too.
	step := func() { time.Sleep(2500 * time.Millisecond) }
	step()
	at := updatedAt(t, tg, org, repo)

	desc := "edited"
	_, err := tg.c.EditRepo(ctx(t), org, repo, forge.EditRepoOption{Description: &desc})
	mustNoErr(t, err)
	step()
	if now := updatedAt(t, tg, org, repo); !now.Equal(at) {
		t.Fatalf("updated_at moved on an edit of the settings: %s, then %s", at, now)
	}

	_, err = tg.c.ChangeFiles(ctx(t), org, repo, forge.ChangeFilesOption{Branch: "main", Message: "by the API",
		Files: []forge.ChangeFileOperation{create("api.txt", "api\n")}})
	mustNoErr(t, err)
	at = movedFrom(t, tg, org, repo, at, "a contents-API commit")

	step()
	pushFile(t, tg, org, repo, "pushed.txt", "pushed\n")
	movedFrom(t, tg, org, repo, at, "a push")
	if _, ok := blobsOf(t, tg, org, repo, "main")["pushed.txt"]; !ok {
		t.Fatal("the pushed file is not in the tree")
	}
}

// pushFile pushes a commit adding one file to main: on the fake through
// its control, on a live server with git over HTTP as the test's user.
func pushFile(t *testing.T, tg *target, org, repo, path, content string) {
	t.Helper()
	if !tg.live {
		mustNoErr(t, tg.fake.PushFiles(org, repo, "main", map[string]*string{path: &content}, false))
		return
	}
	if liveUser == "" || livePassword == "" {
		t.Skip("live server: set FORGE_USER and FORGE_PASSWORD to push with git")
	}
	u, err := url.Parse(tg.root + "/" + org + "/" + repo + ".git")
	mustNoErr(t, err)
	u.User = url.UserPassword(liveUser, livePassword)
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Pusher", "-c", "user.email=pusher@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	git("clone", "-q", "-b", "main", u.String(), ".")
	mustNoErr(t, os.WriteFile(filepath.Join(dir, path), []byte(content), 0o600))
	git("add", path)
	git("commit", "-q", "-m", "pushed")
	git("push", "-q", "origin", "main")
}
