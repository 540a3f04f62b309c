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

package controllers

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

// TestPlanRunnerRegistrationTokens: plan says a token would be requested
// where the Secret lacks one, and a rotation not handled yet; a token kept
// is in sync, someone else's Secret a conflict, and without the cluster
// it cannot tell. It asks the forge for no token.
func TestPlanRunnerRegistrationTokens(t *testing.T) {
	ctx := context.Background()
	ff, fc, url := testForge(t, "acme")
	ff.ClearRequests()
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = forgev1.AddToScheme(scheme)
	owned := func(name, uid string, annotations map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, Annotations: annotations,
			Labels: map[string]string{runnerTokenLabel: name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: forgev1.GroupVersion.String(), Kind: runnerTokenKindName,
				Name: name, UID: types.UID("uid-" + uid), Controller: ptr.To(true)}}},
			Data: map[string][]byte{"token": []byte("kept-token"), "url": []byte(url)}}
	}
	live := func(name string) *forgev1.RunnerRegistrationToken {
		return &forgev1.RunnerRegistrationToken{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, UID: types.UID("uid-" + name)}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		owned("kept", "kept", nil), live("kept"),
		owned("rotated", "rotated", map[string]string{forgev1.RotateRequestedAtAnnotation: "1"}), live("rotated"),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "theirs"}, Data: map[string][]byte{"token": []byte("x")}},
	).Build()
	doc := func(name, annotations string) string {
		return fmt.Sprintf("apiVersion: forge.forgeops.dev/v1beta1\nkind: RunnerRegistrationToken\nmetadata: {name: %s, namespace: team%s}\n"+
			"spec:\n  forgeRef: {name: gitea}\n  organization: acme\n  secretName: %s\n", name, annotations, name)
	}
	manifests := planObjects(t, strings.Join([]string{
		doc("fresh", ""),
		doc("kept", ""),
		doc("rotated", ", annotations: {forge.forgeops.dev/rotate-requested-at: \"2\"}"),
		doc("theirs", ""),
	}, "---\n"))
	env := PlanEnv{Forge: fc, Server: forge.NewServer(fakeforge.DefaultVersion), WebURL: url, Namespace: "team", Reader: c}
	got := itemsByName(Plan(ctx, env, manifests))
	compareItems(t, map[string]plan.Item{
		"fresh": {Action: plan.Create, Changes: []plan.Change{{Field: "token", Forge: "none in Secret fresh", Spec: "would request a token"}}},
		"kept":  {Action: plan.InSync},
		"rotated": {Action: plan.Update, Changes: []plan.Change{{Field: "token", Forge: "kept in Secret rotated",
			Spec: `would request a token (forge.forgeops.dev/rotate-requested-at "2")`}}},
		"theirs": {Action: plan.Conflict, Reason: "Secret theirs was not created by this RunnerRegistrationToken: the operator never writes into a Secret it did not create (nor uses a token it did not write); delete it, or name another in spec.secretName"},
	}, got)

	env.Reader = nil
	got = map[string]plan.Item{}
	for _, it := range Plan(ctx, env, manifests) {
		got[it.Name] = it
	}
	if it := got["fresh"]; it.Action != plan.Unknown {
		t.Errorf("without the cluster: %+v, want unknown", it)
	}
	if w := ff.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan asked the forge for a token: %v", w)
	}
}
