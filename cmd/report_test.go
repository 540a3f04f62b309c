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

package cmd_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// reportSet is a set the report test makes, with the status the operator
// would have written (none: not observed yet).
type reportSet struct {
	obj    client.Object
	status func(st *forgev1.SetStatus)
	ready  *metav1.Condition
	stall  bool
	// edit changes the spec after the status was written: the status
	// describes the generation before.
	edit func(client.Object)
}

func selector(org string) forgev1.RepositorySelector {
	o := forgev1.OwnerName(org)
	return forgev1.RepositorySelector{Organization: &o}
}

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

var gitea = forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}

// reportSets are, in team-a, a set in sync, one with 6 failing
// repositories of which status shows 3 (as it shows 20 of more), and one
// Stalled with no repository failing; in team-b, a set in sync over the
// repositories of two owners, with one yielded, one the operator has not
// observed yet, and one whose status is of the generation before its
// spec's.
func reportSets() []reportSet {
	long := "create branch protection \"main\" in acme/r01: 422 status check contexts | required checks must exist " + strings.Repeat("and more text ", 10)
	var failures []forgev1.SetFailure
	for i := 1; i <= 3; i++ {
		msg := fmt.Sprintf("create branch protection \"main\" in acme/r%02d: 422 invalid", i)
		if i == 1 {
			msg = long
		}
		failures = append(failures, forgev1.SetFailure{Repository: fmt.Sprintf("acme/r%02d", i), Reason: forgev1.ReasonRejected, Message: msg})
	}
	synced := func(msg string) *metav1.Condition {
		return &metav1.Condition{Status: metav1.ConditionTrue, Reason: forgev1.ReasonSynced, Message: msg}
	}
	failed := func(reason, msg string) *metav1.Condition {
		return &metav1.Condition{Status: metav1.ConditionFalse, Reason: reason, Message: msg}
	}
	return []reportSet{{
		obj: &forgev1.LabelSet{ObjectMeta: objectMeta("team-a", "labels"), Spec: forgev1.LabelSetSpec{ManagedSpec: gitea, Repositories: selector("acme"),
			Labels: []forgev1.LabelSetLabel{{Name: "bug", Color: "#ee0701"}}}},
		status: func(st *forgev1.SetStatus) { st.Repositories, st.InSync = 3, 3 },
		ready:  synced("3 of 3 repositories in sync"),
	}, {
		obj: &forgev1.BranchProtectionSet{ObjectMeta: objectMeta("team-a", "protect-main"), Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: gitea, Repositories: selector("acme"),
			Rules: []forgev1.BranchProtectionRule{{RuleName: "main"}}}},
		status: func(st *forgev1.SetStatus) {
			st.Repositories, st.InSync, st.Failing, st.Failures = 25, 19, 6, failures
			st.PendingRemovals = &forgev1.PendingRemovals{Count: 2}
		},
		ready: failed(forgev1.ReasonRejected, "19 of 25 repositories in sync; 6 failing: acme/r01 (Rejected), ..."),
		stall: true,
	}, {
		obj: &forgev1.LabelSet{ObjectMeta: objectMeta("team-a", "legacy"), Spec: forgev1.LabelSetSpec{ManagedSpec: gitea, Repositories: selector("acme"),
			Labels: []forgev1.LabelSetLabel{{Name: "bug", Color: "#ee0701"}}}},
		status: func(*forgev1.SetStatus) {},
		ready:  failed(forgev1.ReasonConflict, "LabelSet team-a/labels holds label \"bug\" | of acme"),
		stall:  true,
	}, {
		obj: &forgev1.RepositorySet{ObjectMeta: objectMeta("team-b", "policy"), Spec: forgev1.RepositorySetSpec{ManagedSpec: gitea,
			Repositories: forgev1.RepositorySelector{Names: []forgev1.RepositoryName{"gamma/x", "beta/web", "beta/api"}},
			Topics:       []forgev1.Topic{"beta"}}},
		status: func(st *forgev1.SetStatus) {
			st.Repositories, st.InSync = 3, 2
			st.Yielded = &forgev1.SetYields{Count: 1}
		},
		ready: synced("2 of 3 repositories in sync; 1 yielded"),
	}, {
		obj: &forgev1.FileSet{ObjectMeta: objectMeta("team-b", "files"), Spec: forgev1.FileSetSpec{ManagedSpec: gitea, Repositories: selector("beta"),
			FilesSpec: forgev1.FilesSpec{Files: []forgev1.RepositoryFileEntry{{Path: "LICENSE", Content: new("MIT")}}}}},
	}, {
		obj: &forgev1.BranchProtectionSet{ObjectMeta: objectMeta("team-b", "stale"), Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: gitea, Repositories: selector("beta"),
			Rules: []forgev1.BranchProtectionRule{{RuleName: "main"}}}},
		status: func(st *forgev1.SetStatus) { st.Repositories, st.InSync = 4, 4 },
		ready:  synced("4 of 4 repositories in sync"),
		edit: func(o client.Object) {
			o.(*forgev1.BranchProtectionSet).Spec.Rules[0].RuleName = "release/*"
		},
	}}
}

