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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// setKind is what the release specs need of a set kind: a set of two
// objects ("kind/bug" and "kind/feature" labels, "main" and "release/*"
// rules), the objects of one repository, one seeded on the forge, and a
// resource of the one-object kind that holds one.
type setKind struct {
	nouns  string
	listed []string
	newSet func(ns, name string, sel forgev1.RepositorySelector, policy forgev1.DeletionPolicy) client.Object
	status func(obj client.Object) *forgev1.SetStatus
	// objectsIn are the names of the objects of owner/repo, sorted.
	objectsIn func(owner, repo string) []string
	seed      func(owner, repo, name string)
	holder    func(ns, repo, name string) client.Object
	setLimit  func(obj client.Object, max int32)
}

var releaseKinds = map[string]setKind{
	"LabelSet": {
		nouns: "labels", listed: []string{"kind/bug", "kind/feature"},
		newSet: func(ns, name string, sel forgev1.RepositorySelector, policy forgev1.DeletionPolicy) client.Object {
			return &forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.LabelSetSpec{ManagedSpec: releaseManaged(), Repositories: sel, DeletionPolicy: policy,
					Labels: []forgev1.LabelSetLabel{{Name: "kind/bug", Color: "#d73a4a"}, {Name: "kind/feature", Color: "#00ff00"}}}}
		},
		status: func(obj client.Object) *forgev1.SetStatus { return &obj.(*forgev1.LabelSet).Status.SetStatus },
		objectsIn: func(owner, repo string) []string {
			var out []string
			for _, l := range fake.Labels(forge.RepoScope(owner, repo)) {
				out = append(out, l.Name)
			}
			slices.Sort(out)
			return out
		},
		seed: func(owner, repo, name string) {
			_, err := forgeClient().CreateLabel(context.Background(), forge.RepoScope(owner, repo), forge.CreateLabelOption{Name: name, Color: "ededed"})
			Expect(err).NotTo(HaveOccurred())
		},
		holder: func(ns, repo, name string) client.Object {
			return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held"},
				Spec: forgev1.LabelSpec{ManagedSpec: releaseManaged(), Repository: ptr(forgev1.RepositoryName(repo)), Name: name, Color: "#00ff00"}}
		},
		setLimit: func(obj client.Object, max int32) {
			obj.(*forgev1.LabelSet).Spec.MaxDeletionsPerRepository = ptr(max)
		},
	},
	"BranchProtectionSet": {
		nouns: "rules", listed: []string{"main", "release/*"},
		newSet: func(ns, name string, sel forgev1.RepositorySelector, policy forgev1.DeletionPolicy) client.Object {
			return &forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: releaseManaged(), Repositories: sel, DeletionPolicy: policy,
					Rules: []forgev1.BranchProtectionRule{{RuleName: "main"}, {RuleName: "release/*"}}}}
		},
		status: func(obj client.Object) *forgev1.SetStatus {
			return &obj.(*forgev1.BranchProtectionSet).Status.SetStatus
		},
		objectsIn: func(owner, repo string) []string {
			var out []string
			for _, b := range fake.BranchProtections(owner, repo) {
				out = append(out, b.RuleName)
			}
			slices.Sort(out)
			return out
		},
		seed: func(owner, repo, name string) {
			_, err := forgeClient().CreateBranchProtection(context.Background(), owner, repo, forge.BranchProtection{RuleName: name})
			Expect(err).NotTo(HaveOccurred())
		},
		holder: func(ns, repo, name string) client.Object {
			return &forgev1.BranchProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held"},
				Spec: forgev1.BranchProtectionSpec{ManagedSpec: releaseManaged(), Repository: forgev1.RepositoryName(repo),
					BranchProtectionRule: forgev1.BranchProtectionRule{RuleName: forgev1.BranchRuleName(name)}}}
		},
		setLimit: func(obj client.Object, max int32) {
			obj.(*forgev1.BranchProtectionSet).Spec.MaxDeletionsPerRepository = ptr(max)
		},
	},
}

// releaseManaged is the specs' ManagedSpec: an hour, so that a pass comes
// only from a spec change or a request.
func releaseManaged() forgev1.ManagedSpec {
	return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(time.Hour)}
}

