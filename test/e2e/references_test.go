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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Applied together, resources that name each other's forge objects wait
// for one another instead of being refused by the forge: a repository
// from a template waits for the template's Repository, the Team listing
// that repository waits for it (ParentNotFound, naming it), the
// protections naming the team wait for the Team (TeamNotFound, naming
// it), writing nothing; then each follows the one it waits for.
var _ = Describe("References end to end", func() {
	ctx := context.Background()

	It("a chain of references applied together converges in order, without a refusal", func() {
		sc := newScenario()
		sc.createOrg()
		repo := forgev1.RepositoryName(sc.createRepo("web"))
		tmpl := forgev1.RepositoryName(sc.org + "/service-template")
		api := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "api"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), DeletionPolicy: "Delete",
				Init: &forgev1.RepositoryInit{Template: &forgev1.RepositoryTemplate{Repository: tmpl}}}}
		team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "web-developers"},
			Spec: forgev1.TeamSpec{ManagedSpec: managed(), Organization: forgev1.OwnerName(sc.org),
				Units: &forgev1.TeamUnits{Code: "write", Pulls: "write"}, Repositories: []forgev1.RepoName{"web", "api"}}}
		teams := []forgev1.TeamName{"web-developers"}
		tp := &forgev1.TagProtection{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "release-tags"},
			Spec: forgev1.TagProtectionSpec{ManagedSpec: managed(), Repository: repo, NamePattern: "v*", WhitelistTeams: teams}}
		bp := &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "release"},
			Spec: forgev1.BranchProtectionSpec{ManagedSpec: managed(), Repository: repo,
				BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: "release/*", EnablePush: ptr(true),
					EnablePushWhitelist: ptr(true), PushWhitelistTeams: teams}}}
		for _, obj := range []client.Object{api, team, tp, bp} {
			Expect(k8s.Create(ctx, obj)).To(Succeed())
		}
		expectReason(api, metav1.ConditionFalse, forgev1.ReasonParentNotFound)
		Expect(expectReason(team, metav1.ConditionFalse, forgev1.ReasonParentNotFound)).To(Equal(
			`waiting for Repository "` + sc.org + `/api", declared by Repository ` + sc.ns + `/api, which is not Ready yet`))
		for _, obj := range []client.Object{tp, bp} {
			Expect(expectReason(obj, metav1.ConditionFalse, forgev1.ReasonTeamNotFound)).To(Equal(
				`waiting for Team "web-developers" in ` + sc.org + `, declared by Team ` + sc.ns + `/web-developers, which is not Ready yet`))
		}
		all, err := fc.ListTeams(ctx, sc.org)
		Expect(err).NotTo(HaveOccurred())
		Expect(all).NotTo(ContainElement(HaveField("Name", "web-developers")), "the team is not made while its repository is on its way")

		By("the template arrives as a Repository: each resource follows the one it waits for")
		src := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: sc.ns, Name: "service-template"},
			Spec: forgev1.RepositorySpec{ManagedSpec: managed(), Owner: forgev1.OwnerName(sc.org), RepositorySettings: forgev1.RepositorySettings{Template: ptr(true)},
				Init: &forgev1.RepositoryInit{AutoInit: ptr(true)}}}
		Expect(k8s.Create(ctx, src)).To(Succeed())
		for _, obj := range []client.Object{src, api, team, tp, bp} {
			expectReady(obj)
		}
		tags, err := fc.ListTagProtections(ctx, sc.org, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(tags).To(ConsistOf(HaveField("WhitelistTeams", ConsistOf("web-developers"))))
		rules, err := fc.ListBranchProtections(ctx, sc.org, "web")
		Expect(err).NotTo(HaveOccurred())
		Expect(rules).To(ConsistOf(HaveField("PushWhitelistTeams", ConsistOf("web-developers"))))

		var list corev1.EventList
		Expect(k8s.List(ctx, &list, client.InNamespace(sc.ns))).To(Succeed())
		for _, e := range list.Items {
			Expect(e.Reason).NotTo(Equal(forgev1.ReasonRejected), "%s %s: %s", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message)
		}
	})
})
