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

// Package opsmetrics serves the compliance and health metrics of the
// resources themselves (DESIGN "Operations kit"): per set, its repositories
// selected, in sync, yielded, failing and its pending removals; per kind
// and Ready status and reason, how many resources; per connection, Ready.
// They are read from the manager's cache when scraped, so that no series
// outlives its resource and nothing is kept between scrapes. Labels carry
// kinds, object names, an organization a set selects and condition
// reasons only: never a secret, never a value a tenant writes elsewhere.
package opsmetrics

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// scrapeTimeout bounds the cache reads of one scrape: a list of a kind the
// cache has no informer for yet waits for one to sync.
const scrapeTimeout = 10 * time.Second

var setLabels = []string{"kind", "namespace", "name", "organization"}

var (
	setRepositories = prometheus.NewDesc("forge_set_repositories",
		"Repositories a set selected in its last pass (status.repositories), archived ones excluded.", setLabels, nil)
	setInSync = prometheus.NewDesc("forge_set_repositories_in_sync",
		"Repositories of a set that match its spec, with no failure and nothing left to another resource (status.inSync).", setLabels, nil)
	setFailing = prometheus.NewDesc("forge_set_repositories_failing",
		"Repositories a set could not be applied to (status.failing).", setLabels, nil)
	setYielded = prometheus.NewDesc("forge_set_repositories_yielded",
		"Repositories where a set leaves some of what it sets to another resource holding it there (status.yielded.count).", setLabels, nil)
	setPendingRemovals = prometheus.NewDesc("forge_set_pending_removals",
		"Removals a set with removals Report planned and did not make (status.pendingRemovals.count).", setLabels, nil)
	resources = prometheus.NewDesc("forge_resources",
		"Resources of the operator's kinds, by kind and the status (True, False, Unknown) and reason of their Ready condition; Unknown with no reason before the first pass.",
		[]string{"kind", "ready", "reason"}, nil)
	resourcesStalled = prometheus.NewDesc("forge_resources_stalled",
		"Resources whose Stalled condition is True (they wait for a change of their spec or the forge), by kind and reason.",
		[]string{"kind", "reason"}, nil)
	connectionReady = prometheus.NewDesc("forge_connection_ready",
		"1 while a Forge or ClusterForge is Ready (the resources naming it wait while it is not), else 0; namespace is empty for a ClusterForge.",
		[]string{"kind", "namespace", "name"}, nil)
)

// Collector collects the metrics of the resources from a reader, the
// manager's cache, once given one (Read): main registers it before the
// manager exists, since the metrics server serves the registry made then.
type Collector struct {
	from  atomic.Pointer[source]
	kinds []kind
}

type source struct {
	reader        client.Reader
	clusterForges bool
}

// kind is one of the API's kinds, as a list to read.
type kind struct {
	name string
	list func() client.ObjectList
}

var _ prometheus.Collector = &Collector{}

// New makes a Collector of every kind of the API; it collects nothing
// until Read gives it a reader.
func New() *Collector {
	s := runtime.NewScheme()
	if err := forgev1.AddToScheme(s); err != nil {
		panic(err)
	}
	c := &Collector{}
	types := s.KnownTypes(forgev1.GroupVersion)
	for _, name := range slices.Sorted(maps.Keys(types)) {
		item, isList := strings.CutSuffix(name, "List")
		if !isList || types[item] == nil {
			continue
		}
		obj, err := s.New(forgev1.GroupVersion.WithKind(item))
		if err != nil {
			continue
		}
		if _, ok := obj.(forgev1.ConditionsAccessor); !ok {
			continue
		}
		gvk := forgev1.GroupVersion.WithKind(name)
		c.kinds = append(c.kinds, kind{name: item, list: func() client.ObjectList {
			l, _ := s.New(gvk)
			return l.(client.ObjectList)
		}})
	}
	return c
}

// Read makes c collect from r, the manager's cache; ClusterForges are
// read only when clusterForges (a namespaced install cannot list them).
func (c *Collector) Read(r client.Reader, clusterForges bool) {
	c.from.Store(&source{reader: r, clusterForges: clusterForges})
}

// WhileLeader is a runnable of the manager that makes c collect from r
// (Read) while the manager leads, and nothing once it stops. Every replica
// has a cache, but only the leader's reconciles: were every replica to
// serve the resources' series, each Deployment replica would count every
// set and Forge again, and its alerts fire once per replica.
func (c *Collector) WhileLeader(r client.Reader, clusterForges bool) manager.Runnable {
	return leaderRunnable(func(ctx context.Context) error {
		c.Read(r, clusterForges)
		<-ctx.Done()
		c.from.Store(nil)
		return nil
	})
}

