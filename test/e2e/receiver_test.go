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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The forge's own deliveries wake the operator: on the fake and on a real
// Gitea, a repository made on the forge (not through a resource) under
// sets checked every 10 minutes has their labels and rule within seconds.
var _ = Describe("Receiver end to end", func() {
	ctx := context.Background()

	It("keeps a hook on the organization, and a repository created on the forge gets a LabelSet's labels and a BranchProtectionSet's rule within 5 seconds", func() {
		sc := newScenario()
		sc.createOrg()
		addr, err := receiverEndpoint.BoundAddr(ctx)
		Expect(err).NotTo(HaveOccurred())
		slow := managed()
		slow.SyncInterval = &metav1.Duration{Duration: 10 * time.Minute}
		org := ptr(forgev1.OwnerName(sc.org))

		labels := &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "standard"}, Spec: forgev1.LabelSetSpec{
			ManagedSpec: slow, Repositories: forgev1.RepositorySelector{Organization: org},
			Labels: []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}}}}
		rules := &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "standard"}, Spec: forgev1.BranchProtectionSetSpec{
			ManagedSpec: slow, Repositories: forgev1.RepositorySelector{Organization: org},
			Rules: []forgev1.BranchProtectionRule{{RuleName: "main"}}}}
		r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "events"}, Spec: forgev1.ReceiverSpec{
			ManagedSpec: managed(), Organizations: []forgev1.OwnerName{forgev1.OwnerName(sc.org)}, URL: "http://" + addr.String()}}
		for _, o := range []forgev1.Managed{labels, rules, r} {
			Expect(k8s.Create(ctx, o)).To(Succeed())
			expectReady(o)
		}
		hooks, err := fc.ListHooks(ctx, forge.OrgScope(sc.org))
		Expect(err).NotTo(HaveOccurred())
		Expect(hooks).To(HaveLen(1))
		Expect(hooks[0].Config["url"]).To(Equal("http://" + addr.String() + r.Status.Path))

		start := time.Now()
		sc.createRepo("web")
		Eventually(func(g Gomega) {
			ls, err := fc.ListLabels(ctx, forge.RepoScope(sc.org, "web"))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(ls).To(ContainElement(HaveField("Name", "kind/bug")))
			bps, err := fc.ListBranchProtections(ctx, sc.org, "web")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(bps).To(ContainElement(HaveField("RuleName", "main")))
		}, 5*time.Second, 100*time.Millisecond).Should(Succeed(), "the sets' next interval is 10 minutes away: only the delivery can bring them")
		GinkgoWriter.Printf("receiver: labels and rule %s after the repository was created\n", time.Since(start).Round(time.Millisecond))

		By("the Receiver records the delivery")
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.LastEvent).NotTo(BeNil())
			g.Expect(r.Status.LastEvent.Event).To(Equal("repository"))
		}, timeout, poll).Should(Succeed())
	})

	It("writes back a file edited by a commit through the API in a FileSet's repository within seconds (its sync interval 10 minutes), and the push of its own commit writes nothing", func() {
		sc, counter := newCountedScenario()
		sc.createOrg()
		for _, name := range []string{"web", "api"} {
			_, err := fc.CreateOrgRepo(ctx, sc.org, forge.CreateRepoOption{Name: name, AutoInit: true, DefaultBranch: "main"})
			Expect(err).NotTo(HaveOccurred())
		}
		addr, err := receiverEndpoint.BoundAddr(ctx)
		Expect(err).NotTo(HaveOccurred())
		slow := managed()
		slow.SyncInterval = &metav1.Duration{Duration: 10 * time.Minute}
		files := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "platform"}, Spec: forgev1.FileSetSpec{
			ManagedSpec: slow, Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(sc.org))},
			FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: "LICENSE", Content: ptr("MIT\n")}}}}}
		r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "events"}, Spec: forgev1.ReceiverSpec{
			ManagedSpec: managed(), Organizations: []forgev1.OwnerName{forgev1.OwnerName(sc.org)}, URL: "http://" + addr.String(),
			Events: []forgev1.ReceiverEvent{forgev1.ReceiverEventPush}}}
		for _, o := range []forgev1.Managed{files, r} {
			Expect(k8s.Create(ctx, o)).To(Succeed())
			expectReady(o)
		}
		// license is the blob id of web's LICENSE on main.
		license := func(g Gomega) string {
			tree, err := fc.ListTree(ctx, sc.org, "web", "main")
			g.Expect(err).NotTo(HaveOccurred())
			return tree.Blobs()["LICENSE"]
		}
		blob := func(content string) string { return forge.BlobID([]byte(content), "") }
		commitsToWeb := func() int {
			n := 0
			for _, w := range counter.Writes() {
				if w == "POST /api/v1/repos/"+sc.org+"/web/contents" {
					n++
				}
			}
			return n
		}
		Expect(license(Default)).To(Equal(blob("MIT\n")))
		Expect(commitsToWeb()).To(Equal(1))

		start := time.Now()
		_, err = fc.ChangeFiles(ctx, sc.org, "web", forge.ChangeFilesOption{Message: "by hand", Files: []forge.ChangeFileOperation{
			{Operation: forge.FileUpdate, Path: "LICENSE", SHA: forge.BlobID([]byte("MIT\n"), ""), Content: forge.FileContent([]byte("edited\n"))}}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(license, 10*time.Second, 100*time.Millisecond).Should(Equal(blob("MIT\n")), "the set's next interval is 10 minutes away: only the push can bring it")
		GinkgoWriter.Printf("receiver: file written back %s after the edit\n", time.Since(start).Round(time.Millisecond))
		Consistently(commitsToWeb, 3*time.Second, 100*time.Millisecond).Should(Equal(2), "one commit writing it back; the push of that commit writes nothing")
	})
})
