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

// Package storageversion moves what the API server keeps of the operator's
// kinds to the stored version, v1beta1, after an upgrade from a release
// that stored v1alpha1: every object is written back unchanged (the API
// server stores what it writes at the CRD's storage version; a write of the
// same object is no change to spec, so no generation, no forge write), and
// then each CRD's status.storedVersions is set to [v1beta1], which is what
// lets a later release stop serving v1alpha1 (docs/api.md). The manager
// does it by itself when it runs cluster-wide (Migrator, a leader-elected
// runnable); `forge-operator migrate` does it with an administrator's
// kubeconfig for a namespaced install, which may not list every namespace
// nor touch a CRD.
//
// Guards, as for every removal: storedVersions loses a version only after
// every object of that CRD was listed (all pages) and written back, or was
// written by someone else meanwhile (a conflict: that write stored
// v1beta1) or deleted; after any other failure the CRD is left as it was,
// and the next run starts again.
package storageversion

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/api/v1beta1"
)

// The manager's read of the operator's CRDs and its write of their
// status.storedVersions (docs/api.md, "Upgrades"); the write is limited to
// the operator's own CRDs by name, and test/deploy holds this list to
// config/crd/bases.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,verbs=update;patch,resourceNames=actionssecrets.forge.forgeops.dev;actionsvariables.forge.forgeops.dev;branchprotections.forge.forgeops.dev;branchprotectionsets.forge.forgeops.dev;clusterforges.forge.forgeops.dev;deploykeys.forge.forgeops.dev;filesets.forge.forgeops.dev;forges.forge.forgeops.dev;labels.forge.forgeops.dev;labelsets.forge.forgeops.dev;milestones.forge.forgeops.dev;organizations.forge.forgeops.dev;orghooks.forge.forgeops.dev;projects.forge.forgeops.dev;pushmirrors.forge.forgeops.dev;receivers.forge.forgeops.dev;repohooks.forge.forgeops.dev;repositories.forge.forgeops.dev;repositoryfiles.forge.forgeops.dev;repositorysets.forge.forgeops.dev;runnerregistrationtokens.forge.forgeops.dev;runnersettings.forge.forgeops.dev;tagprotections.forge.forgeops.dev;teams.forge.forgeops.dev;users.forge.forgeops.dev

// Stored is the version every object ends at.
var Stored = v1beta1.GroupVersion.Version

// pageSize bounds one list of a kind's objects.
const pageSize = 250

// Scheme is what a Migrator's client needs: CRDs (the objects themselves
// are read and written unstructured).
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	return s, apiextensionsv1.AddToScheme(s)
}

// CRD is one CRD's outcome.
type CRD struct {
	// Name is the CRD's, e.g. labels.forge.forgeops.dev.
	Name string
	// Kind is its kind.
	Kind string
	// Before is status.storedVersions as found.
	Before []string
	// Rewritten counts the objects written back.
	Rewritten int
	// Done says it stores v1beta1 alone now.
	Done bool
}

// Migrated says whether the CRD stored anything but v1beta1 before.
func (c CRD) Migrated() bool { return !slices.Equal(c.Before, []string{Stored}) }

