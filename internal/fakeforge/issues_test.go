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

package fakeforge

import (
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The Go-side helpers a controller spec uses to set a scene and to read
// the outcome: archive a repository, open a pull request, read issues.
func TestIssueHelpers(t *testing.T) {
	s, _, c := setup(t)
	sc := forge.RepoScope("acme", "web")
	bug, err := c.CreateLabel(bg(t), sc, forge.CreateLabelOption{Name: "bug", Color: "#f00"})
	if err != nil {
		t.Fatal(err)
	}
	is, err := c.CreateIssue(bg(t), "acme", "web", forge.CreateIssueOption{Title: "broken", Labels: []int64{bug.ID}})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := s.AddPullRequest("acme", "web", "fix", bug.ID)
	if err != nil || pr != is.Number+1 {
		t.Fatalf("pull request number %d (%v), want %d", pr, err, is.Number+1)
	}
	if _, err := c.EditLabel(bg(t), sc, bug.ID, forge.EditLabelOption{Name: ptr("kind/bug")}); err != nil {
		t.Fatal(err)
	}
	got := s.Issues("acme", "web")
	if len(got) != 2 || !got[0].IsPull() || got[1].IsPull() || got[1].Number != is.Number {
		t.Fatalf("issues newest first: %+v", got)
	}
	for _, i := range got {
		if len(i.Labels) != 1 || i.Labels[0].Name != "kind/bug" || i.Labels[0].ID != bug.ID {
			t.Fatalf("#%d labels after the rename: %+v", i.Number, i.Labels)
		}
	}

	s.SetArchived("acme", "web", true)
	repos, err := c.ListOrgRepos(bg(t), "acme")
	if err != nil || len(repos) != 1 || !repos[0].Archived {
		t.Fatalf("listing after SetArchived: %+v %v", repos, err)
	}
	if r, ok := s.Repo("acme", "web"); !ok || !r.Archived {
		t.Fatalf("Repo after SetArchived: %+v", r)
	}
	if _, err := s.AddPullRequest("acme", "web", "late"); err == nil {
		t.Fatal("a pull request opened in an archived repository")
	}
	if s.Issues("acme", "missing") != nil {
		t.Fatal("issues of an unknown repository")
	}
}

func ptr[T any](v T) *T { return &v }
