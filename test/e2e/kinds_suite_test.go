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
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
	"github.com/forgeops/forge-operator/test/testmanager"
)

// TestKinds runs every kind end to end: envtest, the manager with every
// controller, and a forge. The forge is the fake by default (`make test`);
// with FORGE_URL and FORGE_TOKEN set it is that live server, which is how
// `make test-gitea` runs this same suite against a real Gitea it built. The
// specs talk to the forge only through its REST API, so they hold both to
// the same expectations; each works in an organization of its own.
func TestKinds(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Kinds end-to-end Suite")
}

const (
	syncInterval = 2 * time.Second
	// timeout bounds every Eventually: a few sync intervals plus backoff,
	// with room for a real server on a loaded machine.
	timeout = 60 * time.Second
	poll    = 200 * time.Millisecond
)

var (
	k8s      client.Client
	env      *envtest.Environment
	cancel   context.CancelFunc
	forgeURL string
	token    string
	live     bool
	fake     *fakeforge.Server // nil when live
	fc       *forge.Client     // the test's own client, acting as a person on the forge
	version  string            // what the forge's /version answers
	// receiverEndpoint is the manager's webhook receiver.
	receiverEndpoint *receiver.Endpoint
	// deprecations counts the requests k8s made at v1alpha1 and was warned.
	deprecations = &testenv.DeprecationWarnings{}
)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))

	forgeURL, token = os.Getenv("FORGE_URL"), os.Getenv("FORGE_TOKEN")
	live = forgeURL != "" && token != ""
	if !live {
		// The fake as Gitea 1.26.0 is: no projects API.
		token = "e2e-t0ken-value"
		fake = fakeforge.New(fakeforge.WithToken(token), fakeforge.WithoutProjects())
		srv := fake.Start()
		DeferCleanup(srv.Close)
		forgeURL = srv.URL
	}
	var err error
	fc, err = forge.New(forge.Config{URL: forgeURL, Token: token, QPS: -1, Timeout: 30 * time.Second})
	Expect(err).NotTo(HaveOccurred())
	version, err = fc.Version(context.Background())
	Expect(err).NotTo(HaveOccurred())
	target := "fake forge"
	if live {
		target = "live forge"
	}
	_, _ = fmt.Fprintf(GinkgoWriter, "kinds suite: %s %s, version %s\n", target, forgeURL, version)
	fmt.Printf("kinds suite: %s, version %s\n", target, version)

	env, err = testenv.New()
	Expect(err).NotTo(HaveOccurred())
	restCfg, err := env.Start()
	Expect(err).NotTo(HaveOccurred())
	// The suite writes and reads every object at the deprecated v1alpha1,
	// as a user whose manifests still say so, while the manager speaks
	// v1beta1: every spec crosses the API server's conversion both ways.
	userCfg := rest.CopyConfig(restCfg)
	userCfg.WarningHandlerWithContext = deprecations
	k8s, err = client.New(userCfg, client.Options{Scheme: testenv.DeprecatedScheme()})
	Expect(err).NotTo(HaveOccurred())

	// The operator's own namespace, where it keeps its secret digest key.
	Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "forge-operator-system"}})).To(Succeed())
	// The receiver on loopback, where the fake and the test's Gitea deliver.
	receiverEndpoint = receiver.New("127.0.0.1:0")
	stop, err := testmanager.Start(restCfg, testenv.ManagerOptions(), controllers.Options{
		Receiver:                receiverEndpoint,
		SyncInterval:            syncInterval,
		MaxConcurrentReconciles: 4,
		BaseBackoff:             200 * time.Millisecond,
		MaxBackoff:              2 * time.Second,
		RequestTimeout:          20 * time.Second,
		SecretDigestKey:         types.NamespacedName{Namespace: "forge-operator-system", Name: secretdigest.DefaultName},
	})
	Expect(err).NotTo(HaveOccurred())
	cancel = func() { Expect(stop()).To(Succeed()) }
})

