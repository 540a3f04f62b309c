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
	"reflect"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// TestReadOnly calls every method of Interface through ReadOnly: reads
// reach the forge, every other method fails with ErrReadOnly and sends
// nothing, so plan cannot write whatever the kinds' code calls.
func TestReadOnly(t *testing.T) {
	fake, srv := fakeforge.NewTestServer(t)
	if _, err := fake.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ro := forge.ReadOnly(fc)
	if org, err := ro.GetOrg(context.Background(), "acme"); err != nil || org.Name != "acme" {
		t.Fatalf("a read through ReadOnly: %v %v", org, err)
	}
	it := reflect.TypeFor[forge.Interface]()
	v := reflect.ValueOf(ro)
	writes := 0
	for i := range it.NumMethod() {
		m := it.Method(i)
		if strings.HasPrefix(m.Name, "Get") || strings.HasPrefix(m.Name, "List") || m.Name == "Version" || m.Name == "CurrentUser" || m.Name == "CurrentToken" {
			continue
		}
		writes++
		args := []reflect.Value{reflect.ValueOf(context.Background())}
		for j := 1; j < m.Type.NumIn(); j++ {
			args = append(args, reflect.Zero(m.Type.In(j)))
		}
		out := v.MethodByName(m.Name).Call(args)
		err, _ := out[len(out)-1].Interface().(error)
		if !errors.Is(err, forge.ErrReadOnly) {
			t.Errorf("%s through ReadOnly returned %v, want ErrReadOnly", m.Name, err)
		}
	}
	if writes < 14 {
		t.Fatalf("only %d write methods found in Interface", writes)
	}
	if w := fake.WriteRequests(); len(w) != 0 {
		t.Fatalf("ReadOnly sent writes: %v", w)
	}
}
