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

// TestSent: the memory answers only for the forge object it was
// sent to, and stands over status until forgotten.
func TestSent(t *testing.T) {
	a := []forgev1.AppliedSecret{{Field: "secret", Digest: "hmac-sha256:k:A"}}
	b := []forgev1.AppliedSecret{{Field: "secret", Digest: "hmac-sha256:k:B"}}
	s := NewSent()
	if got := s.Have("u", 7, a); got[0].Digest != a[0].Digest {
		t.Fatalf("nothing sent: %v, want status", got)
	}
	s.Sent("u", 7, b)
	if got := s.Have("u", 7, a); got[0].Digest != b[0].Digest {
		t.Fatalf("B sent to 7, status A: %v, want B", got)
	}
	if got := s.Have("u", 8, a); got[0].Digest != a[0].Digest {
		t.Fatalf("another hook: %v, want status", got)
	}
	s.Forget("u", 8) // the old hook of a replacement: keeps what 7 got
	if got := s.Have("u", 7, a); got[0].Digest != b[0].Digest {
		t.Fatalf("after deleting another hook: %v, want B", got)
	}
	s.Forget("u", 7)
	if got := s.Have("u", 7, a); got[0].Digest != a[0].Digest {
		t.Fatalf("forgotten: %v, want status", got)
	}
	var none *Sent // plan keeps no memory
	if got := none.Have("u", 7, a); got[0].Digest != a[0].Digest {
		t.Fatalf("no memory: %v, want status", got)
	}
}
