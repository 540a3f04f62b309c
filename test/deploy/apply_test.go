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
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
)

func poll(ctx context.Context, t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	for {
		ok, err := cond()
		if ok {
			return
		}
		if ctx.Err() == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s (last error: %v)", what, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestDefaultOnAnAPIServer applies config/default (and config/shards over
// it) to a real API server (envtest) as `kubectl apply -k` would, with
// strict field validation and the namespace's restricted Pod Security
// level enforced, then runs the controllers as the manager's
// ServiceAccount (impersonated) with leader election on: if the generated ClusterRole or the leader election Role
// lacked a permission, the caches would not sync, the Lease not be taken or
// the status not be written.
// startAPIServer starts an API server (envtest: kube-apiserver and etcd)
// for the test, stopped when it ends.
func startAPIServer(t *testing.T) *rest.Config {
	t.Helper()
	_, cfg := startEnvironment(t)
	return cfg
}

// startEnvironment is startAPIServer that also returns the environment (to
// add users with a kubeconfig of their own, as `helm` needs).
func startEnvironment(t *testing.T) (*envtest.Environment, *rest.Config) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server")
	}
	assets, err := testenv.Assets()
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start envtest: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	return env, cfg
}

func TestDefaultOnAnAPIServer(t *testing.T) {
	cfg := startAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	scheme := testenv.Scheme()
	warn := &testenv.Warnings{}
	adminCfg := rest.CopyConfig(cfg)
	adminCfg.WarningHandlerWithContext = warn
	admin, err := client.New(adminCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	for _, o := range render(t, repoPath("config", "default")) {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(o.YAML, &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := admin.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
			t.Fatalf("create %s %s: %v", o.Kind, o.Name, err)
		}
		if w := warn.Take(); len(w) > 0 {
			t.Errorf("create %s %s: API server warnings %q", o.Kind, o.Name, w)
		}
	}

	// config/shards applies over it, as `kubectl apply --server-side -k
	// config/shards` on an installed config/default: the shard's manager is
	// valid (its selector matches its Pods), admitted by the restricted
	// level without a warning, and every other object applies unchanged.
	for _, o := range render(t, repoPath("config", "shards")) {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(o.YAML, &u.Object); err != nil {
			t.Fatal(err)
		}
		// Server-side apply refuses a field the schema lacks (as strict validation does).
		if err := admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			t.Fatalf("apply config/shards' %s %s: %v", o.Kind, o.Name, err)
		}
		if w := warn.Take(); len(w) > 0 {
			t.Errorf("apply config/shards' %s %s: API server warnings %q", o.Kind, o.Name, w)
		}
	}
	if err := admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: shardDeployment("eu-1")}, &appsv1.Deployment{}); err != nil {
		t.Errorf("shard eu-1's manager after applying config/shards: %v", err)
	}

	// The namespace does enforce "restricted": a privileged pod is refused.
	privileged := true
	bad := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "privileged", Namespace: namespace},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
			SecurityContext: &corev1.SecurityContext{Privileged: &privileged}}}},
	}
	if err := admin.Create(ctx, bad, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "PodSecurity") {
		t.Errorf("a privileged pod in %s: %v, want a PodSecurity refusal", namespace, err)
	}

	for _, list := range testenv.Lists() {
		poll(ctx, t, fmt.Sprintf("CRD of %T served", list), func() (bool, error) {
			err := admin.List(ctx, list)
			return err == nil, err
		})
	}

	sa := "system:serviceaccount:" + namespace + ":forge-operator-controller-manager"
	t.Run("ServiceAccount may do what the manager does and no more", func(t *testing.T) {
		for _, tc := range []struct {
			allowed bool
			attr    authorizationv1.ResourceAttributes
		}{
			{true, authorizationv1.ResourceAttributes{Verb: "watch", Resource: "secrets"}},
			{true, authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: "acme"}},
			{true, authorizationv1.ResourceAttributes{Verb: "list", Group: forgev1.GroupVersion.Group, Resource: "orghooks"}},
			{true, authorizationv1.ResourceAttributes{Verb: "update", Group: forgev1.GroupVersion.Group, Resource: "runnersettings", Subresource: "finalizers", Namespace: "acme"}},
			{true, authorizationv1.ResourceAttributes{Verb: "patch", Group: forgev1.GroupVersion.Group, Resource: "projects", Subresource: "status", Namespace: "acme"}},
			{true, authorizationv1.ResourceAttributes{Verb: "create", Group: "events.k8s.io", Resource: "events", Namespace: "acme"}},
			{true, authorizationv1.ResourceAttributes{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: namespace}},
			{true, authorizationv1.ResourceAttributes{Verb: "create", Resource: "events", Namespace: namespace}},
			{true, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: namespace}},
			// A DeployKey's generated pair and a RunnerRegistrationToken's
			// token go into Secrets the manager creates in the resource's
			// namespace; a rotated token is written into that same Secret
			// (update, which the code allows only on a Secret the resource
			// owns and labels). It never patches nor deletes a Secret (the
			// garbage collector removes its own).
			{true, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: "acme"}},
			{true, authorizationv1.ResourceAttributes{Verb: "update", Resource: "secrets", Namespace: "acme"}},
			{false, authorizationv1.ResourceAttributes{Verb: "patch", Resource: "secrets", Namespace: "acme"}},
			{false, authorizationv1.ResourceAttributes{Verb: "delete", Resource: "secrets", Namespace: "acme"}},
			{false, authorizationv1.ResourceAttributes{Verb: "create", Group: forgev1.GroupVersion.Group, Resource: "labels", Namespace: "acme"}},
			{false, authorizationv1.ResourceAttributes{Verb: "delete", Group: forgev1.GroupVersion.Group, Resource: "forges", Namespace: "acme"}},
			{false, authorizationv1.ResourceAttributes{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system"}},
			{false, authorizationv1.ResourceAttributes{Verb: "create", Resource: "events", Namespace: "acme"}},
			// ActionsVariable reads ConfigMaps (valueFrom.configMapKeyRef), never writes them.
			{true, authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps", Namespace: namespace}},
			{false, authorizationv1.ResourceAttributes{Verb: "update", Resource: "configmaps", Namespace: "acme"}},
			{false, authorizationv1.ResourceAttributes{Verb: "update", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}},
		} {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: sa, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
				ResourceAttributes: &tc.attr,
			}}
			if err := admin.Create(ctx, sar); err != nil {
				t.Fatal(err)
			}
			if sar.Status.Allowed != tc.allowed {
				t.Errorf("%s %s %s.%s/%s in %q: allowed %v, want %v", sa, tc.attr.Verb, tc.attr.Resource, tc.attr.Group,
					tc.attr.Subresource, tc.attr.Namespace, sar.Status.Allowed, tc.allowed)
			}
		}
	})

	// Run the controllers as the ServiceAccount, the way the Deployment does.
	// Warnings and errors only (a "forbidden" among them), on stderr: go test
	// shows them when the test fails.
	log.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.WarnLevel)))
	saCfg := rest.CopyConfig(cfg)
	saCfg.Impersonate = rest.ImpersonationConfig{UserName: sa,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	mgr, err := ctrl.NewManager(saCfg, ctrl.Options{
		Scheme:                  scheme,
		Cache:                   manager.CacheOptions(nil, "", namespace), // as main's
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "forge-operator.forge.forgeops.dev",
		LeaderElectionNamespace: namespace,
		// Controller names are checked per process: a repeated run
		// (go test -count=2) sets them up again.
		Controller: config.Controller{SkipNameValidation: new(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	digestKey := types.NamespacedName{Namespace: namespace, Name: secretdigest.DefaultName}
	if err := controllers.Setup(ctx, mgr, controllers.Options{SyncInterval: time.Minute, MaxConcurrentReconciles: 1,
		BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, RequestTimeout: time.Second,
		SecretDigestKey: digestKey}); err != nil {
		t.Fatal(err)
	}
	// The ServiceAccount creates the secret digest key Secret on first use, and reads it back.
	saClient, err := client.New(saCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	first, err := secretdigest.New(saClient, saClient, digestKey).Digest(ctx, "scope", "value")
	if err != nil {
		t.Fatalf("digest as the ServiceAccount: %v", err)
	}
	again, err := secretdigest.New(saClient, saClient, digestKey).Digest(ctx, "scope", "value")
	if err != nil || again != first {
		t.Errorf("a second digester as the ServiceAccount: %q, %v; want %q from the same key Secret", again, err, first)
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

	select {
	case <-mgr.Elected():
	case <-time.After(30 * time.Second):
		t.Fatal("the manager never became leader: the Lease is not writable by its ServiceAccount")
	}

	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gitea-token", Namespace: "acme"}, StringData: map[string]string{"token": "t"}},
		// Nothing listens there: the Forge becomes not Ready, and says so in its status.
		&forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Name: "gitea", Namespace: "acme"}, Spec: forgev1.ForgeSpec{
			URL: "http://127.0.0.1:1", Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}},
	}
	for _, o := range objs {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatalf("create %T: %v", o, err)
		}
	}
	label := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: kind-bug, namespace: acme}
spec: {forgeRef: {name: gitea}, organization: acme, name: kind/bug, color: d73a4a}
`), &label.Object); err != nil {
		t.Fatal(err)
	}
	if err := admin.Create(ctx, label); err != nil {
		t.Fatal(err)
	}

	poll(ctx, t, "the Forge's and the Label's Ready conditions, written as the ServiceAccount", func() (bool, error) {
		var f forgev1.Forge
		var l forgev1.Label
		if err := admin.Get(ctx, client.ObjectKey{Namespace: "acme", Name: "gitea"}, &f); err != nil {
			return false, err
		}
		if err := admin.Get(ctx, client.ObjectKey{Namespace: "acme", Name: "kind-bug"}, &l); err != nil {
			return false, err
		}
		fr := meta.FindStatusCondition(f.Status.Conditions, forgev1.ConditionReady)
		lr := meta.FindStatusCondition(l.Status.Conditions, forgev1.ConditionReady)
		return fr != nil && lr != nil && lr.Reason == forgev1.ReasonForgeNotReady, fmt.Errorf("Forge Ready %v, Label Ready %v", fr, lr)
	})
	poll(ctx, t, "an Event recorded as the ServiceAccount", func() (bool, error) {
		var evs eventsv1.EventList
		if err := admin.List(ctx, &evs, client.InNamespace("acme")); err != nil {
			return false, err
		}
		return len(evs.Items) > 0, nil
	})
}
