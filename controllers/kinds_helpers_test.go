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
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/common/expfmt"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// putSecret creates or updates Secret name in ns with one key.
func putSecret(ns, name, key, value string) {
	GinkgoHelper()
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	err := k8s.Get(ctx, client.ObjectKeyFromObject(s), s)
	if apierrors.IsNotFound(err) {
		s.Data = map[string][]byte{key: []byte(value)}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		return
	}
	Expect(err).NotTo(HaveOccurred())
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	s.Data[key] = []byte(value)
	Expect(k8s.Update(ctx, s)).To(Succeed())
}

// gone waits until obj no longer exists.
func gone(obj client.Object) {
	GinkgoHelper()
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	}, timeout, poll).Should(BeTrue())
}

// leaks returns where (the object with its status, the namespace's
// Events, the manager log, the metrics registry) any of values shows up,
// as it is or base64-encoded.
func leaks(obj client.Object, values ...string) []string {
	GinkgoHelper()
	Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	status, err := json.Marshal(obj)
	Expect(err).NotTo(HaveOccurred())
	var list corev1.EventList
	Expect(k8s.List(context.Background(), &list, client.InNamespace(obj.GetNamespace()))).To(Succeed())
	evs, err := json.Marshal(list.Items)
	Expect(err).NotTo(HaveOccurred())
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var metrics strings.Builder
	for _, f := range families {
		_, err := expfmt.MetricFamilyToText(&metrics, f)
		Expect(err).NotTo(HaveOccurred())
	}
	var out []string
	for _, v := range values {
		for _, enc := range []string{v, base64.StdEncoding.EncodeToString([]byte(v)), base64.RawStdEncoding.EncodeToString([]byte(v))} {
			for where, text := range map[string]string{"object": string(status), "events": string(evs), "log": logs.String(), "metrics": metrics.String()} {
				if strings.Contains(text, enc) {
					out = append(out, where+" holds "+enc)
				}
			}
		}
	}
	return out
}

// change applies mutate to the latest version of obj and updates it,
// retrying when the controller wrote in between.
func change[T client.Object](obj T, mutate func(T)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		mutate(obj)
		return k8s.Update(context.Background(), obj)
	})).To(Succeed())
}

// expectSettled waits until obj's create-pending mark (in status) is
// settled: absent, or echoed in status.lastHandledCreatePending, which the
// status write of the pass that recorded the create's id makes. A settled
// mark means nothing (nor does the replaces mark that came with it). The
// status write reports Ready too, but a spec that saw Ready from an
// earlier pass waits for this.
func expectSettled(obj forgev1.Managed) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		st := obj.GetManagedStatus()
		g.Expect(st.LastHandledCreatePending).To(Equal(st.CreatePending), "the create-pending mark is pending")
	}, timeout, poll).Should(Succeed())
}

// watchWrites watches the object of list's kind named like obj in its
// namespace, from before it is created, and returns the number of writes
// to it seen so far (its creation excluded): every metadata and status
// write makes one watch event.
func watchWrites(list client.ObjectList, obj client.Object) func() int {
	GinkgoHelper()
	wc, err := client.NewWithWatch(restCfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	w, err := wc.Watch(context.Background(), list, client.InNamespace(obj.GetNamespace()),
		client.MatchingFields{"metadata.name": obj.GetName()})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	var writes atomic.Int64
	go func() {
		for e := range w.ResultChan() {
			if e.Type == watch.Modified {
				writes.Add(1)
			}
		}
	}()
	return func() int { return int(writes.Load()) }
}

// childRow is one kind that lives in a repository, as the standard specs
// of a repository's child (childSpecs) make and find its objects. Each
// kind's test file fills one.
type childRow struct {
	// kind names the kind (the specs' Describe, for -ginkgo.focus).
	kind string
	// keyless: the kind has no natural key (Kind.Key is ""), so two
	// resources of one name do not conflict.
	keyless bool
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
	// names are the natural names of the objects in acme/<repo> on the
	// forge (none in a repository that does not exist).
	names func(repo string) []string
}

// childSpec is the ManagedSpec of a row's resources: on the Forge "gitea",
// checked every syncInterval.
func childSpec() forgev1.ManagedSpec {
	return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)}
}

// namesOn maps the forge's objects to their natural names, for a row's names.
func namesOn[E any](all []E, name func(E) string) []string {
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = name(e)
	}
	return out
}

// count counts the objects of natural name key in acme/<repo> on the forge.
func (row childRow) count(repo, key string) int {
	n := 0
	for _, name := range row.names(repo) {
		if name == key {
			n++
		}
	}
	return n
}

// childSpecs runs the standard specs of a repository's child for row:
// it waits for its Repository, writes nothing into an archived one, adopts
// by its natural key, and two resources of one key conflict. What differs
// per kind (its fields, how they compare, how they are written) is the
// kind's own file's to test.
func childSpecs(row childRow) bool {
	return Describe(row.kind+" as a repository's child", func() {
		var ns string
		ctx := context.Background()

		BeforeEach(func() {
			ns = newNamespace()
			Expect(fake.CreateOrg("acme")).Error().NotTo(HaveOccurred())
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

		if row.keyless {
			return
		}
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
