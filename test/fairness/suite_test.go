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

// Package fairness checks, on a control plane with the manager as a shared
// cluster runs it, that a tenant whose forge never answers neither hangs the
// manager's workers nor delays another tenant's resources by more than one
// reconcile timeout. It has a manager of its own (few workers, a short
// reconcile timeout, no request timeout override), unlike the controllers
// suite.
package fairness

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
	"github.com/forgeops/forge-operator/test/testmanager"
)

const (
	token = "t3nant-t0ken-value"
	// reconcileTimeout is the manager's --reconcile-timeout here: short, so
	// that the specs wait for it a few times.
	reconcileTimeout = 3 * time.Second
	// workers is --max-concurrent-reconciles: two, the smallest pool with
	// a worker to share (the default is four).
	workers = 2
	timeout = 60 * time.Second
	poll    = 100 * time.Millisecond
)

var (
	env    *envtest.Environment
	k8s    client.Client
	cancel context.CancelFunc
)

func TestFairness(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Fairness Suite")
}

var _ = BeforeSuite(func() {
	ctrl.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	var err error
	env, err = testenv.New()
	Expect(err).NotTo(HaveOccurred())
	restCfg, err := env.Start()
	Expect(err).NotTo(HaveOccurred())

	k8s, err = client.New(restCfg, client.Options{Scheme: testenv.Scheme()})
	Expect(err).NotTo(HaveOccurred())

	stop, err := testmanager.Start(restCfg, testenv.ManagerOptions(), controllers.Options{
		// Long: no pass is due to the sync interval while a spec runs.
		SyncInterval:            10 * time.Minute,
		MaxConcurrentReconciles: workers,
		BaseBackoff:             200 * time.Millisecond,
		MaxBackoff:              time.Second,
		ReconcileTimeout:        reconcileTimeout,
		// No spec here sends hook secrets: the key is never read.
		SecretDigestKey: types.NamespacedName{Namespace: "forge-operator-system", Name: secretdigest.DefaultName},
	})
	Expect(err).NotTo(HaveOccurred())
	cancel = func() { Expect(stop()).To(Succeed()) }
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// blackHole is a TCP endpoint that forwards connections to target until
// swallow is called; from then on it accepts connections and never answers
// (and drops the connections it was forwarding, so that clients dial anew).
type blackHole struct {
	ln       net.Listener
	target   string
	swallows atomic.Bool
	// peak is the most swallowed connections clients held at once.
	peak  atomic.Int64
	mu    sync.Mutex
	conns []net.Conn
	// held are the swallowed connections not yet seen closed by their
	// client (its pass still in flight against the dead server).
	held []net.Conn
}

func newBlackHole(target string) *blackHole {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	b := &blackHole{ln: ln, target: target}
	go b.serve()
	DeferCleanup(b.close)
	return b
}

func (b *blackHole) URL() string { return "http://" + b.ln.Addr().String() }

func (b *blackHole) serve() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.track(c)
		if b.swallows.Load() {
			b.hold(c) // held open, never answered
			continue
		}
		up, err := net.Dial("tcp", b.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		b.track(up)
		go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
		go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	}
}

// hold keeps a swallowed connection open, unanswered, and counts the
// connections clients hold at this moment. Each is counted by what its
// socket says when the next is accepted, not by a goroutine that may not
// have run yet: a pass ended by the timeout closes its connection before
// its request is released and the next pass dials, so that close is
// already in the socket when the next connection arrives. (A reader
// goroutine per connection, counting down at its EOF, lagged on a busy
// machine and counted an ended pass beside the next one.)
func (b *blackHole) hold(c net.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held = slices.DeleteFunc(b.held, closedByClient)
	b.held = append(b.held, c)
	n := int64(len(b.held))
	if n > b.peak.Load() {
		b.peak.Store(n)
	}
}

// closedByClient drains what c's client sent, never answering it, and
// reports whether the client has closed c.
func closedByClient(c net.Conn) bool {
	buf := make([]byte, 4096)
	for {
		if err := c.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
			return true
		}
		_, err := c.Read(buf)
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return false
		}
		_ = c.Close()
		return true
	}
}

func (b *blackHole) track(c net.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.conns = append(b.conns, c)
}

func (b *blackHole) swallow() {
	b.swallows.Store(true)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.conns {
		_ = c.Close()
	}
	b.conns = nil
}

func (b *blackHole) close() {
	_ = b.ln.Close()
	b.swallow()
}

// tenant creates a namespace with a token Secret and a Forge "gitea" at url.
func tenant(url string) (string, *forgev1.Forge) {
	GinkgoHelper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	Expect(k8s.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea-token"},
		StringData: map[string]string{"token": token},
	})).To(Succeed())
	f := &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gitea"},
		Spec: forgev1.ForgeSpec{
			URL:  url,
			Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}},
			// Longer than the reconcile timeout: only the pass's deadline ends a hung call.
			Timeout: &metav1.Duration{Duration: time.Minute},
		},
	}
	Expect(k8s.Create(ctx, f)).To(Succeed())
	return ns.Name, f
}

func label(ns, name string) *forgev1.Label {
	org := forgev1.OwnerName("acme")
	return &forgev1.Label{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: forgev1.LabelSpec{
			ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}},
			Organization: &org,
			Color:        "#ABC",
		},
	}
}

// ready returns obj's Ready condition, nil while it has none.
func ready(g Gomega, obj client.Object) *metav1.Condition {
	g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	return meta.FindStatusCondition(obj.(forgev1.ConditionsAccessor).GetConditions(), forgev1.ConditionReady)
}

// waitReady waits until obj is Ready for its generation and returns how
// long that took from start.
func waitReady(obj client.Object, start time.Time) time.Duration {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		c := ready(g, obj)
		g.Expect(c).NotTo(BeNil(), "no Ready condition yet")
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "Ready is %s: %s: %s", c.Status, c.Reason, c.Message)
		g.Expect(c.ObservedGeneration).To(Equal(obj.GetGeneration()))
	}, timeout, poll).Should(Succeed())
	return time.Since(start)
}
