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
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = childSpecs(childRow{
	kind: "Label",
	object: func(ns, name, repo, label string) forgev1.Managed {
		return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: forgev1.LabelSpec{ManagedSpec: childSpec(),
			Repository: ptr(forgev1.RepositoryName("acme/" + repo)), Name: label, Color: "#aabbcc"}}
	},
	onForge: func(repo, label string) {
		_, err := forgeClient().CreateLabel(context.Background(), forge.RepoScope("acme", repo), forge.CreateLabelOption{Name: label, Color: "aabbcc"})
		Expect(err).NotTo(HaveOccurred())
	},
	names: func(repo string) []string {
		return namesOn(fake.Labels(forge.RepoScope("acme", repo)), func(l forge.Label) string { return l.Name })
	},
})

var _ = Describe("Label", func() {
	var ns string
	ctx := context.Background()
	repo := forge.RepoScope("acme", "web")

	BeforeEach(func() {
		ns = newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		Expect(fake.CreateRepo("acme", "web")).To(Succeed())
	})

	newLabel := func(sc forge.Scope, name string) *forgev1.Label {
		l := &forgev1.Label{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.LabelSpec{
				ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Color:       "#ABC",
				Description: ptr("Something is broken"),
			},
		}
		if sc.IsOrg() {
			l.Spec.Organization = ptr(forgev1.OwnerName(sc.Owner))
		} else {
			l.Spec.Repository = ptr(forgev1.RepositoryName(sc.Owner + "/" + sc.Repo))
		}
		return l
	}

	// onForge returns the forge's labels of scope sc named name.
	onForge := func(sc forge.Scope, name string) []forge.Label {
		var out []forge.Label
		for _, l := range fake.Labels(sc) {
			if l.Name == name {
				out = append(out, l)
			}
		}
		return out
	}
	// theOne returns the only forge label of scope sc named name.
	theOne := func(sc forge.Scope, name string) forge.Label {
		GinkgoHelper()
		got := onForge(sc, name)
		Expect(got).To(HaveLen(1), "labels named %q in %s", name, sc)
		return got[0]
	}
	gone := func(obj client.Object) func() bool {
		return func() bool { return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)) }
	}

	for _, sc := range []forge.Scope{forge.RepoScope("acme", "web"), forge.OrgScope("acme")} {
		Context("in "+sc.String(), func() {
			It("creates the label with a normalised colour, and makes no writes at rest", func() {
				l := newLabel(sc, "kind-bug")
				l.Spec.Name = "kind/bug"
				l.Spec.Exclusive = ptr(true)
				l.Spec.Archived = ptr(true) // organization labels take a second step for it
				Expect(k8s.Create(ctx, l)).To(Succeed())
				expectReady(l)

				got := theOne(sc, "kind/bug")
				Expect(l.Status.ID).To(Equal(got.ID))
				Expect(l.Status.URL).To(Equal(got.URL))
				Expect(got.Color).To(Equal("aabbcc"))
				Expect(got.Description).To(Equal("Something is broken"))
				Expect(got.Exclusive).To(BeTrue())
				Expect(got.IsArchived).To(BeTrue())
				Expect(l.Finalizers).To(ContainElement(forgev1.Finalizer))
				eventWithReason(l, forgev1.ReasonCreated)
				Expect(kstatusOf(l).Status).To(Equal(status.CurrentStatus))

				// "#ABC" in the spec and "aabbcc" on the forge are the same colour: several
				// sync intervals pass with reads only.
				fake.ClearRequests()
				Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 3*syncInterval, poll).Should(BeEmpty())
				Expect(requestsTo("/labels")).To(BeNumerically(">=", 2), "the drift check reads the label every interval")
				// The reason of the pass that made the change stays until the spec changes.
				expectReason(l, metav1.ConditionTrue, forgev1.ReasonCreated)
			})

			It("adopts an existing label instead of creating a second one", func() {
				existing, err := forgeClient().CreateLabel(ctx, sc, forge.CreateLabelOption{Name: "bug", Color: "aabbcc", Description: "old"})
				Expect(err).NotTo(HaveOccurred())

				l := newLabel(sc, "bug")
				Expect(k8s.Create(ctx, l)).To(Succeed())
				expectReady(l)
				Expect(l.Status.ID).To(Equal(existing.ID))
				Expect(fake.Labels(sc)).To(HaveLen(1))
				Expect(theOne(sc, "bug").Description).To(Equal("Something is broken"))
				eventWithReason(l, forgev1.ReasonAdopted)
			})

			It("applies spec changes, and corrects drift made on the forge with an Event and a metric", func() {
				l := newLabel(sc, "bug")
				Expect(k8s.Create(ctx, l)).To(Succeed())
				expectReady(l)

				change(l, func(l *forgev1.Label) { l.Spec.Color = "00FF00" })
				Eventually(func() string { return theOne(sc, "bug").Color }, timeout, poll).Should(Equal("00ff00"))
				expectReady(l)
				eventWithReason(l, forgev1.ReasonUpdated)

				// Someone edits the label in the web UI.
				before := counterValue("forge_drift_corrections_total", map[string]string{"kind": "Label"})
				_, err := forgeClient().EditLabel(ctx, sc, l.Status.ID, forge.EditLabelOption{Color: ptr("ff0000"), Description: ptr("hijacked")})
				Expect(err).NotTo(HaveOccurred())
				Eventually(func() forge.Label { return theOne(sc, "bug") }, timeout, poll).Should(And(
					HaveField("Color", "00ff00"), HaveField("Description", "Something is broken")))
				eventWithReason(l, forgev1.ReasonDriftCorrected)
				Expect(counterValue("forge_drift_corrections_total", map[string]string{"kind": "Label"})).To(BeNumerically(">=", before+1))
				Expect(fake.Labels(sc)).To(HaveLen(1))
			})

			It("keeps the label archived across updates and drift", func() {
				l := newLabel(sc, "old")
				l.Spec.Archived = ptr(true)
				Expect(k8s.Create(ctx, l)).To(Succeed())
				expectReady(l)
				Expect(theOne(sc, "old").IsArchived).To(BeTrue())

				// An update of another field sends is_archived too: the forge would un-archive otherwise.
				change(l, func(l *forgev1.Label) { l.Spec.Description = ptr("Kept for history") })
				Eventually(func() string { return theOne(sc, "old").Description }, timeout, poll).Should(Equal("Kept for history"))
				Expect(theOne(sc, "old").IsArchived).To(BeTrue())

				// Someone un-archives it on the forge.
				_, err := forgeClient().EditLabel(ctx, sc, l.Status.ID, forge.EditLabelOption{IsArchived: false})
				Expect(err).NotTo(HaveOccurred())
				Eventually(func() bool { return theOne(sc, "old").IsArchived }, timeout, poll).Should(BeTrue())
				eventWithReason(l, forgev1.ReasonDriftCorrected)
			})

			It("deletes the label with deletionPolicy Delete and keeps it with Orphan", func() {
				del := newLabel(sc, "gone")
				kept := newLabel(sc, "kept")
				kept.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
				Expect(k8s.Create(ctx, del)).To(Succeed())
				Expect(k8s.Create(ctx, kept)).To(Succeed())
				expectReady(del)
				expectReady(kept)
				Expect(del.Spec.DeletionPolicy).To(Equal(forgev1.DeletionPolicyDelete), "Delete is the Label default")

				Expect(k8s.Delete(ctx, del)).To(Succeed())
				Expect(k8s.Delete(ctx, kept)).To(Succeed())
				Eventually(gone(del), timeout, poll).Should(BeTrue())
				Eventually(gone(kept), timeout, poll).Should(BeTrue())
				Expect(onForge(sc, "gone")).To(BeEmpty())
				Expect(onForge(sc, "kept")).To(HaveLen(1))
			})
		})
	}

	It("only reads with managementPolicy Observe, and reports drift", func() {
		fc := forgeClient()
		_, err := fc.CreateLabel(ctx, repo, forge.CreateLabelOption{Name: "drifted", Color: "00ff00", Description: "Something is broken"})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateLabel(ctx, repo, forge.CreateLabelOption{Name: "same", Color: "#aabbcc", Description: "Something is broken"})
		Expect(err).NotTo(HaveOccurred())
		fake.ClearRequests()

		observe := func(name string) *forgev1.Label {
			l := newLabel(repo, name)
			l.Spec.ManagementPolicy = forgev1.ManagementPolicyObserve
			Expect(k8s.Create(ctx, l)).To(Succeed())
			return l
		}
		drifted, same, missing := observe("drifted"), observe("same"), observe("missing")
		msg := expectReason(drifted, metav1.ConditionFalse, forgev1.ReasonDriftDetected)
		Expect(msg).To(ContainSubstring("color"))
		Expect(drifted.Status.ID).To(Equal(theOne(repo, "drifted").ID))
		expectReason(same, metav1.ConditionTrue, forgev1.ReasonObserved)
		expectReason(missing, metav1.ConditionFalse, forgev1.ReasonNotFound)
		Expect(drifted.Finalizers).To(BeEmpty(), "Observe never deletes, so it holds no finalizer")

		Consistently(func() []fakeforge.Request { return fake.WriteRequests() }, 2*syncInterval, poll).Should(BeEmpty())
		Expect(theOne(repo, "drifted").Color).To(Equal("00ff00"))
		Expect(onForge(repo, "missing")).To(BeEmpty())

		Expect(k8s.Delete(ctx, drifted)).To(Succeed())
		Eventually(gone(drifted), timeout, poll).Should(BeTrue())
		Expect(onForge(repo, "drifted")).To(HaveLen(1), "Observe never deletes")
		Expect(fake.WriteRequests()).To(BeEmpty())
	})

	It("makes no forge calls while suspended", func() {
		fake.ClearRequests()
		l := newLabel(repo, "paused")
		l.Spec.Suspend = true
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReason(l, metav1.ConditionUnknown, forgev1.ReasonSuspended)
		Consistently(func() int { return requestsTo("/labels") }, 2*syncInterval, poll).Should(BeZero())

		change(l, func(l *forgev1.Label) { l.Spec.Suspend = false })
		expectReady(l)
		Expect(onForge(repo, "paused")).To(HaveLen(1))
	})

	It("lets the younger of two conflicting resources proceed as soon as the older is deleted", func() {
		first := newLabel(repo, "older")
		first.Spec.Name = "bug"
		first.Spec.DeletionPolicy = forgev1.DeletionPolicyOrphan
		Expect(k8s.Create(ctx, first)).To(Succeed())
		expectReady(first)
		second := newLabel(repo, "younger")
		second.Spec.Name = "bug"
		second.Spec.Color = "ff0000"
		second.Spec.SyncInterval = every(time.Hour) // only the delete can wake it in time
		Expect(k8s.Create(ctx, second)).To(Succeed())
		expectReason(second, metav1.ConditionFalse, forgev1.ReasonConflict)

		Expect(k8s.Delete(ctx, first)).To(Succeed())
		expectReady(second)
		Expect(onForge(repo, "bug")).To(HaveLen(1))
		Expect(theOne(repo, "bug").Color).To(Equal("ff0000"))
	})

	It("lets a resource go when its Forge is gone, leaving the label, with a Warning", func() {
		l := newLabel(repo, "stranded")
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		Expect(k8s.Delete(ctx, &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gitea"}})).To(Succeed())
		Expect(k8s.Delete(ctx, l)).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(l), l)) }, timeout, poll).Should(BeTrue())
		Expect(onForge(repo, l.Name)).To(HaveLen(1), "nothing can be deleted without the Forge")
		Eventually(func() []string { return events(l) }, timeout, poll).Should(ContainElement(
			And(HavePrefix(forgev1.ReasonOrphaned+": "), ContainSubstring(`Forge "gitea" is gone`))))
	})

	It("stalls with Conflict listing the ids when several labels on the forge have the name", func() {
		fc := forgeClient()
		a, err := fc.CreateLabel(ctx, repo, forge.CreateLabelOption{Name: "dup", Color: "aabbcc"})
		Expect(err).NotTo(HaveOccurred())
		b, err := fc.CreateLabel(ctx, repo, forge.CreateLabelOption{Name: "dup", Color: "ddeeff"})
		Expect(err).NotTo(HaveOccurred())

		l := newLabel(repo, "dup")
		Expect(k8s.Create(ctx, l)).To(Succeed())
		msg := expectReason(l, metav1.ConditionFalse, forgev1.ReasonConflict)
		Expect(msg).To(And(ContainSubstring(fmt.Sprint(a.ID)), ContainSubstring(fmt.Sprint(b.ID))))
		expectKstatus(l, status.FailedStatus)
		Expect(onForge(repo, "dup")).To(HaveLen(2))

		// Once someone removes the extra one, the other is adopted.
		Expect(fc.DeleteLabel(ctx, repo, b.ID)).To(Succeed())
		expectReady(l)
		Expect(l.Status.ID).To(Equal(a.ID))
		Expect(onForge(repo, "dup")).To(HaveLen(1))
	})

	It("reports a revoked token, and recovers when the Secret is updated, without a restart", func() {
		l := newLabel(repo, "bug")
		l.Spec.SyncInterval = every(time.Hour) // only the Forge's own check and the watches can notice
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		f := &forgev1.Forge{}
		Expect(k8s.Get(ctx, key(ns, "gitea"), f)).To(Succeed())

		fake.SetToken(rotatedToken)
		msg := expectReason(f, metav1.ConditionFalse, forgev1.ReasonUnauthorized)
		Expect(msg).To(ContainSubstring("gitea-token"), "the message says which Secret to fix")
		expectKstatus(f, status.FailedStatus)
		eventWithReason(f, forgev1.ReasonUnauthorized)
		// The label cannot progress until someone fixes the Forge's Secret: it says so, and is Failed too.
		msg = expectReason(l, metav1.ConditionFalse, forgev1.ReasonForgeNotReady)
		Expect(msg).To(ContainSubstring(forgev1.ReasonUnauthorized))
		expectKstatus(l, status.FailedStatus)

		// A change while the credentials are bad is applied once they are fixed.
		change(l, func(l *forgev1.Label) { l.Spec.Color = "123456" })
		Eventually(func(g Gomega) {
			c := readyCondition(l)(g)
			g.Expect(c.ObservedGeneration).To(Equal(l.Generation))
			g.Expect(c.Reason).To(Equal(forgev1.ReasonForgeNotReady))
		}, timeout, poll).Should(Succeed())
		Expect(theOne(repo, "bug").Color).To(Equal("aabbcc"))

		var s corev1.Secret
		Expect(k8s.Get(ctx, key(ns, "gitea-token"), &s)).To(Succeed())
		s.Data = map[string][]byte{"token": []byte(rotatedToken)}
		Expect(k8s.Update(ctx, &s)).To(Succeed())
		expectReady(f)
		expectReady(l)
		Expect(theOne(repo, "bug").Color).To(Equal("123456"))
		eventWithReason(f, forgev1.ReasonConnected)
	})

	It("reports Rejected with the forge's message, and retries on a spec change", func() {
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/labels", Count: -1,
			Status: http.StatusUnprocessableEntity, Body: `{"message":"label name is reserved: nope","url":"http://forge/api/swagger"}`})
		l := newLabel(repo, "nope")
		Expect(k8s.Create(ctx, l)).To(Succeed())
		msg := expectReason(l, metav1.ConditionFalse, forgev1.ReasonRejected)
		Expect(msg).To(ContainSubstring("422 label name is reserved: nope"))
		stalled := findCondition(l, forgev1.ConditionStalled)
		Expect(stalled).NotTo(BeNil())
		Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		Expect(findCondition(l, forgev1.ConditionReconciling)).To(BeNil())
		expectKstatus(l, status.FailedStatus)
		eventWithReason(l, forgev1.ReasonRejected)
		Expect(fake.Labels(repo)).To(BeEmpty())

		fake.ClearFaults()
		change(l, func(l *forgev1.Label) { l.Spec.Name = "fine" })
		expectReady(l)
		Expect(theOne(repo, "fine").ID).To(Equal(l.Status.ID))
	})

	It("recovers from server errors and connection resets", func() {
		fake.InjectFault(fakeforge.Fault{Method: http.MethodGet, Path: "/repos/acme/web/labels", Count: 3, Status: http.StatusInternalServerError})
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/labels", Count: 2, Reset: true})
		l := newLabel(repo, "flaky")
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		Expect(onForge(repo, "flaky")).To(HaveLen(1))
		faults := 0
		for _, r := range fake.Requests() {
			if r.Fault != "" {
				faults++
			}
		}
		Expect(faults).To(Equal(5), "every injected fault was met")
	})

	It("stalls InvalidForgeAnswer on a create answered with id 0 or an unreadable body, repeats no create before its sync interval, and looks before it creates again", func() {
		for i, body := range []string{`{"id":0,"name":"once","color":"aabbcc"}`, `<html>proxy error</html>`} {
			name := fmt.Sprintf("untrusted-%d", i)
			fake.ClearRequests()
			fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/labels", Count: -1,
				Status: http.StatusCreated, Body: body})
			l := newLabel(repo, name)
			l.Spec.SyncInterval = every(time.Hour) // a backoff would retry within seconds; the interval is an hour
			Expect(k8s.Create(ctx, l)).To(Succeed())
			msg := expectReason(l, metav1.ConditionFalse, forgev1.ReasonInvalidForgeAnswer)
			Expect(msg).To(ContainSubstring(strings.ReplaceAll(body, `"`, `\"`)), "the forge's answer, quoted")
			Expect(condStatus(l, forgev1.ConditionStalled)).To(Equal(metav1.ConditionTrue))
			Expect(l.Status.CreatePending).NotTo(BeEmpty(), "the mark stays: the next pass looks first")
			Expect(l.Status.LastHandledCreatePending).NotTo(Equal(l.Status.CreatePending), "the mark stays pending")
			Consistently(func() int { return writesTo("/labels") }, 3*time.Second, poll).Should(Equal(1), "one create, not repeated on backoff")

			By("the forge answers properly again; a spec change brings the resource back")
			fake.ClearFaults()
			change(l, func(l *forgev1.Label) { l.Spec.Description = ptr("now it answers") })
			expectReady(l)
			Expect(theOne(repo, name).ID).To(Equal(l.Status.ID))
		}
	})

	It("creates exactly one label when the create response is lost", func() {
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPost, Path: "/repos/acme/web/labels", Count: 1, LostResponse: true})
		l := newLabel(repo, "once")
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		Expect(onForge(repo, "once")).To(HaveLen(1))
		Expect(l.Status.ID).To(Equal(theOne(repo, "once").ID))
		expectSettled(l)
		Expect(writesTo("/labels")).To(Equal(1), "the lost create is found, not repeated")
	})

	It("converges a new label with three Kubernetes writes, settling its create-pending mark without a fourth, and makes none at rest", func() {
		l := newLabel(repo, "counted")
		writes := watchWrites(&forgev1.LabelList{}, l)
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		expectSettled(l)
		Expect(l.Status.CreatePending).NotTo(BeEmpty(), "a settled mark stays in status")
		Expect(l.Status.ID).To(Equal(theOne(repo, "counted").ID))
		// The finalizer, the mark in status (before the create), then the
		// status with the id and the mark's echo.
		Eventually(writes, timeout, poll).Should(Equal(3))
		// At rest, several sync intervals: reads of the forge only, no write to the Label.
		Consistently(writes, 3*syncInterval, poll).Should(Equal(3))
		Expect(requestsTo("/labels")).To(BeNumerically(">=", 3), "the drift check read the label meanwhile")
	})

	It("moves a create-pending mark an earlier version left in annotations into status, and drops one set by hand with a Warning, deleting nothing", func() {
		mine := newLabel(repo, "mine")
		Expect(k8s.Create(ctx, mine)).To(Succeed())
		expectReady(mine)
		expectSettled(mine)
		other := newLabel(repo, "other")
		Expect(k8s.Create(ctx, other)).To(Succeed())
		expectReady(other)
		expectSettled(other)
		otherMark := other.Status.CreatePending
		annotate := func(obj *forgev1.Label, mark, replaces, request string) {
			change(obj, func(l *forgev1.Label) {
				if l.Annotations == nil {
					l.Annotations = map[string]string{}
				}
				l.Annotations[forgev1.CreatePendingAnnotation] = mark
				l.Annotations[forgev1.ReplacesAnnotation] = replaces
				l.Annotations[forgev1.ReconcileRequestedAtAnnotation] = request
			})
		}
		marksGone := func(obj *forgev1.Label, request string) func(Gomega) {
			return func(g Gomega) {
				g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
				g.Expect(obj.Annotations).NotTo(HaveKey(forgev1.CreatePendingAnnotation))
				g.Expect(obj.Annotations).NotTo(HaveKey(forgev1.ReplacesAnnotation))
				g.Expect(obj.Status.LastHandledReconcileAt).To(Equal(request))
			}
		}

		By("an earlier version's replacement mark: it replaces the very id status records, so it is the operator's and is moved")
		mineID := strconv.FormatInt(mine.Status.ID, 10)
		annotate(mine, "2026-01-01T00:00:00Z", mineID, "moved")
		Eventually(marksGone(mine, "moved"), timeout, poll).Should(Succeed())
		Expect(mine.Status.CreatePending).To(Equal("2026-01-01T00:00:00Z"))
		Expect(mine.Status.Replaces).To(Equal(mineID))
		expectSettled(mine)

		By("a mark set by hand on another resource, naming mine's label: dropped with a Warning, holding and deleting nothing")
		annotate(other, "2026-01-01T00:00:00Z", mineID, "dropped")
		Eventually(marksGone(other, "dropped"), timeout, poll).Should(Succeed())
		eventWithReason(other, forgev1.ReasonAnnotationDropped)
		Expect(other.Status.CreatePending).To(Equal(otherMark), "status keeps the operator's own mark")
		Expect(other.Status.Replaces).To(BeEmpty())
		Expect(theOne(repo, "mine").ID).To(Equal(mine.Status.ID), "the label the hand-set replaces names is not deleted")
		Expect(theOne(repo, "other").ID).To(Equal(other.Status.ID))
		Expect(events(mine)).NotTo(ContainElement(HavePrefix(forgev1.ReasonAnnotationDropped+": ")), "the moved mark is no warning")
	})

	It("makes a pass when asked by annotation, and echoes it in status", func() {
		l := newLabel(repo, "bug")
		l.Spec.SyncInterval = every(time.Hour)
		Expect(k8s.Create(ctx, l)).To(Succeed())
		expectReady(l)
		_, err := forgeClient().EditLabel(ctx, repo, l.Status.ID, forge.EditLabelOption{Color: ptr("ff0000")})
		Expect(err).NotTo(HaveOccurred())
		Consistently(func() string { return theOne(repo, "bug").Color }, syncInterval, poll).Should(Equal("ff0000"),
			"with a one-hour interval nothing looks before it is asked to")

		requested := time.Now().UTC().Format(time.RFC3339Nano)
		change(l, func(l *forgev1.Label) {
			metav1.SetMetaDataAnnotation(&l.ObjectMeta, forgev1.ReconcileRequestedAtAnnotation, requested)
		})
		Eventually(func() string { return theOne(repo, "bug").Color }, timeout, poll).Should(Equal("aabbcc"))
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(l), l)).To(Succeed())
			return l.Status.LastHandledReconcileAt
		}, timeout, poll).Should(Equal(requested))
	})
})
