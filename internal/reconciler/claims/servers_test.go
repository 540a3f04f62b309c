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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