// TestReport: the compliance of the sets of one namespace (the
// kubeconfig context's by default) or of all, from their status, as a
// table and as Markdown, and the exit codes a CI step reads.
func TestReport(t *testing.T) {
	env, cfg, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"team-a", "team-b", "empty"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range reportSets() {
		if err := c.Create(ctx, s.obj); err != nil {
			t.Fatalf("create %s: %v", s.obj.GetName(), err)
		}
		if s.ready == nil {
			continue // not observed yet: the status is the CRD's default
		}
		set := s.obj.(interface {
			forgev1.Managed
			GetSetStatus() *forgev1.SetStatus
		})
		gen := set.GetGeneration()
		s.status(set.GetSetStatus())
		set.GetManagedStatus().ObservedGeneration = gen
		conds := set.GetConditions()
		s.ready.Type, s.ready.ObservedGeneration = forgev1.ConditionReady, gen
		meta.SetStatusCondition(&conds, *s.ready)
		if s.stall {
			stalled := *s.ready
			stalled.Type, stalled.Status = forgev1.ConditionStalled, metav1.ConditionTrue
			meta.SetStatusCondition(&conds, stalled)
		}
		set.SetConditions(conds)
		if err := c.Status().Update(ctx, set); err != nil {
			t.Fatalf("write the status of %s: %v", set.GetName(), err)
		}
		if s.edit != nil {
			s.edit(set)
			if err := c.Update(ctx, set); err != nil {
				t.Fatalf("edit %s: %v", set.GetName(), err)
			}
		}
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := testenv.WriteKubeconfig(cfg, "team-a", kc); err != nil {
		t.Fatal(err)
	}
	unreachable := rest.CopyConfig(cfg)
	unreachable.Host = "https://127.0.0.1:1"
	down := filepath.Join(dir, "down")
	if err := testenv.WriteKubeconfig(unreachable, "team-a", down); err != nil {
		t.Fatal(err)
	}
	// A user the API server knows and RBAC grants nothing.
	nobody, err := env.AddUser(envtest.User{Name: "nobody"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	forbidden := filepath.Join(dir, "forbidden")
	if err := testenv.WriteKubeconfig(nobody.Config(), "team-a", forbidden); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cmd.Run(ctx, "report", args, &out, &errOut)
		return code, out.String(), errOut.String()
	}

	// The report reads what was just written: wait until every status is.
	g := NewWithT(t)
	g.Eventually(func() string {
		_, out, _ := run("--kubeconfig", kc, "-A")
		return out
	}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(And(
		ContainSubstring("and 3 more"), ContainSubstring("2 Stalled"), ContainSubstring("beta, gamma"), ContainSubstring("2 pending")))

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "table of team-a", args: []string{"-n", "team-a"}, want: reportTeamA},
		{name: "table of team-b", args: []string{"-n", "team-b"}, want: reportTeamB},
		{name: "markdown of every namespace", args: []string{"-A", "--format", "markdown"}, want: reportMarkdown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(append([]string{"--kubeconfig", kc}, tc.args...)...)
			if code != 0 || errOut != "" {
				t.Errorf("exit code %d, stderr %q; want 0 and none", code, errOut)
			}
			if d := cmp.Diff(tc.want, out); d != "" {
				t.Errorf("report %v (-want +got):\n%s", tc.args, d)
			}
		})
	}

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "the context's namespace by default", args: []string{"--kubeconfig", kc}, code: 0, stdout: reportTeamA},
		{name: "failing, asked", args: []string{"--kubeconfig", kc, "-n", "team-a", "--fail-on", "failing"}, code: 1, stdout: "Failing:"},
		{name: "in sync and pending, asked", args: []string{"--kubeconfig", kc, "-n", "team-b", "--fail-on", "failing"}, code: 0, stdout: "Failing: none."},
		{name: "every namespace, failing, asked", args: []string{"--kubeconfig", kc, "-A", "--fail-on", "failing"}, code: 1, stdout: "2 namespaces"},
		{name: "an empty namespace", args: []string{"--kubeconfig", kc, "-n", "empty", "--fail-on", "failing"}, code: 0,
			stdout: "No RepositorySet, FileSet, LabelSet or BranchProtectionSet in namespace empty.\n"},
		{name: "help", args: []string{"-h"}, code: 0, stderr: "usage: forge-operator report"},
		{name: "an unknown format", args: []string{"--kubeconfig", kc, "--format", "json"}, code: 2, stderr: `report: --format "json": want table or markdown`},
		{name: "an unknown --fail-on", args: []string{"--kubeconfig", kc, "--fail-on", "pending"}, code: 2, stderr: `report: --fail-on "pending": want failing`},
		{name: "-A and -n", args: []string{"--kubeconfig", kc, "-A", "-n", "team-a"}, code: 2, stderr: "give -n or -A, not both"},
		{name: "an argument", args: []string{"--kubeconfig", kc, "team-a"}, code: 2, stderr: `unexpected arguments ["team-a"]`},
		{name: "an unknown flag", args: []string{"--kubeconfig", kc, "--org", "acme"}, code: 2, stderr: "flag provided but not defined: -org"},
		{name: "no kubeconfig", args: []string{"--kubeconfig", filepath.Join(dir, "missing")}, code: 2, stderr: "report: read the kubeconfig"},
		{name: "no permission to list the sets", args: []string{"--kubeconfig", forbidden, "--fail-on", "failing"}, code: 2,
			stderr: "report: list LabelSets in namespace team-a: "},
		{name: "no permission to list the sets of every namespace", args: []string{"--kubeconfig", forbidden, "-A"}, code: 2,
			stderr: "report: list LabelSets in every namespace: "},
		{name: "the cluster unreachable", args: []string{"--kubeconfig", down, "--fail-on", "failing"}, code: 2, stderr: "report: list "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out)
			}
			if !strings.Contains(errOut, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errOut)
			}
		})
	}
}

