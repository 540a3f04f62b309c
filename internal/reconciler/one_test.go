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
	"testing"

	"github.com/google/go-cmp/cmp"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
)

func TestOne(t *testing.T) {
	type item struct {
		id   int64
		name string
	}
	items := []item{{1, "bug"}, {2, "docs"}, {3, "bug"}, {4, "feature"}, {7, "bug"}}
	tests := []struct {
		name    string
		want    string
		found   *item
		message string // of the Conflict stall, "" when none
	}{
		{name: "none", want: "wontfix"},
		{name: "one", want: "docs", found: &item{2, "docs"}},
		{name: "several", want: "bug",
			message: `3 labels named "bug" exist in acme/web (ids 1, 3, 7); delete all but one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := One(items, func(i item) bool { return i.name == tt.want }, func(i item) int64 { return i.id },
				`labels named "`+tt.want+`" exist in acme/web`, "delete all but one")
			if diff := cmp.Diff(tt.found, got, cmp.AllowUnexported(item{})); diff != "" {
				t.Errorf("found (-want +got):\n%s", diff)
			}
			if tt.message == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			le, ok := asError(err)
			if !ok {
				t.Fatalf("error %v is not a loop Error", err)
			}
			if diff := cmp.Diff(Error{State: conditions.Stalled, Reason: forgev1.ReasonConflict, Message: tt.message}, *le); diff != "" {
				t.Errorf("stall (-want +got):\n%s", diff)
			}
		})
	}
}
