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

package secrets

import (
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// TestDiffers: a value differs from the one last sent when its digest does,
// whatever Secret or version it now comes from; a record without digest
// compares by Secret version.
func TestDiffers(t *testing.T) {
	sent := forgev1.AppliedSecret{Field: "secret", Name: "s", Key: "k", ResourceVersion: "1", Digest: "hmac-sha256:A"}
	with := func(mut func(*forgev1.AppliedSecret)) []forgev1.AppliedSecret {
		a := sent
		mut(&a)
		return []forgev1.AppliedSecret{a}
	}
	same := func(*forgev1.AppliedSecret) {}
	for _, tc := range []struct {
		reason     string
		have, want []forgev1.AppliedSecret
		differs    bool
	}{
		{"no secret before or now", nil, nil, false},
		{"the same value in a newer Secret version", with(same), with(func(a *forgev1.AppliedSecret) { a.ResourceVersion = "2" }), false},
		{"the same value from another Secret", with(same), with(func(a *forgev1.AppliedSecret) { a.Name, a.Key = "t", "x" }), false},
		{"a new value", with(same), with(func(a *forgev1.AppliedSecret) { a.ResourceVersion, a.Digest = "2", "hmac-sha256:B" }), true},
		{"a secret set where none was sent (an adopted hook)", nil, with(same), true},
		{"a secret dropped from the spec", with(same), nil, true},
		{"a record without digest, same version", with(func(a *forgev1.AppliedSecret) { a.Digest = "" }), with(same), false},
		{"a record without digest, newer version", with(func(a *forgev1.AppliedSecret) { a.Digest = "" }),
			with(func(a *forgev1.AppliedSecret) { a.ResourceVersion = "2" }), true},
	} {
		if got := Differs(tc.have, tc.want, "secret"); got != tc.differs {
			t.Errorf("%s: Differs = %v, want %v", tc.reason, got, tc.differs)
		}
	}
}
