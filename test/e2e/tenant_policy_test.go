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
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A tenant with a plain user's token declares, in a namespace and under a
// Forge of its own, a Repository, a RepositoryFile and a Team for the
// platform's organization (DESIGN "Precedence and enforcement"): the
// platform's RepositorySet (private, a team's access taken back) and
// FileSet (CODEOWNERS) still hold on the forge and write back hand edits;
// with enforce, a set wins even over a Repository of the platform's own.
var _ = Describe("Policy a tenant cannot switch off, end to end", func() {
	ctx := context.Background()

	It("keeps the platform's private, CODEOWNERS and team access against a tenant's resources, writes hand edits back, and with enforce wins over the platform's own Repository for its field only", func() {
		sc := newScenario()
		sc.createOrg()
		org := sc.org
		for _, r := range []string{"web", "api"} {
			_, err := fc.CreateOrgRepo(ctx, org, forge.CreateRepoOption{Name: r, AutoInit: true, DefaultBranch: "main", Private: true})
			Expect(err).NotTo(HaveOccurred())
		}
		devs, err := fc.CreateTeam(ctx, org, forge.CreateTeamOption{Name: "developers", Permission: "write",
			UnitsMap: map[string]string{"repo.code": "write"}})
		Expect(err).NotTo(HaveOccurred())
		teamRepos := func(g Gomega) []string {
			rs, err := fc.ListTeamRepos(ctx, devs.ID)
			g.Expect(err).NotTo(HaveOccurred())
			var out []string
			for _, r := range rs {
				out = append(out, r.Name)
			}
			return out
		}
		codeowners := func(g Gomega, repo string) string {
			r, err := fc.GetRepo(ctx, org, repo)
			g.Expect(err).NotTo(HaveOccurred())
			tree, err := fc.ListTree(ctx, org, repo, r.DefaultBranch)
			g.Expect(err).NotTo(HaveOccurred())
			return tree.Blobs()[".gitea/CODEOWNERS"]
		}
		blob := func(content string) string { return forge.BlobID([]byte(content), "") }
		private := func(g Gomega, repo string) bool {
			r, err := fc.GetRepo(ctx, org, repo)
			g.Expect(err).NotTo(HaveOccurred())
			return r.Private
		}

		By("the tenant, whose user is no member of the organization, declares web public, its CODEOWNERS and the team's repositories")
		user, tok := plainUserWithToken()
		tenant := tenantNamespace(tok)
		full := forgev1.RepositoryName(org + "/web")
		theirs := []forgev1.Managed{
			&forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"},
				Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(org),
					RepositorySettings: forgev1.RepositorySettings{Private: ptr(false)}}},
			&forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"},
				Spec: forgev1.RepositoryFileSpec{ManagedSpec: managed(), Repository: full, FilesSpec: forgev1.FilesSpec{
					Files: []forgev1.RepositoryFileEntry{{Path: ".gitea/CODEOWNERS", Content: ptr("* @" + user + "\n")}}}}},
			&forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "developers"},
				Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(org), Name: ptr(forgev1.TeamName("developers")),
					Members: []forgev1.OwnerName{forgev1.OwnerName(user)}, Repositories: []forgev1.RepoName{"web"}}},
		}
		for _, o := range theirs {
			Expect(k8s.Create(ctx, o)).To(Succeed())
		}
		for _, o := range theirs {
			Eventually(func(g Gomega) metav1.ConditionStatus { return readyCondition(o)(g).Status }, timeout, poll).
				Should(Equal(metav1.ConditionFalse), "the tenant's %s is refused", o.GetName())
		}

		By("the platform's RepositorySet and FileSet apply all the same")
		set := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "policy"},
			Spec: forgev1.RepositorySetSpec{ManagedSpec: managed(), Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(org))},
				Settings: &forgev1.RepositorySettings{Private: ptr(true)}, Teams: []forgev1.TeamName{"developers"}}}
		files := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "codeowners"},
			Spec: forgev1.FileSetSpec{ManagedSpec: managed(), Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(org))},
				FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: ".gitea/CODEOWNERS", Content: ptr("* @" + org + "/platform\n")}}}}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		Expect(k8s.Create(ctx, files)).To(Succeed())
		expectReady(set)
		expectReady(files)
		Eventually(teamRepos, timeout, poll).Should(ConsistOf("web", "api"))
		for _, r := range []string{"web", "api"} {
			Eventually(func(g Gomega) string { return codeowners(g, r) }, timeout, poll).Should(Equal(blob("* @"+org+"/platform\n")), r)
		}
		Expect(set.Status.Yielded).To(BeNil())
		Expect(files.Status.Yielded).To(BeNil())

		By("hand edits are written back: web made public, api's CODEOWNERS changed")
		_, err = fc.EditRepo(ctx, org, "web", forge.EditRepoOption{Private: ptr(false)})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.ChangeFiles(ctx, org, "api", forge.ChangeFilesOption{Message: "edit by hand", Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: ".gitea/CODEOWNERS", SHA: blob("* @" + org + "/platform\n"), Content: forge.FileContent([]byte("* @" + user + "\n"))}}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) bool { return private(g, "web") }, timeout, poll).Should(BeTrue())
		Eventually(func(g Gomega) string { return codeowners(g, "api") }, timeout, poll).Should(Equal(blob("* @" + org + "/platform\n")))

		By("the set drops the team: the access it gave is taken back, though the tenant's Team lists web")
		update(set, func(s *forgev1.RepositorySet) { s.Spec.Teams = nil })
		Eventually(teamRepos, timeout, poll).Should(BeEmpty())

		By("with enforce, the set wins over the platform's own Repository for hasWiki, which keeps its description")
		own := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "api"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(org),
				RepositorySettings: forgev1.RepositorySettings{HasWiki: ptr(true), Description: ptr("the api")}}}
		Expect(k8s.Create(ctx, own)).To(Succeed())
		expectReady(own)
		update(set, func(s *forgev1.RepositorySet) {
			s.Spec.Enforce = true
			s.Spec.Settings.HasWiki = ptr(false)
		})
		Eventually(func(g Gomega) string {
			c := readyCondition(own)(g)
			g.Expect(c.Reason).To(Equal(forgev1.ReasonConflict))
			return c.Message
		}, timeout, poll).Should(ContainSubstring("hasWiki enforced by RepositorySet " + sc.ns + "/policy"))
		Eventually(func(g Gomega) bool {
			r, err := fc.GetRepo(ctx, org, "api")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.Description).To(Equal("the api"))
			return r.HasWiki
		}, timeout, poll).Should(BeFalse())
	})
})

