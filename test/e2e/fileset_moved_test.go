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
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// since are the requests (reads too) after the first n.
func (wc *writeCounter) since(n int) []string {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return append([]string(nil), wc.reqs[n:]...)
}

func (wc *writeCounter) len() int {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return len(wc.reqs)
}

// treesByRepo counts the tree listings of reqs by repository name.
func treesByRepo(reqs []string, org string) map[string]int {
	out := map[string]int{}
	prefix := "GET /api/v1/repos/" + org + "/"
	for _, r := range reqs {
		if rest, ok := strings.CutPrefix(r, prefix); ok {
			if name, _, ok := strings.Cut(rest, "/git/trees/"); ok {
				out[name]++
			}
		}
	}
	return out
}

// checkedRecord is the set's status.checked (entries: id delta,
// updated_at, due interval, in base 36, separated by dots) by repository
// id: [updated_at, due].
func checkedRecord(st *forgev1.CheckedRepositories) map[int64][2]int64 {
	out := map[int64][2]int64{}
	if st == nil || st.Entries == "" {
		return out
	}
	id := int64(0)
	for e := range strings.SplitSeq(st.Entries, ",") {
		parts := strings.Split(e, ".")
		Expect(parts).To(HaveLen(3), e)
		var v [3]int64
		for i, p := range parts {
			n, err := strconv.ParseInt(p, 36, 64)
			Expect(err).NotTo(HaveOccurred())
			v[i] = n
		}
		id += v[0]
		out[id] = [2]int64{v[1], v[2]}
	}
	return out
}

// stands are the ids of the repositories whose record stands until the
// interval of t: their complete check is not due by then. Those may not
// list their tree; the others (due, or with no record: a repository
// written since) may.
func stands(st *forgev1.CheckedRepositories, interval time.Duration, t time.Time) map[int64]bool {
	out := map[int64]bool{}
	for id, r := range checkedRecord(st) {
		if r[1] > t.UnixNano()/int64(interval) {
			out[id] = true
		}
	}
	return out
}

// gitPush pushes to branch main of org/repo as the test's user with git
// over HTTP: files written (nil: deleted) on the branch's head, or with
// force on a commit of no parent holding only files.
func gitPush(org, repo string, files map[string]*string, force bool) {
	GinkgoHelper()
	if !live {
		Expect(fake.PushFiles(org, repo, "main", files, force)).To(Succeed())
		return
	}
	u, err := url.Parse(forgeURL)
	Expect(err).NotTo(HaveOccurred())
	u.User = url.UserPassword(os.Getenv("FORGE_USER"), os.Getenv("FORGE_PASSWORD"))
	u.Path = "/" + org + "/" + repo + ".git"
	dir := GinkgoT().TempDir()
	git := func(args ...string) {
		GinkgoHelper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "credential.helper=", "-c", "user.name=Pusher", "-c", "user.email=pusher@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	}
	git("clone", "--quiet", "-b", "main", u.String(), ".")
	if force {
		git("checkout", "--quiet", "--orphan", "replaced")
		git("rm", "-rq", "--cached", ".")
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			if e.Name() != ".git" {
				Expect(os.RemoveAll(filepath.Join(dir, e.Name()))).To(Succeed())
			}
		}
	}
	for p, c := range files {
		if c == nil {
			git("rm", "-q", p)
			continue
		}
		Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, p), []byte(*c), 0o600)).To(Succeed())
		git("add", p)
	}
	git("commit", "--quiet", "-m", "pushed by hand")
	if force {
		git("push", "--quiet", "--force", "origin", "replaced:main")
		return
	}
	git("push", "--quiet", "origin", "main")
}