// Migrate writes back every object of each of the operator's CRDs whose
// storedVersions holds more than v1beta1, then sets it to [v1beta1]. It
// returns every CRD of the group it saw; an error names the first CRD it
// could not finish (the others are still done).
func Migrate(ctx context.Context, c client.Client) ([]CRD, error) {
	var crds apiextensionsv1.CustomResourceDefinitionList
	if err := c.List(ctx, &crds); err != nil {
		return nil, fmt.Errorf("list the CRDs: %w", err)
	}
	var out []CRD
	var errs []error
	for i := range crds.Items {
		crd := &crds.Items[i]
		if crd.Spec.Group != v1beta1.GroupVersion.Group {
			continue
		}
		r := CRD{Name: crd.Name, Kind: crd.Spec.Names.Kind, Before: slices.Clone(crd.Status.StoredVersions)}
		r.Done = !r.Migrated()
		if !r.Done {
			n, err := migrate(ctx, c, crd)
			r.Rewritten, r.Done = n, err == nil
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", crd.Name, err))
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errors.Join(errs...)
}

// migrate writes back every object of crd, then drops every other version
// from its storedVersions.
func migrate(ctx context.Context, c client.Client, crd *apiextensionsv1.CustomResourceDefinition) (int, error) {
	if !servesStored(crd) {
		return 0, fmt.Errorf("stores %s, not %s: install this release's CRDs first", storageOf(crd), Stored)
	}
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(v1beta1.GroupVersion.String())
	list.SetKind(crd.Spec.Names.ListKind)
	n := 0
	for cont := ""; ; {
		if err := c.List(ctx, list, client.Limit(pageSize), client.Continue(cont)); err != nil {
			return n, fmt.Errorf("list: %w", err)
		}
		for i := range list.Items {
			// The object as read, resourceVersion included: a conflict
			// means it was written since, and so stored at v1beta1.
			err := c.Update(ctx, &list.Items[i])
			if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
				return n, fmt.Errorf("write back %s/%s: %w", list.Items[i].GetNamespace(), list.Items[i].GetName(), err)
			}
			if err == nil {
				n++
			}
		}
		if cont = list.GetContinue(); cont == "" {
			break
		}
	}
	crd.Status.StoredVersions = []string{Stored}
	if err := c.Status().Update(ctx, crd); err != nil {
		return n, fmt.Errorf("set status.storedVersions: %w", err)
	}
	return n, nil
}

func servesStored(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return storageOf(crd) == Stored
}

func storageOf(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// Deprecated lists the CRDs that still store a version other than
// v1beta1, as "kind (versions)", for a condition's message.
func Deprecated(crds []CRD) []string {
	var out []string
	for _, c := range crds {
		if c.Done {
			continue
		}
		if old := slices.DeleteFunc(slices.Clone(c.Before), func(v string) bool { return v == Stored }); len(old) > 0 {
			out = append(out, fmt.Sprintf("%s (%s)", c.Kind, strings.Join(old, ", ")))
		}
	}
	return out
}

// Migrator runs Migrate once the manager leads, retrying with a backoff
// until every CRD stores v1beta1 alone; then it is done. Pending reports
// the CRDs it has not finished, for the Forge's DeprecatedVersionsStored
// condition.
type Migrator struct {
	// Client reads and writes uncached (Scheme).
	Client client.Client
	Log    logr.Logger
	// Changed, if set, is called when Pending changes (the Forge
	// controller checks every Forge again).
	Changed func()

	mu      sync.Mutex
	known   bool
	pending []string
}

// NeedLeaderElection: one manager writes every object back, not each replica.
func (m *Migrator) NeedLeaderElection() bool { return true }

// Start migrates, retrying every failure with a backoff (up to 5 minutes
// apart) until done or ctx ends.
func (m *Migrator) Start(ctx context.Context) error {
	backoff := wait.Backoff{Duration: 5 * time.Second, Factor: 2, Steps: 1 << 30, Cap: 5 * time.Minute}
	_ = wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		crds, err := Migrate(ctx, m.Client)
		for _, c := range crds {
			if c.Migrated() && err == nil {
				m.Log.Info("stored at "+Stored, "crd", c.Name, "before", c.Before, "objects", c.Rewritten)
			}
		}
		if err != nil {
			m.Log.Error(err, "storage version migration failed; retrying")
		}
		// Unknown while the CRDs could not be read at all.
		m.set(err == nil || len(crds) > 0, Deprecated(crds))
		return err == nil, nil
	})
	return nil
}

// set records the outcome and, when it changed, tells Changed.
func (m *Migrator) set(known bool, pending []string) {
	m.mu.Lock()
	changed := known != m.known || !slices.Equal(pending, m.pending)
	m.known, m.pending = known, pending
	m.mu.Unlock()
	if changed && m.Changed != nil {
		m.Changed()
	}
}

// Pending returns the CRDs that still store a deprecated version and
// whether that is known (false before the first read, or when the CRDs
// cannot be read).
func (m *Migrator) Pending() ([]string, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.pending), m.known
}