var _ = AfterSuite(func() {
	if k8s != nil {
		Expect(deprecations.Count()).To(BeNumerically(">", 0),
			"the suite's requests at v1alpha1 were answered with the deprecation warning naming v1beta1")
	}
	if cancel != nil {
		cancel()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// scenario is one spec's world: a namespace with a Forge "gitea" (Ready)
// and an organization of its own on the forge; both removed after the spec.
type scenario struct {
	ns  string
	org string
}

func newScenario() *scenario {
	GinkgoHelper()
	return scenarioAt(forgeURL)
}

// newCountedScenario is newScenario with its Forge reaching the forge
// through a counter of its writes.
func newCountedScenario() (*scenario, *writeCounter) {
	GinkgoHelper()
	counter := newWriteCounter(forgeURL)
	return scenarioAt(counter.srv.URL), counter
}

// scenarioAt is a scenario whose Forge points at url, its organization
// removed after the spec.
func scenarioAt(url string) *scenario {
	GinkgoHelper()
	sc := &scenario{ns: newNamespace(url), org: unique("e2e")}
	DeferCleanup(sc.removeOrg)
	return sc
}

// newNamespace creates a namespace with a token Secret and a Forge "gitea"
// at url, waits until the Forge is Ready, and removes its resources after
// the spec.
func newNamespace(url string) string {
	GinkgoHelper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func() { removeAll(ns.Name) })
	Expect(k8s.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea-token"},
		StringData: map[string]string{"token": token},
	})).To(Succeed())
	f := &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		Spec: forgev1.ForgeSpec{
			URL:  url,
			Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}},
		},
	}
	Expect(k8s.Create(ctx, f)).To(Succeed())
	expectReady(f)
	return ns.Name
}

// createOrg creates the scenario's organization on the forge directly, as a person would.
func (sc *scenario) createOrg() *forge.Organization {
	GinkgoHelper()
	o, err := fc.CreateOrg(context.Background(), forge.CreateOrgOption{Name: sc.org})
	Expect(err).NotTo(HaveOccurred())
	return o
}

// createRepo creates a repository in the scenario's organization on the forge.
func (sc *scenario) createRepo(name string) string {
	GinkgoHelper()
	_, err := fc.CreateOrgRepo(context.Background(), sc.org, forge.CreateRepoOption{Name: name})
	Expect(err).NotTo(HaveOccurred())
	return sc.org + "/" + name
}

// removeOrg deletes the organization and its repositories from the forge.
func (sc *scenario) removeOrg() {
	ctx := context.Background()
	var repos []struct {
		Name string `json:"name"`
	}
	if status, body := rawCall(http.MethodGet, "/api/v1/orgs/"+sc.org+"/repos?limit=50", nil); status == http.StatusOK {
		_ = json.Unmarshal(body, &repos)
	}
	for _, r := range repos {
		_ = fc.DeleteRepo(ctx, sc.org, r.Name)
	}
	if err := fc.DeleteOrg(ctx, sc.org); err != nil && !forge.IsNotFound(err) {
		_, _ = fmt.Fprintf(GinkgoWriter, "cleanup: delete org %s: %v\n", sc.org, err)
	}
}

// removeAll deletes every forge.forgeops.dev resource of namespace ns.
func removeAll(ns string) {
	Expect(testenv.RemoveAll(context.Background(), k8s, ns)).To(Succeed())
}

