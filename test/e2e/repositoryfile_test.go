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

package e2e

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// RepositoryFile on the fake and on a real Gitea: files written in one
// commit and compared by the blob ids of one tree listing, read back
// through the forge's REST API (and, on a real Gitea, a git clone).
var _ = Describe("RepositoryFile end to end", func() {
	ctx := context.Background()

	blobs := func(g Gomega, org, repo, branch string) map[string]string {
		tree, err := fc.ListTree(ctx, org, repo, branch)
		g.Expect(err).NotTo(HaveOccurred())
		return tree.Blobs()
	}
	blob := func(content string) string { return forge.BlobID([]byte(content), "") }
	commitsSent := func(writes []string) int {
		n := 0
		for _, w := range writes {
			if strings.HasPrefix(w, "POST ") && strings.HasSuffix(w, "/contents") {
				n++
			}
		}
		return n
	}
	entry := func(path, content string) forgev1.RepositoryFileEntry {
		return forgev1.RepositoryFileEntry{Path: forgev1.FilePath(path), Content: ptr(content)}
	}
	files := func(ns, name, repo string, entries ...forgev1.RepositoryFileEntry) *forgev1.RepositoryFile {
		return &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RepositoryFileSpec{ManagedSpec: managed(), Repository: forgev1.RepositoryName(repo), FilesSpec: forgev1.FilesSpec{Files: entries,
				Message: "chore: platform files", Author: &forgev1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.com"}}}}
	}

	It("writes three files in one commit, writes back a file edited by hand, keeps a CreateOnly file as the repository left it, and deletes", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		_, err := fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: "web", AutoInit: true, DefaultBranch: "main"})
		Expect(err).NotTo(HaveOccurred())
		want := map[string]string{".gitea/CODEOWNERS": "* @acme/platform\n", ".editorconfig": "root = true\n",
			".gitea/ISSUE_TEMPLATE/bug.md": "---\nname: Bug\n---\n"}
		f := files(sc.ns, "platform", sc.org+"/web", entry(".gitea/CODEOWNERS", want[".gitea/CODEOWNERS"]),
			entry(".editorconfig", want[".editorconfig"]), entry(".gitea/ISSUE_TEMPLATE/bug.md", want[".gitea/ISSUE_TEMPLATE/bug.md"]))
		f.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, f)).To(Succeed())
		Expect(expectReady(f)).To(Equal(forgev1.ReasonCreated))
		Expect(commitsSent(counter.Writes())).To(Equal(1), "one commit for three files")
		got := blobs(Default, sc.org, "web", "main")
		for p, content := range want {
			Expect(got).To(HaveKeyWithValue(p, blob(content)), "the forge's blob id of %s is git's", p)
		}
		tree, err := fc.ListTree(ctx, sc.org, "web", "main")
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Status.Commit).To(Equal(tree.SHA), "status.commit is the branch's head")

		By("at rest: no commit")
		written := counter.Writes()
		Consistently(counter.Writes, 3*syncInterval+time.Second, poll).Should(Equal(written))

		By("a file edited by hand (a commit through the API) is written back")
		_, err = fc.ChangeFiles(ctx, sc.org, "web", forge.ChangeFilesOption{Message: "edit by hand", Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: ".gitea/CODEOWNERS", SHA: blob(want[".gitea/CODEOWNERS"]), Content: forge.FileContent([]byte("* @someone\n"))}}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) map[string]string { return blobs(g, sc.org, "web", "main") }, timeout, poll).
			Should(HaveKeyWithValue(".gitea/CODEOWNERS", blob(want[".gitea/CODEOWNERS"])))
		eventWithReason(f, forgev1.ReasonDriftCorrected)

		By("a CreateOnly file is written while missing, then left as the repository edits it")
		starter := files(sc.ns, "starter", sc.org+"/web", entry(".gitea/workflows/ci.yaml", "on: push\n"))
		starter.Spec.Mode = forgev1.FileModeCreateOnly
		Expect(k8s.Create(ctx, starter)).To(Succeed())
		expectReady(starter)
		_, err = fc.ChangeFiles(ctx, sc.org, "web", forge.ChangeFilesOption{Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: ".gitea/workflows/ci.yaml", SHA: blob("on: push\n"), Content: forge.FileContent([]byte("on: [push]\n"))}}})
		Expect(err).NotTo(HaveOccurred())
		written = counter.Writes()
		Consistently(counter.Writes, 2*syncInterval+time.Second, poll).Should(Equal(written))
		Expect(blobs(Default, sc.org, "web", "main")).To(HaveKeyWithValue(".gitea/workflows/ci.yaml", blob("on: [push]\n")))

		if live {
			By("a git clone shows the files, and the operator's commits with their author, message and the trailer naming the resource")
			dir := GinkgoT().TempDir()
			u, err := url.Parse(forgeURL)
			Expect(err).NotTo(HaveOccurred())
			u.User = url.UserPassword(os.Getenv("FORGE_USER"), os.Getenv("FORGE_PASSWORD"))
			u.Path = "/" + sc.org + "/web.git"
			clone := exec.Command("git", "-c", "credential.helper=", "clone", "--quiet", u.String(), dir)
			clone.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
			out, err := clone.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			for p, content := range want {
				data, err := os.ReadFile(filepath.Join(dir, p))
				Expect(err).NotTo(HaveOccurred())
				Expect(string(data)).To(Equal(content))
			}
			// Newest first: the hand edit of the starter file, the operator's
			// starter commit, its write-back, the hand edit, its first commit,
			// the README of auto_init.
			out, err = exec.Command("git", "-C", dir, "log", "--format=%an <%ae>|%cn|%s|%(trailers:key=Kept-by,valueonly,separator=%x2C)").CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			ours := "Platform Bot <platform-bot@example.com>|Platform Bot|chore: platform files|RepositoryFile " + sc.ns + "/"
			log := strings.Split(strings.TrimSpace(string(out)), "\n")
			Expect(log).To(HaveLen(6))
			Expect(log[1]).To(Equal(ours + "starter"))
			Expect([]string{log[2], log[4]}).To(HaveEach(ours + "platform"))
			Expect(log[3]).To(HaveSuffix("|edit by hand|"), "a commit by hand names no resource")
		}

		By("deleting with deletionPolicy Delete removes the listed files in one commit; the CreateOnly file stays")
		before := commitsSent(counter.Writes())
		deleteAndWait(f)
		got = blobs(Default, sc.org, "web", "main")
		for p := range want {
			Expect(got).NotTo(HaveKey(p))
		}
		Expect(got).To(HaveKey("README.md"))
		Expect(commitsSent(counter.Writes())).To(Equal(before + 1))
		deleteAndWait(starter)
		Expect(blobs(Default, sc.org, "web", "main")).To(HaveKey(".gitea/workflows/ci.yaml"))
	})

	It("gives an empty repository its first commit, and is Rejected when a branch rule refuses the commit", func() {
		sc := newScenario()
		sc.createOrg()
		repo := sc.createRepo("empty")
		f := files(sc.ns, "first", repo, entry("README.md", "# empty\n"), entry(".gitea/CODEOWNERS", "* @acme/platform\n"))
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		Expect(blobs(Default, sc.org, "empty", "main")).To(Equal(map[string]string{
			"README.md": blob("# empty\n"), ".gitea/CODEOWNERS": blob("* @acme/platform\n")}))
		r, err := fc.GetRepo(ctx, sc.org, "empty")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Empty).To(BeFalse())

		By("a rule of the default branch that lets nobody push")
		_, err = fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: "locked", AutoInit: true, DefaultBranch: "main"})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateBranchProtection(ctx, sc.org, "locked", forge.BranchProtection{RuleName: "main"})
		Expect(err).NotTo(HaveOccurred())
		locked := files(sc.ns, "locked", sc.org+"/locked", entry("a.txt", "a\n"))
		Expect(k8s.Create(ctx, locked)).To(Succeed())
		Expect(expectReason(locked, metav1.ConditionFalse, forgev1.ReasonRejected)).To(ContainSubstring("user cannot commit to repo"))
		Expect(blobs(Default, sc.org, "locked", "main")).NotTo(HaveKey("a.txt"))
	})
})
