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

package cmd

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers"
	"github.com/forgeops/forge-operator/internal/conditions"
)

// Exit codes of report. They differ from plan's on purpose: report's
// finding (--fail-on) is 1 and anything that kept it from reading the
// cluster is 2, as grep and diff do, so that a CI step can tell a failing
// set from a report that could not run; plan's finding (changes pending)
// is 2 and its errors 1.
const (
	reportOK      = 0
	reportFailing = 1
	reportError   = 2
)

// setObject is a set over repositories: a managed kind whose status
// embeds SetStatus.
type setObject interface {
	forgev1.Managed
	GetSetStatus() *forgev1.SetStatus
}

// runReport is `forge-operator report`: the compliance of every set over
// repositories (controllers.SetLists) of one namespace or all, from their
// status alone. It reads the cluster only, never a forge, so that it runs
// where no token is (a CI job with a read-only kubeconfig).
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var kubeconfig, namespace, format, failOn string
	var all bool
	fs.StringVar(&kubeconfig, "kubeconfig", "", "the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&namespace, "namespace", "", "the namespace whose sets are reported (default: the kubeconfig context's, as for kubectl)")
	fs.StringVar(&namespace, "n", "", "shorthand for --namespace")
	fs.BoolVar(&all, "all-namespaces", false, "report the sets of every namespace")
	fs.BoolVar(&all, "A", false, "shorthand for --all-namespaces")
	fs.StringVar(&format, "format", "table", "output format: table, or markdown (for $GITHUB_STEP_SUMMARY)")
	fs.StringVar(&failOn, "fail-on", "", "failing: exit 1 when a set has a failing repository or is Stalled")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "usage: forge-operator report [-n NAMESPACE | -A] [--format table|markdown] [--fail-on failing] [--kubeconfig KC]")
		_, _ = fmt.Fprintln(stderr, "Prints the compliance of every RepositorySet, FileSet, LabelSet and BranchProtectionSet, per namespace and organization, from their status (no forge is asked).")
		_, _ = fmt.Fprintln(stderr, "Exit code: 0 reported, 1 with --fail-on failing a set is failing or Stalled, 2 a usage error or the cluster could not be read.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return reportOK
		}
		return reportError
	}
	fail := func(err error) int {
		_, _ = fmt.Fprintf(stderr, "report: %v\n", err)
		return reportError
	}
	switch {
	case fs.NArg() > 0:
		return fail(fmt.Errorf("unexpected arguments %q", fs.Args()))
	case format != "table" && format != "markdown":
		return fail(fmt.Errorf("--format %q: want table or markdown", format))
	case failOn != "" && failOn != "failing":
		return fail(fmt.Errorf("--fail-on %q: want failing", failOn))
	case all && namespace != "":
		return fail(errors.New("-A reports every namespace: give -n or -A, not both"))
	}
	kc := kubeConfig(kubeconfig)
	if !all && namespace == "" {
		ns, _, err := kc.Namespace()
		if err != nil {
			return fail(fmt.Errorf("read the kubeconfig: %w", err))
		}
		namespace = ns
	}
	c, err := clusterReader(kc)
	if err != nil {
		return fail(err)
	}
	rep, err := readReport(ctx, c, namespace)
	if err != nil {
		return fail(err)
	}
	if format == "markdown" {
		err = rep.writeMarkdown(stdout)
	} else {
		err = rep.writeTable(stdout)
	}
	if err != nil {
		return fail(err)
	}
	if failOn == "failing" && rep.failing() {
		return reportFailing
	}
	return reportOK
}

// report is the compliance of the sets of one namespace, or of every
// namespace.
type report struct {
	// namespace read; "" is every namespace.
	namespace string
	// sets sorted by namespace, organization, kind and name.
	sets []setRow
}

