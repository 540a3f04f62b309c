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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("Repository from a template", func() {
	var ns string
	ctx := context.Background()

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		fake.AddUser("alice")
	})

	newRepo := func(name string, tmpl *forgev1.RepositoryTemplate) *forgev1.Repository {
		r := acmeRepository(ns, name)
		r.Spec.Init = &forgev1.RepositoryInit{Template: tmpl}
		return r
	}
	// template makes acme/go-service, a template with a first commit, the
	// topics go and service, a label and a webhook.
	template := func() {
		GinkgoHelper()
		fc := forgeClient()
		_, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "go-service", AutoInit: true, Template: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.SetRepoTopics(ctx, "acme", "go-service", []string{"go", "service"})).To(Succeed())
		sc := forge.RepoScope("acme", "go-service")
		_, err = fc.CreateLabel(ctx, sc, forge.CreateLabelOption{Name: "kind/bug", Color: "ee0701"})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateHook(ctx, sc, forge.CreateHookOption{Type: "gitea", Active: true,
			Config: map[string]string{"url": "https://ci.example.com/hook", "content_type": "json"}})
		Expect(err).NotTo(HaveOccurred())
	}
	generates := func() int { return writesTo("/repos/acme/go-service/generate") }
	plainCreates := func() int { return writesTo("/orgs/acme/repos") + writesTo("/user/repos") }

	It("generates the repository with the parts chosen, applies the rest of the spec after, and makes no writes at rest", func() {
		template()
		fake.ClearRequests()
		r := newRepo("web", &forgev1.RepositoryTemplate{Repository: "acme/go-service", Labels: ptr(true), Topics: ptr(true), Webhooks: ptr(true)})
		r.Spec.Description = ptr("The website")
		r.Spec.HasWiki = ptr(false)
		r.Spec.Topics = []forgev1.Topic{"go", "service"}
		r.Spec.Collaborators = []forgev1.Collaborator{{User: "alice", Permission: "write"}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)

		got, ok := fake.Repo("acme", "web")
		Expect(ok).To(BeTrue())
		Expect(r.Status.ID).To(Equal(got.ID))
		Expect(r.Status.CreatedID).To(Equal(got.ID), "a generated repository is one the operator created")
		Expect(r.Status.Empty).To(BeFalse(), "the template's git content was copied")
		Expect(r.Status.DefaultBranch).To(Equal("main"))
		Expect(got.Template).To(BeFalse())
		Expect(got.Description).To(Equal("The website"))
		Expect(got.HasWiki).To(BeFalse(), "settings the generate does not take follow as an update")
		Expect(got.Topics).To(Equal([]string{"go", "service"}))
		Expect(fake.Labels(forge.RepoScope("acme", "web"))).To(ConsistOf(HaveField("Name", "kind/bug")))
		Expect(fake.Hooks(forge.RepoScope("acme", "web"))).To(ConsistOf(HaveField("Config", HaveKeyWithValue("url", "https://ci.example.com/hook"))))
		Expect(fake.Collaborators("acme", "web")).To(Equal(map[string]string{"alice": "write"}))
		Expect(generates()).To(Equal(1))
		Expect(plainCreates()).To(BeZero(), "never a plain create")
		// The copied topics are the spec's: read back, not taken from the
		// generate's answer (which lists none), they are not written again.
		Expect(writesTo("/repos/acme/web/topics")).To(BeZero())
		eventWithReason(r, forgev1.ReasonCreated)

		fake.ClearRequests()
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
	})

	It("waits for a missing template without creating anything, and generates once its Repository is Ready", func() {
		r := newRepo("api", &forgev1.RepositoryTemplate{Repository: "acme/go-service", Labels: ptr(true)})
		Expect(k8s.Create(ctx, r)).To(Succeed())
		msg := expectReason(r, metav1.ConditionFalse, forgev1.ReasonParentNotFound)
		Expect(msg).To(ContainSubstring("template repository acme/go-service not found"))
		Consistently(func(g Gomega) {
			_, made := fake.Repo("acme", "api")
			g.Expect(made).To(BeFalse())
			g.Expect(plainCreates()).To(BeZero())
			g.Expect(generates()).To(BeZero())
		}, 2*syncInterval, poll).Should(Succeed())

		// The template arrives as a Repository resource; its becoming Ready
		// lets the waiting one go on.
		src := newRepo("go-service", nil)
		src.Spec.Init = &forgev1.RepositoryInit{AutoInit: ptr(true)}
		src.Spec.Template = ptr(true)
		src.Spec.SyncInterval = every(time.Hour)
		Expect(k8s.Create(ctx, src)).To(Succeed())
		expectReady(src)
		expectReady(r)
		got, ok := fake.Repo("acme", "api")
		Expect(ok).To(BeTrue())
		Expect(r.Status.CreatedID).To(Equal(got.ID))
		Expect(got.Empty).To(BeFalse())
		Expect(generates()).To(Equal(1))
		Expect(plainCreates()).To(Equal(1), "the template's own create, and no other")
	})

	It("stalls on a source that is not a template, and generates once it is one", func() {
		Expect(fake.CreateRepo("acme", "plain")).To(Succeed())
		r := newRepo("api", &forgev1.RepositoryTemplate{Repository: "acme/plain", Labels: ptr(true)})
		Expect(k8s.Create(ctx, r)).To(Succeed())
		msg := expectReason(r, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("repository acme/plain is not a template"))
		_, made := fake.Repo("acme", "api")
		Expect(made).To(BeFalse())

		_, err := forgeClient().EditRepo(ctx, "acme", "plain", forge.EditRepoOption{Template: ptr(true)})
		Expect(err).NotTo(HaveOccurred())
		change(r, func(r *forgev1.Repository) {
			if r.Annotations == nil {
				r.Annotations = map[string]string{}
			}
			r.Annotations[forgev1.ReconcileRequestedAtAnnotation] = "now"
		})
		expectReady(r)
		Expect(writesTo("/repos/acme/plain/generate")).To(Equal(1))
		Expect(plainCreates()).To(BeZero())
	})

	It("makes one repository when the generate's answer is lost", func() {
		template()
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/go-service/generate", Count: 1, LostResponse: true})
		fake.ClearRequests()
		r := newRepo("web", &forgev1.RepositoryTemplate{Repository: "acme/go-service", Topics: ptr(true)})
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		got, ok := fake.Repo("acme", "web")
		Expect(ok).To(BeTrue())
		Expect(r.Status.ID).To(Equal(got.ID))
		Expect(r.Status.CreatedID).To(Equal(got.ID), "found after a lost answer: the operator made it")
		Expect(generates()).To(Equal(1))
		Expect(plainCreates()).To(BeZero())
		expectSettled(r)
	})

	It("adopts an existing repository without reading the template", func() {
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
		fake.ClearRequests()
		r := newRepo("web", &forgev1.RepositoryTemplate{Repository: "acme/go-service", Labels: ptr(true)})
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		eventWithReason(r, forgev1.ReasonAdopted)
		Expect(fake.WriteRequests()).To(BeEmpty())
		Expect(requestsTo("/repos/acme/go-service")).To(BeZero(), "the template is read only to create")
		Expect(r.Status.CreatedID).To(BeZero())
	})
})

