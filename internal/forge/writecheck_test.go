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

package forge_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestWriteCheck: a write whose context's check fails is not sent and
// fails with the check's error; reads are not checked; a passing check
// lets the write go.
func TestWriteCheck(t *testing.T) {
	fake := fakeforge.New()
	ts := httptest.NewServer(fake)
	t.Cleanup(ts.Close)
	c, err := forge.New(forge.Config{URL: ts.URL, Token: fakeforge.DefaultToken, QPS: -1})
	mustNoErr(t, err)

	refused := errors.New("namespace no longer permitted")
	allow := false
	checks := 0
	cx := forge.WithWriteCheck(ctx(t), func(context.Context) error {
		checks++
		if allow {
			return nil
		}
		return refused
	})
	if _, err := c.CreateOrg(cx, forge.CreateOrgOption{Name: "acme"}); !errors.Is(err, refused) {
		t.Fatalf("create under a failing check: %v", err)
	}
	if n := len(fake.WriteRequests()); n != 0 {
		t.Fatalf("%d writes sent under a failing check", n)
	}
	if _, err := c.Version(cx); err != nil || checks != 1 {
		t.Fatalf("a read is not checked: %v, %d checks", err, checks)
	}
	allow = true
	if _, err := c.CreateOrg(cx, forge.CreateOrgOption{Name: "acme"}); err != nil || checks != 2 {
		t.Fatalf("create under a passing check: %v, %d checks", err, checks)
	}
	if _, ok := fake.Org("acme"); !ok || len(fake.WriteRequests()) != 1 {
		t.Fatalf("the organization was not made in one write: %v", fake.WriteRequests())
	}
}
