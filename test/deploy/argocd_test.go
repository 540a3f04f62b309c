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

package deploy

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite config/argocd/argocd-cm.yaml from config/argocd/health.lua")

// argoHealthStatuses are the statuses Argo CD accepts from a health script;
// anything else becomes Unknown.
var argoHealthStatuses = []string{"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}

func healthScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(repoPath("config", "argocd", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// toLua converts an unstructured object to Lua values the way Argo CD does
// before it sets the global obj: maps and slices become tables, int64 and
// float64 numbers, nil nil.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, item := range v {
			t.Append(toLua(L, item))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, item := range v {
			t.RawSetString(k, toLua(L, item))
		}
		return t
	}
	return lua.LNil
}

// runHealth runs script as Argo CD runs a resource.customizations.health
// script: only the package, base and table libraries, a one-second limit,
// obj set, and the returned table read for status and message.
func runHealth(t *testing.T, script string, obj *unstructured.Unstructured) (status, message string) {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	L.SetContext(ctx)
	L.SetGlobal("obj", toLua(L, obj.Object))
	if err := L.DoString(script); err != nil {
		t.Fatalf("health.lua fails: %v", err)
	}
	ret, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health.lua returns %s, want a table", L.Get(-1).Type())
	}
	s, ok := ret.RawGetString("status").(lua.LString)
	if !ok {
		t.Fatalf("health.lua returns status %s, want a string", ret.RawGetString("status").Type())
	}
	m, ok := ret.RawGetString("message").(lua.LString)
	if !ok {
		t.Fatalf("health.lua returns message %s, want a string", ret.RawGetString("message").Type())
	}
	if !slices.Contains(argoHealthStatuses, string(s)) {
		t.Fatalf("health.lua returns status %q, which Argo CD turns into Unknown", s)
	}
	return string(s), string(m)
}

// object decodes YAML into an unstructured object as Argo CD's cache holds
// it (integers as int64).
func objectFromYAML(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	return u
}

// healthCase is an object and the Argo CD health it must get; Flux's
// healthCheckExprs are held to the same cases (fluxStatus maps them).
type healthCase struct {
	name, yaml, status, message string
}

