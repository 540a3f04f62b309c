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

package reconciler

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// repoLabelKind is a Label kind that lives in repositories.
type repoLabelKind struct{ fakeKind }

func (repoLabelKind) RepoRefs(l *forgev1.Label) []string {
	if l.Spec.Repository == nil {
		return nil
	}
	return []string{string(*l.Spec.Repository)}
}

// A Repository that becomes Ready requeues at once the resources waiting
// in it (by name, any case, under the same Forge), and only those: the
// wait for a parent ends with the watch, not with the next backoff.
func TestRepositoryReadyRequeuesTheResourcesInIt(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, forgev1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	label := func(name, forgeRef string, repo *forgev1.RepositoryName) *forgev1.Label {
		return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: forgev1.LabelSpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: forgeRef}},
				Repository: repo, Name: name, Color: "fff"}}
	}
	web, api := forgev1.RepositoryName("Acme/WEB"), forgev1.RepositoryName("acme/api")
	kind := repoLabelKind{fakeKind{}}
	b := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		label("in-web", "gitea", &web), label("in-api", "gitea", &api),
		label("other-forge", "other", &web), label("org-wide", "gitea", nil))
	for name, fn := range indexers[*forgev1.Label](kind) {
		b = b.WithIndex(&forgev1.Label{}, name, fn)
	}
	r := &Reconciler[*forgev1.Label]{client: b.Build(), kind: kind}

	repo := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Generation: 1},
		Spec: forgev1.RepositorySpec{ManagedSpec: forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}}, Owner: "acme"}}
	var got []string
	for _, req := range r.forRepository(context.Background(), repo) {
		got = append(got, req.Name)
	}
	if !slices.Equal(got, []string{"in-web"}) {
		t.Errorf("a Ready acme/web requeues %v, want [in-web]", got)
	}

	ready := repo.DeepCopy()
	ready.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionTrue,
		Reason: forgev1.ReasonCreated, ObservedGeneration: 1}}
	for _, tc := range []struct {
		name     string
		old, new client.Object
		want     bool
	}{
		{"becomes Ready", repo, ready, true},
		{"stays Ready", ready, ready.DeepCopy(), false},
		{"stops being Ready", ready, repo, false},
	} {
		if got := (becameReady{}).Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: passes %v, want %v", tc.name, got, tc.want)
		}
	}
}
