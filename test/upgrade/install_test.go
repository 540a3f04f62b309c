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

package upgrade

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/forgeops/forge-operator/internal/testenv"
)

const (
	operatorNamespace = "forge-operator-system"
	// release is the Helm release, whose ServiceAccount the managers act
	// as in the Helm case.
	releaseName    = "forge-operator"
	serviceAccount = "system:serviceaccount:" + operatorNamespace + ":" + releaseName + "-controller-manager"
)

// installer puts one release's CRDs (and what else its way of installing
// brings) on the cluster: first the old commit's, then the working tree's
// over them, as an operator's user upgrades.
type installer struct {
	name string
	// install applies the release checked out in dir; upgrade is true the
	// second time.
	install func(t *testing.T, c *cluster, dir string, upgrade bool)
	// managerConfig is the kubeconfig the managers run with.
	managerConfig func(t *testing.T, c *cluster) string
}

// installers are the two ways docs/install.md offers: Helm and kustomize.
var installers = []installer{{
	// The chart, installed from the old commit and upgraded to the working
	// tree's (its CRDs are templates: helm upgrade updates them). No Pod
	// runs on envtest, so the managers run as processes, acting as the
	// chart's ServiceAccount: the chart's RBAC must allow what each does,
	// the new one's migration of stored versions included.
	name: "helm",
	install: func(t *testing.T, c *cluster, dir string, upgrade bool) {
		verb := "install"
		if upgrade {
			verb = "upgrade"
		}
		c.helm(t, verb, releaseName, filepath.Join(dir, "charts", "forge-operator"), "--namespace", operatorNamespace)
	},
	managerConfig: func(t *testing.T, c *cluster) string {
		return c.kubeconfig(t, "manager-sa", serviceAccount, "system:serviceaccounts", "system:serviceaccounts:"+operatorNamespace, "system:authenticated")
	},
}, {
	// config/crd, server-side applied as `kubectl apply --server-side -k
	// config/crd` (make install) applies it, the old then the new; the
	// managers run with the admin's credentials, as `make run` does.
	name: "kustomize",
	install: func(t *testing.T, c *cluster, dir string, _ bool) {
		c.applyKustomization(t, filepath.Join(dir, "config", "crd"))
	},
	managerConfig: func(t *testing.T, c *cluster) string {
		return c.kubeconfig(t, "manager-admin", "")
	},
}}

// cluster is one envtest API server of a case, with no CRD until an
// installer puts them there.
type cluster struct {
	env   *envtest.Environment
	cfg   *rest.Config
	admin client.Client
	// adminKubeconfig is system:masters' kubeconfig, for helm and the
	// managers' own.
	adminKubeconfig []byte
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	assets, err := testenv.Assets()
	if err != nil {
		t.Fatal(err)
	}
	// No CRDs: the installer under test installs them. The timeouts are
	// testenv's, for a busy machine.
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start envtest from %s: %v", assets, err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	user, err := env.AddUser(envtest.User{Name: "upgrade-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{env: env, cfg: cfg, adminKubeconfig: kc}
	c.admin = c.client(t, nil)
	return c
}

// client is a client of the API server (a fresh one discovers the kinds
// the CRDs serve now), reporting warnings to warn when it is not nil.
func (c *cluster) client(t *testing.T, warn rest.WarningHandlerWithContext) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(c.cfg)
	if warn != nil {
		cfg.WarningHandlerWithContext = warn
	}
	scheme := testenv.Scheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// kubeconfig writes the admin's kubeconfig, acting as user and groups
// when user is not empty, into a file of the test's and returns its path.
func (c *cluster) kubeconfig(t *testing.T, name, user string, groups ...string) string {
	t.Helper()
	kc, err := clientcmd.Load(c.adminKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		for _, a := range kc.AuthInfos {
			a.Impersonate, a.ImpersonateGroups = user, groups
		}
	}
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

var helmOnce struct {
	sync.Once
	path string
	err  error
}

// helm runs the Helm of hack/helm/go.mod (built into Go's build cache
// once; `make test` builds it first) as the admin, with cache and
// configuration directories of its own.
func (c *cluster) helm(t *testing.T, args ...string) {
	t.Helper()
	helmOnce.Do(func() {
		cmd := exec.Command("go", "tool", "-n", "-modfile=hack/helm/go.mod", "helm")
		cmd.Dir = testenv.RepoRoot()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			helmOnce.err = fmt.Errorf("go tool -n -modfile=hack/helm/go.mod helm: %v\n%s", err, stderr.String())
		}
		helmOnce.path = strings.TrimSpace(string(out))
	})
	if helmOnce.err != nil {
		t.Fatal(helmOnce.err)
	}
	home := t.TempDir()
	cmd := exec.Command(helmOnce.path, append(args, "--kubeconfig", c.kubeconfig(t, "helm", ""))...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// applyKustomization builds the kustomization in dir (kustomize's own
// library, as kubectl -k does) and server-side applies every object, as
// field manager kubectl.
func (c *cluster) applyKustomization(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	for _, r := range resMap.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		if err := c.admin.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			t.Fatalf("apply %s %s of %s: %v", u.GetKind(), u.GetName(), dir, err)
		}
	}
}

// crds are the operator's CRDs on the cluster, by name.
func (c *cluster) crds(ctx context.Context, t *testing.T) map[string]apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var list apiextensionsv1.CustomResourceDefinitionList
	if err := c.admin.List(ctx, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range list.Items {
		if crd.Spec.Group == group {
			out[crd.Name] = crd
		}
	}
	return out
}
