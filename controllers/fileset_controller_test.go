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

package controllers_test

import (
	"context"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("FileSet", func() {
	var ns string
	var fc forge.Interface
	ctx := context.Background()

	// acme holds web and api (each with a first commit, README.md) and an
	// archived old.
	BeforeEach(func() {
		ns = newNamespace()
		Expect(fake.CreateOrg("acme")).Error().NotTo(HaveOccurred())
		fc = forgeClient()
		for _, r := range []string{"web", "api", "old"} {
			Expect(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, AutoInit: true})).Error().NotTo(HaveOccurred())
		}
		fake.SetArchived("acme", "old", true)
		fake.ClearRequests()
	})

	file := func(path, content string) forgev1.RepositoryFileEntry {
		return forgev1.RepositoryFileEntry{Path: forgev1.FilePath(path), Content: ptr(content)}
	}
	newSet := func(name string, files ...forgev1.RepositoryFileEntry) *forgev1.FileSet {
		return &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.FileSetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				FilesSpec: forgev1.FilesSpec{Files: files, Message: "chore: platform files",
					Author: &forgev1.CommitAuthor{Name: "Platform Bot", Email: "bot@example.com"}},
			}}
	}
	filesOf := func(repo string) func() map[string]string {
		return func() map[string]string { return fake.Files("acme", repo, "") }
	}
	// commitsTo counts the commits sent to a repository.
	commitsTo := func(repo string) int {
		n := 0
		for _, r := range fake.Requests() {
			if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/repos/acme/"+repo+"/contents") {
				n++
			}
		}
		return n
	}
	failures := func(s *forgev1.FileSet) func(Gomega) []string {
		return func(g Gomega) []string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			var out []string
			for _, f := range s.Status.Failures {
				out = append(out, f.Repository+" "+f.Reason+": "+f.Message)
			}
			return out
		}
	}

	It("writes three files in one commit per repository (archived ones skipped), each naming the set in its trailer, none at rest over three intervals, and gives a new repository the files", func() {
		s := newSet("platform", file(".gitea/CODEOWNERS", "* @acme/platform\n"), file(".editorconfig", "root = true\n"),
			file("docs/CONTRIBUTING.md", "Be kind.\n"))
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		want := map[string]string{"README.md": "# %s\n\n", ".gitea/CODEOWNERS": "* @acme/platform\n",
			".editorconfig": "root = true\n", "docs/CONTRIBUTING.md": "Be kind.\n"}
		for _, r := range []string{"web", "api"} {
			got := filesOf(r)()
			Expect(got).To(HaveLen(len(want)), r)
			for p, c := range want {
				if p != "README.md" {
					Expect(got).To(HaveKeyWithValue(p, c), r)
				}
			}
			Expect(commitsTo(r)).To(Equal(1), "one commit for three files in "+r)
			head := fake.Commits("acme", r, "")[0]
			Expect(head.Message).To(Equal("chore: platform files\n\nKept-by: FileSet "+ns+"/platform\n"), "the message ends with the trailer naming the set")
			Expect(*head.Author).To(Equal(forge.CommitUser{Name: "Platform Bot", Email: "bot@example.com"}))
		}
		Expect(filesOf("old")()).To(Equal(map[string]string{"README.md": "# old\n\n"}), "archived repositories are skipped")
		Expect(commitsTo("old")).To(BeZero())
		Expect(s.Status.Repositories).To(BeEquivalentTo(2))
		Expect(s.Status.InSync).To(BeEquivalentTo(2))
		Expect(s.Status.Commit).NotTo(BeEmpty())
		Expect(s.Status.CommitRepository).To(BeElementOf("acme/web", "acme/api"))
		Expect(s.Status.Commit).To(Equal(fake.Commits("acme", strings.TrimPrefix(s.Status.CommitRepository, "acme/"), "")[0].SHA))
		Expect(s.Status.Commits).To(BeEquivalentTo(2))
		Expect(events(s)).To(ContainElement("Updated: 2 repositories: created 6 files"))

		By("at rest: no commit over three intervals")
		fake.ClearRequests()
		Consistently(fake.WriteRequests, 3*syncInterval, poll).Should(BeEmpty())

		By("a file edited by hand is written back; a repository made later gets the files")
		Expect(fc.ChangeFiles(ctx, "acme", "web", forge.ChangeFilesOption{Message: "by hand", Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: ".editorconfig", SHA: forge.BlobID([]byte("root = true\n"), ""), Content: forge.FileContent([]byte("edited\n"))}}})).
			Error().NotTo(HaveOccurred())
		Expect(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "new", AutoInit: true})).Error().NotTo(HaveOccurred())
		Eventually(filesOf("web"), timeout, poll).Should(HaveKeyWithValue(".editorconfig", "root = true\n"))
		Eventually(filesOf("new"), 5*syncInterval, poll).Should(And(HaveKeyWithValue(".gitea/CODEOWNERS", "* @acme/platform\n"),
			HaveKeyWithValue("docs/CONTRIBUTING.md", "Be kind.\n")))
		Expect(commitsTo("new")).To(Equal(1))
	})

	It("passes at once on a push to the branch it keeps its files on (a Receiver's delivery), comparing only the pushed repository: a hand edit is written back, and its own commit's push writes nothing", func() {
		addr, err := receiverEndpoint.BoundAddr(ctx)
		Expect(err).NotTo(HaveOccurred())
		s := newSet("platform", file("LICENSE", "MIT\n"))
		s.Spec.SyncInterval = every(10 * time.Minute)
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "events"}, Spec: forgev1.ReceiverSpec{
			ManagedSpec:   forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
			Organizations: []forgev1.OwnerName{"acme"}, URL: "http://" + addr.String(),
			Events: []forgev1.ReceiverEvent{forgev1.ReceiverEventPush}}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		Expect(commitsTo("web")).To(Equal(1))
		Consistently(func() float64 { return passesOf("FileSet") }, 2*time.Second, poll).Should(Equal(passesOf("FileSet")), "at rest")
		before := passesOf("FileSet")
		fake.ClearRequests()

		By("a hand edit through the API is a push to main: the set passes, compares web alone and writes the file back")
		Expect(fc.ChangeFiles(ctx, "acme", "web", forge.ChangeFilesOption{Message: "by hand", Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: "LICENSE", SHA: forge.BlobID([]byte("MIT\n"), ""), Content: forge.FileContent([]byte("edited\n"))}}})).
			Error().NotTo(HaveOccurred())
		Eventually(filesOf("web"), 10*time.Second, poll).Should(HaveKeyWithValue("LICENSE", "MIT\n"))
		// The operator's commit is a push to main too: its pass (the second)
		// reads web's tree again, finds it in sync and writes nothing.
		Eventually(func() float64 { return passesOf("FileSet") }, 10*time.Second, poll).Should(BeNumerically(">=", before+2))
		Expect(commitsTo("web")).To(Equal(2), "the hand edit and the operator's one commit writing it back")
		var ownCommit, treeReadsAfter int
		for i, q := range fake.Requests() {
			switch {
			case q.Method == http.MethodPost && strings.HasSuffix(q.Path, "/repos/acme/web/contents"):
				ownCommit = i
			case q.Method == http.MethodGet && strings.Contains(q.Path, "/repos/acme/web/git/trees/") && ownCommit > 0:
				treeReadsAfter++
			}
			Expect(q.Path).NotTo(ContainSubstring("/repos/acme/api"), "a push to web compares web alone")
		}
		Expect(treeReadsAfter).To(BeNumerically(">=", 1), "the pass the operator's own push woke compared web again")
		Expect(fake.WriteRequests()).To(HaveLen(2), "no write but the hand edit and the operator's commit")

		By("a push to another branch passes over nothing")
		pushes := acceptedPushes()
		passes := passesOf("FileSet")
		Expect(fake.Push("acme", "web", "feature")).To(Succeed())
		Eventually(acceptedPushes, timeout, poll).Should(BeNumerically(">", pushes))
		Consistently(func() float64 { return passesOf("FileSet") }, 2*time.Second, poll).Should(Equal(passes))
	})

	It("leaves a path a RepositoryFile keeps in its repository to it, without a failure", func() {
		rf := &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-editorconfig"},
			Spec: forgev1.RepositoryFileSpec{ManagedSpec: childSpec(), Repository: "acme/web",
				FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{file(".editorconfig", "web's own\n")}}}}
		Expect(k8s.Create(ctx, rf)).To(Succeed())
		expectReady(rf)
		s := newSet("platform", file(".editorconfig", "root = true\n"), file("LICENSE", "MIT\n"))
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(s.Status.Failures).To(BeEmpty())
		Expect(filesOf("web")()).To(And(HaveKeyWithValue(".editorconfig", "web's own\n"), HaveKeyWithValue("LICENSE", "MIT\n")))
		Expect(filesOf("api")()).To(And(HaveKeyWithValue(".editorconfig", "root = true\n"), HaveKeyWithValue("LICENSE", "MIT\n")))
		fake.ClearRequests()
		Consistently(fake.WriteRequests, 2*syncInterval, poll).Should(BeEmpty(), "the set and the RepositoryFile do not fight")
	})

	It("lists a repository where an older set keeps one of its paths as Conflict, naming the path and the set, and writes its other files", func() {
		first := newSet("first", file("a.txt", "one\n"))
		Expect(k8s.Create(ctx, first)).To(Succeed())
		expectReady(first)
		second := newSet("second", file("a.txt", "two\n"), file("b.txt", "b\n"))
		Expect(k8s.Create(ctx, second)).To(Succeed())
		Eventually(failures(second), timeout, poll).Should(ConsistOf(
			"acme/api Conflict: path a.txt held by FileSet "+ns+"/first, an older set",
			"acme/web Conflict: path a.txt held by FileSet "+ns+"/first, an older set"))
		for _, r := range []string{"web", "api"} {
			Expect(filesOf(r)()).To(And(HaveKeyWithValue("a.txt", "one\n"), HaveKeyWithValue("b.txt", "b\n")), r)
		}
		Expect(first.Status.Failures).To(BeEmpty())
	})

	It("releases a repository whose topic was removed: under Delete it removes the set's files there in one commit, under Orphan it leaves them", func() {
		for _, r := range []string{"web", "api"} {
			Expect(fc.SetRepoTopics(ctx, "acme", r, []string{"service"})).To(Succeed())
		}
		del := newSet("release-delete", file("x.txt", "x\n"), file("y.txt", "y\n"))
		del.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		orphan := newSet("release-orphan", file("z.txt", "z\n"))
		for _, s := range []*forgev1.FileSet{del, orphan} {
			s.Spec.Repositories.Topics = []forgev1.Topic{"service"}
			Expect(k8s.Create(ctx, s)).To(Succeed())
			expectReady(s)
		}
		Expect(filesOf("api")()).To(And(HaveKey("x.txt"), HaveKey("y.txt"), HaveKey("z.txt")))
		// The record of what the sets match is written by a pass after the first.
		Eventually(func(g Gomega) {
			for _, s := range []*forgev1.FileSet{del, orphan} {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
				g.Expect(s.Status.Matched).NotTo(BeNil())
			}
		}, timeout, poll).Should(Succeed())
		fake.ClearRequests()

		Expect(fc.SetRepoTopics(ctx, "acme", "api", []string{"library"})).To(Succeed())
		Eventually(filesOf("api"), timeout, poll).ShouldNot(Or(HaveKey("x.txt"), HaveKey("y.txt")))
		expectEvent(del, "Released: released acme/api; deleted 2 files of the set")
		expectEvent(orphan, "Released: released acme/api; deletionPolicy Orphan: the files the set wrote there stay")
		Expect(commitsTo("api")).To(Equal(1), "one commit removes both files")
		Expect(filesOf("api")()).To(HaveKeyWithValue("z.txt", "z\n"), "Orphan leaves its files")
		Expect(filesOf("web")()).To(And(HaveKey("x.txt"), HaveKey("y.txt"), HaveKey("z.txt")))
	})
	It("under Delete releases a repository excluded by a glob, one archived and one dropped from names: it removes its files in one commit where it may, and leaves the archived one as it is", func() {
		Expect(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "docs", AutoInit: true})).Error().NotTo(HaveOccurred())
		s := newSet("release-ways", file("x.txt", "x\n"))
		s.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		for _, r := range []string{"web", "api", "docs"} {
			Eventually(filesOf(r), timeout, poll).Should(HaveKey("x.txt"), r)
		}
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			g.Expect(s.Status.Matched).NotTo(BeNil())
			g.Expect(s.Status.Matched.Count).To(BeEquivalentTo(3))
		}, timeout, poll).Should(Succeed())
		fake.ClearRequests()

		fake.SetArchived("acme", "docs", true)
		change(s, func(o *forgev1.FileSet) { o.Spec.Repositories.Exclude = []forgev1.RepositoryGlob{"ap*"} })
		expectEvent(s, "Released: released 2 repositories: acme/api, acme/docs (archived, left as it is); deleted 1 file of the set")
		Expect(filesOf("api")()).NotTo(HaveKey("x.txt"))
		Expect(commitsTo("api")).To(Equal(1))
		Expect(filesOf("docs")()).To(HaveKey("x.txt"), "an archived repository is frozen")
		Expect(commitsTo("docs")).To(BeZero())
		Expect(filesOf("web")()).To(HaveKey("x.txt"))

		By("a name dropped from names")
		named := newSet("release-named", file("n.txt", "n\n"))
		named.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		named.Spec.Repositories = forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web", "acme/api"}}
		Expect(k8s.Create(ctx, named)).To(Succeed())
		expectReady(named)
		Eventually(filesOf("api"), timeout, poll).Should(HaveKey("n.txt"))
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(named), named)).To(Succeed())
			g.Expect(named.Status.Matched).NotTo(BeNil())
		}, timeout, poll).Should(Succeed())
		change(named, func(o *forgev1.FileSet) { o.Spec.Repositories.Names = []forgev1.RepositoryName{"acme/web"} })
		expectEvent(named, "Released: released acme/api; deleted 1 file of the set")
		Expect(filesOf("api")()).NotTo(HaveKey("n.txt"))
		Expect(filesOf("web")()).To(HaveKey("n.txt"))
	})
})
