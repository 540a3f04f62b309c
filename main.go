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

// Command forge-operator runs the controller manager that keeps objects on a
// Gitea or Forgejo forge equal to forge.forgeops.dev resources.
//
// It registers the controllers of package controllers with a
// controller-runtime manager: the usual flags, metrics, health checks and
// leader election, plus --sync-interval, --max-concurrent-reconciles,
// --reconcile-timeout, --max-reconciles-per-forge, --forge-deny-cidrs (the
// addresses no Forge may reach), --secret-digest-key, --pprof-bind-address
// (Go's profiles, for memory and CPU), --shard (docs/shards.md), and for least
// privilege --watch-namespaces and --metrics-secure. A subcommand (package
// cmd) runs instead of the manager, from outside the cluster:
// `forge-operator export` writes resources for what a forge holds, `plan`
// tells what applying manifests would change, `migrate` stores every object
// at the storage version, and `report` prints the sets' compliance from
// their status (docs/report.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/manager"
	"github.com/forgeops/forge-operator/internal/opsmetrics"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

var scheme = runtime.NewScheme()

// The manager's scheme holds the kinds it reads and writes through its
// client and cache: its own and core/v1 (Secrets, ConfigMaps), and
// coordination/v1, whose Leases leader election records its Events about
// (as controller-runtime registers for a separate leader election config).
// Leader election, Events and the metrics endpoint's TokenReviews and
// SubjectAccessReviews are sent through client-go's typed clients, with
// client-go's own scheme. Registering every built-in API group here as well
// (kubebuilder's scaffold) kept a second copy of them in memory that nothing
// looked up.
func init() {
	utilruntime.Must(corev1.AddToScheme(scheme))
	utilruntime.Must(coordinationv1.AddToScheme(scheme))
	utilruntime.Must(forgev1.AddToScheme(scheme))
}

