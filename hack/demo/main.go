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

// Command demo shows forge-operator doing its job on a machine with nothing
// but Go: it starts a local control plane (kube-apiserver and etcd built by
// hack/envtest), the fake forge, and the manager, applies config/samples,
// sets the scene on the forge the way its users would (repositories created
// through the API, a runner that registers itself), waits until every sample
// is Ready, prints what the cluster and the forge now hold, then changes the
// forge by hand and shows the drift corrected, and renames a label through
// the LabelSet's previousNames with its issue keeping it.
//
// It keeps running until interrupted, with a kubeconfig in bin/demo, so that
// kubectl can look around; --once (or DEMO_ONCE=1) exits after the table.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/testenv"
)

const (
	namespace = "forge-demo"
	// operatorNamespace holds what the operator owns: its secret digest key
	// and the Secrets of ClusterForges (the manager's own namespace is the
	// digest key's).
	operatorNamespace = "forge-operator-system"
	// tenantLabel is what the ClusterForge sample's siteAdmin entry selects
	// besides the namespace named platform: the demo namespace wears it, so
	// that the User sample may use the ClusterForge from there.
	tenantLabel, tenantPlatform = "forge.forgeops.dev/tenant", "platform"
	// Demo credentials: they exist only in this process and its fake forge.
	demoToken = "demo-token-0123456789"
)

type options struct {
	once         bool
	forgeAddr    string
	out          string
	syncInterval time.Duration
	timeout      time.Duration
}

func main() {
	var o options
	flag.BoolVar(&o.once, "once", os.Getenv("DEMO_ONCE") == "1", "exit 0 after the table and the drift correction instead of running until interrupted (also DEMO_ONCE=1)")
	flag.StringVar(&o.forgeAddr, "forge-addr", "127.0.0.1:3000", "address of the fake forge (a free port is used when this one is taken)")
	flag.StringVar(&o.out, "out", filepath.Join("bin", "demo"), "directory for the kubeconfig and the manager log")
	flag.DurationVar(&o.syncInterval, "sync-interval", 5*time.Second, "the manager's drift check period")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long to wait for the samples to become Ready")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo failed:", err)
		os.Exit(1)
	}
}

func step(format string, args ...any) { fmt.Printf("\n==> "+format+"\n", args...) }

