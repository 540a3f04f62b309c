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

package bench

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/forgeops/forge-operator/internal/manager"
)

// The benchmarks run the operator as users do: its own binary (main.go,
// built once per benchmark process) with its default flags but for the
// namespace, the sync interval and the metrics (plain HTTP on loopback, for
// the benchmark to read its passes), in a process of its own, so that its
// memory and CPU are its own and not the fake forge's or the benchmark's.
// It reaches the API server through kubeProxy, which counts its requests.

// binDir is the temporary directory managerBinary builds into; TestMain
// removes it when the benchmarks are done.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// managerBinary builds the operator's manager into a temporary directory.
var managerBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "forge-operator-bench-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "manager")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join("..", "..") // the module root, from test/bench
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the manager: %v\n%s", err, out)
	}
	return bin, nil
})

// startKubeProxy serves the API server of cfg on loopback over plain HTTP,
// authenticating as cfg, and counts the requests through it (rec).
func startKubeProxy(cfg *rest.Config, rec *recorder) (*httptest.Server, error) {
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		Transport:     kubeTransport{rec: rec, next: rt},
		FlushInterval: -1, // watches stream
	}), nil
}

// managerProcess is one run of the manager's binary.
type managerProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	// metricsURL is where the manager serves its metrics.
	metricsURL string
}

// freeLoopbackAddr is a loopback address with a port free a moment ago,
// for the manager to bind its metrics to.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// reconciles scrapes the manager's metrics: controller-runtime's
// reconcile_total, by controller (the lower-case kind, "repository") and
// result ("success", "error", "requeue", "requeue_after"), and the
// operator's forge_passes_total, by "ran/" and the lower-case kind, and
// outcome; and the receiver's forge_receiver_deliveries_total, under
// "deliveries", by event and result ("repository accepted"). The counts
// are since the process started.
func (p *managerProcess) reconciles() (map[string]map[string]float64, error) {
	resp, err := http.Get(p.metricsURL)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get %s: %s", p.metricsURL, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", p.metricsURL, err)
	}
	out := map[string]map[string]float64{}
	for _, m := range families["controller_runtime_reconcile_total"].GetMetric() {
		var controller, result string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "controller":
				controller = l.GetValue()
			case "result":
				result = l.GetValue()
			}
		}
		if out[controller] == nil {
			out[controller] = map[string]float64{}
		}
		out[controller][result] += m.GetCounter().GetValue()
	}
	// The operator's own count of the passes that ran (not those its
	// fairness turned away to wait for a worker), by outcome: under
	// "ran/" and the lower-case kind.
	for _, m := range families["forge_passes_total"].GetMetric() {
		var kind, outcome string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "kind":
				kind = "ran/" + strings.ToLower(l.GetValue())
			case "outcome":
				outcome = l.GetValue()
			}
		}
		if out[kind] == nil {
			out[kind] = map[string]float64{}
		}
		out[kind][outcome] += m.GetCounter().GetValue()
	}
	for _, m := range families["forge_receiver_deliveries_total"].GetMetric() {
		var event, result string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "event":
				event = l.GetValue()
			case "result":
				result = l.GetValue()
			}
		}
		if out["deliveries"] == nil {
			out["deliveries"] = map[string]float64{}
		}
		out["deliveries"][event+" "+result] += m.GetCounter().GetValue()
	}
	return out, nil
}

// managerArgs is what a benchmark sets of one manager process.
type managerArgs struct {
	// kubeURL is the API server the manager reaches (a kubeProxy).
	kubeURL string
	// namespaces are the namespaces it watches (--watch-namespaces).
	namespaces []string
	// digestKey is its secret digest key, namespace/name.
	digestKey string
	// logDir holds its kubeconfig and its log.
	logDir string
	// sync is its --sync-interval.
	sync time.Duration
	// shard is its --shard: "" for the default manager (docs/shards.md).
	shard string
	// receiver is its --receiver-bind-address ("": none).
	receiver string
}