var _ = Describe("LabelSet and BranchProtectionSet releasing the repositories that stop matching", func() {
	var ns string
	ctx := context.Background()

	// acme holds web, api, docs, old and site, each carrying the topic
	// service; other is where site is transferred.
	BeforeEach(func() {
		ns = newNamespace()
		for _, o := range []string{"acme", "other"} {
			_, err := fake.CreateOrg(o)
			Expect(err).NotTo(HaveOccurred())
		}
		for _, r := range []string{"web", "api", "docs", "old", "site"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
			Expect(forgeClient().SetRepoTopics(ctx, "acme", r, []string{"service"})).To(Succeed())
		}
	})

	services := func() forgev1.RepositorySelector {
		return forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme")), Topics: []forgev1.Topic{"service"}}
	}
	get := func(obj client.Object) {
		GinkgoHelper()
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	}
	failing := func(k setKind, obj client.Object) func(Gomega) []string {
		return func(g Gomega) []string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
			var out []string
			for _, f := range k.status(obj).Failures {
				out = append(out, f.Repository+" "+f.Reason)
			}
			return out
		}
	}
	requestPass := func(obj client.Object) {
		change(obj, func(o client.Object) {
			a := o.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[forgev1.ReconcileRequestedAtAnnotation] = time.Now().Format(time.RFC3339Nano)
			o.SetAnnotations(a)
		})
	}
	// leave makes four repositories stop matching at once: api's topic is
	// removed, old is archived and site transferred on the forge, then docs
	// is excluded by a glob (the spec change starts the pass).
	leave := func(obj client.Object) {
		GinkgoHelper()
		Expect(forgeClient().SetRepoTopics(ctx, "acme", "api", []string{"library"})).To(Succeed())
		fake.SetArchived("acme", "old", true)
		Expect(fake.TransferRepo("acme", "site", "other")).To(Succeed())
		change(obj, func(o client.Object) {
			switch s := o.(type) {
			case *forgev1.LabelSet:
				s.Spec.Repositories.Exclude = []forgev1.RepositoryGlob{"doc*"}
			case *forgev1.BranchProtectionSet:
				s.Spec.Repositories.Exclude = []forgev1.RepositoryGlob{"doc*"}
			}
		})
	}
	const released = "Released: released 4 repositories: acme/api, acme/docs, acme/old (archived, left as it is), other/site; "

	for _, kindName := range []string{"LabelSet", "BranchProtectionSet"} {
		k := releaseKinds[kindName]
		all := k.listed

		It(kindName+" with deletionPolicy Delete releases a repository excluded by a glob, one whose topic was removed, one transferred and one archived: it removes its objects there, never another resource's nor an unlisted one, and leaves the archived one as it is", func() {
			// A resource of the one-object kind holds the set's second
			// object in api: the set yields there (Conflict) and leaves it
			// when it releases api.
			held := k.holder(ns, "acme/api", all[1])
			Expect(k8s.Create(ctx, held)).To(Succeed())
			expectReady(held)
			k.seed("acme", "docs", "unlisted")
			s := k.newSet(ns, "services", services(), forgev1.DeletionPolicyDelete)
			Expect(k8s.Create(ctx, s)).To(Succeed())
			Eventually(failing(k, s), timeout, poll).Should(Equal([]string{"acme/api Conflict"}))
			for _, r := range []string{"web", "api", "old", "site"} {
				Eventually(func() []string { return k.objectsIn("acme", r) }, timeout, poll).Should(Equal(all), r)
			}
			Eventually(func() []string { return k.objectsIn("acme", "docs") }, timeout, poll).Should(Equal(append(slices.Clone(all), "unlisted")))
			get(s)
			Expect(k.status(s).Matched).NotTo(BeNil())
			Expect(k.status(s).Matched.Count).To(BeEquivalentTo(5))

			leave(s)
			expectReady(s)
			expectEvent(s, released+"deleted 5 "+k.nouns+" of the set")
			Expect(k.objectsIn("acme", "web")).To(Equal(all), "web still matches")
			Expect(k.objectsIn("acme", "api")).To(Equal(all[1:]), "the other resource's object stays")
			Expect(k.objectsIn("acme", "docs")).To(Equal([]string{"unlisted"}))
			Expect(k.objectsIn("other", "site")).To(BeEmpty())
			Expect(k.objectsIn("acme", "old")).To(Equal(all), "an archived repository is frozen")
			get(s)
			Expect(k.status(s).Repositories).To(BeEquivalentTo(1))
			Expect(k.status(s).Matched.Count).To(BeEquivalentTo(1), "the record holds web alone")

			By("at rest the next pass releases nothing more and writes nothing")
			fake.ClearRequests()
			requestPass(s)
			Eventually(func() int { return requestsTo("/repos/acme/web/") }, timeout, poll).Should(BeNumerically(">", 0))
			expectReady(s)
			Expect(fake.WriteRequests()).To(BeEmpty())
		})

		It(kindName+" with deletionPolicy Orphan releases the repositories that stop matching and leaves what it wrote there", func() {
			s := k.newSet(ns, "services", services(), forgev1.DeletionPolicyOrphan)
			Expect(k8s.Create(ctx, s)).To(Succeed())
			expectReady(s)
			Expect(k.objectsIn("acme", "api")).To(Equal(all))
			fake.ClearRequests()

			leave(s)
			expectReady(s)
			expectEvent(s, released+"deletionPolicy Orphan: the "+k.nouns+" the set wrote there stay")
			for _, r := range []string{"api", "docs", "old"} {
				Expect(k.objectsIn("acme", r)).To(Equal(all), r)
			}
			Expect(k.objectsIn("other", "site")).To(Equal(all))
			Expect(slices.ContainsFunc(fake.WriteRequests(), func(r fakeforge.Request) bool { return r.Method == http.MethodDelete })).To(BeFalse())
			get(s)
			Expect(k.status(s).Matched.Count).To(BeEquivalentTo(1))
		})

		It(kindName+" releases a repository whose name is dropped from names", func() {
			s := k.newSet(ns, "named", forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web", "acme/api"}}, forgev1.DeletionPolicyDelete)
			Expect(k8s.Create(ctx, s)).To(Succeed())
			expectReady(s)
			Expect(k.objectsIn("acme", "api")).To(Equal(all))

			change(s, func(o client.Object) {
				switch s := o.(type) {
				case *forgev1.LabelSet:
					s.Spec.Repositories.Names = []forgev1.RepositoryName{"acme/web"}
				case *forgev1.BranchProtectionSet:
					s.Spec.Repositories.Names = []forgev1.RepositoryName{"acme/web"}
				}
			})
			expectReady(s)
			expectEvent(s, "Released: released acme/api; deleted 2 "+k.nouns+" of the set")
			Expect(k.objectsIn("acme", "api")).To(BeEmpty())
			Expect(k.objectsIn("acme", "web")).To(Equal(all))
		})

		It(kindName+" keeps retrying a release its guard refuses, listing the repository in failures, until the limit allows it", func() {
			s := k.newSet(ns, "services", services(), forgev1.DeletionPolicyDelete)
			k.setLimit(s, 1)
			Expect(k8s.Create(ctx, s)).To(Succeed())
			expectReady(s)

			Expect(forgeClient().SetRepoTopics(ctx, "acme", "api", nil)).To(Succeed())
			requestPass(s)
			Eventually(failing(k, s), timeout, poll).Should(Equal([]string{"acme/api TooManyDeletions"}))
			msg := expectReason(s, metav1.ConditionFalse, forgev1.ReasonTooManyDeletions)
			Expect(msg).To(Equal("4 of 4 repositories in sync; 1 failing: acme/api (TooManyDeletions)"),
				"a release failing counts in neither number, and is named")
			Expect(k.objectsIn("acme", "api")).To(Equal(all))
			get(s)
			Expect(k.status(s).Failures).To(ConsistOf(HaveField("Message",
				ContainSubstring("released (no longer matched): it would lose 2 "+k.nouns))))
			Expect(k.status(s).Matched.Count).To(BeEquivalentTo(5), "api stays in the record")

			change(s, func(o client.Object) { k.setLimit(o, 2) })
			expectReady(s)
			expectEvent(s, "Released: released acme/api; deleted 2 "+k.nouns+" of the set")
			Expect(k.objectsIn("acme", "api")).To(BeEmpty())
			get(s)
			Expect(k.status(s).Failures).To(BeEmpty())
			Expect(k.status(s).Matched.Count).To(BeEquivalentTo(4))
		})
	}

	It("RepositorySet with deletionPolicy Delete releases a repository excluded by a glob, one whose topic was removed, one archived and one dropped from names: it takes back the team access it gave there, leaves the archived one as it is, and forgets what it no longer governs", func() {
		fc := forgeClient()
		_, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "developers", Permission: "write", UnitsMap: map[string]string{"repo.code": "write"}})
		Expect(err).NotTo(HaveOccurred())
		team := func() []string { r := fake.TeamRepos("acme", "developers"); slices.Sort(r); return r }
		newRS := func(name string, sel forgev1.RepositorySelector) *forgev1.RepositorySet {
			return &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: forgev1.RepositorySetSpec{ManagedSpec: releaseManaged(), Repositories: sel, DeletionPolicy: forgev1.DeletionPolicyDelete,
					Teams: []forgev1.TeamName{"developers"}}}
		}
		granted := func(s *forgev1.RepositorySet) int {
			get(s)
			n := 0
			for _, g := range s.Status.TeamGrants {
				n += len(g.RepositoryIDs)
			}
			return n
		}
		s := newRS("services", services())
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(team()).To(Equal([]string{"api", "docs", "old", "site", "web"}))
		Expect(granted(s)).To(Equal(5))

		Expect(fc.SetRepoTopics(ctx, "acme", "api", []string{"library"})).To(Succeed())
		fake.SetArchived("acme", "old", true)
		change(s, func(o *forgev1.RepositorySet) { o.Spec.Repositories.Exclude = []forgev1.RepositoryGlob{"doc*"} })
		expectReady(s)
		expectEvent(s, "Released: released 3 repositories: acme/api, acme/docs, acme/old (archived, left as it is); took back 2 team accesses the set gave; settings and topics stay")
		Expect(team()).To(Equal([]string{"old", "site", "web"}), "the archived repository is frozen; what still matches keeps its access")
		Eventually(func() int { return granted(s) }, timeout, poll).Should(Equal(2), "site and web: the set no longer records access it does not govern")

		By("a name dropped from names")
		named := newRS("named", forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web", "acme/site"}})
		named.Spec.Teams = []forgev1.TeamName{"developers"}
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		gone(s)
		Expect(fc.AddTeamRepo(ctx, teamID("developers"), "acme", "api")).To(Succeed())
		Expect(k8s.Create(ctx, named)).To(Succeed())
		expectReady(named)
		Eventually(func() int { return granted(named) }, timeout, poll).Should(Equal(2))
		change(named, func(o *forgev1.RepositorySet) { o.Spec.Repositories.Names = []forgev1.RepositoryName{"acme/web"} })
		expectReady(named)
		expectEvent(named, "Released: released acme/site; took back 1 team access the set gave; settings and topics stay")
		Expect(team()).To(Equal([]string{"api", "old", "web"}), "access the set did not give stays")
	})

	It("releases nothing from a partial listing: a name dropped while another owner cannot be listed is released once the listing is whole", func() {
		k := releaseKinds["LabelSet"]
		s := k.newSet(ns, "named", forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"acme/web", "acme/api", "other/site"}},
			forgev1.DeletionPolicyDelete)
		Expect(fake.TransferRepo("acme", "site", "other")).To(Succeed())
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)
		Expect(k.objectsIn("acme", "api")).To(Equal(k.listed))

		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/orgs/other/repos", Count: -1, Status: http.StatusInternalServerError})
		change(s, func(o client.Object) {
			o.(*forgev1.LabelSet).Spec.Repositories.Names = []forgev1.RepositoryName{"acme/web", "other/site"}
		})
		Eventually(failing(k, s), timeout, poll).Should(Equal([]string{"other/site ForgeError"}))
		Expect(k.objectsIn("acme", "api")).To(Equal(k.listed), "nothing is released from a partial listing")
		Expect(k.status(s).Matched.Count).To(BeEquivalentTo(3))

		fake.ClearFaults()
		requestPass(s)
		expectReady(s)
		expectEvent(s, "Released: released acme/api; deleted 2 labels of the set")
		Expect(k.objectsIn("acme", "api")).To(BeEmpty())
	})

	It("releases nothing on the first pass of a set whose status has no record (a set an earlier version made): it only records", func() {
		k := releaseKinds["LabelSet"]
		// A set that only observes keeps no record, as an earlier version
		// kept none; the labels stand for what that version wrote.
		s := k.newSet(ns, "services", services(), forgev1.DeletionPolicyDelete)
		s.(*forgev1.LabelSet).Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
		for _, r := range []string{"web", "api"} {
			for _, l := range k.listed {
				k.seed("acme", r, l)
			}
		}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		Eventually(func(g Gomega) int32 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(s), s)).To(Succeed())
			return k.status(s).Repositories
		}, timeout, poll).Should(BeEquivalentTo(5))
		Expect(k.status(s).Matched).To(BeNil())

		Expect(forgeClient().SetRepoTopics(ctx, "acme", "api", nil)).To(Succeed())
		change(s, func(o client.Object) { o.(*forgev1.LabelSet).Spec.ManagementPolicy = forgev1.ManagementPolicyManage })
		expectReady(s)
		Expect(k.status(s).Matched).NotTo(BeNil())
		Expect(k.status(s).Matched.Count).To(BeEquivalentTo(4))
		requestPass(s)
		expectReady(s)
		Expect(k.objectsIn("acme", "api")).To(Equal(k.listed), "api left before the first record: not released")
		Expect(slices.ContainsFunc(events(s), func(e string) bool { return strings.HasPrefix(e, "Released:") })).To(BeFalse())
	})
})