func run(ctx context.Context, o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}

	step("starting a local control plane (kube-apiserver and etcd; built on first use, about six minutes)")
	env, err := testenv.New()
	if err != nil {
		return err
	}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("start the control plane: %w", err)
	}
	defer func() { _ = env.Stop() }()
	kubeconfig := filepath.Join(o.out, "kubeconfig")
	if err := writeKubeconfig(env, kubeconfig); err != nil {
		return err
	}
	fmt.Println("    API server", cfg.Host, "- kubeconfig", kubeconfig, "- CRDs installed")

	step("starting the fake forge")
	fake := fakeforge.New(fakeforge.WithToken(demoToken))
	lis, err := net.Listen("tcp", o.forgeAddr)
	if err != nil {
		if lis, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return err
		}
	}
	forgeURL := "http://" + lis.Addr().String()
	fake.SetRoot(forgeURL)
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	defer func() { _ = srv.Close() }()
	fmt.Println("    serving the forge API at", forgeURL+"/api/v1", "as user", fake.Login())
	fc, err := forge.New(forge.Config{Name: "demo", URL: forgeURL, Token: demoToken})
	if err != nil {
		return err
	}

	step("starting the manager (sync interval %s; log in %s)", o.syncInterval, filepath.Join(o.out, "manager.log"))
	k8s, metricsURL, err := startManager(ctx, cfg, o)
	if err != nil {
		return err
	}

	step("creating namespace %s, the Secrets and the samples of config/samples", namespace)
	if err := createBasics(ctx, k8s); err != nil {
		return err
	}
	applied, err := applySamples(ctx, k8s, forgeURL)
	if err != nil {
		return err
	}
	fmt.Printf("    applied %d objects\n", len(applied))

	step("setting the scene on the forge as its users would")
	if err := waitReady(ctx, k8s, []ref{{"Organization", "acme"}}, o.timeout, false); err != nil {
		return err
	}
	// The Repository sample "web" creates acme/web when it is missing: the
	// operator may get there first (it is not held back by this script).
	switch _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web", Description: "Acme's web site"}); {
	case forge.IsConflict(err):
		fmt.Println("    repository acme/web exists already: the Repository sample created it first")
	case err != nil:
		return fmt.Errorf("create repository acme/web: %w", err)
	default:
		fmt.Println("    created repository acme/web through the forge API")
	}
	for _, name := range []string{"api", "sandbox-play"} {
		if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: name}); err != nil {
			return fmt.Errorf("create repository acme/%s: %w", name, err)
		}
	}
	fmt.Println("    created repositories acme/api and acme/sandbox-play (the LabelSet skips sandbox-*)")
	// A team the organization's admins keep by hand (no Team resource):
	// the RepositorySet sample gives it access to every repository.
	if _, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "developers", Permission: "write",
		UnitsMap: map[string]string{"repo.code": "write", "repo.pulls": "write", "repo.issues": "write"}}); err != nil {
		return fmt.Errorf("create team acme/developers: %w", err)
	}
	fmt.Println("    created team acme/developers by hand (the RepositorySet gives it every repository but the sandboxes)")
	if _, err := fc.RegisterRunner(ctx, forge.OrgScope("acme"), "acme-runner-1", "ubuntu-latest", "linux"); err != nil {
		return err
	}
	fmt.Println("    runner acme-runner-1 registered itself with an organization registration token")

	step("waiting for every sample to be Ready")
	if err := waitReady(ctx, k8s, applied, o.timeout, true); err != nil {
		return err
	}
	if err := printTable(ctx, k8s, applied); err != nil {
		return err
	}
	if err := printForge(ctx, fc); err != nil {
		return err
	}

	step("drift: someone changes label kind/bug on the forge by hand")
	if err := showDrift(ctx, k8s, fc, o); err != nil {
		return err
	}
	step("rename: the LabelSet adopts a label under its old name, and its issues keep it")
	if err := showRename(ctx, k8s, fc, o); err != nil {
		return err
	}
	printMetrics(metricsURL)

	if o.once {
		step("done (--once)")
		return nil
	}
	step("the demo keeps running; try:")
	fmt.Printf("    kubectl --kubeconfig %s get forge -n %s\n", kubeconfig, namespace)
	fmt.Printf("    kubectl --kubeconfig %s get clusterforges -o wide\n", kubeconfig)
	fmt.Printf("    kubectl --kubeconfig %s describe labels.forge.forgeops.dev -n %s\n", kubeconfig, namespace)
	fmt.Printf("    curl -H 'Authorization: token %s' %s/api/v1/orgs/acme/labels\n", demoToken, forgeURL)
	fmt.Println("    Ctrl-C stops it.")
	<-ctx.Done()
	return nil
}

func writeKubeconfig(env *envtest.Environment, path string) error {
	user, err := env.AddUser(envtest.User{Name: "demo-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("add a kubeconfig user: %w", err)
	}
	raw, err := user.KubeConfig()
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o600)
}

// startManager runs the operator's controllers in this process, logging to
// a file, with the metrics endpoint on a free loopback port.
func startManager(ctx context.Context, cfg *rest.Config, o options) (client.Client, string, error) {
	logFile, err := os.Create(filepath.Join(o.out, "manager.log"))
	if err != nil {
		return nil, "", err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	if err := forgev1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	metricsAddr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, "", err
	}
	// The webhook receiver on loopback, for the Receiver sample.
	if err := controllers.Setup(ctx, mgr, controllers.Options{SyncInterval: o.syncInterval, MaxConcurrentReconciles: 4,
		Receiver: receiver.New("127.0.0.1:0"), SecretDigestKey: types.NamespacedName{Namespace: operatorNamespace, Name: secretdigest.DefaultName}}); err != nil {
		return nil, "", err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager stopped:", err)
		}
	}()
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	return k8s, "http://" + metricsAddr + "/metrics", err
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func createBasics(ctx context.Context, k8s client.Client) error {
	objs := []client.Object{
		// The manager creates its secret digest key here when the first hook needs it.
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: map[string]string{tenantLabel: tenantPlatform}}},
		secret("gitea-token", "token", demoToken),
		// The ClusterForge's token: read from the operator's namespace only.
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: "platform-gitea-token"},
			StringData: map[string]string{"token": demoToken}},
		secret("acme-webhook", "secret", "demo-webhook-signing-secret"),
		secret("acme-slack-webhook", "url", "https://hooks.slack.example.com/services/T0000/B0000/demo"),
		secret("web-deploy-token", "token", "demo-deploy-token"),
		secret("github-push", "token", "demo-github-push-token"), // the PushMirror sample's password
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "acme-ci"},
			Data: map[string]string{"registry": "registry.acme.example"}},
	}
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
	}
	return nil
}