// startManagerProcess runs the manager as args say: against the API
// server at args.kubeURL, watching args.namespaces, checking for drift every
// args.sync, serving args.shard, with its metrics served over plain HTTP on
// a free loopback port (metricsURL), its Kubernetes client limits
// (BENCH_KUBE_QPS overrides the default --kube-api-qps, the burst twice
// that) and its secret digest key at args.digestKey; its log goes to
// args.logDir. BENCH_PPROF=host:port serves the manager's profiles there
// (--pprof-bind-address; the default manager's only, when there are
// shards), to take heap profiles while a workload runs:
// go tool pprof -top -inuse_space http://host:port/debug/pprof/heap.
// Every benchmark starts its managers here: the one place to adapt to a
// new flag the managers need.
func startManagerProcess(args managerArgs) (*managerProcess, error) {
	bin, err := managerBinary()
	if err != nil {
		return nil, err
	}
	metricsAddr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(args.logDir, "kubeconfig-"+shardName(args.shard))
	kc := clientcmdapi.NewConfig()
	kc.Clusters["bench"] = &clientcmdapi.Cluster{Server: args.kubeURL}
	kc.AuthInfos["bench"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: "bench"}
	kc.CurrentContext = "bench"
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		return nil, err
	}
	qps, burst := float64(manager.DefaultKubeAPIQPS), manager.DefaultKubeAPIBurst
	if v, err := strconv.ParseFloat(os.Getenv("BENCH_KUBE_QPS"), 64); err == nil && v > 0 {
		qps, burst = v, int(2*v)
	}
	log, err := os.Create(filepath.Join(args.logDir, fmt.Sprintf("manager-%s-%d.log", shardName(args.shard), time.Now().UnixNano())))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin,
		"--watch-namespaces="+strings.Join(args.namespaces, ","), "--sync-interval="+args.sync.String(),
		"--health-probe-bind-address=0", "--metrics-bind-address="+metricsAddr, "--metrics-secure=false",
		"--kube-api-qps="+strconv.FormatFloat(qps, 'f', -1, 64), "--kube-api-burst="+strconv.Itoa(burst),
		"--secret-digest-key="+args.digestKey,
		// As deployed (the chart's and config/default's default), and as
		// --shard requires: the handover reads the shards' leases.
		"--leader-elect")
	if args.receiver != "" {
		cmd.Args = append(cmd.Args, "--receiver-bind-address="+args.receiver)
	}
	if args.shard != "" {
		cmd.Args = append(cmd.Args, "--shard="+args.shard)
	} else if addr := os.Getenv("BENCH_PPROF"); addr != "" {
		cmd.Args = append(cmd.Args, "--pprof-bind-address="+addr)
	}
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, err
	}
	p := &managerProcess{cmd: cmd, done: make(chan struct{}), metricsURL: "http://" + metricsAddr + "/metrics"}
	go func() {
		_ = cmd.Wait()
		_ = log.Close()
		close(p.done)
	}()
	return p, nil
}

// shardName is how the figures and file names call a shard: "default"
// for the default manager.
func shardName(shard string) string {
	if shard == "" {
		return "default"
	}
	return shard
}

// stop ends the manager as Kubernetes does (SIGTERM, then SIGKILL).
func (p *managerProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// peakRSS is the process's high-water resident set (VmHWM).
func (p *managerProcess) peakRSS() uint64 {
	return procStatusKB(p.cmd.Process.Pid, "VmHWM:") << 10
}

// cpuSeconds is the CPU time the process used (user and system).
func (p *managerProcess) cpuSeconds() float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks (100 a second on Linux).
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(fields[11], 64)
	st, _ := strconv.ParseFloat(fields[12], 64)
	return (ut + st) / 100
}

// procStatusKB reads a kB figure of /proc/<pid>/status.
func procStatusKB(pid int, key string) uint64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
