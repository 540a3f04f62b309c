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
	"fmt"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler/shards"
)

// shardForge is a Forge of server url created at created, labelled with
// shard unless it is "".
func shardForge(namespace, name, url, shard string, created metav1.Time) *forgev1.Forge {
	f := &forgev1.Forge{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: created},
		Spec: forgev1.ForgeSpec{URL: url}}
	if shard != "" {
		f.Labels = map[string]string{forgev1.ShardLabel: shard}
	}
	return f
}

// electionLease is shard's leader-election Lease in the passes' operator
// namespace: held and renewed now when running, else last renewed an hour
// ago (a shard retired, or whose manager died).
func electionLease(shard string, running bool) *coordinationv1.Lease {
	renewed := metav1.NewMicroTime(time.Now())
	if !running {
		renewed = metav1.NewMicroTime(time.Now().Add(-time.Hour))
	}
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leasesNS, Name: shards.LeaderElectionID(shard)},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: new("pod"), RenewTime: &renewed, LeaseDurationSeconds: new(int32(15))}}
}

// TestPassOfAnotherShard: a manager passes only over the resources of the
// servers its shard is to have and holds (the Lease); a resource of a
// server it hands over or awaits, Ready or being deleted, is left exactly
// as it was: no forge call, no status, label or finalizer write.
func TestPassOfAnotherShard(t *testing.T) {
	both := []string{"", "eu-1"}
	older := shardForge("team", "older", forgeSpec.URL, "eu-1", t0)
	olderDefault := shardForge("team", "older", forgeSpec.URL, "", t0)
	ready := `True Created: created`
	for name, tc := range map[string]struct {
		env    passEnv
		obj    *forgev1.Label
		others []client.Object
		served bool
	}{
		"default manager, its server moving to eu-1": {env: passEnv{forgeShard: "eu-1", managers: both}, obj: label(readyAt(7))},
		"default manager, deleting, its server moving": {env: passEnv{forgeShard: "eu-1", managers: both},
			obj: label(readyAt(7), deleting(forgev1.DeletionPolicyDelete))},
		"default manager, its server labelled for a shard with no manager": {env: passEnv{forgeShard: "eu-2", managers: both},
			obj: label(readyAt(7)), served: true},
		"default manager, its server labelled for a shard whose manager stopped": {env: passEnv{forgeShard: "eu-1", managers: []string{""}, stopped: []string{"eu-1"}},
			obj: label(readyAt(7)), served: true},
		"shard manager, awaiting its server":      {env: passEnv{shard: "eu-1", forgeShard: "eu-1"}, obj: label(readyAt(7))},
		"shard manager, awaiting it from another": {env: passEnv{shard: "eu-1", forgeShard: "eu-1", holder: "us-1"}, obj: label(readyAt(7))},
		"shard manager, handing its server back":  {env: passEnv{shard: "eu-1", holder: "eu-1", managers: both}, obj: label(readyAt(7))},
		"shard manager, its server held":          {env: passEnv{shard: "eu-1", forgeShard: "eu-1", holder: "eu-1"}, obj: label(readyAt(7)), served: true},
		"default manager, unlabelled":             {env: passEnv{}, obj: label(readyAt(7)), served: true},
		"an older Forge of the server labelled decides": {env: passEnv{shard: "eu-1", forgeCreated: t1, holder: "eu-1"},
			obj: label(readyAt(7)), others: []client.Object{older}, served: true},
		"an older unlabelled Forge of the server decides": {env: passEnv{shard: "eu-1", forgeShard: "eu-1", forgeCreated: t1, holder: "eu-1", managers: both},
			obj: label(readyAt(7)), others: []client.Object{olderDefault}},
	} {
		t.Run(name, func(t *testing.T) {
			ext := &fakeExternal{observe: Observation{Exists: true, ID: 7}}
			got, writes := runPassIn(t, tc.env, fakeKind{ext: ext}, func() []string { return ext.calls },
				append([]client.Object{tc.obj}, tc.others...)...)
			switch {
			case tc.served && len(got.Calls) == 0:
				t.Errorf("its shard's resource was not passed over: %+v", got)
			case !tc.served && (len(got.Calls) != 0 || len(writes) != 0 || got.Ready != ready || !got.Finalizer || len(got.Events) != 0):
				t.Errorf("another shard's resource: calls %v, writes %v, Ready %q, finalizer %t, Events %v; want none, none, %q, kept, none",
					got.Calls, writes, got.Ready, got.Finalizer, got.Events, ready)
			}
		})
	}
}

