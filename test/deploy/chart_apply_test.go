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
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// TestChartOnAnAPIServer applies the chart to a real API server (envtest;
// no nodes, so no Pod ever runs): rendered in both installs, server-side
// and dry run, with strict field validation and the restricted Pod Security
// level enforced (the `helm test` Pod included); then `helm install`,
// `helm upgrade` and `helm uninstall` as a user would run them, to show
// that the digest key and the CRDs (and so the resources) survive all three.
func TestChartOnAnAPIServer(t *testing.T) {
	env, cfg := startEnvironment(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	warn := &testenv.Warnings{}
	adminCfg := rest.CopyConfig(cfg)
	adminCfg.WarningHandlerWithContext = warn
	scheme := testenv.Scheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	admin, err := client.New(adminCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	// The namespaces the installs go to, as config/default makes its own
	// (Pod Security "restricted"), and the watched ones of the namespaced install.
	for _, ns := range []string{namespace, "team-a", "team-b", "acme"} {
		o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest"}}}
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	for name, args := range map[string][]string{"cluster-wide": nil, "namespaced": namespacedValues,
		"sharded": {"--set", "shards={eu-1,eu-2}"},
		"network policy": {"--set", "networkPolicy.enabled=true", "--set", "networkPolicy.apiServer.cidrs={10.0.0.1/32}",
			"--set", "networkPolicy.forges[0].cidrs={192.0.2.7/32}", "--set", "networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus"}} {
		t.Run("dry run "+name, func(t *testing.T) {
			for _, o := range renderChartWithTests(t, args...) {
				u := &unstructured.Unstructured{}
				if err := yaml.Unmarshal(o.YAML, &u.Object); err != nil {
					t.Fatal(err)
				}
				if err := admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.DryRunAll,
					client.FieldOwner("chart-test"), client.ForceOwnership); err != nil {
					t.Errorf("apply %s: %v", o.id(), err)
				}
				if w := warn.Take(); len(w) > 0 {
					t.Errorf("apply %s: API server warnings %q", o.id(), w)
				}
			}
		})
	}

	user, err := env.AddUser(envtest.User{Name: "helm", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		if _, err := helm(t, append(args, "--kubeconfig", kubeconfig)...); err != nil {
			t.Fatal(err)
		}
	}
	digestKey := func(ns string) []byte {
		t.Helper()
		var s corev1.Secret
		if err := admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: secretdigest.DefaultName}, &s); err != nil {
			t.Fatalf("the digest key Secret: %v", err)
		}
		return s.Data[secretdigest.DataKey]
	}
	crdUIDs := func() map[string]types.UID {
		t.Helper()
		var crds apiextensionsv1.CustomResourceDefinitionList
		if err := admin.List(ctx, &crds); err != nil {
			t.Fatal(err)
		}
		out := map[string]types.UID{}
		for _, c := range crds.Items {
			out[c.Name] = c.UID
		}
		return out
	}
	deploymentArgs := func(name string) []string {
		t.Helper()
		var dep appsv1.Deployment
		if err := admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, &dep); err != nil {
			t.Fatal(err)
		}
		return dep.Spec.Template.Spec.Containers[0].Args
	}

	run("install", "forge-operator", chartDir, "--namespace", namespace)
	key := digestKey(namespace)
	if len(key) != 32 {
		t.Fatalf("digest key of %d bytes, want 32", len(key))
	}
	crds := crdUIDs()
	if len(crds) != len(testenv.Kinds()) {
		t.Errorf("%d CRDs installed, want one per kind (%d)", len(crds), len(testenv.Kinds()))
	}
	for _, list := range testenv.Lists() {
		poll(ctx, t, "the CRDs served", func() (bool, error) {
			err := admin.List(ctx, list)
			return err == nil, err
		})
	}
	// A resource that must outlive the chart.
	forge := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Name: "gitea", Namespace: "acme"}, Spec: forgev1.ForgeSpec{
		URL: "https://gitea.example.com", Auth: forgev1.ForgeAuth{TokenSecretRef: &forgev1.TokenSecretReference{Name: "gitea-token"}}}}
	if err := admin.Create(ctx, forge); err != nil {
		t.Fatal(err)
	}

	// The upgrade adds a shard: its manager is created beside the default
	// one, whose Deployment (and its immutable selector) the upgrade keeps.
	run("upgrade", "forge-operator", chartDir, "--namespace", namespace, "--set", "manager.syncInterval=5m", "--set", "shards={eu-1}")
	if args := deploymentArgs(deploymentName); !slices.Contains(args, "--sync-interval=5m") {
		t.Errorf("after the upgrade the manager's args are %v, without --sync-interval=5m", args)
	}
	if args := deploymentArgs(shardDeployment("eu-1")); !slices.Contains(args, "--shard=eu-1") || !slices.Contains(args, "--sync-interval=5m") {
		t.Errorf("after the upgrade shard eu-1's manager's args are %v, without --shard=eu-1 and --sync-interval=5m", args)
	}
	if got := digestKey(namespace); !bytes.Equal(got, key) {
		t.Error("helm upgrade changed the digest key")
	}
	if got := crdUIDs(); !equalUIDs(got, crds) {
		t.Errorf("helm upgrade replaced CRDs: %v, were %v", got, crds)
	}

	run("uninstall", "forge-operator", "--namespace", namespace)
	poll(ctx, t, "the managers' Deployments and ClusterRole gone", func() (bool, error) {
		errDep := admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: deploymentName}, &appsv1.Deployment{})
		errShard := admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: shardDeployment("eu-1")}, &appsv1.Deployment{})
		errRole := admin.Get(ctx, types.NamespacedName{Name: "forge-operator-manager-role"}, &rbacv1.ClusterRole{})
		return apierrors.IsNotFound(errDep) && apierrors.IsNotFound(errShard) && apierrors.IsNotFound(errRole), nil
	})
	if got := crdUIDs(); !equalUIDs(got, crds) {
		t.Errorf("helm uninstall removed CRDs: %v, were %v", got, crds)
	}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(forge), &forgev1.Forge{}); err != nil {
		t.Errorf("the Forge after helm uninstall: %v", err)
	}
	if got := digestKey(namespace); !bytes.Equal(got, key) {
		t.Error("helm uninstall changed the digest key")
	}

	// Installed again, the chart takes the kept Secret and CRDs back as they are.
	run("install", "forge-operator", chartDir, "--namespace", namespace)
	if got := digestKey(namespace); !bytes.Equal(got, key) {
		t.Error("a new install after helm uninstall changed the digest key")
	}
	if got := crdUIDs(); !equalUIDs(got, crds) {
		t.Errorf("a new install replaced CRDs: %v, were %v", got, crds)
	}

	// A digest key the manager created itself (a kustomize install before
	// the chart) is not the chart's: it stays as it is, and the install does
	// not fail on it. The second release names its cluster-wide objects
	// apart and leaves the CRDs to the first.
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretdigest.DefaultName, Namespace: "team-a"},
		Data: map[string][]byte{secretdigest.DataKey: bytes.Repeat([]byte{7}, 32)}}
	if err := admin.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	run("install", "team-a", chartDir, "--namespace", "team-a", "--set", "fullnameOverride=forge-operator-team-a",
		"--set", "crds.install=false", "--set", "manager.watchNamespaces={team-a}")
	if got := digestKey("team-a"); !bytes.Equal(got, foreign.Data[secretdigest.DataKey]) {
		t.Error("the chart replaced a digest key it did not create")
	}
}

func equalUIDs(a, b map[string]types.UID) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