// plainUserWithToken makes a user who is no member of anything, and a
// token of its own (made with its password, as only HTTP Basic may).
func plainUserWithToken() (login, token string) {
	GinkgoHelper()
	login, password := unique("tenant"), "Pw-"+unique("x")
	status, body := rawCall(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": login, "email": login + "@example.com", "password": password, "must_change_password": false,
	})
	Expect(status).To(Equal(http.StatusCreated), string(body))
	DeferCleanup(func() { rawCall(http.MethodDelete, "/api/v1/admin/users/"+login+"?purge=true", nil) })
	req, err := http.NewRequest(http.MethodPost, forgeURL+"/api/v1/users/"+login+"/tokens",
		strings.NewReader(`{"name":"tenant","scopes":["write:repository","write:organization","read:user"]}`))
	Expect(err).NotTo(HaveOccurred())
	req.SetBasicAuth(login, password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	Expect(resp.StatusCode).To(Equal(http.StatusCreated))
	var made struct {
		SHA1 string `json:"sha1"`
	}
	Expect(json.NewDecoder(resp.Body).Decode(&made)).To(Succeed())
	return login, made.SHA1
}

// tenantNamespace is a namespace with a Forge "gitea" of its own at the
// forge, authenticating with tok, Ready.
func tenantNamespace(tok string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-tenant-"}}
	Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	DeferCleanup(func() { removeAll(ns.Name) })
	putSecret(ns.Name, "gitea-token", "token", tok)
	f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		Spec: forgev1.ForgeSpec{URL: forgeURL, Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}}
	Expect(k8s.Create(context.Background(), f)).To(Succeed())
	expectReady(f)
	return ns.Name
}
