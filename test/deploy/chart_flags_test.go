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
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// mainFlag is a flag main.go defines: its name and its default expression.
type mainFlag struct {
	name string
	def  ast.Expr
}

// mainGoFlags are the flags main.go defines with flag.XxxVar and flag.Xxx.
func mainGoFlags(t *testing.T) []mainFlag {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), repoPath("main.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var flags []mainFlag
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || len(call.Args) < 3 {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "flag" {
			return true
		}
		i := 0
		if strings.HasSuffix(sel.Sel.Name, "Var") {
			i = 1
		}
		if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			flags = append(flags, mainFlag{name: name, def: call.Args[i+1]})
		}
		return true
	})
	if len(flags) < 10 {
		t.Fatalf("found only the flags %v in main.go: has the way it defines them changed?", flags)
	}
	return flags
}

// managerFlags are the names of the flags main.go defines and of the zap
// logging flags it binds.
func managerFlags(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, f := range mainGoFlags(t) {
		names = append(names, f.name)
	}
	fs := flag.NewFlagSet("zap", flag.ContinueOnError)
	(&zap.Options{}).BindFlags(fs)
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// defaultOf evaluates the default expressions main.go uses: literals,
// durations like 10*time.Minute, and the packages' Default constants.
func defaultOf(e ast.Expr) (string, bool) {
	known := map[string]string{
		"forge.DefaultDenyCIDRs":      forge.DefaultDenyCIDRs,
		"manager.DefaultKubeAPIQPS":   fmt.Sprint(manager.DefaultKubeAPIQPS),
		"manager.DefaultKubeAPIBurst": fmt.Sprint(manager.DefaultKubeAPIBurst),
		"secretdigest.DefaultName":    secretdigest.DefaultName,
	}
	units := map[string]time.Duration{"time.Second": time.Second, "time.Minute": time.Minute, "time.Hour": time.Hour}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
		return e.Value, true
	case *ast.Ident:
		return e.Name, e.Name == "true" || e.Name == "false"
	case *ast.SelectorExpr:
		v, ok := known[types.ExprString(e)]
		return v, ok
	case *ast.BinaryExpr:
		n, ok := e.X.(*ast.BasicLit)
		unit, known := units[types.ExprString(e.Y)]
		if !ok || !known || e.Op != token.MUL {
			return "", false
		}
		i, err := strconv.Atoi(n.Value)
		return (time.Duration(i) * unit).String(), err == nil
	}
	return "", false
}

var managerDefaultClaim = regexp.MustCompile("manager default (?:`([^`]+)`|([^ :;)]+))")