func secret(name, key, value string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: map[string]string{key: value}}
}

// ref names an applied sample.
type ref struct{ kind, name string }

// connection reports whether kind is a connection to the forge rather than
// a forge object.
func connection(kind string) bool { return kind == "Forge" || kind == "ClusterForge" }

// applySamples creates the objects of config/samples in the demo namespace
// (the ClusterForge, cluster-scoped, in none), pointing the Forge and the
// ClusterForge at the fake forge.
func applySamples(ctx context.Context, k8s client.Client, forgeURL string) ([]ref, error) {
	samples, err := testenv.Samples()
	if err != nil {
		return nil, err
	}
	var applied []ref
	for _, s := range samples {
		u := s.Object
		namespaced, err := k8s.IsObjectNamespaced(u)
		if err != nil {
			return nil, fmt.Errorf("apply %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		if namespaced {
			u.SetNamespace(namespace)
		}
		if connection(u.GetKind()) {
			if err := unstructured.SetNestedField(u.Object, forgeURL, "spec", "url"); err != nil {
				return nil, err
			}
		}
		if err := k8s.Create(ctx, u); err != nil {
			return nil, fmt.Errorf("apply %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		applied = append(applied, ref{u.GetKind(), u.GetName()})
	}
	return applied, nil
}

// row is one sample's state.
type row struct {
	kind, name, ready, reason, message string
	id                                 int64
	externalName                       string // the forge's name of an object it gives no id
	repos                              string // a set's "inSync/repositories"
	set                                bool
	hooks                              int // a Receiver's hooks
}

func readRow(ctx context.Context, k8s client.Client, r ref) (row, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(forgev1.GroupVersion.String())
	u.SetKind(r.kind)
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: r.name}, u); err != nil {
		return row{}, err
	}
	out := row{kind: r.kind, name: r.name, ready: "Unknown"}
	out.id, _, _ = unstructured.NestedInt64(u.Object, "status", "id")
	out.externalName, _, _ = unstructured.NestedString(u.Object, "status", "externalName")
	inSync, _, _ := unstructured.NestedInt64(u.Object, "status", "inSync")
	repos, isSet, _ := unstructured.NestedInt64(u.Object, "status", "repositories")
	out.set = isSet && strings.HasSuffix(r.kind, "Set")
	out.repos = fmt.Sprintf("%d/%d", inSync, repos)
	hooks, _, _ := unstructured.NestedSlice(u.Object, "status", "hooks")
	out.hooks = len(hooks)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == forgev1.ConditionReady {
			out.ready, _ = m["status"].(string)
			out.reason, _ = m["reason"].(string)
			out.message, _ = m["message"].(string)
		}
	}
	return out, nil
}

