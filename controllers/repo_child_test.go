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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
)

// childRow is one kind that lives in a repository, as the standard specs
// of a repository's child (repoChildSpecs) make and find its objects. Each
// kind's test file fills one.
type childRow struct {
	// kind names the kind (the specs' Describe, for -ginkgo.focus).
	kind string
	// setup, when set, prepares the fake after the organization acme and
	// its repository web exist (users an allow-list names, ...).
	setup func()
	// object is a resource of the kind named name in namespace ns, on the
	// Forge "gitea", for the object of natural name key in repository
	// acme/<repo>.
	object func(ns, name, repo, key string) forgev1.Managed
	// onForge makes the object of natural name key in acme/<repo> on the
	// forge, by hand: the one a resource adopts.
	onForge func(repo, key string)
	// count counts the objects of natural name key in acme/<repo> on the
	// forge (0 in a repository that does not exist).
	count func(repo, key string) int
}

// repoChildSpecs runs the standard specs of a repository's child for row:
// it waits for its Repository, writes nothing into an archived one, adopts
// by its natural key, and two resources of one key conflict. What differs
// per kind (its fields, how they compare, how they are written) is the
// kind's own file's to test.
func repoChildSpecs(row childRow) bool {
	return Describe(row.kind+" as a repository's child", func() {
		var ns string
		ctx := context.Background()

		BeforeEach(func() {
			ns = newNamespace()
			_, err := fake.CreateOrg("acme")
			Expect(err).NotTo(HaveOccurred())
			Expect(fake.CreateRepo("acme", "web")).To(Succeed())
			if row.setup != nil {
				row.setup()
			}
			fake.ClearRequests()
		})

		It("waits with ParentNotFound for its Repository, and proceeds once the Repository resource is Ready", func() {
			obj := row.object(ns, "later", "later", "first")
			Expect(k8s.Create(ctx, obj)).To(Succeed())
			Expect(expectReason(obj, metav1.ConditionFalse, forgev1.ReasonParentNotFound)).To(ContainSubstring("acme/later"))
			Expect(findCondition(obj, forgev1.ConditionReconciling)).NotTo(BeNil())
			Expect(findCondition(obj, forgev1.ConditionStalled)).To(BeNil(), "a missing repository is waited for")
			expectKstatus(obj, status.InProgressStatus)
			Expect(fake.WriteRequests()).To(BeEmpty())

			repo := acmeRepository(ns, "later")
			Expect(k8s.Create(ctx, repo)).To(Succeed())
			expectReady(repo)
			expectReady(obj)
			expectKstatus(obj, status.CurrentStatus)
			Expect(row.count("later", "first")).To(Equal(1))
		})

		It("stalls with RepositoryArchived in an archived repository and writes nothing", func() {
			Expect(fake.CreateRepo("acme", "old")).To(Succeed())
			fake.SetArchived("acme", "old", true)
			fake.ClearRequests()
			obj := row.object(ns, "frozen", "old", "first")
			Expect(k8s.Create(ctx, obj)).To(Succeed())
			Expect(expectReason(obj, metav1.ConditionFalse, forgev1.ReasonRepositoryArchived)).To(ContainSubstring("acme/old"))
			Expect(fake.WriteRequests()).To(BeEmpty())
			Expect(row.count("old", "first")).To(BeZero())
		})

		It("adopts the object of its natural key", func() {
			row.onForge("web", "first")
			fake.ClearRequests()
			obj := row.object(ns, "adopted", "web", "first")
			Expect(k8s.Create(ctx, obj)).To(Succeed())
			expectReady(obj)
			eventWithReason(obj, forgev1.ReasonAdopted)
			Expect(row.count("web", "first")).To(Equal(1), "adopted, not made again")
		})

		It("lets only the older of two resources of one key hold the object", func() {
			older := row.object(ns, "older", "web", "first")
			Expect(k8s.Create(ctx, older)).To(Succeed())
			expectReady(older)
			younger := row.object(ns, "younger", "web", "first")
			Expect(k8s.Create(ctx, younger)).To(Succeed())
			Expect(expectReason(younger, metav1.ConditionFalse, forgev1.ReasonConflict)).To(ContainSubstring(ns + "/older"))
			Expect(row.count("web", "first")).To(Equal(1))
		})
	})
}