var _ = Describe("Repository from a template through a ClusterForge", func() {
	ctx := context.Background()

	It("needs the template's owner among the tenant's owners: the platform's token must not copy what the tenant may not manage", func() {
		newNamespace() // the spec's fake forge
		for _, org := range []string{"team-a-web", "platform"} {
			_, err := fake.CreateOrg(org)
			Expect(err).NotTo(HaveOccurred())
		}
		fc := forgeClient()
		for _, org := range []string{"team-a-web", "platform"} {
			_, err := fc.CreateOrgRepo(ctx, org, forge.CreateRepoOption{Name: "go-service", AutoInit: true, Template: true, Private: true})
			Expect(err).NotTo(HaveOccurred())
		}
		nsA := newTenant(map[string]string{tenantLabel: "a"})
		cf := newClusterForge(forgev1.ClusterForgeTenant{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{tenantLabel: "a"}},
			Owners:            []forgev1.OwnerGlob{"team-a-*"},
		})
		fromTemplate := func(name, tmpl string) *forgev1.Repository {
			return &forgev1.Repository{
				ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: name},
				Spec: forgev1.RepositorySpec{ManagedSpec: onCluster(cf), Owner: "team-a-web",
					Init: &forgev1.RepositoryInit{Template: &forgev1.RepositoryTemplate{Repository: forgev1.RepositoryName(tmpl)}}},
			}
		}
		fake.ClearRequests()
		foreign := fromTemplate("api", "platform/go-service")
		Expect(k8s.Create(ctx, foreign)).To(Succeed())
		msg := expectReason(foreign, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Expect(msg).To(ContainSubstring(`"platform"`))
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		_, made := fake.Repo("team-a-web", "api")
		Expect(made).To(BeFalse())

		own := fromTemplate("web", "team-a-web/go-service")
		Expect(k8s.Create(ctx, own)).To(Succeed())
		expectReady(own)
		Expect(writesTo("/repos/team-a-web/go-service/generate")).To(Equal(1))
		Expect(writesTo("/repos/platform/go-service/generate")).To(BeZero())
	})
})

var _ = Describe("Repository from a template into the token's own account", func() {
	ctx := context.Background()

	It("generates there whatever the case spec.owner is written in (the forge takes only its login as it is)", func() {
		ns := newNamespace(fakeforge.WithUser("dev", "dev-token"))
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		_, err = forgeClient().CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "go-service", AutoInit: true, Template: true})
		Expect(err).NotTo(HaveOccurred())
		tokenForge(ns, "dev", "dev-token")
		r := acmeRepository(ns, "tools")
		r.Spec.ForgeRef.Name, r.Spec.Owner = "dev", "Dev"
		r.Spec.Init = &forgev1.RepositoryInit{Template: &forgev1.RepositoryTemplate{Repository: "acme/go-service"}}
		Expect(k8s.Create(ctx, r)).To(Succeed())
		expectReady(r)
		got, ok := fake.Repo("dev", "tools")
		Expect(ok).To(BeTrue())
		Expect(got.Owner.Login).To(Equal("dev"))
		Expect(got.Empty).To(BeFalse())
		Expect(r.Status.CreatedID).To(Equal(got.ID))
	})
})

// tokenForge makes a Forge name in ns at the spec's fake forge that
// authenticates with tok (kept in the Secret name+"-token"), and waits
// until it is Ready.
func tokenForge(ns, name, tok string) {
	GinkgoHelper()
	putSecret(ns, name+"-token", "token", tok)
	f := &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: forgev1.ForgeSpec{URL: fakeURL,
			Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: name + "-token"}}},
	}
	Expect(k8s.Create(context.Background(), f)).To(Succeed())
	expectReady(f)
}
