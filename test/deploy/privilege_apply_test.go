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

package deploy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// TestNamespacedOnAnAPIServer applies config/namespaced to a real API server
// and runs the manager as its ServiceAccount with the Deployment's
// --watch-namespaces and secure metrics, as the overlay deploys it: it may
// read Secrets and manage resources in the watched namespaces only, its
// caches sync with those rights (a cluster-wide list would be forbidden and
// no status would ever be written), and /metrics answers only to a token
// allowed to read it.
func TestNamespacedOnAnAPIServer(t *testing.T) {
	cfg := startAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	scheme := testenv.Scheme()
	admin, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	objs := render(t, repoPath("config", "namespaced"))
	var dep unstructured.Unstructured
	var watched []string
	for _, o := range objs.ofKind("Deployment") {
		if err := yaml.Unmarshal(o.YAML, &dep.Object); err != nil {
			t.Fatal(err)
		}
		args, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
		for _, a := range args[0].(map[string]any)["args"].([]any) {
			if v, ok := strings.CutPrefix(a.(string), "--watch-namespaces="); ok {
				if watched, err = manager.ParseNamespaces(v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if len(watched) < 2 {
		t.Fatalf("config/namespaced watches %v; this test wants two namespaces", watched)
	}
	// The watched namespaces are the users'; they exist before the install.
	for _, ns := range append([]string{"elsewhere"}, watched...) {
		if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range objs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(o.YAML, &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := admin.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
			t.Fatalf("create %s %s: %v", o.Kind, o.Name, err)
		}
	}
	poll(ctx, t, "CRDs served", func() (bool, error) {
		err := admin.List(ctx, &forgev1.ForgeList{})
		return err == nil, err
	})

	sa := "system:serviceaccount:" + namespace + ":" + managerSA
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	in, out := watched[0], "elsewhere"
	for _, tc := range []struct {
		allowed bool
		attr    authorizationv1.ResourceAttributes
	}{
		{true, authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: in}},
		{true, authorizationv1.ResourceAttributes{Verb: "watch", Resource: "secrets", Namespace: watched[1]}},
		{true, authorizationv1.ResourceAttributes{Verb: "patch", Group: forgev1.GroupVersion.Group, Resource: "labels", Subresource: "status", Namespace: in}},
		{true, authorizationv1.ResourceAttributes{Verb: "create", Group: "events.k8s.io", Resource: "events", Namespace: in}},
		{true, authorizationv1.ResourceAttributes{Verb: "create", Group: "authentication.k8s.io", Resource: "tokenreviews"}},
		{false, authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: out}},
		// A DeployKey's generated Secret, a RunnerRegistrationToken's
		// (and its rotation): created and updated in a watched namespace only.
		{true, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: in}},
		{false, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: out}},
		{true, authorizationv1.ResourceAttributes{Verb: "update", Resource: "secrets", Namespace: in}},
		{false, authorizationv1.ResourceAttributes{Verb: "update", Resource: "secrets", Namespace: out}},
		{false, authorizationv1.ResourceAttributes{Verb: "update", Resource: "secrets", Namespace: namespace}},
		{false, authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets"}},
		{false, authorizationv1.ResourceAttributes{Verb: "list", Group: forgev1.GroupVersion.Group, Resource: "forges"}},
		{false, authorizationv1.ResourceAttributes{Verb: "patch", Group: forgev1.GroupVersion.Group, Resource: "labels", Subresource: "status", Namespace: out}},
		{false, authorizationv1.ResourceAttributes{Verb: "create", Group: "events.k8s.io", Resource: "events", Namespace: out}},
		// No ClusterRole holds the manager's rules: nothing is granted cluster-wide.
		{false, authorizationv1.ResourceAttributes{Verb: "get", Group: forgev1.GroupVersion.Group, Resource: "forges", Namespace: out}},
		// Nor anything cluster-scoped: this install serves no ClusterForge
		// (cluster-scoped, its tenants selecting Namespaces by their labels),
		// which no Role can grant.
		{false, authorizationv1.ResourceAttributes{Verb: "list", Group: forgev1.GroupVersion.Group, Resource: "clusterforges"}},
		{false, authorizationv1.ResourceAttributes{Verb: "watch", Group: forgev1.GroupVersion.Group, Resource: "clusterforges"}},
		{false, authorizationv1.ResourceAttributes{Verb: "update", Group: forgev1.GroupVersion.Group, Resource: "clusterforges", Subresource: "status"}},
		{false, authorizationv1.ResourceAttributes{Verb: "list", Resource: "namespaces"}},
		// Its own namespace: the secret digest key, created and then read by name, and no other Secret.
		{true, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: namespace}},
		{true, authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: namespace, Name: secretdigest.DefaultName}},
		{false, authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: namespace, Name: "another"}},
		{false, authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets", Namespace: namespace}},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: sa, Groups: groups, ResourceAttributes: &tc.attr}}
		if err := admin.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != tc.allowed {
			t.Errorf("%s %s %s.%s/%s in %q: allowed %v, want %v", sa, tc.attr.Verb, tc.attr.Resource, tc.attr.Group,
				tc.attr.Subresource, tc.attr.Namespace, sar.Status.Allowed, tc.allowed)
		}
	}

	log.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.WarnLevel)))
	saCfg := rest.CopyConfig(cfg)
	saCfg.Impersonate = rest.ImpersonationConfig{UserName: sa, Groups: groups}

	// The secret digest key as the ServiceAccount: the first manager creates
	// it, every later one (a restart) reads it, and both digest alike.
	saClient, err := client.New(saCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	keyRef := types.NamespacedName{Namespace: namespace, Name: secretdigest.DefaultName}
	var digests []string
	for _, what := range []string{"create", "read"} {
		d, err := secretdigest.New(saClient, saClient, keyRef).Digest(ctx, "scope", "value")
		if err != nil {
			t.Fatalf("%s the secret digest key as %s: %v", what, sa, err)
		}
		digests = append(digests, d)
	}
	if digests[0] != digests[1] {
		t.Errorf("digests %v: the read key differs from the created one", digests)
	}
	metricsAddr := freeAddr(t)
	mgr, err := ctrl.NewManager(saCfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  manager.CacheOptions(watched, "", namespace),
		Metrics:                manager.MetricsOptions(metricsAddr, true, t.TempDir(), false),
		HealthProbeBindAddress: "0",
		// TestDefaultOnAnAPIServer registered the same controllers in this process.
		Controller: config.Controller{SkipNameValidation: new(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := controllers.Setup(ctx, mgr, controllers.Options{SyncInterval: time.Minute, MaxConcurrentReconciles: 1,
		BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, RequestTimeout: time.Second,
		SecretDigestKey: types.NamespacedName{Namespace: namespace, Name: secretdigest.DefaultName},
		// As config/namespaced's --cluster-forges=false.
		NoClusterForges: true}); err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	for _, ns := range []string{in, out} {
		for _, o := range []client.Object{
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gitea-token", Namespace: ns}, StringData: map[string]string{"token": "t"}},
			// Nothing listens there: the Forge becomes not Ready, and says so in its status.
			&forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Name: "gitea", Namespace: ns}, Spec: forgev1.ForgeSpec{
				URL: "http://127.0.0.1:1", Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}},
		} {
			if err := admin.Create(ctx, o); err != nil {
				t.Fatalf("create %T in %s: %v", o, ns, err)
			}
		}
	}
	var watchedForge, otherForge forgev1.Forge
	poll(ctx, t, "the watched namespace's Forge status, written as the ServiceAccount", func() (bool, error) {
		if err := admin.Get(ctx, client.ObjectKey{Namespace: in, Name: "gitea"}, &watchedForge); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(watchedForge.Status.Conditions, forgev1.ConditionReady)
		return c != nil, fmt.Errorf("Ready %v", c)
	})
	// The Forge outside was created first; it was never seen.
	if err := admin.Get(ctx, client.ObjectKey{Namespace: out, Name: "gitea"}, &otherForge); err != nil {
		t.Fatal(err)
	}
	if len(otherForge.Status.Conditions) != 0 {
		t.Errorf("the Forge in unwatched namespace %s was reconciled: %+v", out, otherForge.Status.Conditions)
	}

	checkSecureMetrics(ctx, t, cfg, admin, "https://"+metricsAddr+"/metrics")
}

// checkSecureMetrics: no token is 401, a token without metrics-reader is
// 403, and with the metrics-reader ClusterRole bound the metrics come back.
func checkSecureMetrics(ctx context.Context, t *testing.T, cfg *rest.Config, admin client.Client, url string) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	token := func(name string) string {
		t.Helper()
		if err := admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}); err != nil {
			t.Fatal(err)
		}
		tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	// Two identities: the manager caches a denial for a while, so the one
	// that is refused is not the one later allowed.
	nobody, prometheus := token("nobody"), token("prometheus")
	// The certificate is self-signed: what matters here is who may read.
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(token string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	expect := func(what, token string, want int) string {
		t.Helper()
		var body string
		poll(ctx, t, what, func() (bool, error) {
			code, b, err := get(token)
			body = b
			if err != nil {
				return false, err
			}
			return code == want, fmt.Errorf("status %d, want %d", code, want)
		})
		return body
	}
	expect("metrics refused without a token", "", http.StatusUnauthorized)
	expect("metrics refused to a token that may not read them", nobody, http.StatusForbidden)
	if err := admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "forge-operator-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: namespace}},
	}); err != nil {
		t.Fatal(err)
	}
	body := expect("metrics served to a metrics-reader", prometheus, http.StatusOK)
	if !strings.Contains(body, "controller_runtime_reconcile_total") {
		t.Errorf("metrics body lacks controller_runtime_reconcile_total:\n%.2000s", body)
	}
}

// freeAddr returns a loopback address nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