// The report's outputs of reportSets: team-a's failing sets, team-b's in
// sync and pending ones (no count shown, none in the totals), and every
// namespace in Markdown, where a | is escaped.
const (
	reportTeamA = `NAMESPACE  ORGANIZATION  KIND                 SET           SELECTED  IN SYNC  FAILING  PENDING REMOVALS  YIELDED  READY
team-a     acme          BranchProtectionSet  protect-main  25        19       6        2                 0        Rejected (Stalled)
team-a     acme          LabelSet             labels        3         3        0        0                 0        Synced
team-a     acme          LabelSet             legacy        0         0        0        0                 0        Conflict (Stalled)
TOTAL      1 namespace                        3 sets        28        22       6        2                 0        2 Stalled

Failing:
SET                                      REPOSITORY  REASON    MESSAGE
BranchProtectionSet team-a/protect-main  acme/r01    Rejected  create branch protection "main" in acme/r01: 422 status check contexts | required checks must exist and more text and m…
BranchProtectionSet team-a/protect-main  acme/r02    Rejected  create branch protection "main" in acme/r02: 422 invalid
BranchProtectionSet team-a/protect-main  acme/r03    Rejected  create branch protection "main" in acme/r03: 422 invalid
BranchProtectionSet team-a/protect-main  and 3 more  -         status lists the first failing repositories only
LabelSet team-a/legacy                   -           Conflict  LabelSet team-a/labels holds label "bug" | of acme
`
	reportTeamB = `NAMESPACE  ORGANIZATION  KIND                 SET     SELECTED  IN SYNC  FAILING  PENDING REMOVALS  YIELDED  READY
team-b     beta          BranchProtectionSet  stale   -         -        -        -                 -        pending
team-b     beta          FileSet              files   -         -        -        -                 -        pending
team-b     beta, gamma   RepositorySet        policy  3         2        0        0                 1        Synced
TOTAL      1 namespace                        3 sets  3         2        0        0                 1        2 pending

Failing: none.
`
	reportMarkdown = `### Compliance of every namespace

| Namespace | Organization | Kind | Set | Selected | In sync | Failing | Pending removals | Yielded | Ready |
| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |
| team-a | acme | BranchProtectionSet | protect-main | 25 | 19 | 6 | 2 | 0 | Rejected (Stalled) |
| team-a | acme | LabelSet | labels | 3 | 3 | 0 | 0 | 0 | Synced |
| team-a | acme | LabelSet | legacy | 0 | 0 | 0 | 0 | 0 | Conflict (Stalled) |
| team-b | beta | BranchProtectionSet | stale | - | - | - | - | - | pending |
| team-b | beta | FileSet | files | - | - | - | - | - | pending |
| team-b | beta, gamma | RepositorySet | policy | 3 | 2 | 0 | 0 | 1 | Synced |
| **Total** | **2 namespaces** |  | **6 sets** | **31** | **24** | **6** | **2** | **1** | **2 pending, 2 Stalled** |

#### Failing

- **BranchProtectionSet team-a/protect-main**
  - acme/r01: Rejected: create branch protection "main" in acme/r01: 422 status check contexts \| required checks must exist and more text and m…
  - acme/r02: Rejected: create branch protection "main" in acme/r02: 422 invalid
  - acme/r03: Rejected: create branch protection "main" in acme/r03: 422 invalid
  - and 3 more

- **LabelSet team-a/legacy**
  - Conflict: LabelSet team-a/labels holds label "bug" \| of acme
`
)
