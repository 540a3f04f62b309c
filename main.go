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
// --forge-deny-cidrs (the addresses no Forge may reach).
// `forge-operator export ...` (package cli) works on a forge from outside
// the cluster instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
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
	"github.com/forgeops/forge-operator/internal/cli"
	"github.com/forgeops/forge-operator/internal/forge"
)

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(forgev1.AddToScheme(scheme))
}

func main() {
	// `forge-operator export ...` works on a forge from outside the cluster;
	// with no subcommand (flags only) the binary is the manager.
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		os.Exit(cli.Run(context.Background(), os.Args[1], os.Args[2:], os.Stdout, os.Stderr))
	}
	var (
		metricsAddr             string
		probeAddr               string
		enableLeaderElection    bool
		syncInterval            time.Duration
		maxConcurrentReconciles int
		denyCIDRs               string
	)
	// --kubeconfig is registered by controller-runtime's config package.
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "The address the metrics endpoint binds to; 0 disables it.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the health and readiness probes bind to.")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false, "Enable leader election, so that only one manager replica is active.")
	flag.DurationVar(&syncInterval, "sync-interval", 10*time.Minute, "How often forge objects are checked for drift when a resource sets no spec.syncInterval.")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 2, "How many resources of one kind are reconciled at once.")
	flag.StringVar(&denyCIDRs, "forge-deny-cidrs", forge.DefaultDenyCIDRs,
		"Comma-separated CIDRs no Forge may connect to, checked on the address dialled (after DNS, on redirects too); empty allows every address.")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	if syncInterval <= 0 || maxConcurrentReconciles < 1 {
		log.Info("invalid flags: --sync-interval must be positive and --max-concurrent-reconciles at least 1")
		os.Exit(2)
	}
	deny, err := forge.ParseCIDRs(denyCIDRs)
	if err != nil {
		log.Info("invalid flags: --forge-deny-cidrs: " + err.Error())
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
		DenyCIDRs:               deny,
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
		"forgeDenyCIDRs", fmt.Sprint(deny))
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "manager stopped with an error")
		os.Exit(1)
	}
}