func main() {
	// `forge-operator export|plan|migrate|report ...` (cmd.Subcommands)
	// runs a subcommand; with none (flags only) the binary is the manager.
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		os.Exit(cmd.Run(context.Background(), os.Args[1], os.Args[2:], os.Stdout, os.Stderr))
	}
	var (
		metricsAddr             string
		probeAddr               string
		receiverAddr            string
		enableLeaderElection    bool
		syncInterval            time.Duration
		maxConcurrentReconciles int
		denyCIDRs               string
		reconcileTimeout        time.Duration
		maxReconcilesPerForge   int
		kubeAPIQPS              float64
		kubeAPIBurst            int
		watchNamespaces         string
		secureMetrics           bool
		metricsCertDir          string
		enableHTTP2             bool
		secretDigestKey         string
		clusterForges           bool
		pprofAddr               string
		shard                   string
	)
	// --kubeconfig is registered by controller-runtime's config package.
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "The address the metrics endpoint binds to, :8443 for HTTPS or :8080 for HTTP (--metrics-secure=false); 0 disables it.")
	flag.BoolVar(&secureMetrics, "metrics-secure", true, "Serve metrics over HTTPS to callers whose bearer token may GET /metrics (checked with TokenReviews and SubjectAccessReviews); false serves plain HTTP to anyone.")
	flag.StringVar(&metricsCertDir, "metrics-cert-dir", "", "A directory with tls.crt and tls.key for the metrics endpoint; without it the certificate is self-signed.")
	flag.BoolVar(&enableHTTP2, "enable-http2", false, "Allow HTTP/2 on the metrics endpoint (off: CVE-2023-44487 and CVE-2023-39325).")
	flag.StringVar(&watchNamespaces, "watch-namespaces", "", "Comma separated namespaces the manager watches; empty means all. With a list the manager needs permissions in those namespaces only.")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0", "The address the pprof endpoints (/debug/pprof/) bind to, such as localhost:6060; 0 disables them. They are unauthenticated: bind them to loopback.")
	flag.StringVar(&receiverAddr, "receiver-bind-address", "", "The address the webhook receiver binds to, such as :9443 (plain HTTP: terminate TLS at an Ingress); empty serves no deliveries and every Receiver is Stalled.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the health and readiness probes bind to.")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false, "Enable leader election, so that only one manager replica is active.")
	flag.DurationVar(&syncInterval, "sync-interval", 10*time.Minute, "How often forge objects are checked for drift when a resource sets no spec.syncInterval.")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 4, "How many resources of one kind are reconciled at once.")
	flag.StringVar(&denyCIDRs, "forge-deny-cidrs", forge.DefaultDenyCIDRs,
		"Comma-separated CIDRs no Forge may connect to, checked on the address dialled (after DNS, on redirects too); empty allows every address.")
	flag.DurationVar(&reconcileTimeout, "reconcile-timeout", 2*time.Minute, "The longest one pass of any controller may take; a forge that does not answer in time gets a ForgeError condition and a retry.")
	flag.Float64Var(&kubeAPIQPS, "kube-api-qps", manager.DefaultKubeAPIQPS, "Requests per second the manager may send to the Kubernetes API server.")
	flag.IntVar(&kubeAPIBurst, "kube-api-burst", manager.DefaultKubeAPIBurst, "Requests the manager may send to the Kubernetes API server at once.")
	flag.IntVar(&maxReconcilesPerForge, "max-reconciles-per-forge", 0, "How many resources of one Forge, per kind, are reconciled at once, and as many for all Forges of one namespace and all Forges at one server; 0 means --max-concurrent-reconciles minus 1 (at least 1), which keeps a worker of every kind free for the other tenants.")
	flag.StringVar(&secretDigestKey, "secret-digest-key", secretdigest.DefaultName,
		"The Secret holding the key of the digests hook status keeps of secret values sent to the forge, as namespace/name, "+
			"or a name in the operator's own namespace (POD_NAMESPACE, or the Pod's service account namespace). Created on first use.")
	flag.BoolVar(&clusterForges, "cluster-forges", true,
		"Serve ClusterForges, whose Secrets are read from the namespace of --secret-digest-key (the operator's own). "+
			"The namespaced install sets it to false: with namespaced Roles the manager cannot watch cluster-scoped objects.")
	flag.StringVar(&shard, "shard", "",
		"Serve the forge servers whose oldest ClusterForge (else, with none, oldest Forge) is labelled forge.forgeops.dev/shard=<shard>, and cache only their resources; "+
			"empty serves the unlabelled ones (the default manager, which must always run). A label value. See docs/shards.md.")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	if syncInterval <= 0 || maxConcurrentReconciles < 1 || reconcileTimeout <= 0 || maxReconcilesPerForge < 0 {
		log.Info("invalid flags: --sync-interval and --reconcile-timeout must be positive, --max-concurrent-reconciles at least 1, --max-reconciles-per-forge not negative")
		os.Exit(2)
	}

	namespaces, err := manager.ParseNamespaces(watchNamespaces)
	if err != nil {
		log.Info("invalid flags: " + err.Error())
		os.Exit(2)
	}
	if err := manager.ValidShard(shard); err != nil {
		log.Info("invalid flags: " + err.Error())
		os.Exit(2)
	}
	if shard != "" && !enableLeaderElection {
		// The handover of servers between shards reads whether a shard
		// runs from its leader-election Lease (docs/shards.md).
		log.Info("invalid flags: --shard needs --leader-elect")
		os.Exit(2)
	}
	deny, err := forge.ParseCIDRs(denyCIDRs)
	if err != nil {
		log.Info("invalid flags: --forge-deny-cidrs: " + err.Error())
		os.Exit(2)
	}

	digestKey, err := secretdigest.ParseRef(secretDigestKey)
	if err != nil {
		log.Error(err, "invalid flags")
		os.Exit(2)
	}
	if clusterForges && len(namespaces) > 0 && !slices.Contains(namespaces, digestKey.Namespace) {
		// ClusterForges' Secrets are in the operator's namespace: their
		// watch must see it.
		namespaces = append(namespaces, digestKey.Namespace)
	}

	if kubeAPIQPS <= 0 || kubeAPIBurst < 1 {
		log.Info("invalid flags: --kube-api-qps must be positive and --kube-api-burst at least 1")
		os.Exit(2)
	}
	// Before the manager is made: its metrics server serves this registry.
	// The resources' metrics read the manager's cache once Setup has it.
	resourceMetrics := opsmetrics.New()
	ctrlmetrics.Registry.MustRegister(resourceMetrics)
	if ctrlmetrics.Registry, err = manager.ShardMetrics(ctrlmetrics.Registry, shard, opsmetrics.Collectors(resourceMetrics)...); err != nil {
		log.Error(err, "unable to label the metrics with the shard")
		os.Exit(1)
	}
	restCfg := ctrl.GetConfigOrDie()
	restCfg.QPS, restCfg.Burst = float32(kubeAPIQPS), kubeAPIBurst
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  manager.CacheOptions(namespaces, shard, digestKey.Namespace),
		Metrics:                manager.MetricsOptions(metricsAddr, secureMetrics, metricsCertDir, enableHTTP2),
		HealthProbeBindAddress: probeAddr,
		PprofBindAddress:       pprofAddr,
		LeaderElection:         enableLeaderElection,
		LeaderElectionID:       shards.LeaderElectionID(shard),
		// The operator's namespace, where the shards' handover looks for
		// every shard's leader-election Lease (docs/shards.md).
		LeaderElectionNamespace: digestKey.Namespace,
		// Hand leadership over at once on a clean stop (a rolling update),
		// instead of after the lease expires: main exits right after Start.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		log.Error(err, "unable to create the manager")
		os.Exit(1)
	}
	ctx := ctrl.SetupSignalHandler()
	if err := controllers.Setup(ctx, mgr, controllers.Options{
		NoClusterForges:         !clusterForges,
		SyncInterval:            syncInterval,
		MaxConcurrentReconciles: maxConcurrentReconciles,
		DenyCIDRs:               deny,
		ReconcileTimeout:        reconcileTimeout,
		MaxReconcilesPerForge:   maxReconcilesPerForge,
		SecretDigestKey:         digestKey,
		Shard:                   shard,
		// The cluster-wide default manager moves what an earlier release
		// stored at v1alpha1 to v1beta1 (docs/api.md).
		MigrateStorage: len(namespaces) == 0 && shard == "",
		Receiver:       receiver.New(receiverAddr),
		Metrics:        resourceMetrics,
	}); err != nil {
		log.Error(err, "unable to set up the controllers")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "unable to set up the health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "unable to set up the ready check")
		os.Exit(1)
	}

	log.Info("starting manager", "syncInterval", syncInterval.String(), "maxConcurrentReconciles", maxConcurrentReconciles,
		"forgeDenyCIDRs", fmt.Sprint(deny),
		"reconcileTimeout", reconcileTimeout.String(), "watchNamespaces", namespaces, "secureMetrics", secureMetrics,
		"secretDigestKey", digestKey.String(), "shard", shard, "receiverBindAddress", receiverAddr)
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "manager stopped with an error")
		os.Exit(1)
	}
}
