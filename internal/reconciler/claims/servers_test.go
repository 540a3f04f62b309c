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

package claims

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
)

// TestOlder: of two holders of one forge object exactly one is older.
func TestOlder(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Second))
	obj := func(name string, ts metav1.Time) *forgev1.Label {
		return &forgev1.Label{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: ts}}
	}
	tests := []struct {
		a, b *forgev1.Label
		want bool
	}{
		{obj("z", t0), obj("a", t1), true},
		{obj("a", t1), obj("z", t0), false},
		// Created in the same second: the name decides, so exactly one of two is older.
		{obj("a", t0), obj("b", t0), true},
		{obj("b", t0), obj("a", t0), false},
	}
	for _, tt := range tests {
		if got := Older(tt.a, tt.b); got != tt.want {
			t.Errorf("older(%s@%s, %s@%s) = %t, want %t", tt.a.Name, tt.a.CreationTimestamp, tt.b.Name, tt.b.CreationTimestamp, got, tt.want)
		}
	}
}

// TestWins: a holder wins only with a record of the object, through a
// connection of the same server that is Ready; a spec alone holds nothing.
func TestWins(t *testing.T) {
	ready := types.NamespacedName{Namespace: "platform", Name: "gitea"}
	notReady := types.NamespacedName{Namespace: "tenant", Name: "gitea"}
	elsewhere := types.NamespacedName{Namespace: "other", Name: "gitea"}
	s := &Servers{own: ready, same: map[types.NamespacedName]bool{ready: true, notReady: true},
		ready: map[types.NamespacedName]bool{ready: true, notReady: false}}
	holder := func(at types.NamespacedName) *forgev1.Repository {
		r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: at.Namespace, Name: "web"}}
		r.Spec.ForgeRef.Name = at.Name
		return r
	}
	tests := []struct {
		reason   string
		at       types.NamespacedName
		recorded bool
		want     bool
	}{
		{"a record through a Ready connection wins", ready, true, true},
		{"a spec with no record holds nothing", ready, false, false},
		{"a connection that is not Ready wins nothing, record or not", notReady, true, false},
		{"a spec under a connection that is not Ready holds nothing", notReady, false, false},
		{"a connection of another server holds nothing", elsewhere, true, false},
	}
	for _, tt := range tests {
		if got := s.Wins(context.Background(), holder(tt.at), tt.recorded); got != tt.want {
			t.Errorf("%s: Wins = %t, want %t", tt.reason, got, tt.want)
		}
	}
}