// healthCases are the objects both health checks are tested on.
func healthCases() []healthCase {
	const head = `
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: kind-bug, namespace: acme, generation: 3}
`
	return []healthCase{
		{"new object without status", head + `spec: {organization: acme, color: d73a4a}`,
			"Progressing", "Waiting for the operator to reconcile generation 3"},
		{"status but no conditions yet", head + `status: {observedGeneration: 3}`,
			"Progressing", "Waiting for the operator to report conditions"},
		{"synced", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: label kind/bug in org acme matches the spec, observedGeneration: 3}`,
			"Healthy", "label kind/bug in org acme matches the spec"},
		{"created and adopted count as synced", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "True", reason: Adopted, message: adopted, observedGeneration: 3}`,
			"Healthy", "adopted"},
		{"spec changed, not yet seen", head + `status:
  observedGeneration: 2
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: old, observedGeneration: 2}`,
			"Progressing", "Waiting for the operator to reconcile generation 3"},
		{"Ready written for an older generation", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: old, observedGeneration: 2}`,
			"Progressing", "Waiting for the operator to reconcile generation 3"},
		{"waiting for the Forge", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: ForgeNotReady, message: Forge "gitea" is not ready yet, observedGeneration: 3}
  - {type: Reconciling, status: "True", reason: ForgeNotReady, message: Forge "gitea" is not ready yet, observedGeneration: 3}`,
			"Progressing", `Forge "gitea" is not ready yet`},
		{"waiting for the parent repository", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: ParentNotFound, message: repository acme/web not found, observedGeneration: 3}
  - {type: Reconciling, status: "True", reason: ParentNotFound, message: repository acme/web not found, observedGeneration: 3}`,
			"Progressing", "repository acme/web not found"},
		{"waiting for the parent, with a Stalled condition left from before", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: ParentNotFound, message: repository acme/web not found, observedGeneration: 3}
  - {type: Stalled, status: "True", reason: Conflict, message: an older failure, observedGeneration: 2}`,
			"Progressing", "repository acme/web not found"},
		{"status defaulted before the operator wrote it", head + `status: {observedGeneration: -1}`,
			"Progressing", "Waiting for the operator to reconcile generation 3"},
		{"rate limited", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: RateLimited, message: retry after 30s, observedGeneration: 3}
  - {type: Reconciling, status: "True", reason: RateLimited, message: retry after 30s, observedGeneration: 3}`,
			"Progressing", "retry after 30s"},
		{"rejected by the forge", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: Rejected, message: "create label kind/bug in acme: 422 invalid color", observedGeneration: 3}
  - {type: Stalled, status: "True", reason: Rejected, message: "create label kind/bug in acme: 422 invalid color", observedGeneration: 3}`,
			"Degraded", "create label kind/bug in acme: 422 invalid color"},
		{"deletion guard of a LabelSet, without Stalled", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: TooManyDeletions, message: "acme/web: 14 deletions planned, at most 10", observedGeneration: 3}`,
			"Degraded", "acme/web: 14 deletions planned, at most 10"},
		{"untrusted create answer, without Stalled", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: InvalidForgeAnswer, message: "the forge answered 201 with id 0", observedGeneration: 3}`,
			"Degraded", "the forge answered 201 with id 0"},
		{"Stalled without Ready", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Stalled, status: "True", reason: Conflict, message: label claimed by acme/other, observedGeneration: 3}`,
			"Degraded", "label claimed by acme/other"},
		{"unauthorized without a Stalled condition", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: Unauthorized, message: 401 bad token, observedGeneration: 3}`,
			"Degraded", "401 bad token"},
		{"conflict", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: Conflict, message: also managed by Label acme/kind-bug-2, observedGeneration: 3}`,
			"Degraded", "also managed by Label acme/kind-bug-2"},
		{"deletion refused by the forge", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: acme, generation: 2, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [forge.forgeops.dev/finalizer]}
status:
  observedGeneration: 2
  conditions:
  - {type: Ready, status: "False", reason: DeleteBlocked, message: organization acme still owns 3 repositories, observedGeneration: 2}`,
			"Degraded", "organization acme still owns 3 repositories"},
		{"forge without the projects API", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Project
metadata: {name: board, generation: 1}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "False", reason: Unsupported, message: the forge has no projects API, observedGeneration: 1}
  - {type: Stalled, status: "True", reason: Unsupported, message: the forge has no projects API, observedGeneration: 1}`,
			"Degraded", "the forge has no projects API"},
		{"Stalled False is not stalled", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: ok, observedGeneration: 3}
  - {type: Stalled, status: "False", reason: Synced, message: ok, observedGeneration: 3}
  - {type: Reconciling, status: "False", reason: Synced, message: ok, observedGeneration: 3}`,
			"Healthy", "ok"},
		{"suspended and seen", head + `spec: {suspend: true}
status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: Unknown, reason: Suspended, message: spec.suspend is true; no forge calls are made, observedGeneration: 3}`,
			"Suspended", "spec.suspend is true; no forge calls are made"},
		{"suspended, not yet seen", head + `spec: {suspend: true}
status:
  observedGeneration: 2
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: ok, observedGeneration: 2}`,
			"Suspended", "spec.suspend is true: the operator makes no forge calls for this resource"},
		{"suspended overrides a stall", head + `spec: {suspend: true}
status:
  observedGeneration: 2
  conditions:
  - {type: Ready, status: "False", reason: Rejected, message: bad, observedGeneration: 2}
  - {type: Stalled, status: "True", reason: Rejected, message: bad, observedGeneration: 2}`,
			"Suspended", "spec.suspend is true: the operator makes no forge calls for this resource"},
		{"Ready reason Suspended", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: Unknown, reason: Suspended, message: suspended, observedGeneration: 3}`,
			"Suspended", "suspended"},
		{"resumed, not yet seen", head + `spec: {suspend: false}
status:
  observedGeneration: 2
  conditions:
  - {type: Ready, status: Unknown, reason: Suspended, message: suspended, observedGeneration: 2}`,
			"Progressing", "Waiting for the operator to reconcile generation 3"},
		{"observed and equal", head + `spec: {managementPolicy: Observe}
status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "True", reason: Observed, message: the forge matches the spec, observedGeneration: 3}`,
			"Healthy", "the forge matches the spec"},
		{"observed drift", head + `spec: {managementPolicy: Observe}
