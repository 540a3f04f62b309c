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
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/receiver"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// A Receiver on a manager that serves no endpoint stalls before it reads
// or writes anything, saying how to serve one.
func TestReceiverStallsWithoutAnEndpoint(t *testing.T) {
	r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "events", UID: "u1"},
		Spec: forgev1.ReceiverSpec{Organizations: []forgev1.OwnerName{"acme"}, URL: "https://receiver.example.com"}}
	writer := fake.NewClientBuilder().Build()
	for name, ep := range map[string]*receiver.Endpoint{"no endpoint": nil, "no address": receiver.New("")} {
		_, err := receiverKind{endpoint: ep}.ConnectSet(context.Background(), r, &reconciler.Pass{Writer: writer, Reader: writer})
		c, ok := reconciler.Classify(err)
		if !ok || c.State != conditions.Stalled || c.Reason != forgev1.ReasonEndpointNotServed {
			t.Fatalf("%s: %v (%+v), want Stalled %s", name, err, c, forgev1.ReasonEndpointNotServed)
		}
		if want := "--receiver-bind-address"; !strings.Contains(c.Message, want) {
			t.Errorf("%s: message %q does not name %s", name, c.Message, want)
		}
	}
}

// The path a Receiver is served at moves with its secret and differs
// between two Receivers of one secret.
func TestReceiverPath(t *testing.T) {
	a, b := receiverPath("uid-a", "s1"), receiverPath("uid-b", "s1")
	if a == b || a == receiverPath("uid-a", "s2") {
		t.Errorf("paths do not depend on both the uid and the secret: %s %s", a, b)
	}
	if a != receiverPath("uid-a", "s1") {
		t.Errorf("the path of one uid and secret changed")
	}
}

// Through a ClusterForge, every organization a Receiver names is an owner
// its tenants entry must allow, as for every kind.
func TestReceiverOrganizationsAreItsOwners(t *testing.T) {
	cf := &forgev1.ClusterForge{}
	cf.Spec.Tenants = []forgev1.ClusterForgeTenant{{Namespaces: []string{"team-a"}, Owners: []forgev1.OwnerGlob{"acme"}}}
	r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "events"}}
	r.Spec.Organizations = []forgev1.OwnerName{"acme"}
	if p := claims.Permits(cf, r.Namespace, nil, r.ForgeOwners(), forgev1.NeedsSiteAdmin(r)); !p.Allowed {
		t.Fatalf("a Receiver of acme, which the tenants entry allows, is refused: %s", p.Why)
	}
	r.Spec.Organizations = []forgev1.OwnerName{"acme", "beta"}
	p := claims.Permits(cf, r.Namespace, nil, r.ForgeOwners(), forgev1.NeedsSiteAdmin(r))
	if p.Allowed || !strings.Contains(p.Why, "beta") {
		t.Fatalf("a Receiver also naming beta, which the tenants entry does not allow: allowed %v (%s)", p.Allowed, p.Why)
	}
}

// turnLaterHooks answers a hook listing as Snapshots do for a routine
// check whose turn in the forge's drift lane comes later.
type turnLaterHooks struct{ forge.HooksClient }

func (turnLaterHooks) ListHooks(context.Context, forge.Scope) ([]forge.Hook, error) {
	return nil, &forge.TurnError{At: time.Now().Add(10 * time.Second)}
}

// A Receiver's check whose hook listing gives way gives way whole, as a
// set's does: no organization fails (a failure without a reason, which
// left the last Ready standing and the check never taking its turn), and
// the hooks recorded stay.
func TestReceiverGivesWayWhole(t *testing.T) {
	r := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "events", UID: "u1"},
		Spec: forgev1.ReceiverSpec{Organizations: []forgev1.OwnerName{"acme"}, URL: "https://receiver.example.com"}}
	r.Status.Hooks = []forgev1.ReceiverHook{{Organization: "acme", ID: 7}}
	e := &receiverSet{obj: r, pass: &reconciler.Pass{}, endpoint: receiver.New("127.0.0.1:0"), fc: turnLaterHooks{},
		secretValue: "s3cret", path: receiverPath(r.UID, "s3cret")}
	res, err := e.Sync(context.Background(), true)
	if !errors.Is(err, forge.ErrYield) {
		t.Fatalf("Sync = %+v, %v; want the check to give way", res, err)
	}
	if c, ok := reconciler.Classify(err); !ok || !c.Yield {
		t.Fatalf("giving way classified as %+v (known %v), want a yield", c, ok)
	}
	if len(r.Status.Failures) != 0 || len(res.Failures) != 0 {
		t.Errorf("failures recorded for a check that gave way: %+v %+v", r.Status.Failures, res.Failures)
	}
	if len(r.Status.Hooks) != 1 || r.Status.Hooks[0].ID != 7 {
		t.Errorf("hooks = %+v, want the recorded one kept", r.Status.Hooks)
	}
}
