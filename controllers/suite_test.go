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
	"bytes"
	"context"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/testenv"
	"github.com/forgeops/forge-operator/test/testmanager"
)

// The suite runs one control plane, one fake forge over real HTTP and one
// manager with every controller, with a short sync interval. Each spec works
// in a namespace of its own and resets the fake forge.
const (
	token        = "s3cr3t-t0ken-value"
	syncInterval = 2 * time.Second
	// timeout bounds every Eventually: a few sync intervals plus backoff.
	timeout = 30 * time.Second
	poll    = 100 * time.Millisecond
)

// ownManagerLabel marks the Forges and Receivers a spec's own manager checks (see
// startManager); the suite's manager does not see them.
const ownManagerLabel = "test.forge.forgeops.dev/own-manager"

var (
	env     *envtest.Environment
	restCfg *rest.Config
	scheme  = testenv.Scheme()
	k8s     client.Client
	fake    *fakeforge.Server
	fakeURL string
	logs    = &syncBuffer{}
	// stopManager stops the running manager and waits until it has stopped.
	stopManager func()
	// notOwn selects the Forges the suite's manager checks.
	notOwn *labels.Requirement
	// receiverEndpoint is the suite manager's webhook receiver, on a port of loopback.
	receiverEndpoint *receiver.Endpoint
	// digestKey is the Secret the operator keeps its secret digest key in.
	digestKey = types.NamespacedName{Namespace: "forge-operator-system", Name: "forge-operator-secret-digest-key"}
)

// apiGets counts the suite manager's GET requests to the API server by
// path: a read past its cache, such as an uncached read of a Secret, is a
// GET of the object's own path (the cache lists and watches collections).
var apiGets = &pathCounter{n: map[string]int{}}

type pathCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *pathCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet {
			c.mu.Lock()
			c.n[req.URL.Path]++
			c.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (c *pathCounter) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// secretReads counts the suite manager's uncached reads of Secret ns/name.
func secretReads(ns, name string) int {
	return apiGets.count("/api/v1/namespaces/" + ns + "/secrets/" + name)
}

// syncBuffer collects the manager's log output, so that specs can check no secret reaches it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controllers Suite")
}

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(logs), zap.UseDevMode(true)))
	var err error
	notOwn, err = labels.NewRequirement(ownManagerLabel, selection.DoesNotExist, nil)
	Expect(err).NotTo(HaveOccurred())

	env, err = testenv.New()
	Expect(err).NotTo(HaveOccurred())
	restCfg, err = env.Start()
	Expect(err).NotTo(HaveOccurred())

	k8s, err = client.New(restCfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	// The operator's own namespace; it creates its secret digest key there on first use.
	Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: digestKey.Namespace}})).To(Succeed())
	startSuiteManager()
})

// startSuiteManager starts the suite's manager with every controller on
// the suite's control plane, as the operator's main does, and sets
// stopManager.
func startSuiteManager() {
	GinkgoHelper()
	mo := testenv.ManagerOptions()
	mo.Cache.ByObject[&forgev1.Forge{}] = cache.ByObject{Label: labels.NewSelector().Add(*notOwn)}
	mo.Cache.ByObject[&forgev1.Receiver{}] = cache.ByObject{Label: labels.NewSelector().Add(*notOwn)}
	// Served over HTTP, with the resources' metrics, as main serves them.
	mo.Metrics.BindAddress = suiteMetricsAddr()
	cfg := rest.CopyConfig(restCfg)
	cfg.Wrap(apiGets.wrap)
	receiverEndpoint = receiver.New("127.0.0.1:0")
	stop, err := testmanager.Start(cfg, mo, controllers.Options{
		Receiver:                receiverEndpoint,
		SyncInterval:            syncInterval,
		MaxConcurrentReconciles: 4,
		BaseBackoff:             200 * time.Millisecond,
		MaxBackoff:              2 * time.Second,
		RequestTimeout:          2 * time.Second,
		DenyCIDRs:               []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		SecretDigestKey:         digestKey,
		Metrics:                 suiteMetrics,
	})
	Expect(err).NotTo(HaveOccurred())
	stopManager = func() { Expect(stop()).To(Succeed(), "the manager stopped with an error") }
}

