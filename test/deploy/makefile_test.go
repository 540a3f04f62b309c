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
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// makeIn runs make in dir with a controlled environment and returns stdout.
func makeIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", append([]string{"-s", "--no-print-directory"}, args...)...)
	cmd.Dir = dir
	// Only what make and the shell need: no KUBECONFIG, IMG or KUBECTL from
	// the caller's environment leaks into what is checked.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("make %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// copyTree copies the files of src under dst (a small tree: config/).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDeploySetsTheImage runs `make deploy-dir IMG=...` (the step of
// `make deploy` before kubectl) in a copy of the checkout and renders the
// overlay it writes: the manager runs IMG, and nothing else changes.
func TestDeploySetsTheImage(t *testing.T) {
	work := t.TempDir()
	copyTree(t, repoPath("config"), filepath.Join(work, "config"))
	copyTree(t, repoPath("hack", "envtest"), filepath.Join(work, "hack", "envtest"))
	mk, err := os.ReadFile(repoPath("Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "Makefile"), mk, 0o644); err != nil {
		t.Fatal(err)
	}
	base := render(t, repoPath("config", "default"))

	const digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, tc := range []struct{ img, want string }{
		{"registry.example.com:5000/forge/forge-operator:v0.1.0", "registry.example.com:5000/forge/forge-operator:v0.1.0"},
		{"ghcr.io/forgeops/forge-operator:v1.2.3-rc.1", "ghcr.io/forgeops/forge-operator:v1.2.3-rc.1"},
		{"localhost:5000/forge-operator", "localhost:5000/forge-operator:latest"},
		{"forge-operator:dev", "forge-operator:dev"},
		{"ghcr.io/forgeops/forge-operator@" + digest, "ghcr.io/forgeops/forge-operator@" + digest},
		{"", defaultImage},
	} {
		t.Run(tc.img, func(t *testing.T) {
			var args []string
			if tc.img != "" {
				args = append(args, "IMG="+tc.img)
			}
			makeIn(t, work, nil, append([]string{"deploy-dir"}, args...)...)
			objs := render(t, filepath.Join(work, "bin", "deploy"))

			var dep appsv1.Deployment
			objs.one(t, "Deployment", &dep)
			if got := dep.Spec.Template.Spec.Containers[0].Image; got != tc.want {
				t.Errorf("make deploy IMG=%s runs image %q, want %q", tc.img, got, tc.want)
			}
			if len(objs) != len(base) {
				t.Fatalf("overlay renders %d objects, config/default %d", len(objs), len(base))
			}
			for i := range objs {
				if objs[i].Kind != "Deployment" && !bytes.Equal(objs[i].YAML, base[i].YAML) {
					t.Errorf("overlay changes %s %s:\n%s", objs[i].Kind, objs[i].Name, objs[i].YAML)
				}
			}
		})
	}
}

// TestTargetsRunWhatTheySay prints the commands of each target (make -n)
// and checks them: kubectl from PATH (never downloaded), server-side apply,
// the kustomizations they name.
func TestTargetsRunWhatTheySay(t *testing.T) {
	root := repoPath()
	for _, tc := range []struct {
		args []string
		env  []string
		want []string
		not  []string
	}{
		{args: []string{"install"}, want: []string{"kubectl apply --server-side -k config/crd"}},
		{args: []string{"uninstall"}, want: []string{"kubectl get forge --all-namespaces", "kubectl delete -k config/crd --ignore-not-found"}},
		{args: []string{"deploy", "IMG=example.com/op:v1"}, want: []string{"img='example.com/op:v1'", "kubectl apply --server-side -k bin/deploy"}},
		{args: []string{"undeploy"}, want: []string{"kubectl delete -k config/default -l 'app.kubernetes.io/component!=crd' --ignore-not-found"}},
		{args: []string{"build"}, want: []string{"go build -o bin/manager ."}},
		// The linter's version comes from its own module, never from PATH.
		{args: []string{"lint"}, want: []string{"go tool -modfile=hack/tools/go.mod golangci-lint run ./..."}},
		// So is Helm's, and the chart is linted in both installs, with shards,
		// with the values that add a NetworkPolicy and a ServiceMonitor, and
		// with the operations kit.
		{args: []string{"helm-lint"}, want: []string{"go tool -modfile=hack/helm/go.mod helm lint --strict charts/forge-operator",
			"--set 'manager.watchNamespaces={team-a,team-b}'", "--set 'shards={eu-1,eu-2}'",
			"--set networkPolicy.enabled=true", "--set metrics.serviceMonitor.enabled=true",
			"--set prometheusRule.enabled=true --set dashboards.enabled=true", "--set kubeStateMetrics.customResourceState.enabled=true"}},
		// promtool comes from its own module as well.
		{args: []string{"promtool-check"}, want: []string{"go tool -modfile=hack/promtool/go.mod promtool check rules charts/forge-operator/files/prometheus/rules.yaml"}},
		{args: []string{"helm-template", "HELM_ARGS=--set image.tag=v1"}, want: []string{
			"go tool -modfile=hack/helm/go.mod helm template forge-operator charts/forge-operator --namespace forge-operator-system --set image.tag=v1 > bin/chart.yaml"}},
		// make manifests keeps the chart's copies of the generated manifests current.
		{args: []string{"manifests"}, want: []string{"cp config/crd/bases/*.yaml charts/forge-operator/files/crds/",
			"cp config/rbac/role.yaml charts/forge-operator/files/rbac/manager-role.yaml"}},
		// The real Gitea: the newest supported release by default (what
		// .ci/run tests), every supported release in test-gitea-all.
		{args: []string{"test-gitea"}, want: []string{"GITEA_VERSION=1.27.3 hack/gitea/build.sh",
			"go run ./hack/gitea -- \\\n\tgo test -v -count=1  -run '^(TestContract|TestKinds)$' ./internal/forge/ ./test/e2e/"}},
		{args: []string{"test-gitea-all"}, want: []string{"== Gitea 1.24.6", "GITEA_VERSION=1.24.6 hack/gitea/build.sh",
			"GITEA_VERSION=1.25.5 hack/gitea/build.sh", "GITEA_VERSION=1.26.4 hack/gitea/build.sh", "GITEA_VERSION=1.27.3 hack/gitea/build.sh"}},
		{args: []string{"docker-build", "IMG=example.com/op:v1"}, want: []string{"docker build -t example.com/op:v1 ."}},
		{args: []string{"docker-build", "IMG=example.com/op:v1", "CONTAINER_TOOL=podman"}, want: []string{"podman build -t example.com/op:v1 ."}},
		{args: []string{"run"}, want: []string{"go run ."}, not: []string{"--kubeconfig"}},
		{args: []string{"run"}, env: []string{"KUBECONFIG=/home/me/.kube/kind"}, want: []string{"go run . --kubeconfig=/home/me/.kube/kind"}},
		{args: []string{"run", "KUBECONFIG=/tmp/kc", "RUN_ARGS=--sync-interval=30s"}, want: []string{"go run . --kubeconfig=/tmp/kc --sync-interval=30s"}},
		// A list of files is left to controller-runtime, which merges them like kubectl.
		{args: []string{"run"}, env: []string{"KUBECONFIG=/a:/b"}, want: []string{"go run ."}, not: []string{"--kubeconfig"}},
		// Outside a cluster the manager's namespace is unknown: the digest key Secret goes to default, unless RUN_ARGS says.
		{args: []string{"run"}, want: []string{"--secret-digest-key=default/forge-operator-secret-digest-key"}},
		{args: []string{"run", "RUN_ARGS=--secret-digest-key=ops/key"}, want: []string{"--secret-digest-key=ops/key"},
			not: []string{"default/forge-operator-secret-digest-key"}},
	} {
		name := strings.Join(append(tc.args, tc.env...), " ")
		t.Run(name, func(t *testing.T) {
			out := makeIn(t, root, tc.env, append([]string{"-n"}, tc.args...)...)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("make -n %s prints\n%s\nwithout %q", name, out, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("make -n %s prints\n%s\nwith %q", name, out, n)
				}
			}
			if strings.Contains(out, "curl") || strings.Contains(out, "wget") || strings.Contains(out, "go install") {
				t.Errorf("make -n %s downloads something:\n%s", name, out)
			}
		})
	}
}

func TestTargetsHaveHelp(t *testing.T) {
	out := makeIn(t, repoPath(), nil, "help")
	for _, target := range []string{"lint", "helm-lint", "helm-template", "install", "uninstall", "run", "deploy", "undeploy", "build", "docker-build", "docker-push"} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) > 1 && f[0] == target {
				found = true
			}
		}
		if !found {
			t.Errorf("make help has no line for %s:\n%s", target, out)
		}
	}
}
