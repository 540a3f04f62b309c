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
// leader election, plus --sync-interval, --max-concurrent-reconciles and
// --secret-digest-key.
package main

import (
	"flag"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(forgev1.AddToScheme(scheme))
}

func main() {
	var (
		metricsAddr             string
		probeAddr               string
		enableLeaderElection    bool
		syncInterval            time.Duration
		maxConcurrentReconciles int
		secretDigestKey         string
	)
	// --kubeconfig is registered by controller-runtime's config package.
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "The address the metrics endpoint binds to; 0 disables it.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the health and readiness probes bind to.")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false, "Enable leader election, so that only one manager replica is active.")
	flag.DurationVar(&syncInterval, "sync-interval", 10*time.Minute, "How often forge objects are checked for drift when a resource sets no spec.syncInterval.")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 2, "How many resources of one kind are reconciled at once.")
	flag.StringVar(&secretDigestKey, "secret-digest-key", secretdigest.DefaultName,
		"The Secret holding the key of the digests hook status keeps of secret values sent to the forge, as namespace/name, "+
			"or a name in the operator's own namespace (POD_NAMESPACE, or the Pod's service account namespace). Created on first use.")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	if syncInterval <= 0 || maxConcurrentReconciles < 1 {
		log.Info("invalid flags: --sync-interval must be positive and --max-concurrent-reconciles at least 1")
		os.Exit(2)
	}

	digestKey, err := secretdigest.ParseRef(secretDigestKey)
	if err != nil {
		log.Error(err, "invalid flags")
		os.Exit(2)
	}

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         enableLeaderElection,
		LeaderElectionID:       "forge-operator.forge.forgeops.dev",
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
		SyncInterval:            syncInterval,
		MaxConcurrentReconciles: maxConcurrentReconciles,
		SecretDigestKey:         digestKey,
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
		"secretDigestKey", digestKey.String())
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "manager stopped with an error")
		os.Exit(1)
	}
}
