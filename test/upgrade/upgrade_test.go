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

// Package upgrade holds the upgrade from the last v1alpha1-only commit of
// main (found in git history) to the working tree, as a user runs it with
// Helm and with kustomize: every object of every kind stays Ready with the
// same forge record and no forge write, the stored versions end at
// v1beta1, and a v1alpha1 client is warned.
package upgrade

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

var (
	group      = forgev1.GroupVersion.Group
	oldVersion = v1alpha1.GroupVersion.String()
	newVersion = forgev1.GroupVersion.String()
)

const (
	// syncInterval is both managers' drift check period: short, so that
	// every object is checked again (and may write) within the window.
	syncInterval = 5 * time.Second
	// readyTimeout bounds the wait for the samples to be Ready under the
	// old manager, and for every object to handle a requested reconcile
	// under the new one, on a loaded two-core machine.
	readyTimeout = 4 * time.Minute
	poll         = 250 * time.Millisecond
)

// TestUpgradeFromV1alpha1 installs the CRDs and the manager of the last
// v1alpha1-only commit of main, applies config/samples of that commit
// (every kind, at v1alpha1) against the fake forge until each is Ready
// with its forge record, then installs the working tree's CRDs and
// manager over them, once with Helm (helm install, helm upgrade) and
// once with kustomize (config/crd server-side applied), each on an API
// server of its own. It builds the old manager from that commit: cold,
// several minutes on a busy two-core machine, hence its timeout (run with
// -timeout 30m, as make test does).
func TestUpgradeFromV1alpha1(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two managers and starts two API servers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	// The test's own clients log nothing worth reading; the managers log
	// to files of their own.
	log.SetLogger(logr.Discard())

	// Both builds first, once for both cases.
	old := release{commit: oldCommit(t), dir: t.TempDir()}
	checkout(t, old.commit, old.dir)
	bins := t.TempDir()
	old.manager = filepath.Join(bins, "old-manager")
	buildManager(ctx, t, old.dir, old.manager)
	cur := release{commit: "the working tree", dir: testenv.RepoRoot(), manager: filepath.Join(bins, "new-manager")}
	buildManager(ctx, t, cur.dir, cur.manager)
	t.Logf("upgrading from %s (the last v1alpha1-only commit) to %s", old.commit, cur.commit)

	for _, inst := range installers {
		t.Run(inst.name, func(t *testing.T) { upgrade(ctx, t, inst, old, cur) })
	}
}

