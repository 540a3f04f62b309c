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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/files"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// pushCases: which pushes concern files kept on branch (nil: the
// default branch).
var pushCases = func() []struct {
	name         string
	branch       *string
	pushed, dflt string
	want         bool
} {
	release := "release"
	return []struct {
		name         string
		branch       *string
		pushed, dflt string
		want         bool
	}{
		{"the default branch, pushed", nil, "main", "main", true},
		{"the default branch, another pushed", nil, "feature", "main", false},
		{"a named branch, pushed", &release, "release", "main", true},
		{"a named branch, the default pushed", &release, "main", "main", false},
		{"a delivery telling no default branch", nil, "main", "", true},
	}
}()

// A push concerns a FileSet only on the branch it keeps its files on in
// the pushed repository (spec.branch, else the default branch the delivery
// tells), and then the set's next pass compares that repository again and
// no other.
func TestFileSetPushedOnItsBranch(t *testing.T) {
	for _, c := range pushCases {
		t.Run(c.name, func(t *testing.T) {
			k := fileSetKind{Store: rounds.NewStore[sets.Repo](), pushes: &files.Pushes{}}
			s := &forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "platform", UID: "u", Generation: 1}}
			s.Spec.Branch = c.branch
			pass := &reconciler.Pass{Interval: time.Hour}
			web, api := sets.Repo{Owner: "acme", Name: "web"}, sets.Repo{Owner: "acme", Name: "api"}
			rd := k.Begin(s, true, pass, time.Now())
			rd.Record(web, nil)
			rd.Record(api, nil)
			rd.Complete([]sets.Repo{web, api})

			got := k.Pushed(s, reconciler.Wake{Event: forgev1.ReceiverEventPush, Owner: "acme", Repo: "web", Branch: c.pushed, DefaultBranch: c.dflt})
			if got != c.want {
				t.Fatalf("Pushed = %v, want %v", got, c.want)
			}
			rd = k.Begin(s, true, pass, time.Now())
			if rd.Done(web) == c.want || !rd.Done(api) {
				t.Errorf("next pass: web done %v, api done %v; want web compared again only when the push concerns the set, api never", rd.Done(web), rd.Done(api))
			}
		})
	}
}

// A RepositoryFile is woken by a push to the branch it keeps its files
// on, no other.
func TestRepositoryFilePushedOnItsBranch(t *testing.T) {
	for _, c := range pushCases {
		t.Run(c.name, func(t *testing.T) {
			f := &forgev1.RepositoryFile{}
			f.Spec.Branch = c.branch
			got := repositoryFileKind{}.Pushed(f, reconciler.Wake{Event: forgev1.ReceiverEventPush, Owner: "acme", Repo: "web", Branch: c.pushed, DefaultBranch: c.dflt})
			if got != c.want {
				t.Fatalf("Pushed = %v, want %v", got, c.want)
			}
		})
	}
}
