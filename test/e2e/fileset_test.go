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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// FileSet on the fake and on a real Gitea: the same files over an
// organization, one commit per repository, read back by blob id.
var _ = Describe("FileSet end to end", func() {
	ctx := context.Background()

	blobs := func(g Gomega, org, repo string) map[string]string {
		r, err := fc.GetRepo(ctx, org, repo)
		g.Expect(err).NotTo(HaveOccurred())
		tree, err := fc.ListTree(ctx, org, repo, r.DefaultBranch)
		g.Expect(err).NotTo(HaveOccurred())
		return tree.Blobs()
	}
	blob := func(content string) string { return forge.BlobID([]byte(content), "") }
	commitsTo := func(writes []string, org, repo string) int {
		n := 0
		for _, w := range writes {
			if strings.HasPrefix(w, "POST ") && strings.HasSuffix(w, "/repos/"+org+"/"+repo+"/contents") {
				n++
			}
		}
		return n
	}
	entry := func(path, content string) forgev1.RepositoryFileEntry {
		return forgev1.RepositoryFileEntry{Path: forgev1.FilePath(path), Content: ptr(content)}
	}

	It("writes three files over an organization in one commit per repository (an empty one's first), nothing at rest, writes back a hand edit, lists a repository whose branch rule refuses the commit as Rejected, and deletes in one commit per repository", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		for _, r := range []string{"web", "api"} {
			_, err := fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: r, AutoInit: true, DefaultBranch: "main"})
			Expect(err).NotTo(HaveOccurred())
		}
		sc.createRepo("empty")
		want := map[string]string{".gitea/CODEOWNERS": "* @acme/platform\n", ".editorconfig": "root = true\n", "LICENSE": "MIT\n"}
		s := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "platform"},
			Spec: forgev1.FileSetSpec{ManagedSpec: managed(), DeletionPolicy: forgev1.DeletionPolicyDelete,
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org))},
				FilesSpec: forgev1.FilesSpec{
					Files:   []forgev1.RepositoryFileEntry{entry(".gitea/CODEOWNERS", want[".gitea/CODEOWNERS"]), entry(".editorconfig", want[".editorconfig"]), entry("LICENSE", want["LICENSE"])},
					Message: "chore: platform files", Author: &forgev1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.com"}}}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		for _, r := range []string{"web", "api", "empty"} {
			got := blobs(Default, sc.org, r)
			for p, content := range want {
				Expect(got).To(HaveKeyWithValue(p, blob(content)), "%s in %s", p, r)
			}
			Expect(commitsTo(counter.Writes(), sc.org, r)).To(Equal(1), "one commit for three files in %s", r)
		}

		By("at rest: no write over three intervals")
		written := counter.Writes()
		Consistently(counter.Writes, 3*syncInterval+time.Second, poll).Should(Equal(written))

		By("a file edited by hand (a commit through the API) is written back")
		_, err := fc.ChangeFiles(ctx, sc.org, "web", forge.ChangeFilesOption{Message: "edit by hand", Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: "LICENSE", SHA: blob("MIT\n"), Content: forge.FileContent([]byte("proprietary\n"))}}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) map[string]string { return blobs(g, sc.org, "web") }, timeout, poll).
			Should(HaveKeyWithValue("LICENSE", blob("MIT\n")))

		By("a repository whose branch rule lets nobody push is listed as Rejected with the forge's message")
		_, err = fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: "locked", AutoInit: true, DefaultBranch: "main"})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateBranchProtection(ctx, sc.org, "locked", forge.BranchProtection{RuleName: "main"})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) []forgev1.SetFailure {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return s.Status.Failures
		}, timeout, poll).Should(ConsistOf(And(
			HaveField("Repository", sc.org+"/locked"), HaveField("Reason", forgev1.ReasonRejected),
			HaveField("Message", ContainSubstring("user cannot commit to repo")))))
		Expect(blobs(Default, sc.org, "locked")).NotTo(HaveKey("LICENSE"))
		Expect(fc.DeleteRepo(ctx, sc.org, "locked")).To(Succeed())

		By("deleting with deletionPolicy Delete removes the files in one commit per repository")
		before := counter.Writes()
		deleteAndWait(s)
		for _, r := range []string{"web", "api", "empty"} {
			got := blobs(Default, sc.org, r)
			for p := range want {
				Expect(got).NotTo(HaveKey(p), "%s in %s", p, r)
			}
			Expect(commitsTo(counter.Writes(), sc.org, r)-commitsTo(before, sc.org, r)).To(Equal(1), r)
		}
	})
})