status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: DriftDetected, message: the forge differs from the spec in color, observedGeneration: 3}`,
			"Degraded", "the forge differs from the spec in color"},
		{"observed object missing", head + `spec: {managementPolicy: Observe}
status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: NotFound, message: label kind/bug does not exist on the forge, observedGeneration: 3}`,
			"Degraded", "label kind/bug does not exist on the forge"},
		{"Ready Unknown while progressing", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: Unknown, reason: Progressing, message: reconciling, observedGeneration: 3}`,
			"Progressing", "reconciling"},
		{"Ready False with a transient reason and no Reconciling", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: ForgeError, message: 502 bad gateway, observedGeneration: 3}`,
			"Progressing", "502 bad gateway"},
		{"Reconciling while still Ready", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: ok, observedGeneration: 3}
  - {type: Reconciling, status: "True", reason: Progressing, message: checking drift, observedGeneration: 3}`,
			"Progressing", "ok"},
		{"Reconciling without Ready", head + `status:
  observedGeneration: 3
  conditions:
  - {type: Reconciling, status: "True", reason: Progressing, message: first pass, observedGeneration: 3}`,
			"Progressing", "first pass"},
		{"not permitted by its ClusterForge", head + `spec: {forgeRef: {kind: ClusterForge, name: shared}, organization: acme, color: d73a4a}
status:
  observedGeneration: 3
  conditions:
  - {type: Ready, status: "False", reason: NotPermitted, message: "ClusterForge \"shared\" does not let namespace acme manage owner acme: add a tenants entry selecting the namespace with an owners glob matching acme", observedGeneration: 3}
  - {type: Stalled, status: "True", reason: NotPermitted, message: "ClusterForge \"shared\" does not let namespace acme manage owner acme: add a tenants entry selecting the namespace with an owners glob matching acme", observedGeneration: 3}`,
			"Degraded", `ClusterForge "shared" does not let namespace acme manage owner acme: add a tenants entry selecting the namespace with an owners glob matching acme`},
		{"not permitted, without Stalled", `
apiVersion: forge.forgeops.dev/v1beta1
kind: User
metadata: {name: ci-bot, namespace: platform, generation: 1}
spec: {forgeRef: {kind: ClusterForge, name: shared}, username: ci-bot, email: ci-bot@example.com}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "False", reason: NotPermitted, message: "ClusterForge \"shared\" has no tenants entry with siteAdmin: true for namespace platform and user ci-bot", observedGeneration: 1}`,
			"Degraded", `ClusterForge "shared" has no tenants entry with siteAdmin: true for namespace platform and user ci-bot`},
		{"ClusterForge connected", `
apiVersion: forge.forgeops.dev/v1beta1
kind: ClusterForge
metadata: {name: shared, generation: 2}
spec: {url: "https://git.example.com", auth: {tokenSecretRef: {name: shared-token}}, tenants: [{namespaces: [team-a], owners: [team-a-*]}]}
status:
  observedGeneration: 2
  inUse: 4
  conditions:
  - {type: Ready, status: "True", reason: Connected, message: connected as platform-bot to gitea 1.26.4, observedGeneration: 2}`,
			"Healthy", "connected as platform-bot to gitea 1.26.4"},
		{"ClusterForge deleted while in use", `
apiVersion: forge.forgeops.dev/v1beta1
kind: ClusterForge
metadata: {name: shared, generation: 2, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [forge.forgeops.dev/finalizer]}
status:
  observedGeneration: 2
  inUse: 2
  conditions:
  - {type: Ready, status: "True", reason: Connected, message: "in use by Organization team-a/acme and Repository team-a/web: deleting waits for them", observedGeneration: 2}
  - {type: Reconciling, status: "True", reason: InUse, message: "in use by Organization team-a/acme and Repository team-a/web: deleting waits for them", observedGeneration: 2}`,
			"Progressing", "in use by Organization team-a/acme and Repository team-a/web: deleting waits for them"},
		{"Forge connected", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Forge
metadata: {name: gitea, generation: 1}
spec: {url: "https://git.example.com", auth: {tokenSecretRef: {name: gitea-token}}}
status:
  observedGeneration: 1
  serverVersion: 1.22.0
  conditions:
  - {type: Ready, status: "True", reason: Connected, message: connected as admin to gitea 1.22.0, observedGeneration: 1}`,
			"Healthy", "connected as admin to gitea 1.22.0"},
		{"no generation (not from an API server)", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: x}
status:
  conditions:
  - {type: Ready, status: "True", reason: Synced, message: ok}`,
			"Healthy", "ok"},
	}
}