// upgrade runs one case on an API server of its own.
func upgrade(ctx context.Context, t *testing.T, inst installer, old, cur release) {
	g := NewWithT(t)
	c := startCluster(t)
	if err := c.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}}); err != nil {
		t.Fatal(err)
	}

	// The old release, Ready.
	inst.install(t, c, old.dir, false)
	waitServed(ctx, g, c.admin, oldVersion)
	fake, forgeURL, fc := startForge(t)
	createBasics(ctx, t, c.admin)
	oldManager := startManager(t, "old manager", old.manager, inst.managerConfig(t, c))
	refs := applySamples(ctx, t, c.admin, old.dir, forgeURL)
	g.Eventually(func() error {
		return oldManager.ready(ctx, c.admin, oldVersion, []ref{{"Organization", "acme", namespace}})
	}, readyTimeout, poll).Should(Succeed(), "the old manager makes organization acme")
	setScene(ctx, g, fc)
	g.Eventually(func() error {
		return oldManager.ready(ctx, c.admin, oldVersion, refs)
	}, readyTimeout, poll).Should(Succeed(), "every sample Ready under the old manager")
	t.Logf("%d objects of %d kinds Ready under the old manager", len(refs), len(kindsOf(refs)))

	// The new release over it. What the old manager left, read once it
	// stopped: nothing changes it until the new one starts.
	oldManager.stop(t)
	before, waiting, err := readyAll(ctx, c.admin, oldVersion, refs)
	if err := notReady(waiting, err); err != nil {
		t.Fatalf("after the old manager stopped: %v", err)
	}
	forgeBefore := inventory(ctx, t, fc)
	mark := len(fake.Requests())
	inst.install(t, c, cur.dir, true)
	after := c.client(t, nil) // discovers v1beta1
	waitServed(ctx, g, after, newVersion)
	// What the migration has to do: every CRD stores both versions after
	// the install, as the API server stored the objects at v1alpha1.
	for name, crd := range c.crds(ctx, t) {
		if !slices.Contains(crd.Status.StoredVersions, forgev1.GroupVersion.Version) || !slices.Contains(crd.Status.StoredVersions, v1alpha1.GroupVersion.Version) {
			t.Errorf("CRD %s after the install stores %v, want v1alpha1 and v1beta1 before the new manager migrates", name, crd.Status.StoredVersions)
		}
	}
	newManager := startManager(t, "new manager", cur.manager, inst.managerConfig(t, c))

	// Every object handles a reconcile requested after the new manager
	// started: a pass that reads the forge afresh and compares it with the
	// spec, which would write what it found different. Until each object
	// echoes the request, the window is not over.
	requested := fmt.Sprintf("upgrade-%s-%d", inst.name, time.Now().UnixNano())
	for _, r := range refs {
		requestReconcile(ctx, t, after, r, requested)
	}
	g.Eventually(func() error {
		return newManager.ready(ctx, after, newVersion, refs, func(s state) string {
			if s.handled != requested {
				return fmt.Sprintf("reconcile request not handled yet (status.lastHandledReconcileAt %q)", s.handled)
			}
			return ""
		})
	}, readyTimeout, poll).Should(Succeed(), "every object Ready after handling a reconcile under the new manager")
	// Only the new manager has called the forge since the mark: it did
	// read what it compared.
	if reads := len(fake.Requests()) - mark; reads == 0 {
		t.Errorf("the new manager reconciled every object without reading the forge")
	} else {
		t.Logf("the new manager read the forge %d times while every object handled its reconcile", reads)
	}
	mark = expectNoWrites(t, fake, mark, "while every object handled its reconcile under the new manager")
	expectSameRecords(ctx, t, after, refs, before)
	if diff := cmp.Diff(forgeBefore, inventory(ctx, t, fc)); diff != "" {
		t.Errorf("the forge's objects changed across the upgrade (-before +after):\n%s", diff)
	}
	expectDeprecationWarnings(ctx, t, c, refs)

	// The stored versions migrate to v1beta1, by the new manager, which
	// writes every object back meanwhile: still no forge write after it.
	g.Eventually(func() map[string][]string {
		out := map[string][]string{}
		for name, crd := range c.crds(ctx, t) {
			out[name] = crd.Status.StoredVersions
		}
		return out
	}, 3*time.Minute, poll).Should(And(HaveLen(len(kindsOf(refs))), HaveEach(Equal([]string{forgev1.GroupVersion.Version}))),
		"every CRD's status.storedVersions ends at [v1beta1]")
	expectSameRecords(ctx, t, after, refs, before)
	expectNoWrites(t, fake, mark, "since then, until every CRD stored v1beta1 alone")
}

// ready is nil once every object of refs is Ready with its record and
// passes each of also (which says what it waits for, or ""); else an
// error listing what waits, or stopping the wait if the manager exited.
func (p *process) ready(ctx context.Context, k8s client.Client, version string, refs []ref, also ...func(state) string) error {
	if done, err := p.exited(); done {
		return StopTrying(fmt.Sprintf("the %s exited: %v", p.name, err))
	}
	states, waiting, err := readyAll(ctx, k8s, version, refs)
	if err != nil {
		return err
	}
	for _, r := range refs {
		for _, check := range also {
			if why := check(states[r]); why != "" {
				waiting = append(waiting, fmt.Sprintf("%s: %s", r, why))
			}
		}
	}
	return notReady(waiting, nil)
}

// notReady is an error listing what is waiting, or err.
func notReady(waiting []string, err error) error {
	if err != nil {
		return err
	}
	if len(waiting) > 0 {
		return fmt.Errorf("%d not done:\n  %s", len(waiting), strings.Join(waiting, "\n  "))
	}
	return nil
}

