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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/forge"
)

// export --files on the fake and on a real Gitea: the FileSet it proposes
// holds what every repository holds alike, and applied alone it is Ready
// without a commit.
var _ = Describe("FileSet export", func() {
	ctx := context.Background()

	It("export --files proposes the files every repository holds alike as a FileSet: applied alone, it is Ready and commits nothing", func() {
		sc := newScenario()
		sc.createOrg()
		licence := "MIT License\n\nCopyright (c) 2026 Acme\n"
		for _, r := range []string{"web", "api"} {
			_, err := fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: r, AutoInit: true, DefaultBranch: "main"})
			Expect(err).NotTo(HaveOccurred())
			files := []forge.ChangeFileOperation{{Operation: forge.FileCreate, Path: "LICENSE", Content: forge.FileContent([]byte(licence))}}
			if r == "web" {
				files = append(files, forge.ChangeFileOperation{Operation: forge.FileCreate, Path: ".gitea/CODEOWNERS", Content: forge.FileContent([]byte("* @acme/web\n"))})
			}
			_, err = fc.ChangeFiles(ctx, sc.org, r, forge.ChangeFilesOption{Files: files})
			Expect(err).NotTo(HaveOccurred())
		}
		sc.createRepo("fresh") // empty: the files would be its first commit
		head := func(g Gomega, repo string) string {
			tree, err := fc.ListTree(ctx, sc.org, repo, "main")
			g.Expect(err).NotTo(HaveOccurred())
			return tree.SHA // a branch's tree answers its head commit's id
		}
		heads := map[string]string{"web": head(Default, "web"), "api": head(Default, "api")}

		counter := newWriteCounter(forgeURL)
		ns := newNamespace(counter.srv.URL)
		tokenFile := filepath.Join(GinkgoT().TempDir(), "token")
		Expect(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)).To(Succeed())
		var out, errOut bytes.Buffer
		Expect(cmd.Run(ctx, "export", []string{"--url", forgeURL, "--org", sc.org, "-n", ns, "--files", "LICENSE,.gitea/CODEOWNERS", "--token-file", tokenFile}, &out, &errOut)).
			To(Equal(0), "stderr: %s", errOut.String())
		Expect(out.String()).To(ContainSubstring("#   .gitea/CODEOWNERS: missing in " + sc.org + "/api\n"))
		var sets []*unstructured.Unstructured
		for _, o := range decodeStream(out.String()) {
			if o.GetKind() == "FileSet" {
				sets = append(sets, o)
			}
		}
		Expect(sets).To(HaveLen(1))
		set := sets[0]
		files, _, _ := unstructured.NestedSlice(set.Object, "spec", "files")
		Expect(files).To(Equal([]any{map[string]any{"path": "LICENSE", "content": licence}}))
		exclude, _, _ := unstructured.NestedStringSlice(set.Object, "spec", "repositories", "exclude")
		Expect(exclude).To(Equal([]string{"fresh"}))

		Expect(k8s.Create(ctx, set)).To(Succeed())
		expectReady(set)
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		inSync, _, _ := unstructured.NestedInt64(set.Object, "status", "inSync")
		Expect(inSync).To(BeEquivalentTo(2), "web and api match; fresh is excluded")
		Consistently(counter.Writes, 3*syncInterval, poll).Should(BeEmpty())
		for r, sha := range heads {
			Expect(head(Default, r)).To(Equal(sha), "no commit to %s", r)
		}
		commit, _, _ := unstructured.NestedString(set.Object, "status", "commit")
		Expect(commit).To(BeEmpty())
	})
})
