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

// Package controllers holds one reconciler per kind. Each managed kind is a
// screen of kind-specific code (how to observe, create, update and delete
// its forge object) over the shared loop in internal/reconciler.
//
// A kind lives in <kind>_controller.go (a large one split into
// <kind>_<part>.go files beside it); registry.go is the one list of kinds
// the manager, export, plan and report read, one entry per kind with its
// controller, planner and export writer, and this file the options every
// controller shares. The subcommands (package cmd, above this one) read
// the registry through Exporters, Plan and SetLists. What kinds share lives under controllers/internal,
// which imports nothing of this package: a repository's child declared
// once (child), the base and references of every kind (kinds), the sets
// over repositories (sets), hooks, a branch's files, plan's machinery
// (planning), comparisons, Secrets, rounds and wording.
package controllers

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/opsmetrics"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/fairness"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
	"github.com/forgeops/forge-operator/internal/secretdigest"
	"github.com/forgeops/forge-operator/internal/storageversion"
)

// Options configure every controller.
type Options struct {
	// SyncInterval is the drift check period when a resource sets no spec.syncInterval.
	SyncInterval time.Duration
	// MaxConcurrentReconciles per kind.
	MaxConcurrentReconciles int
	// BaseBackoff and MaxBackoff bound retry delays (defaults 1s and 5m).
	BaseBackoff, MaxBackoff time.Duration
	// RequestTimeout overrides every Forge's request timeout when set (tests).
	RequestTimeout time.Duration
	// DenyCIDRs are addresses the manager never connects to for any Forge.
	DenyCIDRs []netip.Prefix
	// ReconcileTimeout bounds every pass of every controller (default 2m).
	ReconcileTimeout time.Duration
	// MaxReconcilesPerForge caps the passes of one Forge's resources running
	// at once in each kind's controller (default MaxConcurrentReconciles-1,
	// at least 1),
	// so that one slow Forge leaves workers to the others.
	MaxReconcilesPerForge int
	// SecretDigestKey names the Secret (in the operator's own namespace) that
	// holds the key of the digests hook status keeps of the secret values
	// sent; created on first use. Required.
	SecretDigestKey types.NamespacedName
	// NoClusterForges leaves ClusterForges unserved (--cluster-forges=false):
	// the namespaced install cannot watch cluster-scoped objects. Otherwise
	// their Secrets are read from SecretDigestKey's namespace, the
	// operator's own.
	NoClusterForges bool
	// Shard is the manager's --shard (docs/shards.md): it serves the forge
	// servers of that shard only, and says so in the forge client's
	// User-Agent; "" is the default manager.
	Shard string
	// ShardRecheck is how often a manager awaiting a server from another
	// shard looks whether that shard still runs (default 15 s).
	ShardRecheck time.Duration
	// MigrateStorage runs the storage version migration once elected
	// (internal/storageversion): the cluster-wide default manager does; a
	// namespaced or sharded one does not (it may not touch CRDs, or is not
	// the one for it), and `forge-operator migrate` does it there.
	MigrateStorage bool
	// Receiver is the manager's webhook endpoint (--receiver-bind-address):
	// Receivers register with it and the events it accepts pass over the
	// resources they concern at once. Nil, or one without an address,
	// serves nothing, and every Receiver is Stalled saying so.
	Receiver *receiver.Endpoint
	// Metrics, when set, is the collector of the resources' compliance and
	// health metrics (registered by main before the manager existed): it
	// reads the manager's cache while the manager leads.
	Metrics *opsmetrics.Collector
}

// RBAC the manager needs, and nothing more: its own kinds, their status and
// finalizers (beside each kind's controller, in its *_controller.go),
// Secrets to read credentials, and Events. Leader election has its own
// namespaced Role in config/rbac.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//
// Creating the secret digest key Secret needs "create" on Secrets in the
// operator's own namespace only: config/rbac/secret_digest_key_role.yaml.

