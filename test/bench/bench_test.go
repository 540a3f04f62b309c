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

// Package bench measures the forge client and the fake forge: time and
// memory per call, printed by `make bench`. Figures are for comparison
// between changes on the same machine, never asserted.
package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

const token = "bench-token"

// setup starts a fake forge over real HTTP with an organization, a
// repository holding n labels, and returns a client for it.
func setup(b *testing.B, n int) (*forge.Client, forge.Scope) {
	b.Helper()
	fake, srv := fakeforge.NewTestServer(b, fakeforge.WithToken(token))
	_ = fake
	c, err := forge.New(forge.Config{Name: "bench", URL: srv.URL, Token: token, QPS: 1e6, Burst: 1e6})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}); err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}); err != nil {
		b.Fatal(err)
	}
	scope := forge.Scope{Owner: "acme", Repo: "web"}
	for i := range n {
		if _, err := c.CreateLabel(ctx, scope, forge.CreateLabelOption{Name: fmt.Sprintf("label-%04d", i), Color: "#00aabb"}); err != nil {
			b.Fatal(err)
		}
	}
	return c, scope
}

// BenchmarkListLabels is the drift check's read of a whole label set,
// following pages of 50 to the end.
func BenchmarkListLabels(b *testing.B) {
	for _, n := range []int{10, 200, 1000} {
		b.Run(fmt.Sprintf("labels=%d", n), func(b *testing.B) {
			c, scope := setup(b, n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				all, err := c.ListLabels(ctx, scope)
				if err != nil || len(all) != n {
					b.Fatalf("listed %d of %d: %v", len(all), n, err)
				}
			}
		})
	}
}

// BenchmarkGetLabel is the drift check of one label known by id.
func BenchmarkGetLabel(b *testing.B) {
	c, scope := setup(b, 1)
	ctx := context.Background()
	all, err := c.ListLabels(ctx, scope)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetLabel(ctx, scope, all[0].ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditLabel is one drift correction.
func BenchmarkEditLabel(b *testing.B) {
	c, scope := setup(b, 1)
	ctx := context.Background()
	all, err := c.ListLabels(ctx, scope)
	if err != nil {
		b.Fatal(err)
	}
	colors := []string{"#112233", "#445566"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := c.EditLabel(ctx, scope, all[0].ID, forge.EditLabelOption{Color: &colors[i%2]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
