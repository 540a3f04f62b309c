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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Repository from a template end to end", func() {
	ctx := context.Background()

	It("waits for a missing template, generates from it with the parts chosen, applies the spec after, and deletes what it made", func() {
		sc := newScenario()
		sc.createOrg()
		tmpl := forgev1.RepositoryName(sc.org + "/go-service")
		fromTemplate := func(name string, t forgev1.RepositoryTemplate) *forgev1.Repository {
			t.Repository = tmpl
			return &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: name},
				Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), DeletionPolicy: "Delete",
					Init: &forgev1.RepositoryInit{Template: &t}}}
		}

		By("a repository from a template that does not exist yet waits, and nothing is created")
		early := fromTemplate("early", forgev1.RepositoryTemplate{})
		Expect(k8s.Create(ctx, early)).To(Succeed())
		Expect(expectReason(early, metav1.ConditionFalse, forgev1.ReasonParentNotFound)).To(ContainSubstring("template repository " + string(tmpl)))
		_, err := fc.GetRepo(ctx, sc.org, "early")
		Expect(forge.IsNotFound(err)).To(BeTrue(), "no plain repository in its place: %v", err)

		By("the template arrives as a Repository; the waiting one is generated from it")
		src := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "go-service"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org),
				RepositorySettings: forgev1.RepositorySettings{Template: ptr(true), DefaultBranch: ptr("main")},
				Init:               &forgev1.RepositoryInit{AutoInit: ptr(true)}, Topics: []forgev1.Topic{"go", "service"}}}
		Expect(k8s.Create(ctx, src)).To(Succeed())
		Expect(expectReady(src)).To(Equal(forgev1.ReasonCreated))
		Expect(expectReady(early)).To(Equal(forgev1.ReasonCreated))
		made, err := fc.GetRepo(ctx, sc.org, "early")
		Expect(err).NotTo(HaveOccurred())
		Expect(made.Empty).To(BeFalse(), "the template's git content")
		Expect(made.DefaultBranch).To(Equal("main"))
		Expect(made.Topics).To(BeEmpty(), "topics were not chosen")

		By("labels and topics chosen are copied, the spec's settings applied after")
		_, err = fc.CreateLabel(ctx, forge.RepoScope(sc.org, "go-service"), forge.CreateLabelOption{Name: "kind/bug", Color: "ee0701"})
		Expect(err).NotTo(HaveOccurred())
		web := fromTemplate("web", forgev1.RepositoryTemplate{GitContent: ptr(false), Labels: ptr(true), Topics: ptr(true)})
		web.Spec.Description, web.Spec.HasWiki = ptr("The website"), ptr(false)
		web.Spec.Topics = []forgev1.Topic{"go", "service", "web"}
		Expect(k8s.Create(ctx, web)).To(Succeed())
		Expect(expectReady(web)).To(Equal(forgev1.ReasonCreated))
		got, err := fc.GetRepo(ctx, sc.org, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(web.Status.ID).To(Equal(got.ID))
		Expect([]any{got.Empty, got.Template, got.Description, got.HasWiki, got.Topics}).To(
			Equal([]any{true, false, "The website", false, []string{"go", "service", "web"}}))
		labels, err := fc.ListLabels(ctx, forge.RepoScope(sc.org, "web"))
		Expect(err).NotTo(HaveOccurred())
		Expect(labels).To(ConsistOf(HaveField("Name", "kind/bug")))

		By("a generated repository is one the operator created: deletionPolicy Delete removes it")
		deleteAndWait(web)
		_, err = fc.GetRepo(ctx, sc.org, "web")
		Expect(forge.IsNotFound(err)).To(BeTrue(), "deleted: %v", err)
	})
})
