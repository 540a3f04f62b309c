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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A tenant with edit in its own namespace and a Forge of its own, whose
// token (a plain user's, mallory) can do nothing in the platform's
// organization acme, declares objects of acme there: none of them keeps
// the platform's policy off (DESIGN "Precedence and enforcement"). Each
// scene has its control: a resource of the platform's own that holds
// through a record does win, so the assertions can fail for the right
// reason only.
var _ = Describe("Policy a tenant cannot switch off", func() {
	var ns, tenant string
	var fc forge.Interface
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace(fakeforge.WithUser("mallory", "mallory-token"))
		Expect(fake.CreateOrg("acme")).Error().NotTo(HaveOccurred())
		fc = forgeClient()
		// Private: mallory's token sees neither.
		for _, r := range []string{"web", "api"} {
			Expect(fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, AutoInit: true, Private: true})).Error().NotTo(HaveOccurred())
		}
		tenant = tenantNamespace("mallory-token")
	})

	platform := func() forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)}
	}
	tenantSpec := func(forgeName string) forgev1.ManagedSpec {
		return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: forgeName}, SyncInterval: every(syncInterval)}
	}
	acme := forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))}
	repoOf := func(name string) forge.Repository {
		GinkgoHelper()
		r, ok := fake.Repo("acme", name)
		Expect(ok).To(BeTrue(), name)
		return r
	}
	// refused waits until the tenant's resource has been refused by the
	// forge (it tried, with mallory's token, and met a 403).
	refused := func(obj client.Object) {
		GinkgoHelper()
		Eventually(func(g Gomega) string {
			c := readyCondition(obj)(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			return c.Reason
		}, timeout, poll).Should(BeElementOf(forgev1.ReasonUnauthorized, forgev1.ReasonRejected, forgev1.ReasonNotFound,
			forgev1.ReasonParentNotFound, forgev1.ReasonTeamNotFound, forgev1.ReasonForgeError))
	}

	It("a tenant's Repository and Team keep neither private: false nor a team's access off the platform's RepositorySet; the platform's own Repository does hold its field", func() {
		_, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "developers", Permission: "write",
			UnitsMap: map[string]string{"repo.code": "write"}})
		Expect(err).NotTo(HaveOccurred())
		By("web is made public by hand; the tenant declares it public and the developers team's repositories as [web], and is refused")
		Expect(fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{Private: ptr(false)})).Error().NotTo(HaveOccurred())
		theirs := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: tenantSpec("gitea"), Owner: "acme",
				RepositorySettings: forgev1.RepositorySettings{Private: ptr(false), HasWiki: ptr(false)}}}
		Expect(k8s.Create(ctx, theirs)).To(Succeed())
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "developers"},
			Spec: forgev1.TeamSpec{ManagedSpec: tenantSpec("gitea"), Organization: "acme", Name: ptr(forgev1.TeamName("developers")),
				Members: []forgev1.OwnerName{"mallory"}, Repositories: []forgev1.RepoName{"web"}}}
		Expect(k8s.Create(ctx, team)).To(Succeed())
		refused(theirs)
		refused(team)

		By("control: the platform's own Repository api holds hasWiki, which it read")
		own := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "api"},
			Spec: forgev1.RepositorySpec{ManagedSpec: platform(), Owner: "acme",
				RepositorySettings: forgev1.RepositorySettings{HasWiki: ptr(true)}}}
		Expect(k8s.Create(ctx, own)).To(Succeed())
		expectReady(own)

		s := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "policy"},
			Spec: forgev1.RepositorySetSpec{ManagedSpec: platform(), Repositories: acme,
				Settings: &forgev1.RepositorySettings{Private: ptr(true), HasWiki: ptr(false)},
				Teams:    []forgev1.TeamName{"developers"}}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(repoOf("web").Private).To(BeTrue(), "the tenant's private: false holds nothing")
		Expect(repoOf("web").HasWiki).To(BeFalse())
		Expect(repoOf("api").Private).To(BeTrue())
		Expect(repoOf("api").HasWiki).To(BeTrue(), "the platform's own Repository holds the field it read")
		Expect(fake.TeamRepos("acme", "developers")).To(Equal([]string{"api", "web"}), "the tenant's Team does not list the team's repositories")
		Expect(s.Status.Yielded).To(Equal(&forgev1.SetYields{Count: 1, Items: []forgev1.SetYield{
			{Repository: "acme/api", Items: []string{"hasWiki"}, HeldBy: "Repository " + ns + "/api"}}}))
		Expect(s.Status.InSync).To(BeEquivalentTo(1), "api is governed by the Repository for hasWiki")

		By("a hand edit making web public is written back: the tenant's Repository, which can read it then, still holds nothing")
		Expect(fc.EditRepo(ctx, "acme", "web", forge.EditRepoOption{Private: ptr(false)})).Error().NotTo(HaveOccurred())
		Eventually(func() bool { return repoOf("web").Private }, 5*syncInterval, poll).Should(BeTrue())

		By("the set drops the team: its grant is taken back, though the tenant's Team lists web")
		change(s, func(s *forgev1.RepositorySet) {
			s.Spec.Teams = nil
			s.Spec.Removals = forgev1.RemovalsApply
		})
		Eventually(func() []string { return fake.TeamRepos("acme", "developers") }, timeout, poll).Should(BeEmpty())
		expectReady(s)
		Expect(s.Status.TeamGrants).To(BeEmpty())
	})

	It("a tenant's RepositoryFile, under a Forge that is not Ready or refused by the forge, holds no path: the platform's RepositoryFile and FileSet write theirs, and the FileSet says what it leaves to the platform's RepositoryFile", func() {
		putSecret(tenant, "down-token", "token", "no-such-token")
		Expect(k8s.Create(ctx, &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "down"},
			Spec: forgev1.ForgeSpec{URL: fakeURL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "down-token"}}}})).To(Succeed())
		codeowners := func(content string) forgev1.FilesSpec {
			return forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: ".gitea/CODEOWNERS", Content: ptr(content)}}}
		}
		for _, f := range []struct{ name, forge, repo string }{{"web-down", "down", "acme/web"}, {"api", "gitea", "acme/api"}} {
			Expect(k8s.Create(ctx, &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: f.name},
				Spec: forgev1.RepositoryFileSpec{ManagedSpec: tenantSpec(f.forge), Repository: forgev1.RepositoryName(f.repo),
					FilesSpec: codeowners("* @mallory\n")}})).To(Succeed())
		}
		refused(&forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "api"}})

		By("the platform's younger RepositoryFile for web's CODEOWNERS writes it")
		mine := &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-codeowners"},
			Spec: forgev1.RepositoryFileSpec{ManagedSpec: platform(), Repository: "acme/web", FilesSpec: codeowners("* @acme/web-team\n")}}
		Expect(k8s.Create(ctx, mine)).To(Succeed())
		expectReady(mine)
		Expect(fake.Files("acme", "web", "")).To(HaveKeyWithValue(".gitea/CODEOWNERS", "* @acme/web-team\n"))

		By("the platform's FileSet writes CODEOWNERS into api, and leaves web's to the platform's RepositoryFile, saying so")
		set := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "codeowners"},
			Spec: forgev1.FileSetSpec{ManagedSpec: platform(), Repositories: acme, FilesSpec: codeowners("* @acme/platform\n")}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		Expect(fake.Files("acme", "api", "")).To(HaveKeyWithValue(".gitea/CODEOWNERS", "* @acme/platform\n"))
		Expect(fake.Files("acme", "web", "")).To(HaveKeyWithValue(".gitea/CODEOWNERS", "* @acme/web-team\n"))
		Expect(set.Status.InSync).To(BeEquivalentTo(1))
		Expect(set.Status.Yielded).To(Equal(&forgev1.SetYields{Count: 1, Items: []forgev1.SetYield{
			{Repository: "acme/web", Items: []string{".gitea/CODEOWNERS"}, HeldBy: "RepositoryFile " + ns + "/web-codeowners"}}}))

		By("a hand edit of api's CODEOWNERS is written back")
		Expect(fc.ChangeFiles(ctx, "acme", "api", forge.ChangeFilesOption{Message: "hand edit",
			Files: []forge.ChangeFileOperation{{Operation: forge.FileUpdate, Path: ".gitea/CODEOWNERS", Content: forge.FileContent([]byte("* @mallory\n")),
				SHA: forge.BlobID([]byte("* @acme/platform\n"), "")}}})).Error().NotTo(HaveOccurred())
		Eventually(func() map[string]string { return fake.Files("acme", "api", "") }, 5*syncInterval, poll).
			Should(HaveKeyWithValue(".gitea/CODEOWNERS", "* @acme/platform\n"))
	})

	It("a tenant's older Label, BranchProtection and RepositorySet, which cannot see acme's repositories, hold nothing over the platform's sets", func() {
		Expect(k8s.Create(ctx, &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "bug"},
			Spec: forgev1.LabelSpec{ManagedSpec: tenantSpec("gitea"), Repository: ptr(forgev1.RepositoryName("acme/web")), Name: "bug", Color: "000000"}})).To(Succeed())
		rule := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "main"},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: tenantSpec("gitea"), Repository: "acme/web",
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "main"}}}
		Expect(k8s.Create(ctx, rule)).To(Succeed())
		theirSet := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "wiki"},
			Spec: forgev1.RepositorySetSpec{ManagedSpec: tenantSpec("gitea"), Repositories: acme,
				Settings: &forgev1.RepositorySettings{HasWiki: ptr(true)}}}
		Expect(k8s.Create(ctx, theirSet)).To(Succeed())
		refused(&forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "bug"}})
		refused(rule)
		expectReady(theirSet)
		Expect(theirSet.Status.Repositories).To(BeZero(), "the tenant's set sees none of acme's repositories, and so records none")

		labels := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "labels"},
			Spec: forgev1.LabelSetSpec{ManagedSpec: platform(), Repositories: acme,
				Labels: []forgev1.LabelSetLabel{{Name: "bug", Color: "ee0701"}}}}
		rules := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rules"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: platform(), Repositories: acme,
				Rules: []forgev1.BranchProtectionRule{{RuleName: "main"}}}}
		wiki := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "wiki"},
			Spec: forgev1.RepositorySetSpec{ManagedSpec: platform(), Repositories: acme,
				Settings: &forgev1.RepositorySettings{HasWiki: ptr(false)}}}
		for _, o := range []client.Object{labels, rules, wiki} {
			Expect(k8s.Create(ctx, o)).To(Succeed())
		}
		for _, o := range []client.Object{labels, rules, wiki} {
			expectReady(o)
		}
		Expect(fake.Labels(forge.RepoScope("acme", "web"))).To(ContainElement(HaveField("Color", "ee0701")))
		Expect(fake.BranchProtections("acme", "web")).To(ContainElement(HaveField("RuleName", "main")))
		Expect(repoOf("web").HasWiki).To(BeFalse())
		Expect(repoOf("api").HasWiki).To(BeFalse())
		Expect(wiki.Status.Failures).To(BeEmpty(), "no Conflict with the tenant's older set")
	})

	It("with enforce, a RepositorySet and a FileSet win over the platform's own Repository and RepositoryFile for their fields and paths only: those are Stalled, reason Conflict, and keep working for the rest", func() {
		own := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: platform(), Owner: "acme",
				RepositorySettings: forgev1.RepositorySettings{HasWiki: ptr(true), Description: ptr("the web app")}}}
		file := &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-files"},
			Spec: forgev1.RepositoryFileSpec{ManagedSpec: platform(), Repository: "acme/web", FilesSpec: forgev1.FilesSpec{
				Files: []forgev1.RepositoryFileEntry{{Path: ".gitea/CODEOWNERS", Content: ptr("* @acme/web-team\n")},
					{Path: "docs/web.md", Content: ptr("web\n")}}}}}
		Expect(k8s.Create(ctx, own)).To(Succeed())
		Expect(k8s.Create(ctx, file)).To(Succeed())
		expectReady(own)
		expectReady(file)

		set := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "policy"},
			Spec: forgev1.RepositorySetSpec{ManagedSpec: platform(), Repositories: acme, Enforce: true,
				Settings: &forgev1.RepositorySettings{HasWiki: ptr(false)}}}
		files := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "codeowners"},
			Spec: forgev1.FileSetSpec{ManagedSpec: platform(), Repositories: acme, Enforce: true, FilesSpec: forgev1.FilesSpec{
				Files: []forgev1.RepositoryFileEntry{{Path: ".gitea/CODEOWNERS", Content: ptr("* @acme/platform\n")}}}}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		Expect(k8s.Create(ctx, files)).To(Succeed())

		By("the Repository and the RepositoryFile leave what the sets enforce, and say so")
		Eventually(func(g Gomega) {
			c := readyCondition(own)(g)
			g.Expect(c.Reason).To(Equal(forgev1.ReasonConflict))
			g.Expect(c.Message).To(ContainSubstring("hasWiki enforced by RepositorySet " + ns + "/policy"))
		}, timeout, poll).Should(Succeed())
		Eventually(func(g Gomega) {
			c := readyCondition(file)(g)
			g.Expect(c.Reason).To(Equal(forgev1.ReasonConflict))
			g.Expect(c.Message).To(ContainSubstring(".gitea/CODEOWNERS enforced by FileSet " + ns + "/codeowners"))
		}, timeout, poll).Should(Succeed())
		expectReady(set)
		expectReady(files)
		Eventually(func(g Gomega) {
			g.Expect(repoOf("web").HasWiki).To(BeFalse())
			g.Expect(fake.Files("acme", "web", "")).To(HaveKeyWithValue(".gitea/CODEOWNERS", "* @acme/platform\n"))
		}, timeout, poll).Should(Succeed())
		Expect(set.Status.Yielded).To(BeNil(), "an enforced set leaves nothing")
		Expect(set.Status.InSync).To(BeEquivalentTo(2))
		Expect(files.Status.Yielded).To(BeNil())
		Expect(fake.Files("acme", "web", "")).To(HaveKeyWithValue("docs/web.md", "web\n"))

		By("the two keep working for the rest")
		change(own, func(r *forgev1.Repository) { r.Spec.Description = ptr("the storefront") })
		change(file, func(f *forgev1.RepositoryFile) { f.Spec.Files[1].Content = ptr("storefront\n") })
		Eventually(func(g Gomega) {
			g.Expect(repoOf("web").Description).To(Equal("the storefront"))
			g.Expect(fake.Files("acme", "web", "")).To(HaveKeyWithValue("docs/web.md", "storefront\n"))
		}, timeout, poll).Should(Succeed())
		atRestFor := func() {
			fake.ClearRequests()
			Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
		}
		By("at rest nobody fights: no write over three intervals")
		atRestFor()
		Expect(repoOf("web").HasWiki).To(BeFalse())
	})
})

// tenantNamespace creates a namespace of a tenant with a Forge "gitea" of
// its own at the spec's fake forge, authenticating with tok, and waits
// until it is Ready.
func tenantNamespace(tok string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
	Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	DeferCleanup(func() { removeAll(ns.Name) })
	tokenForge(ns.Name, "gitea", tok)
	return ns.Name
}