// leaderRunnable is a runnable the manager starts only once elected.
type leaderRunnable func(context.Context) error

func (f leaderRunnable) Start(ctx context.Context) error { return f(ctx) }

// NeedLeaderElection is true: the manager starts it once elected (at once
// without leader election).
func (leaderRunnable) NeedLeaderElection() bool { return true }

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{setRepositories, setInSync, setFailing, setYielded, setPendingRemovals,
		resources, resourcesStalled, connectionReady} {
		ch <- d
	}
}

// readyKey is one series of forge_resources.
type readyKey struct{ kind, ready, reason string }

// stalledKey is one series of forge_resources_stalled.
type stalledKey struct{ kind, reason string }

// Collect lists every kind from the reader and sends the metrics. A kind
// that cannot be listed is logged and left out, rather than failing the
// whole scrape (the metrics server answers a scrape error with a 500).
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	src := c.from.Load()
	if src == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	ready := map[readyKey]int{}
	stalled := map[stalledKey]int{}
	for _, k := range c.kinds {
		if k.name == "ClusterForge" && !src.clusterForges {
			continue
		}
		items, err := list(ctx, src.reader, k)
		if err != nil {
			if !errors.As(err, new(*cache.ErrCacheNotStarted)) {
				logf.Log.WithName("opsmetrics").Error(err, "cannot list the resources of a kind for the metrics", "kind", k.name)
			}
			continue
		}
		for _, obj := range items {
			conds := obj.(forgev1.ConditionsAccessor).GetConditions()
			r := readyKey{kind: k.name, ready: string(metav1.ConditionUnknown)}
			if cond := meta.FindStatusCondition(conds, forgev1.ConditionReady); cond != nil {
				r.ready, r.reason = string(cond.Status), cond.Reason
			}
			ready[r]++
			if cond := meta.FindStatusCondition(conds, forgev1.ConditionStalled); cond != nil && cond.Status == metav1.ConditionTrue {
				stalled[stalledKey{kind: k.name, reason: cond.Reason}]++
			}
			collectOne(ch, k.name, obj, r.ready == string(metav1.ConditionTrue))
		}
	}
	for r, n := range ready {
		ch <- prometheus.MustNewConstMetric(resources, prometheus.GaugeValue, float64(n), r.kind, r.ready, r.reason)
	}
	for s, n := range stalled {
		ch <- prometheus.MustNewConstMetric(resourcesStalled, prometheus.GaugeValue, float64(n), s.kind, s.reason)
	}
}

// list reads every resource of k, without copies: they are only read.
func list(ctx context.Context, r client.Reader, k kind) ([]runtime.Object, error) {
	l := k.list()
	if err := r.List(ctx, l, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	return meta.ExtractList(l)
}

// collectOne sends the series of one resource of kind: a set's
// repositories, a connection's Ready.
func collectOne(ch chan<- prometheus.Metric, kind string, obj runtime.Object, isReady bool) {
	o := obj.(client.Object)
	switch obj.(type) {
	case *forgev1.Forge, *forgev1.ClusterForge:
		ch <- prometheus.MustNewConstMetric(connectionReady, prometheus.GaugeValue, boolValue(isReady), kind, o.GetNamespace(), o.GetName())
		return
	}
	set, ok := obj.(interface{ GetSetStatus() *forgev1.SetStatus })
	if !ok {
		return
	}
	st := set.GetSetStatus()
	labels := []string{kind, o.GetNamespace(), o.GetName(), organization(obj)}
	var yielded, pending int32
	if st.Yielded != nil {
		yielded = st.Yielded.Count
	}
	if st.PendingRemovals != nil {
		pending = st.PendingRemovals.Count
	}
	for d, v := range map[*prometheus.Desc]int32{setRepositories: st.Repositories, setInSync: st.InSync,
		setFailing: st.Failing, setYielded: yielded, setPendingRemovals: pending} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
}

// organization is the organization a set selects, "" for one that names
// its repositories.
func organization(obj runtime.Object) string {
	var sel forgev1.RepositorySelector
	switch s := obj.(type) {
	case *forgev1.RepositorySet:
		sel = s.Spec.Repositories
	case *forgev1.FileSet:
		sel = s.Spec.Repositories
	case *forgev1.LabelSet:
		sel = s.Spec.Repositories
	case *forgev1.BranchProtectionSet:
		sel = s.Spec.Repositories
	}
	if sel.Organization == nil {
		return ""
	}
	return string(*sel.Organization)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