// TestStrayResourcesAreRelabelled: a resource in the cache of a manager
// that neither holds nor is to have its server (a new resource of a
// sharded server in the default manager's cache, or one a move left
// behind) is relabelled for its server's shard with one metadata patch,
// and nothing else; one of the manager's own server keeps its label.
func TestStrayResourcesAreRelabelled(t *testing.T) {
	inShard := func(shard string) func(*forgev1.Label) {
		return func(l *forgev1.Label) { l.Labels = map[string]string{forgev1.ShardLabel: shard} }
	}
	for name, tc := range map[string]struct {
		env            passEnv
		obj            *forgev1.Label
		shard          string
		writes, served bool
	}{
		"new, of a sharded server":                {env: passEnv{forgeShard: "eu-1", holder: "eu-1"}, obj: label(), shard: "eu-1", writes: true},
		"waiting for its Forge, of a sharded one": {env: passEnv{forgeShard: "eu-1", holder: "eu-1"}, obj: label(waited), shard: "eu-1", writes: true},
		"served here before its server moved":     {env: passEnv{forgeShard: "eu-1", holder: "eu-1"}, obj: label(readyAt(7)), shard: "eu-1", writes: true},
		"of a server moving between two others":   {env: passEnv{forgeShard: "eu-1", holder: "us-1"}, obj: label(known), shard: "eu-1", writes: true},
		"in a shard, of another shard's server": {env: passEnv{shard: "us-1", forgeShard: "eu-1", holder: "eu-1"},
			obj: label(readyAt(7), inShard("us-1")), shard: "eu-1", writes: true},
		"in a shard, of the default shard's server": {env: passEnv{shard: "us-1"}, obj: label(readyAt(7), inShard("us-1")), writes: true},
		"new, of the default shard's server":        {env: passEnv{}, obj: label(), writes: true, served: true},
	} {
		t.Run(name, func(t *testing.T) {
			before := ""
			if c := meta.FindStatusCondition(tc.obj.Status.Conditions, forgev1.ConditionReady); c != nil {
				before = fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
			}
			finalizer := len(tc.obj.Finalizers) > 0
			ext := &fakeExternal{created: Observation{Exists: true, ID: 7}}
			got, writes := runPassIn(t, tc.env, fakeKind{ext: ext}, func() []string { return ext.calls }, tc.obj)
			if got.Shard != tc.shard || (len(writes) > 0) != tc.writes || (len(got.Calls) > 0) != tc.served {
				t.Errorf("shard label %q, writes %v, forge calls %v; want label %q, writes %t, calls %t", got.Shard, writes, got.Calls, tc.shard, tc.writes, tc.served)
			}
			if !tc.served && (!slices.Equal(writes, []string{"metadata"}) || got.Ready != before || got.Finalizer != finalizer) {
				t.Errorf("handed to its shard with writes %v, Ready %q, finalizer %t; want one metadata patch and nothing else (Ready %q)",
					writes, got.Ready, got.Finalizer, before)
			}
		})
	}
}

// waited is a Label whose pass found no Forge yet: a status, nothing more.
func waited(l *forgev1.Label) {
	l.Status.ObservedGeneration = l.Generation
	l.Status.Conditions = []metav1.Condition{{Type: forgev1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: forgev1.ReasonForgeNotReady, Message: `Forge "gitea" not found`, ObservedGeneration: l.Generation, LastTransitionTime: t0}}
}

// known is a Label whose read-only pass recorded the forge object it found.
func known(l *forgev1.Label) {
	waited(l)
	l.Status.ID = 7
}