// setRow is one set's compliance as its status tells it.
type setRow struct {
	namespace, organization, kind, name string
	// observed: the status and its Ready condition describe the set's
	// current generation. A set not observed is pending: its counts are
	// of an earlier spec, or none yet, and it is not in sync.
	observed bool
	// selected, inSync, failing, removals (pending) and yielded are the
	// status's counts of repositories (of removals for removals).
	selected, inSync, failing, removals, yielded int32
	// ready is the Ready condition's reason, message its message.
	ready, message string
	// stalled: the Stalled condition is True (only a change of the user's
	// cures it).
	stalled bool
	// failures are the failing repositories status shows (at most 20 of
	// failing).
	failures []forgev1.SetFailure
}

// isFailing: the set, observed, has failing repositories or is Stalled.
func (s setRow) isFailing() bool {
	return s.observed && (s.failing > 0 || s.stalled)
}

// failing: some set is failing.
func (r *report) failing() bool {
	return slices.ContainsFunc(r.sets, setRow.isFailing)
}

// readReport lists every set kind in namespace ("" for every namespace).
func readReport(ctx context.Context, c client.Reader, namespace string) (*report, error) {
	rep := &report{namespace: namespace}
	for _, list := range controllers.SetLists() {
		if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
			kinds := strings.TrimSuffix(reflect.TypeOf(list).Elem().Name(), "List") + "s" // every set kind ends in Set
			if namespace == "" {
				return nil, fmt.Errorf("list %s in every namespace: %w", kinds, err)
			}
			return nil, fmt.Errorf("list %s in namespace %s: %w", kinds, namespace, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			set, ok := it.(setObject)
			if !ok {
				return nil, fmt.Errorf("%T is no set over repositories", it)
			}
			rep.sets = append(rep.sets, rowOf(set))
		}
	}
	slices.SortFunc(rep.sets, func(a, b setRow) int {
		return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.organization, b.organization),
			cmp.Compare(a.kind, b.kind), cmp.Compare(a.name, b.name))
	})
	return rep, nil
}

// rowOf reads one set's status.
func rowOf(set setObject) setRow {
	st, gen := set.GetSetStatus(), set.GetGeneration()
	ready := meta.FindStatusCondition(set.GetConditions(), forgev1.ConditionReady)
	row := setRow{
		namespace:    set.GetNamespace(),
		organization: organizations(set.ForgeOwners()),
		kind:         reflect.TypeOf(set).Elem().Name(),
		name:         set.GetName(),
		observed:     set.GetManagedStatus().ObservedGeneration == gen && ready != nil && ready.ObservedGeneration == gen,
		selected:     st.Repositories,
		inSync:       st.InSync,
		// A status written before failing was counted shows only failures.
		failing:  max(st.Failing, int32(len(st.Failures))),
		stalled:  meta.IsStatusConditionTrue(set.GetConditions(), forgev1.ConditionStalled),
		failures: st.Failures,
	}
	row.ready, row.message = conditions.ReadyReason(set)
	if st.PendingRemovals != nil {
		row.removals = st.PendingRemovals.Count
	}
	if st.Yielded != nil {
		row.yielded = st.Yielded.Count
	}
	return row
}

// organizations is the set's owners (its selector's organization, or the
// owners of the repositories it names), each once, sorted.
func organizations(owners []string) string {
	return strings.Join(slices.Compact(slices.Sorted(slices.Values(owners))), ", ")
}

// totals sums the sets: the counts of the observed ones, and how many
// are pending and stalled.
type totals struct {
	namespaces, sets, pending, stalled         int
	selected, inSync, failing, removals, yield int64
}

func (r *report) totals() totals {
	var t totals
	namespaces := map[string]bool{}
	for _, s := range r.sets {
		namespaces[s.namespace] = true
		t.sets++
		if !s.observed {
			t.pending++
			continue
		}
		if s.stalled {
			t.stalled++
		}
		t.selected += int64(s.selected)
		t.inSync += int64(s.inSync)
		t.failing += int64(s.failing)
		t.removals += int64(s.removals)
		t.yield += int64(s.yielded)
	}
	t.namespaces = len(namespaces)
	return t
}