// TestChartValuesStateTheManagersDefaults: where values.yaml says what the
// manager's default of a flag is, it is the default main.go gives.
func TestChartValuesStateTheManagersDefaults(t *testing.T) {
	b, err := os.ReadFile(repoPath(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := valuesDocs(t, string(b))
	checked := 0
	for _, f := range mainGoFlags(t) {
		def, ok := defaultOf(f.def)
		if !ok {
			continue
		}
		for _, d := range docs {
			m := managerDefaultClaim.FindStringSubmatch(d.doc)
			if !strings.HasPrefix(d.doc, "`--"+f.name+"`") || m == nil {
				continue
			}
			checked++
			claim := m[1] + m[2]
			cd, errC := time.ParseDuration(claim)
			dd, errD := time.ParseDuration(def)
			if (errC != nil || errD != nil || cd != dd) && claim != def {
				t.Errorf("values.yaml %s: says the manager's default of --%s is %s; main.go's is %s", d.path, f.name, claim, def)
			}
		}
	}
	if checked < 5 {
		t.Errorf("checked only %d claims of a manager default in values.yaml: has their wording changed?", checked)
	}
}

// TestChartPassesEveryManagerFlag: every flag of the manager is a value of
// the chart. testdata/chart-every-flag.yaml sets each one; the args of its
// shard eu-1's manager must name every flag main.go defines, exactly as
// written here, and the default manager's the same but --shard.
func TestChartPassesEveryManagerFlag(t *testing.T) {
	var dep, def appsv1.Deployment
	objs := renderChart(t, "-f", repoPath("test", "deploy", "testdata", "chart-every-flag.yaml"))
	objs.named(t, "Deployment", shardDeployment("eu-1"), &dep)
	objs.named(t, "Deployment", deploymentName, &def)
	c := dep.Spec.Template.Spec.Containers[0]
	for _, name := range managerFlags(t) {
		if !slices.ContainsFunc(c.Args, func(a string) bool { return a == "--"+name || strings.HasPrefix(a, "--"+name+"=") }) {
			t.Errorf("the chart passes no --%s (args %v): give it a value in values.yaml and testdata/chart-every-flag.yaml", name, c.Args)
		}
	}
	want := []string{
		"--leader-elect",
		"--metrics-bind-address=:9443",
		"--metrics-secure=false",
		"--health-probe-bind-address=:9081",
		"--watch-namespaces=team-a",
		"--cluster-forges=false",
		"--sync-interval=5m",
		"--max-concurrent-reconciles=8",
		"--max-reconciles-per-forge=3",
		"--reconcile-timeout=90s",
		"--kube-api-qps=1e+06",
		"--kube-api-burst=1000000",
		"--forge-deny-cidrs=10.0.0.0/8",
		"--secret-digest-key=ops-key",
		"--pprof-bind-address=localhost:6060",
		"--shard=eu-1",
		"--receiver-bind-address=:9091",
		"--metrics-cert-dir=/etc/forge-operator/metrics-certs",
		"--enable-http2",
		"--zap-log-level=debug",
		"--zap-encoder=console",
		"--zap-stacktrace-level=panic",
		"--zap-time-encoding=iso8601",
		"--zap-devel=true",
	}
	if d := cmp.Diff(want, c.Args); d != "" {
		t.Errorf("args (-want +got):\n%s", d)
	}
	want = slices.DeleteFunc(want, func(a string) bool { return a == "--shard=eu-1" })
	if d := cmp.Diff(want, def.Spec.Template.Spec.Containers[0].Args); d != "" {
		t.Errorf("the default manager's args (-want +got):\n%s", d)
	}
	// The ports and probes follow the values.
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["metrics"] != 9443 || ports["health"] != 9081 || ports["receiver"] != 9091 || c.LivenessProbe.HTTPGet.Port.IntValue() != 9081 {
		t.Errorf("ports %v, liveness probe on %s: want metrics 9443, receiver 9091, health and probes 9081", ports, c.LivenessProbe.HTTPGet.Port.String())
	}
	// The certificate Secret is mounted where --metrics-cert-dir points.
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/etc/forge-operator/metrics-certs" ||
		len(dep.Spec.Template.Spec.Volumes) != 1 || dep.Spec.Template.Spec.Volumes[0].Secret.SecretName != "metrics-tls" {
		t.Errorf("metrics certificate: mounts %+v, volumes %+v", c.VolumeMounts, dep.Spec.Template.Spec.Volumes)
	}
}

// TestChartFlagDefaultsAreTheManagers: a value left empty passes no flag,
// so that the manager's own default holds; the values set by default are
// config/default's.
func TestChartFlagDefaultsAreTheManagers(t *testing.T) {
	var dep appsv1.Deployment
	renderChart(t, "--set", "manager.leaderElect=false", "--set", "metrics.enabled=false").one(t, "Deployment", &dep)
	c := dep.Spec.Template.Spec.Containers[0]
	want := []string{"--metrics-bind-address=0", "--metrics-secure=true", "--health-probe-bind-address=:8081"}
	if d := cmp.Diff(want, c.Args); d != "" {
		t.Errorf("args (-want +got):\n%s", d)
	}
	for _, p := range c.Ports {
		if p.Name == "metrics" {
			t.Errorf("metrics off, yet port %+v", p)
		}
	}
}

// TestChartRunsTheImageMakeDockerBuildBuilds: the chart's image is the
// Makefile's IMG (what `make docker-build` builds and config/default runs)
// with the tag defaulting to the chart's appVersion, pulled as config/default
// pulls it, started by the Dockerfile's entrypoint; image.tag and
// image.digest override the tag.
func TestChartRunsTheImageMakeDockerBuildBuilds(t *testing.T) {
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	b, err := os.ReadFile(repoPath(chartDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &chart); err != nil {
		t.Fatal(err)
	}
	img := makeIn(t, repoPath(), nil, "-n", "docker-build")
	if want := "docker build -t " + defaultImage + " ."; !strings.Contains(img, want) {
		t.Fatalf("make -n docker-build prints %q, want %q", img, want)
	}
	repo, tag, _ := strings.Cut(defaultImage, ":")
	if chart.AppVersion != tag {
		t.Errorf("Chart.yaml appVersion %q, want %q, the tag make docker-build builds", chart.AppVersion, tag)
	}

	var kustomized, dep appsv1.Deployment
	render(t, repoPath("config", "default")).one(t, "Deployment", &kustomized)
	renderChart(t).one(t, "Deployment", &dep)
	c, k := dep.Spec.Template.Spec.Containers[0], kustomized.Spec.Template.Spec.Containers[0]
	if c.Image != repo+":"+tag || c.Image != k.Image || c.ImagePullPolicy != k.ImagePullPolicy {
		t.Errorf("chart image %s (%s), want %s:%s as config/default's %s (%s)", c.Image, c.ImagePullPolicy, repo, tag, k.Image, k.ImagePullPolicy)
	}
	var entrypoint string
	stages := dockerfileStages(t)
	for _, in := range stages[len(stages)-1].instructions {
		if rest, ok := strings.CutPrefix(in, "ENTRYPOINT "); ok {
			entrypoint = rest
		}
	}
	var ep []string
	if err := json.Unmarshal([]byte(entrypoint), &ep); err != nil || !slices.Equal(ep, c.Command) {
		t.Errorf("the Dockerfile's ENTRYPOINT %s (%v), the chart's command %v: want the same", entrypoint, err, c.Command)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "image.repository=registry.example.com/forge-operator", "--set", "image.tag=v0.1.0"}, "registry.example.com/forge-operator:v0.1.0"},
		{[]string{"--set", "image.digest=sha256:0123", "--set", "image.tag=v0.1.0"}, "forge-operator@sha256:0123"},
	} {
		var d appsv1.Deployment
		renderChart(t, tc.args...).one(t, "Deployment", &d)
		if got := d.Spec.Template.Spec.Containers[0].Image; got != tc.want {
			t.Errorf("%v: image %s, want %s", tc.args, got, tc.want)
		}
	}
}
