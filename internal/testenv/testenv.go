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

// Package testenv starts the envtest control plane (kube-apiserver and etcd
// built by hack/envtest) with the operator's CRDs installed, for the test
// suites and the demo.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// RepoRoot is the checkout this package was built from.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Assets returns the directory holding kube-apiserver and etcd:
// KUBEBUILDER_ASSETS when set, otherwise the cache hack/envtest/build.sh
// fills (building the binaries first when they are missing, which takes
// about six minutes the first time).
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	cmd := exec.Command("bash", filepath.Join(RepoRoot(), "hack", "envtest", "build.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("build envtest binaries with hack/envtest/build.sh: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

// New returns an envtest environment with the CRDs of config/crd/bases and
// the forge.forgeops.dev kinds registered in the client-go scheme.
func New() (*envtest.Environment, error) {
	assets, err := Assets()
	if err != nil {
		return nil, err
	}
	if err := forgev1.AddToScheme(scheme.Scheme); err != nil {
		return nil, fmt.Errorf("register %s: %w", forgev1.GroupVersion, err)
	}
	return &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(RepoRoot(), "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
		// envtest's defaults (20 s to start etcd and the apiserver, 10 s
		// for the CRDs to be served) are for an idle machine: on a busy
		// two-core one running two suites and a Gitea, a suite's control
		// plane took longer and the suite failed before its first spec.
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
		CRDInstallOptions:        envtest.CRDInstallOptions{MaxTime: time.Minute},
	}, nil
}

// Start starts a control plane; stop it with env.Stop().
func Start() (*envtest.Environment, *rest.Config, error) {
	env, err := New()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("start envtest control plane from %s: %w", env.BinaryAssetsDirectory, err)
	}
	return env, cfg, nil
}

// WriteKubeconfig writes to file a kubeconfig of the control plane cfg
// reaches, as its user, whose one context's default namespace is
// namespace (none when empty): what the subcommands are given.
func WriteKubeconfig(cfg *rest.Config, namespace, file string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin", Namespace: namespace}
	kc.CurrentContext = "envtest"
	return clientcmd.WriteToFile(*kc, file)
}