func TestArgoCDHealth(t *testing.T) {
	script := healthScript(t)
	for _, tc := range healthCases() {
		t.Run(tc.name, func(t *testing.T) {
			status, message := runHealth(t, script, objectFromYAML(t, tc.yaml))
			if status != tc.status || message != tc.message {
				t.Errorf("health = %s %q, want %s %q", status, message, tc.status, tc.message)
			}
		})
	}
}

// TestArgoCDHealthEveryConditionCombination runs health.lua on every
// combination of the three conditions (absent, True, False, Unknown), the
// Ready reasons, spec.suspend and a stale generation, and compares with the
// mapping the script documents, stated here once more in Go.
func TestArgoCDHealthEveryConditionCombination(t *testing.T) {
	script := healthScript(t)
	statuses := []string{"", "True", "False", "Unknown"}
	reasons := []string{
		forgev1.ReasonSynced, forgev1.ReasonSuspended, forgev1.ReasonUnauthorized, forgev1.ReasonRejected,
		forgev1.ReasonConflict, forgev1.ReasonUnsupported, forgev1.ReasonForgeNotReady, forgev1.ReasonDriftDetected,
		forgev1.ReasonNotFound, forgev1.ReasonForgeError, forgev1.ReasonDeleteBlocked, forgev1.ReasonParentNotFound,
		forgev1.ReasonNotPermitted, forgev1.ReasonInUse, forgev1.ReasonTeamNotFound,
	}
	stalling := []string{forgev1.ReasonUnauthorized, forgev1.ReasonRejected, forgev1.ReasonConflict, forgev1.ReasonUnsupported,
		forgev1.ReasonDeleteBlocked, forgev1.ReasonDriftDetected, forgev1.ReasonNotFound, forgev1.ReasonNotPermitted}

	n := 0
	for _, suspend := range []bool{false, true} {
		for _, staleGeneration := range []bool{false, true} {
			for _, ready := range statuses {
				for _, reason := range reasons {
					for _, reconciling := range statuses {
						for _, stalled := range statuses {
							want := expectedHealth(suspend, staleGeneration, ready, reason, reconciling, stalled, stalling)
							obj := combination(suspend, staleGeneration, ready, reason, reconciling, stalled)
							got, message := runHealth(t, script, obj)
							name := fmt.Sprintf("suspend=%v stale=%v Ready=%q/%s Reconciling=%q Stalled=%q",
								suspend, staleGeneration, ready, reason, reconciling, stalled)
							if got != want {
								t.Errorf("%s: %s, want %s", name, got, want)
							}
							// Whatever the status, a current Ready condition's message is what users read.
							if ready != "" && !staleGeneration && !(suspend && reason != forgev1.ReasonSuspended) &&
								message != "ready message" {
								t.Errorf("%s: message %q, want the Ready condition's", name, message)
							}
							if message == "" {
								t.Errorf("%s: empty message", name)
							}
							n++
						}
					}
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}

// waiting are the Ready reasons of a resource waiting for something that
// comes by itself: Progressing in every combination.
var waiting = []string{forgev1.ReasonParentNotFound, forgev1.ReasonForgeNotReady, forgev1.ReasonRunnerNotFound, forgev1.ReasonSecretNotFound,
	forgev1.ReasonTeamNotFound, forgev1.ReasonUserNotFound}

func expectedHealth(suspend, staleGeneration bool, ready, reason, reconciling, stalled string, stalling []string) string {
	hasConditions := ready != "" || reconciling != "" || stalled != ""
	switch {
	case suspend:
		return "Suspended"
	case staleGeneration, !hasConditions:
		return "Progressing"
	case ready != "" && ready != "True" && slices.Contains(waiting, reason):
		// Waiting for a parent, the Forge, a runner or a Secret is progress.
		return "Progressing"
	case stalled == "True", ready == "False" && slices.Contains(stalling, reason):
		return "Degraded"
	case reconciling == "True", ready == "":
		return "Progressing"
	case ready == "True":
		return "Healthy"
	case reason == forgev1.ReasonSuspended:
		return "Suspended"
	}
	return "Progressing"
}

func combination(suspend, staleGeneration bool, ready, reason, reconciling, stalled string) *unstructured.Unstructured {
	const generation = 5
	observed := int64(generation)
	if staleGeneration {
		observed--
	}
	var conds []any
	add := func(typ, status, message string) {
		if status != "" {
			conds = append(conds, map[string]any{"type": typ, "status": status, "reason": reason,
				"message": message, "observedGeneration": observed})
		}
	}
	add("Ready", ready, "ready message")
	add("Reconciling", reconciling, "reconciling message")
	add("Stalled", stalled, "stalled message")
	status := map[string]any{"observedGeneration": observed}
	if conds != nil {
		status["conditions"] = conds
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "forge.forgeops.dev/v1beta1",
		"kind":       "OrgHook",
		"metadata":   map[string]any{"name": "ci", "namespace": "acme", "generation": int64(generation)},
		"spec":       map[string]any{"suspend": suspend, "organization": "acme"},
		"status":     status,
	}}
}

// crdKinds are the kinds of config/crd/bases, so that a new kind without a
// health check fails here.
func crdKinds(t *testing.T) (group string, kinds []string) {
	t.Helper()
	for _, crd := range crdBases(t) {
		group = crd.Spec.Group
		kinds = append(kinds, crd.Spec.Names.Kind)
	}
	slices.Sort(kinds)
	return group, kinds
}

// crdBases reads every CRD of config/crd/bases.
func crdBases(t *testing.T) []apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(repoPath("config", "crd", "bases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, crd)
	}
	return out
}

const argoCDConfigMapHeader = `# Argo CD health checks for forge.forgeops.dev resources: config/argocd/health.lua
# for each kind. Merge the keys into the argocd-cm ConfigMap of your Argo CD
# (a patch keeps the keys already there):
#   kubectl -n argocd patch configmap argocd-cm --patch-file config/argocd/argocd-cm.yaml
# Generated from health.lua: go test ./test/deploy -run TestArgoCDConfigMap -update
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels:
    app.kubernetes.io/name: argocd-cm
    app.kubernetes.io/part-of: argocd
data:
`

func argoCDConfigMap(group string, kinds []string, script string) string {
	var b strings.Builder
	b.WriteString(argoCDConfigMapHeader)
	for _, kind := range kinds {
		fmt.Fprintf(&b, "  resource.customizations.health.%s_%s: |\n", group, kind)
		for _, line := range strings.SplitAfter(script, "\n") {
			if strings.TrimSpace(line) == "" {
				b.WriteString(strings.TrimLeft(line, " \t"))
				continue
			}
			b.WriteString("    " + line)
		}
	}
	return b.String()
}

// TestArgoCDConfigMap checks config/argocd/argocd-cm.yaml: one key per kind,
// health.<group>_<Kind> as Argo CD looks it up, each holding health.lua.
func TestArgoCDConfigMap(t *testing.T) {
	script := healthScript(t)
	group, kinds := crdKinds(t)
	path := repoPath("config", "argocd", "argocd-cm.yaml")
	if *update {
		if err := os.WriteFile(path, []byte(argoCDConfigMap(group, kinds, script)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(b, &cm); err != nil {
		t.Fatalf("argocd-cm.yaml: %v", err)
	}
	if cm.Name != "argocd-cm" || cm.Labels["app.kubernetes.io/part-of"] != "argocd" {
		t.Errorf("ConfigMap %q labels %v: Argo CD reads argocd-cm labelled app.kubernetes.io/part-of=argocd", cm.Name, cm.Labels)
	}
	var keys []string
	for k, v := range cm.Data {
		keys = append(keys, k)
		if v != script {
			t.Errorf("%s differs from config/argocd/health.lua; run go test ./test/deploy -run TestArgoCDConfigMap -update", k)
		}
	}
	var want []string
	for _, kind := range kinds {
		want = append(want, "resource.customizations.health."+group+"_"+kind)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("argocd-cm keys %v, want %v", keys, want)
	}
	// Every kind of the API package has its CRD, so its health check too.
	if api := testenv.Kinds(); !slices.Equal(kinds, slices.Sorted(slices.Values(api))) {
		t.Errorf("kinds in config/crd/bases %v, want those of api/v1alpha1 %v", kinds, api)
	}
}
