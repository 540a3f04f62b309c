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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
)

// tenantLabel is the label the specs' ClusterForges select tenants by.
const tenantLabel = "forge.forgeops.dev/tenant"

// tenants are the spec's tenant namespaces, whose resources go before
// its ClusterForges (which wait for them).
var tenants []string

// newTenant creates a namespace with labels and no Forge of its own; its
// resources are removed when the spec ends.
func newTenant(labels map[string]string) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-", Labels: labels}}
	Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	tenants = append(tenants, ns.Name)
	DeferCleanup(func() { removeAll(ns.Name) })
	return ns.Name
}

// deleteClusterForge deletes cf when the spec ends, after the resources of
// every tenant namespace: it waits for them.
func deleteClusterForge(cf *forgev1.ClusterForge) {
	DeferCleanup(func() {
		for _, ns := range tenants {
			removeAll(ns)
		}
		tenants = nil
		Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), cf))).To(Succeed())
		gone(cf)
	})
}

// newClusterForge creates a ClusterForge at the spec's fake forge, its token
// Secret in the manager's namespace, and waits until it is Ready; when the
// spec ends (after its tenants' resources are gone) it is deleted.
func newClusterForge(tenants ...forgev1.ClusterForgeTenant) *forgev1.ClusterForge {
	GinkgoHelper()
	cf := &forgev1.ClusterForge{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "shared-"},
		Spec: forgev1.ClusterForgeSpec{
			ForgeSpec: forgev1.ForgeSpec{
				URL:  fakeURL,
				Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "shared-token"}},
			},
			Tenants: tenants,
		},
	}
	putSecret(digestKey.Namespace, "shared-token", "token", token)
	Expect(k8s.Create(context.Background(), cf)).To(Succeed())
	deleteClusterForge(cf)
	expectReady(cf)
	return cf
}

// onCluster is a forgeRef to ClusterForge cf.
func onCluster(cf *forgev1.ClusterForge) forgev1.ManagedSpec {
	return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: cf.Name}, SyncInterval: every(syncInterval)}
}

func clusterOrg(ns, name string, cf *forgev1.ClusterForge) *forgev1.Organization {
	return &forgev1.Organization{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       forgev1.OrganizationSpec{ManagedSpec: onCluster(cf), Description: ptr("of " + ns)},
	}
}