// Reading only what moved (DESIGN "RepositoryFile and FileSet"), on the
// fake and on a real Gitea: a FileSet over 20 repositories, polling alone
// (no Receiver) at 30 s, lists at rest only the trees of the repositories
// whose complete check is due, and catches every change a person makes.
var _ = Describe("FileSet at rest reads only what moved", func() {
	ctx := context.Background()
	const interval = 30 * time.Second
	blob := func(content string) string { return forge.BlobID([]byte(content), "") }
	blobs := func(g Gomega, org, repo string) map[string]string {
		tree, err := fc.ListTree(ctx, org, repo, "main")
		g.Expect(err).NotTo(HaveOccurred())
		return tree.Blobs()
	}

	It("lists at most a fifth of the trees an interval at rest, reads no blob, writes nothing; writes back a hand edit by the API and by a push within one interval, listing that repository's tree once and no other; catches a file deleted, a force-push and a repository transferred in", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		names := make([]string, 20)
		for i := range names {
			names[i] = fmt.Sprintf("r%02d", i)
			_, err := fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: names[i], AutoInit: true, DefaultBranch: "main"})
			Expect(err).NotTo(HaveOccurred())
		}
		const license, owners = "MIT\n", "* @acme/platform\n"
		on := managed()
		on.SyncInterval = &metav1.Duration{Duration: interval}
		s := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "platform"},
			Spec: forgev1.FileSetSpec{ManagedSpec: on,
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org))},
				FilesSpec: forgev1.FilesSpec{Message: "chore: platform files", Files: []forgev1.RepositoryFileEntry{
					{Path: "LICENSE", Content: ptr(license)}, {Path: ".gitea/CODEOWNERS", Content: ptr(owners)}}}}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		// The pass after the commits checks every repository and records it.
		checked := func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			if s.Status.Checked == nil {
				return 0
			}
			return s.Status.Checked.Count
		}
		Eventually(checked, 2*interval+timeout, poll).Should(BeEquivalentTo(20))
		ids := map[int64]string{}
		all, err := fc.ListOrgRepos(ctx, sc.org)
		Expect(err).NotTo(HaveOccurred())
		for _, r := range all {
			ids[r.ID] = r.Name
		}
		// unexpected are the tree listings in reqs of repositories whose
		// record (as from had it) stood until until, but for the one named.
		unexpected := func(reqs []string, from *forgev1.CheckedRepositories, until time.Time, but string) map[string]int {
			out := map[string]int{}
			trees := treesByRepo(reqs, sc.org)
			for id := range stands(from, interval, until) {
				if name := ids[id]; name != but && trees[name] > 0 {
					out[name] = trees[name]
				}
			}
			return out
		}

		By("at rest over 4 intervals: at most 0.2 tree listings per repository per interval, no blob read, no write")
		mark, record, began := counter.len(), s.Status.Checked.DeepCopy(), time.Now()
		time.Sleep(4 * interval)
		rest := counter.since(mark)
		trees, blobReads, writes := 0, 0, 0
		for _, r := range rest {
			switch {
			case strings.HasPrefix(r, "GET ") && strings.Contains(r, "/git/trees/"):
				trees++
			case strings.HasPrefix(r, "GET ") && (strings.Contains(r, "/git/blobs/") || strings.Contains(r, "/contents/") || strings.Contains(r, "/raw/")):
				blobReads++
			case !strings.HasPrefix(r, "GET ") && !strings.HasPrefix(r, "HEAD "):
				writes++
			}
		}
		perRepo := float64(trees) / 20 / 4
		_, _ = fmt.Fprintf(GinkgoWriter, "at rest: %d tree listings over 4 intervals (%.3f per repository per interval), %d outside complete checks\n",
			trees, perRepo, len(unexpected(rest, record, time.Now(), "")))
		Expect(unexpected(rest, record, time.Now(), "")).To(BeEmpty(), "tree listings at rest outside the complete checks due")
		Expect(perRepo).To(BeNumerically("<=", 0.25), "complete checks in turns: about a sixth of the trees an interval")
		Expect(blobReads).To(BeZero(), "no content downloaded at rest")
		Expect(writes).To(BeZero(), "no write at rest")
		Expect(time.Since(began)).To(BeNumerically(">=", 4*interval))

		// handEdit changes r by one route, waits for the set to write it
		// back within one interval, and checks that the pass listed r's
		// tree once and no other repository's but those due.
		handEdit := func(route, repo string, edit func(), want map[string]string) {
			GinkgoHelper()
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			mark, record := counter.len(), s.Status.Checked.DeepCopy()
			edit()
			Eventually(func(g Gomega) map[string]string { return blobs(g, sc.org, repo) }, interval+10*time.Second, poll).
				Should(And(HaveKeyWithValue("LICENSE", want["LICENSE"]), HaveKeyWithValue(".gitea/CODEOWNERS", want[".gitea/CODEOWNERS"])), route)
			reqs := counter.since(mark)
			Expect(treesByRepo(reqs, sc.org)[repo]).To(Equal(1), "%s: one tree listing of %s", route, repo)
			Expect(unexpected(reqs, record, time.Now(), repo)).To(BeEmpty(), "%s: no other repository's tree listed but those due", route)
			// The pass that wrote it back records that in status after the
			// commit: wait for it (no record of the repository, or one of
			// its updated_at now), so the next step reads a record as it is.
			found, err := fc.GetRepo(ctx, sc.org, repo)
			Expect(err).NotTo(HaveOccurred())
			Eventually(func(g Gomega) bool {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
				r, ok := checkedRecord(s.Status.Checked)[found.ID]
				return !ok || r[0] == found.UpdatedAt.Unix()
			}, timeout, poll).Should(BeTrue(), "%s: the record after the write-back", route)
		}
		want := map[string]string{"LICENSE": blob(license), ".gitea/CODEOWNERS": blob(owners)}

		By("a commit through the contents API")
		handEdit("contents API", "r03", func() {
			_, err := fc.ChangeFiles(ctx, sc.org, "r03", forge.ChangeFilesOption{Message: "edit by hand", Files: []forge.ChangeFileOperation{
				{Operation: forge.FileUpdate, Path: "LICENSE", SHA: blob(license), Content: forge.FileContent([]byte("proprietary\n"))}}})
			Expect(err).NotTo(HaveOccurred())
		}, want)

		By("a push")
		handEdit("push", "r07", func() { gitPush(sc.org, "r07", map[string]*string{"LICENSE": ptr("pushed\n")}, false) }, want)

		// The web editor's route (POST /{owner}/{repo}/_edit/{branch}/{path})
		// commits through the same files service as the contents API
		// (routers/web/repo/editor.go calls files_service.ChangeRepoFiles),
		// which moves updated_at as a commit through the API does.

		By("a file deleted by hand")
		handEdit("file deleted", "r11", func() {
			_, err := fc.ChangeFiles(ctx, sc.org, "r11", forge.ChangeFilesOption{Message: "delete by hand", Files: []forge.ChangeFileOperation{
				{Operation: forge.FileDelete, Path: ".gitea/CODEOWNERS", SHA: blob(owners)}}})
			Expect(err).NotTo(HaveOccurred())
		}, want)

		By("a branch force-pushed")
		handEdit("force-push", "r15", func() {
			gitPush(sc.org, "r15", map[string]*string{"README.md": ptr("replaced\n")}, true)
		}, want)

		By("a repository transferred in")
		other := unique("e2e-from")
		_, err = fc.CreateOrg(ctx, forge.CreateOrgOption{Name: other})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = fc.DeleteOrg(context.Background(), other) })
		_, err = fc.CreateOrgRepo(ctx, other, forge.CreateRepoOption{Name: "moved-in", AutoInit: true, DefaultBranch: "main"})
		Expect(err).NotTo(HaveOccurred())
		if live {
			code, body := rawCall(http.MethodPost, "/api/v1/repos/"+other+"/moved-in/transfer", map[string]any{"new_owner": sc.org})
			Expect(code).To(BeNumerically("<", 300), string(body))
		} else {
			Expect(fake.TransferRepo(other, "moved-in", sc.org)).To(Succeed())
		}
		Eventually(func(g Gomega) map[string]string { return blobs(g, sc.org, "moved-in") }, interval+timeout, poll).
			Should(And(HaveKeyWithValue("LICENSE", want["LICENSE"]), HaveKeyWithValue(".gitea/CODEOWNERS", want[".gitea/CODEOWNERS"])))
	})
})
