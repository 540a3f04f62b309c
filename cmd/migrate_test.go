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
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/storageversion"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// crd reads config/crd/bases' CRD of plural.
func crd(t *testing.T, plural string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "crd", "bases", "forge.forgeops.dev_"+plural+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// previous is crd as the last v1alpha1-only release installed it: the same
// schema, served and stored at v1alpha1 alone.
func previous(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	old := c.DeepCopy()
	old.Spec.Versions = slices.DeleteFunc(old.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name != "v1alpha1" })
	old.Spec.Versions[0].Storage, old.Spec.Versions[0].Deprecated, old.Spec.Versions[0].DeprecationWarning = true, false, nil
	old.Spec.Conversion = nil
	return old
}

func storedVersions(ctx context.Context, t *testing.T, c client.Client, name string) []string {
	t.Helper()
	var got apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &got); err != nil {
		t.Fatal(err)
	}
	return got.Status.StoredVersions
}

func eventually(ctx context.Context, t *testing.T, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func object(kind, name string, spec map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	o.SetAPIVersion("forge.forgeops.dev/v1alpha1")
	o.SetKind(kind)
	o.SetNamespace("team")
	o.SetName(name)
	return o
}

// kubeconfig writes cfg as a kubeconfig file.
func kubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "kubeconfig")
	if err := testenv.WriteKubeconfig(cfg, "", file); err != nil {
		t.Fatal(err)
	}
	return file
}