var _ = Describe("ClusterForge", func() {
	ctx := context.Background()
	var nsA, nsB string
	var cf *forgev1.ClusterForge

	BeforeEach(func() {
		newNamespace() // the spec's fake forge
		nsA = newTenant(map[string]string{tenantLabel: "a"})
		nsB = newTenant(nil)
		cf = newClusterForge(
			forgev1.ClusterForgeTenant{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{tenantLabel: "a"}},
				Owners:            []forgev1.OwnerGlob{"team-a-*"},
			},
			forgev1.ClusterForgeTenant{
				NamespaceRegexes: []forgev1.NamespaceRegex{forgev1.NamespaceRegex("^" + nsB + "$")},
				Owners:           []forgev1.OwnerGlob{"team-b-*"},
			},
		)
	})

	It("lets each tenant manage its own organizations and write nothing under another's", func() {
		a := clusterOrg(nsA, "team-a-web", cf)
		b := clusterOrg(nsB, "team-b-web", cf)
		Expect(k8s.Create(ctx, a)).To(Succeed())
		Expect(k8s.Create(ctx, b)).To(Succeed())
		expectReady(a)
		expectReady(b)
		got, ok := fake.Org("team-a-web")
		Expect(ok).To(BeTrue())
		Expect(got.Description).To(Equal("of " + nsA))

		fake.ClearRequests()
		// Each tenant names the other's owner; a third namespace, selected
		// by no entry, names one of them.
		crossA := clusterOrg(nsA, "team-b-api", cf)
		crossB := &forgev1.Repository{
			ObjectMeta: metav1.ObjectMeta{Namespace: nsB, Name: "web"},
			Spec:       forgev1.RepositorySpec{ManagedSpec: onCluster(cf), Owner: "team-a-web"},
		}
		nsC := newTenant(map[string]string{tenantLabel: "c"})
		outsider := clusterOrg(nsC, "team-a-outside", cf)
		for _, o := range []client.Object{crossA, crossB, outsider} {
			Expect(k8s.Create(ctx, o)).To(Succeed())
		}
		msg := expectReason(crossA, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Expect(msg).To(ContainSubstring(`ClusterForge "` + cf.Name + `" does not let namespace ` + nsA + ` manage "team-b-api"`))
		Expect(msg).To(ContainSubstring("team-a-*"))
		Expect(findCondition(crossA, forgev1.ConditionStalled)).NotTo(BeNil())
		msg = expectReason(crossB, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Expect(msg).To(ContainSubstring(`"team-a-web"`))
		msg = expectReason(outsider, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Expect(msg).To(ContainSubstring(`ClusterForge "` + cf.Name + `" does not serve namespace ` + nsC))

		// Nothing was written for them, then or later; not even a finalizer.
		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		_, ok = fake.Org("team-b-api")
		Expect(ok).To(BeFalse())
		_, ok = fake.Repo("team-a-web", "web")
		Expect(ok).To(BeFalse())
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(crossA), crossA)).To(Succeed())
		Expect(crossA.Finalizers).To(BeEmpty())

		// A tenant whose resource is not permitted holds nothing: the
		// organization's own tenant takes it without a Conflict.
		own := clusterOrg(nsB, "team-b-api", cf)
		Expect(k8s.Create(ctx, own)).To(Succeed())
		expectReady(own)
	})

	It("compares holds across tenants of one ClusterForge and the Forges of its server", func() {
		// Both tenants may manage team-shared-*: holding is first come.
		shared := newClusterForge(forgev1.ClusterForgeTenant{
			Namespaces: []string{nsA, nsB}, Owners: []forgev1.OwnerGlob{"team-shared-*"},
		})
		first := clusterOrg(nsA, "team-shared-web", shared)
		first.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, first)).To(Succeed())
		expectReady(first)
		// Creation times count in whole seconds: the second is younger by time.
		Eventually(func() bool { return time.Now().After(first.CreationTimestamp.Add(time.Second)) }, timeout, poll).Should(BeTrue())
		second := clusterOrg(nsB, "team-shared-web", shared)
		second.Spec.Description = ptr("the younger tenant's")
		Expect(k8s.Create(ctx, second)).To(Succeed())
		// Tenants learn no names of each other's resources: the holder is
		// said to be in another namespace.
		msg := expectReason(second, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(ContainSubstring("is already managed by an Organization in another namespace"))
		Expect(msg).NotTo(ContainSubstring(nsA))

		// A namespace's own Forge at the same server holds nothing a
		// ClusterForge's resource already holds, either.
		var forges forgev1.ForgeList
		Expect(k8s.List(ctx, &forges)).To(Succeed())
		own := forges.Items[slices.IndexFunc(forges.Items, func(f forgev1.Forge) bool { return f.Spec.URL == fakeURL })]
		third := &forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: own.Namespace, Name: "team-shared-web"},
			Spec: forgev1.OrganizationSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: own.Name}, SyncInterval: every(syncInterval)},
				Description: ptr("the namespaced Forge's")}}
		Expect(k8s.Create(ctx, third)).To(Succeed())
		msg = expectReason(third, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(ContainSubstring("is already managed by an Organization in another namespace"))
		Expect(msg).NotTo(ContainSubstring(nsA))
		Consistently(func() string { got, _ := fake.Org("team-shared-web"); return got.Description }, 2*syncInterval, poll).
			Should(Equal("of " + nsA))

		// One of the holder's own namespace is named.
		again := clusterOrg(nsA, "again", shared)
		again.Spec.Name = ptr(forgev1.OwnerName("team-shared-web"))
		Expect(k8s.Create(ctx, again)).To(Succeed())
		msg = expectReason(again, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(ContainSubstring("is already managed by Organization " + nsA + "/team-shared-web"))

		// Deleting the holder leaves the organization to the others; its
		// Event does not name the other tenant's resource that keeps it.
		Expect(k8s.Delete(ctx, first)).To(Succeed())
		gone(first)
		Eventually(func() []string { return events(first) }, timeout, poll).Should(ContainElement(And(ContainSubstring("an Organization in another namespace manages it too"), Not(ContainSubstring(nsB)))))
		_, ok := fake.Org("team-shared-web")
		Expect(ok).To(BeTrue(), "the organization another tenant holds is not deleted")
	})

	It("stops a namespace's writes at once when its label is removed, and resumes when it is back", func() {
		org := clusterOrg(nsA, "team-a-docs", cf)
		org.Spec.DeletionPolicy = forgev1.DeletionPolicyDelete
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReady(org)

		relabel := func(v string) {
			GinkgoHelper()
			n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsA}}
			change(n, func(n *corev1.Namespace) {
				if v == "" {
					delete(n.Labels, tenantLabel)
					return
				}
				if n.Labels == nil {
					n.Labels = map[string]string{}
				}
				n.Labels[tenantLabel] = v
			})
		}
		relabel("")
		expectReason(org, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		change(org, func(o *forgev1.Organization) { o.Spec.Description = ptr("changed while not permitted") })
		expectReason(org, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Consistently(func() string { got, _ := fake.Org("team-a-docs"); return got.Description }, 2*syncInterval, poll).
			Should(Equal("of " + nsA))

		relabel("a")
		expectReady(org)
		Eventually(func() string { got, _ := fake.Org("team-a-docs"); return got.Description }, timeout, poll).
			Should(Equal("changed while not permitted"))

		// Deleted while not permitted, it removes nothing and does not
		// hold its deletion up: it leaves the organization, saying why.
		relabel("")
		expectReason(org, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Expect(k8s.Delete(ctx, org)).To(Succeed())
		gone(org)
		_, ok := fake.Org("team-a-docs")
		Expect(ok).To(BeTrue())
		Expect(writesTo("/orgs/team-a-docs")).To(Equal(1), "the one PATCH of the description, no DELETE")
		Eventually(func() []string { return events(org) }, timeout, poll).Should(ContainElement(ContainSubstring(`Orphaned: left organization "team-a-docs" on the forge: ClusterForge "` + cf.Name + `" does not serve namespace ` + nsA)))
	})

	It("counts its users, and waits to be deleted until none is left", func() {
		a := clusterOrg(nsA, "team-a-one", cf)
		b := clusterOrg(nsB, "team-b-one", cf)
		Expect(k8s.Create(ctx, a)).To(Succeed())
		Expect(k8s.Create(ctx, b)).To(Succeed())
		expectReady(a)
		expectReady(b)
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cf), cf)).To(Succeed())
			return cf.Status.InUse
		}, timeout, poll).Should(BeEquivalentTo(2))
		Expect(cf.Finalizers).To(ContainElement(forgev1.Finalizer))

		Expect(k8s.Delete(ctx, cf)).To(Succeed())
		msg := expectReason(cf, metav1.ConditionFalse, forgev1.ReasonInUse)
		// Any tenant that may read ClusterForges reads it: counted per
		// namespace, never named.
		Expect(msg).To(ContainSubstring("2 resources still use it (1 in " + min(nsA, nsB) + ", 1 in " + max(nsA, nsB) + ")"))
		Expect(msg).NotTo(ContainSubstring("team-a-one"))
		Expect(findCondition(cf, forgev1.ConditionReconciling)).NotTo(BeNil())
		// Its resources still work while it waits.
		change(a, func(o *forgev1.Organization) { o.Spec.Description = ptr("while it waits") })
		expectReady(a)
		Eventually(func() string { got, _ := fake.Org("team-a-one"); return got.Description }, timeout, poll).Should(Equal("while it waits"))

		Expect(k8s.Delete(ctx, a)).To(Succeed())
		gone(a)
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cf), cf)).To(Succeed())
			return cf.Status.InUse
		}, timeout, poll).Should(BeEquivalentTo(1))
		Expect(k8s.Delete(ctx, b)).To(Succeed())
		gone(cf)
		// Organizations default to Orphan: both stay on the forge.
		Expect(fake.Orgs()).To(HaveLen(2))
	})

	It("is not kept in use by a resource it does not permit", func() {
		a := clusterOrg(nsA, "team-a-kept", cf)
		Expect(k8s.Create(ctx, a)).To(Succeed())
		expectReady(a)
		// A namespace no entry selects, and a tenant naming an owner its
		// entry does not allow, both name the ClusterForge.
		nsC := newTenant(nil)
		outsider := clusterOrg(nsC, "team-a-outside", cf)
		cross := clusterOrg(nsB, "team-a-cross", cf)
		Expect(k8s.Create(ctx, outsider)).To(Succeed())
		Expect(k8s.Create(ctx, cross)).To(Succeed())
		expectReason(outsider, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		expectReason(cross, metav1.ConditionFalse, forgev1.ReasonNotPermitted)
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cf), cf)).To(Succeed())
			return cf.Status.InUse
		}, timeout, poll).Should(BeEquivalentTo(1))
		Consistently(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cf), cf)).To(Succeed())
			return cf.Status.InUse
		}, 2*syncInterval, poll).Should(BeEquivalentTo(1), "only the permitted resource counts")

		Expect(k8s.Delete(ctx, cf)).To(Succeed())
		msg := expectReason(cf, metav1.ConditionFalse, forgev1.ReasonInUse)
		Expect(msg).To(ContainSubstring("1 resource still uses it (1 in " + nsA + ")"))
		Expect(msg).NotTo(ContainSubstring(nsB))
		Expect(msg).NotTo(ContainSubstring(nsC))

		// The permitted resource gone, the ClusterForge goes, though the
		// others still name it.
		Expect(k8s.Delete(ctx, a)).To(Succeed())
		gone(a)
		gone(cf)
		for _, o := range []*forgev1.Organization{outsider, cross} {
			Expect(k8s.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
		}
	})

	It("reads its Secrets from the manager's namespace only, never from a tenant's", func() {
		other := &forgev1.ClusterForge{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "lone-"},
			Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{
				URL:  fakeURL,
				Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "tenant-held-token"}},
			}, Tenants: []forgev1.ClusterForgeTenant{{Namespaces: []string{nsA}, Owners: []forgev1.OwnerGlob{"*"}}}},
		}
		// A tenant puts a Secret of that name in its own namespace.
		putSecret(nsA, "tenant-held-token", "token", token)
		Expect(k8s.Create(ctx, other)).To(Succeed())
		deleteClusterForge(other)
		msg := expectReason(other, metav1.ConditionFalse, forgev1.ReasonSecretNotFound)
		Expect(msg).To(ContainSubstring(digestKey.Namespace + "/tenant-held-token"))
		org := clusterOrg(nsA, "anything", other)
		Expect(k8s.Create(ctx, org)).To(Succeed())
		expectReason(org, metav1.ConditionFalse, forgev1.ReasonForgeNotReady)
		Expect(secretReads(nsA, "tenant-held-token")).To(BeZero())

		putSecret(digestKey.Namespace, "tenant-held-token", "token", token)
		expectReady(other)
		expectReady(org)
		Expect(secretReads(nsA, "tenant-held-token")).To(BeZero())
		Expect(leaks(org, token)).To(BeEmpty())
	})
})