// storageMigrator adds the storage version migration to mgr, with a
// client of its own: it reads CRDs and pages of every kind once, which the
// manager's cache should not keep.
func storageMigrator(mgr ctrl.Manager) (*storageversion.Migrator, error) {
	scheme, err := storageversion.Scheme()
	if err != nil {
		return nil, err
	}
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: scheme, HTTPClient: mgr.GetHTTPClient()})
	if err != nil {
		return nil, fmt.Errorf("storage version migration client: %w", err)
	}
	m := &storageversion.Migrator{Client: c, Log: mgr.GetLogger().WithName("storage-version")}
	if err := mgr.Add(m); err != nil {
		return nil, fmt.Errorf("add the storage version migration: %w", err)
	}
	return m, nil
}

// Setup registers every controller with the manager.
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	if opts.SecretDigestKey.Namespace == "" || opts.SecretDigestKey.Name == "" {
		return fmt.Errorf("the secret digest key Secret needs a namespace and a name, got %q", opts.SecretDigestKey)
	}
	// Read uncached: the manager caches Secrets' metadata only.
	digests := secretdigest.New(mgr.GetAPIReader(), mgr.GetClient(), opts.SecretDigestKey)
	pool := &connection.Pool{Reader: mgr.GetAPIReader(), Metadata: mgr.GetClient(), Timeout: opts.RequestTimeout, DenyCIDRs: opts.DenyCIDRs, UserAgent: forge.UserAgent(opts.Shard)}
	if !opts.NoClusterForges {
		pool.ClusterSecrets = opts.SecretDigestKey.Namespace
	}
	kinds := registry(digests, opts.Receiver)
	if opts.Metrics != nil {
		if err := mgr.Add(opts.Metrics.WhileLeader(mgr.GetCache(), !opts.NoClusterForges)); err != nil {
			return err
		}
	}
	fair := fairness.NewFairness(cmp.Or(opts.MaxReconcilesPerForge, fairness.DefaultForgeLimit(opts.MaxConcurrentReconciles)))
	lists := make([]func() client.ObjectList, 0, len(kinds))
	for _, k := range kinds {
		lists = append(lists, k.list)
	}
	// The handover of servers between shards, in the operator's
	// namespace (docs/shards.md): the manager's mover runs once elected.
	shards := shards.New(shards.Options{Shard: opts.Shard, Namespace: opts.SecretDigestKey.Namespace,
		Lists: lists, Fairness: fair, Recheck: opts.ShardRecheck}, mgr.GetClient(), mgr.GetAPIReader(), mgr.GetClient(), mgr.GetEventRecorder("forge-operator"))
	if err := mgr.Add(shards); err != nil {
		return fmt.Errorf("add the shards' mover: %w", err)
	}
	// Defaulted here, once, for the Forge controller and every kind alike.
	ropts := reconciler.Options{
		SyncInterval:            opts.SyncInterval,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
		BaseBackoff:             opts.BaseBackoff,
		MaxBackoff:              opts.MaxBackoff,
		ReconcileTimeout:        opts.ReconcileTimeout,
		Fairness:                fair,
		Shards:                  shards,
	}.WithDefaults()
	if opts.Receiver.Served() {
		ropts.Wakes = opts.Receiver.Wakes()
		if err := mgr.Add(opts.Receiver); err != nil {
			return fmt.Errorf("add the receiver endpoint: %w", err)
		}
	}
	if err := reconciler.SetupForgeIndexes(ctx, mgr, pool); err != nil {
		return fmt.Errorf("index Forges: %w", err)
	}
	var versions *storageversion.Migrator
	if opts.MigrateStorage {
		var err error
		if versions, err = storageMigrator(mgr); err != nil {
			return err
		}
	}
	if err := (&ForgeReconciler{connectionChecks: connectionChecks{Pool: pool, Options: ropts}, versions: versions}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the Forge controller: %w", err)
	}
	for _, k := range kinds {
		if err := k.setup(ctx, mgr, pool, ropts); err != nil {
			return err
		}
	}
	if !pool.ServesClusterForges() {
		return nil
	}
	if err := (&ClusterForgeReconciler{connectionChecks: connectionChecks{Pool: pool, Options: ropts}, kinds: kinds}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the ClusterForge controller: %w", err)
	}
	return nil
}
