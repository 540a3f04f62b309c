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

// Package manager turns the manager's least-privilege flags
// (--watch-namespaces, --metrics-secure) into controller-runtime options,
// shared by main and the install tests that run the manager as its
// ServiceAccount.
package manager

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// The manager's own Kubernetes client limits (--kube-api-qps,
// --kube-api-burst). A create costs two Kubernetes writes and an Event, so
// a Forge at qps 100 asks about 300 requests a second of the API server:
// at 100/200 W1 at qps 100 took 18.8 s against the forge's floor of
// 11.6 s, at 200/400 12.6 s. client-go's defaults (5 qps, 10 burst;
// controller-runtime raises them to 20 and 30) hold a first sync back
// far more. The API server's priority and fairness protects it and its
// other clients from a client this fast (docs/performance.md says how). The
// benchmarks run the manager with these.
const (
	DefaultKubeAPIQPS   = 200
	DefaultKubeAPIBurst = 400
)

// ParseNamespaces reads --watch-namespaces: a comma separated list of
// namespace names; empty means every namespace.
func ParseNamespaces(list string) ([]string, error) {
	var out []string
	for ns := range strings.SplitSeq(list, ",") {
		ns = strings.TrimSpace(ns)
		if ns == "" {
			continue
		}
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, fmt.Errorf("--watch-namespaces: %q is not a namespace name: %s", ns, strings.Join(errs, "; "))
		}
		if !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out, nil
}

// CacheOptions limits the manager's caches, and so every watch and every
// cached read, to namespaces; none means the whole cluster. With a list,
// the manager needs permissions in those namespaces only (a RoleBinding in
// each), not cluster-wide.
//
// Cached objects are kept without their managedFields: the operator never
// reads them, and with server-side apply (kubectl apply --server-side, Argo
// CD) they are often the largest part of a small resource. Dropping them
// is what kubebuilder's cache documentation suggests for memory.
//
// The managed kinds are cached by shard (ShardSelector): a manager holds
// only the resources of the forge servers its shard serves. Forges and
// ClusterForges are cached whole (every shard must see a relabel to know
// a server moves), Secrets and ConfigMaps as they are (the user's,
// unlabelled, shared between servers). Leases only in the operator's
// namespace leases (none without one): the handover's per-server Leases
// and the shards' leader-election ones, a few small objects.
func CacheOptions(namespaces []string, shard, leases string) cache.Options {
	opts := cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	sel := shards.ShardSelector(shard)
	opts.ByObject = map[client.Object]cache.ByObject{}
	for _, obj := range managedObjects() {
		opts.ByObject[obj] = cache.ByObject{Label: sel}
	}
	if leases != "" {
		opts.ByObject[&coordinationv1.Lease{}] = cache.ByObject{Namespaces: map[string]cache.Config{leases: {}}}
	}
	if len(namespaces) == 0 {
		return opts
	}
	opts.DefaultNamespaces = make(map[string]cache.Config, len(namespaces))
	for _, ns := range namespaces {
		opts.DefaultNamespaces[ns] = cache.Config{}
	}
	return opts
}

// MetricsOptions serves metrics on addr ("0" disables them). Secure, as
// kubebuilder scaffolds it: HTTPS (a self-signed certificate unless one is
// mounted in certDir) and every request authenticated with a TokenReview and
// authorized with a SubjectAccessReview (get on the non-resource URL
// /metrics, which the metrics-reader ClusterRole grants). Not secure: plain
// HTTP, for a manager on loopback. HTTP/2 stays off unless enableHTTP2: its
// stream handling had denial-of-service flaws (CVE-2023-44487,
// CVE-2023-39325) that this endpoint does not need to be exposed to.
func MetricsOptions(addr string, secure bool, certDir string, enableHTTP2 bool) metricsserver.Options {
	opts := metricsserver.Options{BindAddress: addr, SecureServing: secure}
	if !secure {
		return opts
	}
	opts.FilterProvider = metricsAuth
	opts.CertDir = certDir
	if !enableHTTP2 {
		opts.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	return opts
}
