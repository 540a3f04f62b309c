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
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A RepositorySet governing an organization, on the fake and on each
// Gitea: settings from the organization's listing, topics added, a team
// given access, a Repository's own setting winning for its repository.
var _ = Describe("RepositorySet end to end", func() {
	ctx := context.Background()

	It("governs an organization with a Repository's exception: its field kept and no write at rest; a repository made on the forge gets the policy at the next pass; deleting it with Delete takes back the access it gave", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		sc.createRepo("web")
		sc.createRepo("api")
		Expect(fc.SetRepoTopics(ctx, sc.org, "api", []string{"own"})).To(Succeed())
		team, err := fc.CreateTeam(ctx, sc.org, forge.CreateTeamOption{Name: "developers", Permission: "write",
			UnitsMap: map[string]string{"repo.code": "write", "repo.pulls": "write"}})
		Expect(err).NotTo(HaveOccurred())
		teamRepos := func() []string {
			rs, err := fc.ListTeamRepos(ctx, team.ID)
			Expect(err).NotTo(HaveOccurred())
			out := []string{}
			for _, r := range rs {
				out = append(out, r.Name)
			}
			slices.Sort(out)
			return out
		}
		repo := func(name string) *forge.Repository {
			r, err := fc.GetRepo(ctx, sc.org, name)
			Expect(err).NotTo(HaveOccurred())
			return r
		}

		own := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org),
				RepositorySettings: forgev1.RepositorySettings{HasWiki: ptr(true)}}}
		Expect(k8s.Create(ctx, own)).To(Succeed())
		expectReady(own)
		set := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "policy"},
			Spec: forgev1.RepositorySetSpec{ManagedSpec: managed(), DeletionPolicy: forgev1.DeletionPolicyDelete,
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org))},
				Settings: &forgev1.RepositorySettings{HasWiki: ptr(false), DefaultMergeStyle: ptr("squash"),
					DefaultDeleteBranchAfterMerge: ptr(true)},
				Topics: []forgev1.Topic{"managed"},
				Teams:  []forgev1.TeamName{"developers"}}}
		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		Expect(set.Status.Repositories).To(BeEquivalentTo(2))
		web, api := repo("web"), repo("api")
		Expect(web.HasWiki).To(BeTrue(), "the Repository's own setting wins")
		Expect(api.HasWiki).To(BeFalse())
		for _, r := range []*forge.Repository{web, api} {
			Expect(r.DefaultMergeStyle).To(Equal("squash"), r.Name)
			Expect(r.DefaultDeleteBranchAfterMerge).To(BeTrue(), r.Name)
		}
		Expect(web.Topics).To(Equal([]string{"managed"}))
		Expect(api.Topics).To(Equal([]string{"managed", "own"}), "other topics are kept")
		Expect(teamRepos()).To(Equal([]string{"api", "web"}))

		By("at rest, the set and the Repository disagreeing on hasWiki: no write")
		before := len(counter.Writes())
		Consistently(func() []string { return counter.Writes()[before:] }, 3*syncInterval, poll).Should(BeEmpty())
		expectReady(own)

		By("a repository made on the forge gets the policy at the set's next pass")
		sc.createRepo("new")
		Eventually(func(g Gomega) {
			r, err := fc.GetRepo(ctx, sc.org, "new")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.HasWiki).To(BeFalse())
			g.Expect(r.DefaultMergeStyle).To(Equal("squash"))
			g.Expect(r.Topics).To(Equal([]string{"managed"}))
			g.Expect(teamRepos()).To(ContainElement("new"))
		}, 5*syncInterval, poll).Should(Succeed())

		By("deleted with deletionPolicy Delete: the access it gave is taken back, the settings stay")
		deleteAndWait(set)
		Expect(teamRepos()).To(BeEmpty())
		Expect(repo("api").HasWiki).To(BeFalse())
		Expect(repo("web").HasWiki).To(BeTrue())
	})

	It("export --sets proposes the settings every repository shares as a RepositorySet: applied alone, it is Ready and writes nothing", func() {
		sc := newScenario()
		sc.createOrg()
		for _, r := range []string{"web", "api"} {
			sc.createRepo(r)
			_, err := fc.EditRepo(ctx, sc.org, r, forge.EditRepoOption{HasPullRequests: ptr(true), HasWiki: ptr(false),
				DefaultMergeStyle: ptr("squash"), Description: ptr("the " + r)})
			Expect(err).NotTo(HaveOccurred())
		}
		_, err := fc.EditRepo(ctx, sc.org, "api", forge.EditRepoOption{HasPullRequests: ptr(true), AllowRebase: ptr(false)})
		Expect(err).NotTo(HaveOccurred())

		counter := newWriteCounter(forgeURL)
		ns := newNamespace(counter.srv.URL)
		tokenFile := filepath.Join(GinkgoT().TempDir(), "token")
		Expect(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)).To(Succeed())
		var out, errOut bytes.Buffer
		Expect(cmd.Run(ctx, "export", []string{"--url", forgeURL, "--org", sc.org, "-n", ns, "--sets", "--token-file", tokenFile}, &out, &errOut)).
			To(Equal(0), "stderr: %s", errOut.String())
		var sets int
		for _, o := range decodeStream(out.String()) {
			if o.GetKind() != "RepositorySet" {
				continue
			}
			sets++
			settings, _, _ := unstructured.NestedMap(o.Object, "spec", "settings")
			Expect(settings).To(HaveKeyWithValue("hasWiki", false))
			Expect(settings).To(HaveKeyWithValue("defaultMergeStyle", "squash"))
			Expect(settings).NotTo(HaveKey("allowRebase"), "the repositories differ in it")
			Expect(settings).NotTo(HaveKey("description"), "each repository's own")
			Expect(k8s.Create(ctx, o)).To(Succeed())
			expectReady(o)
		}
		Expect(sets).To(Equal(1))
		Consistently(counter.Writes, 3*syncInterval, poll).Should(BeEmpty())
	})
})