var _ = Describe("ClusterForge admission", func() {
	ctx := context.Background()

	It("refuses tenants entries that select nothing, owners that are no globs, grantAdmin without siteAdmin, a bad URL and a commitAuthor without a name or an email", func() {
		base := func() *forgev1.ClusterForge {
			return &forgev1.ClusterForge{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "bad-"},
				Spec: forgev1.ClusterForgeSpec{ForgeSpec: forgev1.ForgeSpec{
					URL:  "https://git.example.com",
					Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "t"}},
				}},
			}
		}
		for what, c := range map[string]struct {
			mutate func(*forgev1.ClusterForge)
			msg    string
		}{
			"no selector": {func(cf *forgev1.ClusterForge) {
				cf.Spec.Tenants = []forgev1.ClusterForgeTenant{{Owners: []forgev1.OwnerGlob{"acme"}}}
			}, "a tenant entry selects namespaces"},
			"owners glob": {func(cf *forgev1.ClusterForge) {
				cf.Spec.Tenants = []forgev1.ClusterForgeTenant{{Namespaces: []string{"a"}, Owners: []forgev1.OwnerGlob{"acme/[x"}}}
			}, "spec.tenants[0].owners[0]"},
			"grantAdmin without siteAdmin": {func(cf *forgev1.ClusterForge) {
				cf.Spec.Tenants = []forgev1.ClusterForgeTenant{{Namespaces: []string{"a"}, Owners: []forgev1.OwnerGlob{"*-bot"}, GrantAdmin: true}}
			}, "grantAdmin needs siteAdmin: true on the same tenants entry"},
			"no owners": {func(cf *forgev1.ClusterForge) {
				cf.Spec.Tenants = []forgev1.ClusterForgeTenant{{Namespaces: []string{"a"}}}
			}, "spec.tenants[0].owners"},
			"credentials in the URL": {func(cf *forgev1.ClusterForge) {
				cf.Spec.URL = "https://user:pw@git.example.com"
			}, "must not contain '@'"},
			"both auths": {func(cf *forgev1.ClusterForge) {
				cf.Spec.Auth.BasicAuthSecretRef = &forgev1.SecretReference{Name: "b"}
			}, "exactly one of tokenSecretRef and basicAuthSecretRef"},
			"qps": {func(cf *forgev1.ClusterForge) {
				cf.Spec.RateLimit = &forgev1.RateLimit{QPS: 5000, Burst: 1}
			}, "spec.rateLimit.qps"},
			"commitAuthor without a name": {func(cf *forgev1.ClusterForge) {
				cf.Spec.CommitAuthor = &forgev1.CommitAuthor{Email: "bot@example.com"}
			}, "spec.commitAuthor.name"},
			"commitAuthor without an email": {func(cf *forgev1.ClusterForge) {
				cf.Spec.CommitAuthor = &forgev1.CommitAuthor{Name: "Platform Bot"}
			}, "spec.commitAuthor.email"},
			"commitAuthor's email no address": {func(cf *forgev1.ClusterForge) {
				cf.Spec.CommitAuthor = &forgev1.CommitAuthor{Name: "Platform Bot", Email: "platform bot"}
			}, "spec.commitAuthor.email"},
			"commitAuthor's name too long": {func(cf *forgev1.ClusterForge) {
				cf.Spec.CommitAuthor = &forgev1.CommitAuthor{Name: strings.Repeat("x", 256), Email: "bot@example.com"}
			}, "spec.commitAuthor.name"},
		} {
			cf := base()
			c.mutate(cf)
			err := k8s.Create(ctx, cf)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: %v", what, err)
			Expect(err.Error()).To(ContainSubstring(c.msg), what)
		}
		cf := base()
		cf.Spec.CommitAuthor = &forgev1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.com"}
		Expect(k8s.Create(ctx, cf, client.DryRunAll)).To(Succeed(), "a commitAuthor with a name and an email")
	})
})
