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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// A ClusterForge's commitAuthor is the author of every commit made through
// it: its tenants' RepositoryFiles and FileSets commit as the platform
// says, and one that names an author of its own writes nothing.
var _ = Describe("ClusterForge commitAuthor", func() {
	ctx := context.Background()
	var tenant string
	var cf *forgev1.ClusterForge
	pinned := forgev1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.com"}
	chosen := &forgev1.CommitAuthor{Name: "Release Manager", Email: "release@example.com"}

	BeforeEach(func() {
		newNamespace() // the spec's fake forge
		Expect(fake.CreateOrg("acme")).Error().NotTo(HaveOccurred())
		for _, r := range []string{"web", "api"} {
			Expect(forgeClient().CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r, AutoInit: true})).Error().NotTo(HaveOccurred())
		}
		tenant = newTenant(map[string]string{tenantLabel: "a"})
		cf = newClusterForge(forgev1.ClusterForgeTenant{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{tenantLabel: "a"}},
			Owners:            []forgev1.OwnerGlob{"acme"},
		})
	})

	pin := func(author *forgev1.CommitAuthor) {
		GinkgoHelper()
		change(cf, func(cf *forgev1.ClusterForge) { cf.Spec.CommitAuthor = author })
		expectReady(cf)
	}
	repoFile := func(name, repo, path string, author *forgev1.CommitAuthor) *forgev1.RepositoryFile {
		return &forgev1.RepositoryFile{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: name},
			Spec: forgev1.RepositoryFileSpec{ManagedSpec: onCluster(cf), Repository: forgev1.RepositoryName("acme/" + repo),
				FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: forgev1.FilePath(path), Content: ptr("kept\n")}},
					Message: "chore: tenant files", Author: author}}}
	}
	fileSet := func(name, repo, path string, author *forgev1.CommitAuthor) *forgev1.FileSet {
		return &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: name},
			Spec: forgev1.FileSetSpec{ManagedSpec: onCluster(cf),
				Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{forgev1.RepositoryName("acme/" + repo)}},
				FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: forgev1.FilePath(path), Content: ptr("kept\n")}},
					Message: "chore: tenant files", Author: author}}}
	}
	// commitBy is the commit of repo whose trailer names kind ns/name (nil:
	// none), as the forge has it.
	commitBy := func(repo, kind string, obj client.Object) *forge.FileCommit {
		for _, c := range fake.Commits("acme", repo, "") {
			if strings.HasSuffix(c.Message, "\n\nKept-by: "+kind+" "+obj.GetNamespace()+"/"+obj.GetName()+"\n") {
				return &c
			}
		}
		return nil
	}
	author := func(a forgev1.CommitAuthor) forge.CommitUser { return forge.CommitUser{Name: a.Name, Email: a.Email} }

	It("is the author of every commit its tenants' RepositoryFiles and FileSets make", func() {
		pin(&pinned)
		f := repoFile("owners", "web", "CODEOWNERS", nil)
		s := fileSet("editorconfig", "api", ".editorconfig", nil)
		Expect(k8s.Create(ctx, f)).To(Succeed())
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(f)
		expectReady(s)
		for _, c := range []struct {
			repo, kind string
			obj        client.Object
		}{{"web", "RepositoryFile", f}, {"api", "FileSet", s}} {
			cm := commitBy(c.repo, c.kind, c.obj)
			Expect(cm).NotTo(BeNil(), "a commit of acme/%s names the %s in its trailer", c.repo, c.kind)
			Expect(*cm.Author).To(Equal(author(pinned)), "the %s's commit is by the ClusterForge's commitAuthor", c.kind)
		}
	})

	It("refuses a tenant's spec.author, NotPermitted and writing nothing, and lets it write with its author once nothing is pinned", func() {
		pin(&pinned)
		f := repoFile("release", "web", "RELEASE.md", chosen)
		s := fileSet("release", "api", "RELEASE.md", chosen)
		Expect(k8s.Create(ctx, f)).To(Succeed())
		Expect(k8s.Create(ctx, s)).To(Succeed())
		for _, obj := range []client.Object{f, s} {
			msg := expectReason(obj, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
			Expect(msg).To(ContainSubstring(`ClusterForge "` + cf.Name + `" pins the author of every commit made through it`))
			Expect(msg).To(ContainSubstring("spec.author"))
			Expect(findCondition(obj.(forgev1.ConditionsAccessor), forgev1.ConditionStalled)).To(
				HaveField("Status", metav1.ConditionTrue), "a refusal waits for a change of spec, not for time")
		}
		Consistently(func() map[string]string { return fake.Files("acme", "web", "") }, 3*syncInterval, poll).ShouldNot(HaveKey("RELEASE.md"))
		Expect(fake.Files("acme", "api", "")).NotTo(HaveKey("RELEASE.md"))
		Expect(commitBy("web", "RepositoryFile", f)).To(BeNil(), "the refused RepositoryFile made no commit")
		Expect(commitBy("api", "FileSet", s)).To(BeNil(), "the refused FileSet made no commit")

		By("control: without commitAuthor the same resources write, with their own author")
		pin(nil)
		expectReady(f)
		expectReady(s)
		Expect(fake.Files("acme", "web", "")).To(HaveKeyWithValue("RELEASE.md", "kept\n"))
		for _, c := range []struct {
			repo, kind string
			obj        client.Object
		}{{"web", "RepositoryFile", f}, {"api", "FileSet", s}} {
			cm := commitBy(c.repo, c.kind, c.obj)
			Expect(cm).NotTo(BeNil(), "the %s commits once nothing is pinned", c.kind)
			Expect(*cm.Author).To(Equal(author(*chosen)))
		}
	})
})