// waitReady waits until every ref is Ready, printing progress when it changes.
func waitReady(ctx context.Context, k8s client.Client, refs []ref, timeout time.Duration, progress bool) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		var waiting []row
		reasons := map[string]int{}
		for _, r := range refs {
			rw, err := readRow(ctx, k8s, r)
			if err != nil {
				return err
			}
			// A set Ready before its first listing saw the repositories the
			// demo made covers none yet (status.repositories unset): it
			// is not done until a pass has taken them in.
			noRepos := strings.HasSuffix(rw.kind, "Set") && !rw.set
			switch {
			case rw.ready != "True":
				waiting = append(waiting, rw)
				reasons[cmpOr(rw.reason, "Pending")]++
			case noRepos:
				waiting = append(waiting, rw)
				reasons["NoRepositoriesYet"]++
			}
		}
		if len(waiting) == 0 {
			if progress {
				fmt.Printf("    %d/%d Ready\n", len(refs), len(refs))
			}
			return nil
		}
		var parts []string
		for reason, n := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", reason, n))
		}
		sort.Strings(parts)
		line := fmt.Sprintf("    %d/%d Ready; waiting: %s", len(refs)-len(waiting), len(refs), strings.Join(parts, ", "))
		if progress && line != last {
			fmt.Println(line)
			last = line
		}
		if time.Now().After(deadline) {
			for _, w := range waiting {
				fmt.Printf("    not ready: %s %s: %s: %s\n", w.kind, w.name, w.reason, w.message)
			}
			return fmt.Errorf("%d of %d objects not Ready after %s", len(waiting), len(refs), timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func printTable(ctx context.Context, k8s client.Client, refs []ref) error {
	step("what the cluster holds (namespace %s)", namespace)
	w := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "    KIND\tNAME\tREADY\tREASON\tFORGE ID / NAME")
	for _, r := range refs {
		rw, err := readRow(ctx, k8s, r)
		if err != nil {
			return err
		}
		id := fmt.Sprint(rw.id)
		switch {
		case connection(r.kind):
			id = "-" // a connection, not a forge object
		case rw.set:
			id = "repos:" + rw.repos // objects in many repositories: how many are in sync
		case r.kind == "Receiver":
			id = fmt.Sprintf("hooks:%d", rw.hooks) // one hook per organization
		case rw.id == 0 && rw.externalName != "":
			id = "name:" + rw.externalName // the forge addresses it by name
		}
		fmt.Fprintf(w, "    %s\t%s\t%s\t%s\t%s\n", rw.kind, rw.name, rw.ready, rw.reason, id)
	}
	return w.Flush()
}

func printForge(ctx context.Context, fc forge.Interface) error {
	step("what the forge now holds")
	org, err := fc.GetOrg(ctx, "acme")
	if err != nil {
		return err
	}
	fmt.Printf("    organization %s (id %d): %q, visibility %s\n", org.Name, org.ID, org.FullName, org.Visibility)
	for _, s := range []forge.Scope{{Owner: "acme"}, {Owner: "acme", Repo: "web"}, {Owner: "acme", Repo: "api"}, {Owner: "acme", Repo: "sandbox-play"}} {
		labels, err := fc.ListLabels(ctx, s)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(labels))
		for _, l := range labels {
			n := fmt.Sprintf("%s #%s", l.Name, l.Color)
			if l.Exclusive {
				n += " (exclusive)"
			}
			names = append(names, n)
		}
		slices.Sort(names)
		where := "organization acme"
		if s.Repo != "" {
			where = "repository acme/" + s.Repo
		}
		if len(names) == 0 {
			names = append(names, "none")
		}
		fmt.Printf("    labels of %s: %s\n", where, strings.Join(names, ", "))
	}
	for _, s := range []forge.Scope{forge.OrgScope("acme"), forge.RepoScope("acme", "web")} {
		hooks, err := fc.ListHooks(ctx, s)
		if err != nil {
			return err
		}
		for _, h := range hooks {
			// The hook URL may carry a token (chat webhooks): show its host only.
			fmt.Printf("    hook %d of %s: type %s, %d events, active %t, to %s\n", h.ID, s, h.Type, len(h.Events), h.Active, hostOf(h.Config["url"]))
		}
	}
	projects, err := fc.ListProjects(ctx, forge.RepoScope("acme", "web"), "all")
	if err != nil {
		return err
	}
	for _, p := range projects {
		fmt.Printf("    project %d in acme/web: %q (%s, %s)\n", p.ID, p.Title, p.TemplateType, p.State)
	}
	runners, err := fc.ListRunners(ctx, forge.Scope{Owner: "acme"})
	if err != nil {
		return err
	}
	for _, r := range runners {
		fmt.Printf("    runner %d %s: %s, disabled %t\n", r.ID, r.Name, r.Status, r.Disabled)
	}
	return nil
}