// After an upgrade from the v1alpha1-only release, every object is written
// back (at v1beta1, the storage version), unchanged, and each CRD's
// storedVersions ends at [v1beta1]; a write-back refused keeps that CRD's
// storedVersions as it was (the next run tries again), while the other
// CRDs are done; `forge-operator migrate` then finishes it and, run again,
// has nothing to do.
func TestMigrateStoresEveryObjectAtV1beta1(t *testing.T) {
	env, err := testenv.New()
	if err != nil {
		t.Fatal(err)
	}
	labels, forges := crd(t, "labels"), crd(t, "forges")
	env.CRDDirectoryPaths, env.CRDs = nil, []*apiextensionsv1.CustomResourceDefinition{previous(labels), previous(forges)}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	scheme, err := storageversion.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, admissionv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	written := []*unstructured.Unstructured{
		object("Forge", "gitea", map[string]any{"url": "https://git.example.com", "auth": map[string]any{"tokenSecretRef": map[string]any{"name": "t"}}}),
		object("Label", "a", map[string]any{"forgeRef": map[string]any{"name": "gitea"}, "repository": "acme/app", "name": "bug", "color": "ee0701"}),
		object("Label", "b", map[string]any{"forgeRef": map[string]any{"name": "gitea"}, "repository": "acme/app", "name": "docs", "color": "0075ca"}),
	}
	for _, o := range written {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	// A status, as the previous manager wrote it.
	if err := unstructured.SetNestedField(written[1].Object, int64(42), "status", "id"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, written[1]); err != nil {
		t.Fatal(err)
	}

	// The upgrade installs this release's CRDs: v1beta1 stored, v1alpha1 served.
	for _, want := range []*apiextensionsv1.CustomResourceDefinition{labels, forges} {
		var got apiextensionsv1.CustomResourceDefinition
		if err := c.Get(ctx, client.ObjectKey{Name: want.Name}, &got); err != nil {
			t.Fatal(err)
		}
		got.Spec = want.Spec
		if err := c.Update(ctx, &got); err != nil {
			t.Fatal(err)
		}
		eventually(ctx, t, want.Name+" stores v1beta1", func(ctx context.Context) (bool, error) {
			return slices.Equal(storedVersions(ctx, t, c, want.Name), []string{"v1alpha1", "v1beta1"}), nil
		})
	}

	// An admission policy refuses every update of Label b.
	policy := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "freeze-b"},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
				Operations: []admissionv1.OperationType{admissionv1.Update},
				Rule:       admissionv1.Rule{APIGroups: []string{"forge.forgeops.dev"}, APIVersions: []string{"*"}, Resources: []string{"labels"}}}}}},
			Validations: []admissionv1.Validation{{Expression: "object.metadata.name != 'b'", Message: "b is frozen"}},
		}}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "freeze-b"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "freeze-b", ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}}}
	for _, o := range []client.Object{policy, binding} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	b := written[2].DeepCopy()
	eventually(ctx, t, "the policy refuses updates of b", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(b), b); err != nil {
			return false, err
		}
		return apierrors.IsInvalid(c.Update(ctx, b.DeepCopy(), client.DryRunAll)) ||
			apierrors.IsForbidden(c.Update(ctx, b.DeepCopy(), client.DryRunAll)), nil
	})

	crds, err := storageversion.Migrate(ctx, c)
	if err == nil || !strings.Contains(err.Error(), "labels.forge.forgeops.dev") || !strings.Contains(err.Error(), "team/b") {
		t.Fatalf("Migrate with b frozen: got error %v, want one naming labels.forge.forgeops.dev and team/b", err)
	}
	if got := storedVersions(ctx, t, c, labels.Name); !slices.Contains(got, "v1alpha1") {
		t.Errorf("labels' storedVersions after a refused write-back: %v, want v1alpha1 kept", got)
	}
	if got := storedVersions(ctx, t, c, forges.Name); !slices.Equal(got, []string{"v1beta1"}) {
		t.Errorf("forges' storedVersions: %v, want [v1beta1]", got)
	}
	if got := storageversion.Deprecated(crds); !slices.Equal(got, []string{"Label (v1alpha1)"}) {
		t.Errorf("Deprecated: %q, want [Label (v1alpha1)]", got)
	}

	// The manager's Migrator says what is left, and retries.
	changed := make(chan struct{}, 10)
	m := &storageversion.Migrator{Client: c, Log: testr.New(t), Changed: func() { changed <- struct{}{} }}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = m.Start(mctx); close(done) }()
	<-changed
	if pending, known := m.Pending(); !known || !slices.Equal(pending, []string{"Label (v1alpha1)"}) {
		t.Errorf("Migrator.Pending with b frozen: %q, %v; want [Label (v1alpha1)], known", pending, known)
	}

	stop()
	<-done

	// The policy gone, the one command a namespaced install runs finishes it.
	if err := c.Delete(ctx, binding); err != nil {
		t.Fatal(err)
	}
	eventually(ctx, t, "the policy no longer refuses updates of b", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(b), b); err != nil {
			return false, err
		}
		return c.Update(ctx, b.DeepCopy(), client.DryRunAll) == nil, nil
	})
	kc := kubeconfig(t, cfg)
	var stdout, stderr bytes.Buffer
	if code := cmd.Run(ctx, "migrate", []string{"--kubeconfig", kc}, &stdout, &stderr); code != 0 {
		t.Fatalf("forge-operator migrate: exit %d, stderr %q", code, stderr.String())
	}
	if want := "labels.forge.forgeops.dev: 2 objects written back; stored versions [v1beta1], were [v1alpha1, v1beta1]"; !strings.Contains(stdout.String(), want) {
		t.Errorf("migrate printed %q, want a line %q", stdout.String(), want)
	}
	if want := "forges.forge.forgeops.dev: stored at v1beta1 already"; !strings.Contains(stdout.String(), want) {
		t.Errorf("migrate printed %q, want a line %q", stdout.String(), want)
	}
	if got := storedVersions(ctx, t, c, labels.Name); !slices.Equal(got, []string{"v1beta1"}) {
		t.Errorf("labels' storedVersions after migrate: %v, want [v1beta1]", got)
	}
	// Written back unchanged: same spec, status and generation.
	for _, o := range written {
		got := o.DeepCopy()
		got.SetAPIVersion("forge.forgeops.dev/v1beta1")
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
			t.Fatal(err)
		}
		if got.GetGeneration() != 1 {
			t.Errorf("%s %s: generation %d after the write-back, want 1 (no spec change)", o.GetKind(), o.GetName(), got.GetGeneration())
		}
		if got.GetResourceVersion() == o.GetResourceVersion() {
			t.Errorf("%s %s was not written back", o.GetKind(), o.GetName())
		}
		if !reflect.DeepEqual(got.Object["spec"], o.Object["spec"]) {
			t.Errorf("%s %s: spec %v after the write-back, want %v", o.GetKind(), o.GetName(), got.Object["spec"], o.Object["spec"])
		}
		if id, _, _ := unstructured.NestedInt64(got.Object, "status", "id"); o.GetName() == "a" && id != 42 {
			t.Errorf("Label a's status.id after the write-back: %d, want 42", id)
		}
	}

	// Nothing left: the Migrator finds nothing to do and says so at once,
	// and so does migrate, as often as it is run.
	changed = make(chan struct{}, 10)
	m = &storageversion.Migrator{Client: c, Log: testr.New(t), Changed: func() { changed <- struct{}{} }}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if pending, known := m.Pending(); !known || len(pending) != 0 || len(changed) != 1 {
		t.Errorf("Migrator.Pending once done: %q, %v (%d changes); want none, known, one change", pending, known, len(changed))
	}
	stdout.Reset()
	if code := cmd.Run(ctx, "migrate", []string{"--kubeconfig", kc}, &stdout, &stderr); code != 0 ||
		strings.Count(stdout.String(), "stored at v1beta1 already") != 2 {
		t.Errorf("migrate run again: exit %d, printed %q; want 0 and both CRDs already stored at v1beta1", code, stdout.String())
	}
}
