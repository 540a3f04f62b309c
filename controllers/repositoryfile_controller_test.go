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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A RepositoryFile's natural name in the standard specs is a path, kept
// with content "kept\n".
var _ = childSpecs(childRow{
	kind: "RepositoryFile",
	object: func(ns, name, repo, path string) forgev1.Managed {
		return &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.RepositoryFileSpec{
			ManagedSpec: childSpec(), Repository: forgev1.RepositoryName("acme/" + repo),
			FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: forgev1.FilePath(path), Content: ptr("kept\n")}}}}}
	},
	onForge: func(repo, path string) {
		_, err := forgeClient().ChangeFiles(context.Background(), "acme", repo, forge.ChangeFilesOption{
			Files: []forge.ChangeFileOperation{{Operation: forge.FileCreate, Path: path, Content: forge.FileContent([]byte("kept\n"))}}})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		var out []string
		for p := range fake.Files("acme", repo, "") {
			out = append(out, p)
		}
		slices.Sort(out)
		return out
	},
})

var _ = Describe("RepositoryFile", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		Expect(fake.CreateOrg("acme")).Error().NotTo(HaveOccurred())
		// A repository with a first commit (README.md), as auto_init makes it.
		Expect(forgeClient().CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web", AutoInit: true})).Error().NotTo(HaveOccurred())
		fake.ClearRequests()
	})

	newFiles := func(name string, files ...forgev1.RepositoryFileEntry) *forgev1.RepositoryFile {
		return &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.RepositoryFileSpec{ManagedSpec: childSpec(), Repository: "acme/web", FilesSpec: forgev1.FilesSpec{Files: files,
				Message: "chore: platform files", Author: &forgev1.CommitAuthor{Name: "Platform Bot", Email: "bot@example.com"}}}}
	}
	file := func(path, content string) forgev1.RepositoryFileEntry {
		return forgev1.RepositoryFileEntry{Path: forgev1.FilePath(path), Content: ptr(content)}
	}
	files := func() map[string]string { return fake.Files("acme", "web", "") }
	commits := func() []forge.FileCommit { return fake.Commits("acme", "web", "") }
	// writes counts the commits sent; reads the tree listings.
	count := func(method, part string) func() int {
		return func() int {
			n := 0
			for _, r := range fake.Requests() {
				if r.Method == method && strings.Contains(r.Path, part) {
					n++
				}
			}
			return n
		}
	}
	writes, treeReads := count(http.MethodPost, "/contents"), count(http.MethodGet, "/git/trees/")
	// editByHand commits a change as a user would in the web UI.
	editByHand := func(ops ...forge.ChangeFileOperation) {
		Expect(forgeClient().ChangeFiles(ctx, "acme", "web", forge.ChangeFilesOption{Message: "by hand", Files: ops})).Error().NotTo(HaveOccurred())
	}
	blob := func(content string) string { return forge.BlobID([]byte(content), "") }

	It("writes every file in one commit, with its author and message ending in the trailer that names it, and nothing at rest", func() {
		f := newFiles("platform", file(".gitea/CODEOWNERS", "* @acme/platform\n"), file(".editorconfig", "root = true\n"),
			file("docs/CONTRIBUTING.md", "Be kind.\n"))
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		eventWithReason(f, forgev1.ReasonCreated)
		Expect(files()).To(Equal(map[string]string{"README.md": "# web\n\n", ".gitea/CODEOWNERS": "* @acme/platform\n",
			".editorconfig": "root = true\n", "docs/CONTRIBUTING.md": "Be kind.\n"}))
		Expect(writes()).To(Equal(1), "one commit for three files")
		head := commits()[0]
		Expect(head.Message).To(Equal("chore: platform files\n\nKept-by: RepositoryFile "+ns+"/platform\n"), "the message ends with the trailer naming the resource")
		Expect(*head.Author).To(Equal(forge.CommitUser{Name: "Platform Bot", Email: "bot@example.com"}))
		Expect(f.Status.Commit).To(Equal(head.SHA))
		Expect(f.Status.Branch).To(Equal("main"))
		Expect(f.Status.InSync).To(Equal(3))

		By("at rest: the tree listed once after the commit, to record it (status.checked), then only at its complete check; no commit over three intervals")
		fake.ClearRequests()
		Consistently(writes, 3*syncInterval, poll).Should(BeZero())
		Expect(treeReads()).To(And(BeNumerically(">=", 1), BeNumerically("<=", 2)))
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(f), f)).To(Succeed())
		Expect(f.Status.Checked).NotTo(BeNil())
		Expect(f.Status.Checked.Count).To(BeEquivalentTo(1))
		Expect(fake.WriteRequests()).To(BeEmpty())
	})

	It("writes back, in one commit, files a later commit changed or deleted", func() {
		f := newFiles("platform", file("a.txt", "a\n"), file("b.txt", "b\n"), file("c.txt", "c\n"))
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		fake.ClearRequests()

		editByHand(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: "a.txt", SHA: blob("a\n"), Content: forge.FileContent([]byte("edited\n"))},
			forge.ChangeFileOperation{Operation: forge.FileDelete, Path: "b.txt", SHA: blob("b\n")})
		Eventually(files, timeout, poll).Should(And(HaveKeyWithValue("a.txt", "a\n"), HaveKeyWithValue("b.txt", "b\n")))
		eventWithReason(f, forgev1.ReasonDriftCorrected)
		Expect(writes()).To(Equal(2), "the hand edit and one commit writing both back")
		Expect(commits()[0].Message).To(Equal("chore: platform files\n\nKept-by: RepositoryFile " + ns + "/platform\n"))
	})

	It("lists again and writes again when another commit changed a file between its listing and its commit", func() {
		f := newFiles("platform", file("a.txt", "a\n"))
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		editByHand(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: "a.txt", SHA: blob("a\n"), Content: forge.FileContent([]byte("one\n"))})
		ours := "chore: platform files\n\nKept-by: RepositoryFile " + ns + "/platform"
		// As the operator writes a.txt back, a person edits it once more:
		// the sha the operator listed is stale, and the forge refuses it.
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/contents", Before: func() {
			defer GinkgoRecover()
			editByHand(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: "a.txt", SHA: blob("one\n"), Content: forge.FileContent([]byte("two\n"))})
		}})
		Eventually(func() []string {
			var out []string
			for _, c := range commits() {
				out = append(out, strings.TrimSpace(c.Message))
			}
			return out
		}, timeout, poll).Should(HaveExactElements(ours, "by hand", "by hand", ours, "Initial commit"))
		Expect(files()).To(HaveKeyWithValue("a.txt", "a\n"))
		expectReady(f)
		eventWithReason(f, forgev1.ReasonDriftCorrected)
		Expect(events(f)).NotTo(ContainElement(HavePrefix(forgev1.ReasonForgeError+": ")), "a stale base once is no failure")
	})

	It("writes a CreateOnly file while it is missing and never rewrites it", func() {
		f := newFiles("starter", file(".gitea/workflows/ci.yaml", "on: push\n"))
		f.Spec.Mode = forgev1.FileModeCreateOnly
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		Expect(files()).To(HaveKeyWithValue(".gitea/workflows/ci.yaml", "on: push\n"))

		By("the repository edits it: it is its own now")
		editByHand(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: ".gitea/workflows/ci.yaml", SHA: blob("on: push\n"),
			Content: forge.FileContent([]byte("on: [push, pull_request]\n"))})
		fake.ClearRequests()
		Consistently(writes, 3*syncInterval, poll).Should(BeZero())
		Expect(files()).To(HaveKeyWithValue(".gitea/workflows/ci.yaml", "on: [push, pull_request]\n"))

		By("deleting the resource with deletionPolicy Delete leaves it")
		change(f, func(f *forgev1.RepositoryFile) { f.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete })
		Expect(k8s.Delete(ctx, f)).To(Succeed())
		gone(f)
		Expect(files()).To(HaveKey(".gitea/workflows/ci.yaml"))
		Expect(writes()).To(BeZero())
	})

	It("is Rejected with the forge's message when a branch rule refuses the commit", func() {
		Expect(forgeClient().CreateBranchProtection(ctx, "acme", "web", forge.BranchProtection{RuleName: "main"})).Error().NotTo(HaveOccurred())
		fake.ClearRequests()
		f := newFiles("platform", file("a.txt", "a\n"))
		Expect(k8s.Create(ctx, f)).To(Succeed())
		Expect(expectReason(f, metav1.ConditionFalse, forgev1.ReasonRejected)).To(ContainSubstring("user cannot commit to repo"))
		Expect(findCondition(f, forgev1.ConditionStalled)).NotTo(BeNil())
		Expect(files()).NotTo(HaveKey("a.txt"))

		By("the rule's push allow-list lets the operator's user through")
		Expect(forgeClient().EditBranchProtection(ctx, "acme", "web", "main", forge.EditBranchProtectionOption{
			EnablePush: ptr(true), EnablePushWhitelist: ptr(true), PushWhitelistUsernames: &[]string{fake.Login()}})).Error().NotTo(HaveOccurred())
		expectReady(f)
		Expect(files()).To(HaveKeyWithValue("a.txt", "a\n"))
	})

	It("is Rejected, naming the path, when the forge refuses a file's path", func() {
		editByHand(forge.ChangeFileOperation{Operation: forge.FileCreate, Path: "docs/guide.md", Content: forge.FileContent([]byte("g\n"))})
		fake.ClearRequests()
		f := newFiles("platform", file("docs", "a file where a directory is\n"), file("ok.txt", "ok\n"))
		Expect(k8s.Create(ctx, f)).To(Succeed())
		Expect(expectReason(f, metav1.ConditionFalse, forgev1.ReasonRejected)).To(ContainSubstring("[path: docs]"))
		Expect(files()).NotTo(HaveKey("ok.txt"), "one commit: all files or none")
	})

	It("reads a file from a ConfigMap and writes its change", func() {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ci"}, Data: map[string]string{"ci.yaml": "on: push\n"}}
		Expect(k8s.Create(ctx, cm)).To(Succeed())
		f := newFiles("ci", forgev1.RepositoryFileEntry{Path: ".gitea/workflows/ci.yaml",
			ConfigMapRef: &forgev1.ConfigMapKeySelector{Name: "ci", Key: "ci.yaml"}})
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		Expect(files()).To(HaveKeyWithValue(".gitea/workflows/ci.yaml", "on: push\n"))

		change(cm, func(cm *corev1.ConfigMap) { cm.Data["ci.yaml"] = "on: [push]\n" })
		Eventually(files, timeout, poll).Should(HaveKeyWithValue(".gitea/workflows/ci.yaml", "on: [push]\n"))
	})

	It("removes the listed files in one commit with deletionPolicy Delete, and leaves them with Orphan", func() {
		kept := newFiles("kept", file("orphan.txt", "o\n"))
		Expect(k8s.Create(ctx, kept)).To(Succeed())
		f := newFiles("removed", file("a.txt", "a\n"), file("b.txt", "b\n"), file("gone.txt", "g\n"))
		f.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		expectReady(kept)

		By("a file already gone counts as done")
		editByHand(forge.ChangeFileOperation{Operation: forge.FileDelete, Path: "gone.txt", SHA: blob("g\n")})
		fake.ClearRequests()
		Expect(k8s.Delete(ctx, f)).To(Succeed())
		gone(f)
		Expect(files()).To(SatisfyAll(Not(HaveKey("a.txt")), Not(HaveKey("b.txt")), HaveKey("orphan.txt"), HaveKey("README.md")))
		Expect(writes()).To(Equal(1), "one commit removing both")

		Expect(k8s.Delete(ctx, kept)).To(Succeed())
		gone(kept)
		Expect(files()).To(HaveKey("orphan.txt"))
	})

	It("lets two resources keep other paths of one repository, and the older hold a path both list", func() {
		a := newFiles("a", file("a.txt", "a\n"))
		Expect(k8s.Create(ctx, a)).To(Succeed())
		expectReady(a)
		b := newFiles("b", file("b.txt", "b\n"))
		Expect(k8s.Create(ctx, b)).To(Succeed())
		expectReady(b)
		fake.ClearRequests()
		c := newFiles("c", file("a.txt", "other\n"), file("c.txt", "c\n"))
		Expect(k8s.Create(ctx, c)).To(Succeed())
		Expect(expectReason(c, metav1.ConditionFalse, forgev1.ReasonConflict)).To(And(ContainSubstring(ns+"/a"), ContainSubstring("a.txt")))
		Expect(writes()).To(BeZero())
		Expect(files()).To(And(HaveKeyWithValue("a.txt", "a\n"), Not(HaveKey("c.txt"))))
	})

	It("passes at once on a push to its repository (a Receiver's delivery), writing back a file edited by hand", func() {
		addr, err := receiverEndpoint.BoundAddr(ctx)
		Expect(err).NotTo(HaveOccurred())
		f := newFiles("platform", file("LICENSE", "MIT\n"))
		f.Spec.SyncInterval = every(10 * time.Minute)
		Expect(k8s.Create(ctx, f)).To(Succeed())
		expectReady(f)
		editByHand(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: "LICENSE", SHA: blob("MIT\n"), Content: forge.FileContent([]byte("edited\n"))})
		Consistently(files, 2*time.Second, poll).Should(HaveKeyWithValue("LICENSE", "edited\n"), "no Receiver: the interval writes it back")
		r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "events"}, Spec: forgev1.ReceiverSpec{
			ManagedSpec:   forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
			Organizations: []forgev1.OwnerName{"acme"}, URL: "http://" + addr.String(),
			Events: []forgev1.ReceiverEvent{forgev1.ReceiverEventPush}}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)

		// A commit through the API is a push, which the Receiver delivers.
		editByHand(forge.ChangeFileOperation{Operation: forge.FileUpdate, Path: "LICENSE", SHA: blob("edited\n"), Content: forge.FileContent([]byte("edited again\n"))})
		Eventually(files, 10*time.Second, poll).Should(HaveKeyWithValue("LICENSE", "MIT\n"))
	})
})