// registerRunner registers a runner in scope the way act_runner does and returns its id.
// runnerEditSupported: runners can be enabled and disabled through the API
// from Gitea 1.26 (PATCH .../actions/runners/{id}); earlier releases and
// Forgejo lack it. The fake answers as the version it reports.
func runnerEditSupported() bool {
	flavor, semver, _ := forge.ParseVersion(version)
	var major, minor int
	if _, err := fmt.Sscanf(semver, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return flavor == "gitea" && (major > 1 || (major == 1 && minor >= 26))
}

func registerRunner(scope forge.Scope, name string) int64 {
	GinkgoHelper()
	id, err := fc.RegisterRunner(context.Background(), scope, name, "ubuntu-latest")
	Expect(err).NotTo(HaveOccurred())
	return id
}

// rawCall sends one authenticated request to the forge's REST API.
func rawCall(method, path string, body any) (int, []byte) {
	GinkgoHelper()
	var data []byte
	if body != nil {
		var err error
		data, err = json.Marshal(body)
		Expect(err).NotTo(HaveOccurred())
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(forgeURL, "/")+path, bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}

func readyCondition(obj client.Object) func(Gomega) *metav1.Condition {
	return func(g Gomega) *metav1.Condition {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		c := meta.FindStatusCondition(conditionsOf(g, obj), forgev1.ConditionReady)
		g.Expect(c).NotTo(BeNil(), "no Ready condition yet")
		return c
	}
}

// conditionsOf reads the status conditions of a typed or unstructured object.
func conditionsOf(g Gomega, obj client.Object) []metav1.Condition {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		var status struct {
			Conditions []metav1.Condition `json:"conditions"`
		}
		raw, _, err := unstructured.NestedMap(u.Object, "status")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status)).To(Succeed())
		return status.Conditions
	}
	return obj.(forgev1.ConditionsAccessor).GetConditions()
}

// expectReady waits until obj is Ready for its current generation and returns the reason.
func expectReady(obj client.Object) string {
	GinkgoHelper()
	var reason string
	Eventually(func(g Gomega) {
		c := readyCondition(obj)(g)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
		g.Expect(c.ObservedGeneration).To(Equal(obj.GetGeneration()))
		reason = c.Reason
	}, timeout, poll).Should(Succeed())
	return reason
}

// expectReason waits until obj's Ready condition has status and reason, and returns its message.
func expectReason(obj client.Object, status metav1.ConditionStatus, reason string) string {
	GinkgoHelper()
	var msg string
	Eventually(func(g Gomega) {
		c := readyCondition(obj)(g)
		g.Expect(c.Reason).To(Equal(reason), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
		g.Expect(c.Status).To(Equal(status))
		g.Expect(c.ObservedGeneration).To(Equal(obj.GetGeneration()))
		msg = c.Message
	}, timeout, poll).Should(Succeed())
	return msg
}

// eventWithReason waits for an Event with reason about obj.
func eventWithReason(obj client.Object, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) []string {
		var list corev1.EventList
		g.Expect(k8s.List(context.Background(), &list, client.InNamespace(obj.GetNamespace()))).To(Succeed())
		var out []string
		for _, e := range list.Items {
			if e.InvolvedObject.Name == obj.GetName() {
				out = append(out, e.Reason)
			}
		}
		return out
	}, timeout, poll).Should(ContainElement(reason))
}

// update re-reads obj, applies change and writes it, retrying on conflicts.
func update[T client.Object](obj T, change func(T)) {
	GinkgoHelper()
	Eventually(func() error {
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change(obj)
		return k8s.Update(context.Background(), obj)
	}, timeout, poll).Should(Succeed())
}

// deleteAndWait deletes obj and waits until it is gone (its finalizer done).
func deleteAndWait(obj client.Object) {
	GinkgoHelper()
	Expect(k8s.Delete(context.Background(), obj)).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	}, timeout, poll).Should(BeTrue())
}

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
	s.Data[key] = []byte(value)
	Expect(k8s.Update(ctx, s)).To(Succeed())
}

func unique(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

func ptr[T any](v T) *T { return &v }

func managed() forgev1.ManagedSpec {
	return forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}
}

// newUser creates an account on the forge through its admin API (which
// the fake serves as Gitea does) and returns its login.
func newUser() string {
	GinkgoHelper()
	name := unique("u")
	status, body := rawCall(http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": name, "email": name + "@example.com", "password": "Pw-" + unique("x"), "must_change_password": false,
	})
	Expect(status).To(Equal(http.StatusCreated), string(body))
	DeferCleanup(func() { rawCall(http.MethodDelete, "/api/v1/admin/users/"+name+"?purge=true", nil) })
	return name
}