// waitServed waits until every kind is served at version, as a user's
// kubectl would find it after the install.
func waitServed(ctx context.Context, g Gomega, k8s client.Client, version string) {
	g.Eventually(func() error {
		for _, kind := range testenv.Kinds() {
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(version)
			list.SetKind(kind + "List")
			if err := k8s.List(ctx, list); err != nil {
				return fmt.Errorf("list %s at %s: %w", kind, version, err)
			}
		}
		return nil
	}, time.Minute, poll).Should(Succeed(), "every kind served at %s", version)
}

// requestReconcile sets the reconcile-requested-at annotation, as
// `kubectl annotate --overwrite` does: a merge patch of the metadata.
func requestReconcile(ctx context.Context, t *testing.T, k8s client.Client, r ref, value string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(newVersion)
	u.SetKind(r.kind)
	u.SetNamespace(r.namespace)
	u.SetName(r.name)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, forgev1.ReconcileRequestedAtAnnotation, value)
	if err := k8s.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		t.Fatalf("annotate %s: %v", r, err)
	}
}

// expectNoWrites fails on any request since mark that could have changed
// the forge (the upgrade reads, and writes nothing), and returns the next
// mark.
func expectNoWrites(t *testing.T, fake *fakeforge.Server, mark int, when string) int {
	t.Helper()
	var writes []string
	reqs := fake.Requests()
	for _, r := range reqs[mark:] {
		if r.IsWrite() {
			writes = append(writes, fmt.Sprintf("%s %s -> %d", r.Method, r.Path, r.Status))
		}
	}
	if len(writes) > 0 {
		t.Errorf("%d forge writes %s, want none:\n  %s", len(writes), when, strings.Join(writes, "\n  "))
	}
	return len(reqs)
}

// expectSameRecords fails on an object that is not Ready or whose forge
// record differs from what the old manager left: a lost status.id, a
// repository set that lost a repository.
func expectSameRecords(ctx context.Context, t *testing.T, k8s client.Client, refs []ref, before map[ref]state) {
	t.Helper()
	for _, r := range refs {
		s, _, err := read(ctx, k8s, newVersion, r)
		if err != nil {
			t.Errorf("read %s at %s: %v", r, newVersion, err)
			continue
		}
		if s.ready != "True" {
			t.Errorf("%s after the upgrade: Ready %s %s: %s", r, s.ready, s.reason, s.message)
		}
		if s.record != before[r].record {
			t.Errorf("%s after the upgrade records %q, before it %q", r, s.record, before[r].record)
		}
	}
}

// expectDeprecationWarnings reads every object at v1alpha1, as a client
// holding v1alpha1 manifests does, and expects the API server's warning
// naming v1beta1 on each GET, and the object Ready with its record.
func expectDeprecationWarnings(ctx context.Context, t *testing.T, c *cluster, refs []ref) {
	t.Helper()
	warn := &testenv.Warnings{}
	alpha := c.client(t, warn)
	for _, r := range refs {
		s, u, err := read(ctx, alpha, oldVersion, r)
		if err != nil {
			t.Errorf("get %s at %s: %v", r, oldVersion, err)
			continue
		}
		if u.GetAPIVersion() != oldVersion {
			t.Errorf("get %s at %s answered %s", r, oldVersion, u.GetAPIVersion())
		}
		want := v1alpha1.DeprecationWarning(r.kind)
		if got := warn.Take(); !slices.Contains(got, want) {
			t.Errorf("get %s at %s: warnings %q, want %q", r, oldVersion, got, want)
		}
		if !strings.Contains(want, newVersion) {
			t.Errorf("the deprecation warning %q does not name %s", want, newVersion)
		}
		if s.ready != "True" || s.record == "" {
			t.Errorf("%s read at %s: Ready %s, record %q", r, oldVersion, s.ready, s.record)
		}
	}
}

// kindsOf is the kinds of refs, each once.
func kindsOf(refs []ref) []string {
	var kinds []string
	for _, r := range refs {
		if !slices.Contains(kinds, r.kind) {
			kinds = append(kinds, r.kind)
		}
	}
	return kinds
}