func hostOf(u string) string {
	rest := u[strings.Index(u, "//")+2:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// showDrift recolours an organization label behind the operator's back and
// waits for the operator to set it back.
func showDrift(ctx context.Context, k8s client.Client, fc forge.Interface, o options) error {
	var l forgev1.Label
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "acme-kind-bug"}, &l); err != nil {
		return err
	}
	scope := forge.Scope{Owner: "acme"}
	black := "#000000"
	if _, err := fc.EditLabel(ctx, scope, l.Status.ID, forge.EditLabelOption{Color: &black}); err != nil {
		return err
	}
	fmt.Printf("    label %s (id %d) recoloured to %s through the API; the spec says %s\n", l.Spec.Name, l.Status.ID, black, l.Spec.Color)
	start := time.Now()
	deadline := start.Add(3*o.syncInterval + 30*time.Second)
	for time.Now().Before(deadline) {
		got, err := fc.GetLabel(ctx, scope, l.Status.ID)
		if err != nil {
			return err
		}
		if got.Color == forge.NormalizeColor(l.Spec.Color) {
			fmt.Printf("    corrected after %s: colour is #%s again\n", time.Since(start).Round(100*time.Millisecond), got.Color)
			return printEvents(ctx, k8s, "Label", l.Name, forgev1.ReasonDriftCorrected, "")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("label %s was not corrected within %s", l.Spec.Name, time.Since(start))
}

// printEvents prints the first Event about kind name with reason whose
// message contains text.
func printEvents(ctx context.Context, k8s client.Client, kind, name, reason, text string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var list corev1.EventList
		if err := k8s.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.InvolvedObject.Name == name && e.Reason == reason && strings.Contains(e.Message, text) {
				fmt.Printf("    Event %s %s on %s %s: %s\n", e.Type, e.Reason, kind, name, e.Message)
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("no %s Event on %s %s", reason, kind, name)
}

// printMetrics shows the manager's forge metrics, as Prometheus scrapes them.
func printMetrics(url string) {
	step("metrics (%s)", url)
	resp, err := http.Get(url)
	if err != nil {
		fmt.Println("    metrics unavailable:", err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	requests := 0
	for _, line := range strings.Split(string(body), "\n") {
		switch {
		case strings.HasPrefix(line, "forge_drift_corrections_total{"):
			fmt.Println("    " + line)
		case strings.HasPrefix(line, "forge_requests_total{"):
			requests++
		}
	}
	fmt.Printf("    forge_requests_total: %d series (by forge, method, route template and code)\n", requests)
}

// showRename plays a repository that has a label under an old name, with
// an issue carrying it: the LabelSet lists the label with that old name in
// previousNames, renames it in place, and the issue keeps it.
func showRename(ctx context.Context, k8s client.Client, fc *forge.Client, o options) error {
	scope := forge.RepoScope("acme", "api")
	old, err := fc.CreateLabel(ctx, scope, forge.CreateLabelOption{Name: "help wanted", Color: "008672"})
	if err != nil {
		return err
	}
	issue, err := fc.CreateIssue(ctx, "acme", "api", forge.CreateIssueOption{Title: "Document the API", Labels: []int64{old.ID}})
	if err != nil {
		return err
	}
	fmt.Printf("    someone made label %q (id %d) in acme/api and labelled issue #%d %q with it\n", old.Name, old.ID, issue.Number, issue.Title)
	var set forgev1.LabelSet
	key := client.ObjectKey{Namespace: namespace, Name: "acme-standard-labels"}
	if err := k8s.Get(ctx, key, &set); err != nil {
		return err
	}
	base := set.DeepCopy()
	set.Spec.Labels = append(set.Spec.Labels, forgev1.LabelSetLabel{Name: "contrib/help-wanted", Color: "#008672",
		Description: ptr("Extra attention is wanted"), Exclusive: ptr(true), PreviousNames: []forgev1.LabelName{"help wanted"}})
	if err := k8s.Patch(ctx, &set, client.MergeFrom(base)); err != nil {
		return err
	}
	fmt.Println(`    added contrib/help-wanted to LabelSet acme-standard-labels, with previousNames ["help wanted"]`)
	deadline := time.Now().Add(3*o.syncInterval + 30*time.Second)
	for {
		if err := k8s.Get(ctx, key, &set); err != nil {
			return err
		}
		if set.Status.ObservedGeneration == set.Generation && set.Status.InSync == set.Status.Repositories {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("LabelSet %s did not apply the rename within its deadline", key.Name)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	issues, err := fc.ListIssuesWithLabel(ctx, "acme", "api", "contrib/help-wanted")
	if err != nil {
		return err
	}
	for _, is := range issues {
		for _, l := range is.Labels {
			if l.ID == old.ID && is.Number == issue.Number {
				fmt.Printf("    renamed in place: label id %d is now %q, and issue #%d still carries it\n", l.ID, l.Name, is.Number)
				return printEvents(ctx, k8s, "LabelSet", key.Name, forgev1.ReasonUpdated, "renamed")
			}
		}
	}
	return fmt.Errorf("issue #%d lost its label in the rename", issue.Number)
}

func ptr[T any](v T) *T { return &v }