var _ = AfterSuite(func() {
	if stopManager != nil {
		stopManager()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// startManager starts a manager of the spec's own, with every controller
// set up with opts, that sees namespace ns only; it stops when the spec
// ends. The suite's manager leaves the Forges and Receivers labelled
// ownManagerLabel to it.
func startManager(ns string, opts controllers.Options) {
	GinkgoHelper()
	mo := testenv.ManagerOptions()
	mo.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
	opts.SecretDigestKey = digestKey
	stop, err := testmanager.Start(restCfg, mo, opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })
}

// newNamespace starts a fake forge of the spec's own and creates a
// namespace with a token Secret and a Forge "gitea" pointing at it, and waits
// until the Forge is Ready. When the spec ends, its resources are removed
// (envtest runs no namespace controller) and its fake forge stopped.
func newNamespace(opts ...fakeforge.Option) string {
	GinkgoHelper()
	fake = fakeforge.New(append([]fakeforge.Option{fakeforge.WithToken(token)}, opts...)...)
	srv := fake.Start()
	fakeURL = srv.URL
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "spec-"}}
	Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	DeferCleanup(func() {
		removeAll(ns.Name)
		srv.Close()
	})
	Expect(k8s.Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea-token"},
		StringData: map[string]string{"token": token},
	})).To(Succeed())
	f := &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		Spec: forgev1.ForgeSpec{
			URL:  fakeURL,
			Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}},
		},
	}
	Expect(k8s.Create(context.Background(), f)).To(Succeed())
	expectReady(f)
	return ns.Name
}

// removeAll deletes every forge.forgeops.dev resource of namespace ns.
func removeAll(ns string) {
	Expect(testenv.RemoveAll(context.Background(), k8s, ns)).To(Succeed())
}

// readyCondition fetches obj and returns its Ready condition.
func readyCondition(obj client.Object) func(Gomega) *metav1.Condition {
	return func(g Gomega) *metav1.Condition {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		c := meta.FindStatusCondition(obj.(forgev1.ConditionsAccessor).GetConditions(), forgev1.ConditionReady)
		g.Expect(c).NotTo(BeNil(), "no Ready condition yet")
		return c
	}
}

// expectReady waits until obj is Ready for its current generation.
func expectReady(obj client.Object) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		c := readyCondition(obj)(g)
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
		g.Expect(c.ObservedGeneration).To(Equal(obj.GetGeneration()))
	}, timeout, poll).Should(Succeed())
}

// expectReason waits until obj's Ready condition has reason, and returns its message.
func expectReason(obj client.Object, status metav1.ConditionStatus, reason string) string {
	GinkgoHelper()
	var msg string
	Eventually(func(g Gomega) {
		c := readyCondition(obj)(g)
		g.Expect(c.Reason).To(Equal(reason), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
		g.Expect(c.Status).To(Equal(status))
		msg = c.Message
	}, timeout, poll).Should(Succeed())
	return msg
}

// events lists the Events about obj's name in its namespace as "Reason: note".
func events(obj client.Object) []string {
	var list corev1.EventList
	Expect(k8s.List(context.Background(), &list, client.InNamespace(obj.GetNamespace()))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == obj.GetName() {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

// expectEvent waits for an Event about obj reading "Reason: message":
// Events are written after the status, and asynchronously.
func expectEvent(obj client.Object, text string) {
	GinkgoHelper()
	Eventually(func() []string { return events(obj) }, timeout, poll).Should(ContainElement(text))
}

// eventWithReason waits for an Event with reason about obj.
func eventWithReason(obj client.Object, reason string) {
	GinkgoHelper()
	Eventually(func() []string { return events(obj) }, timeout, poll).Should(ContainElement(HavePrefix(reason + ": ")))
}

// requestsTo counts the fake forge's requests (reads too) whose path contains part.
func requestsTo(part string) int {
	n := 0
	for _, r := range fake.Requests() {
		if strings.Contains(r.Path, part) {
			n++
		}
	}
	return n
}

// writesTo counts the fake forge's write requests whose path contains part.
func writesTo(part string) int {
	n := 0
	for _, r := range fake.WriteRequests() {
		if strings.Contains(r.Path, part) {
			n++
		}
	}
	return n
}

func key(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

func ptr[T any](v T) *T { return &v }

func every(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
