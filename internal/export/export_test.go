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

package export_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// walkForge is a fake forge holding organization acme with repositories
// web, old (archived) and api.
func walkForge(t *testing.T) *forge.Client {
	t.Helper()
	fake, srv := fakeforge.NewTestServer(t)
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := fc.CreateOrg(ctx, forge.CreateOrgOption{Name: "acme"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"web", "old", "api"} {
		if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: r}); err != nil {
			t.Fatal(err)
		}
	}
	fake.SetArchived("acme", "old", true)
	return fc
}

// tracer gives writers of each part of the walk that log where they run.
type tracer struct{ log []string }

func (tr *tracer) writers() []export.Writer {
	return []export.Writer{
		export.ForOrganization(func(_ context.Context, b *export.Builder, _ any, o *forge.Organization) error {
			tr.log = append(tr.log, "organization "+o.Name)
			b.Add(&forgev1.Organization{TypeMeta: export.TypeMeta("Organization"), ObjectMeta: b.Meta("Organization", o.Name, o.ID),
				Spec: forgev1.OrganizationSpec{ManagedSpec: b.Managed(), Name: export.Ptr(forgev1.OwnerName(o.Name))}}, "a comment")
			return nil
		}),
		export.ForRepository(func(_ context.Context, _ *export.Builder, _ any, owner string, r forge.Repository) error {
			tr.log = append(tr.log, fmt.Sprintf("repository %s/%s archived=%v", owner, r.Name, r.Archived))
			return nil
		}),
		export.ForScope(func(_ context.Context, _ *export.Builder, _ any, sc forge.Scope) error {
			tr.log = append(tr.log, "scope "+sc.String())
			return nil
		}),
		export.ForLiveRepository(func(_ context.Context, _ *export.Builder, _ any, owner, repo string) error {
			tr.log = append(tr.log, "live "+owner+"/"+repo)
			return nil
		}),
		export.Aggregate(func(_ context.Context, _ any, sc forge.Scope) ([]string, error) {
			tr.log = append(tr.log, "collect "+sc.String())
			if sc.Repo == "api" {
				return nil, nil // holds none: not given to write
			}
			return []string{sc.Repo}, nil
		}, func(_ *export.Builder, org string, repos []export.RepoObjects[string]) {
			tr.log = append(tr.log, fmt.Sprintf("aggregate %s %v", org, repos))
		}),
	}
}

// TestExportWalk: the writers run in their order, the organization's and
// its scope's first, then per repository (sorted by name) the
// repository's, and for a live one its scope's, its own and the
// aggregates' collection; the aggregates write last, each export with a
// collection of its own.
func TestExportWalk(t *testing.T) {
	fc := walkForge(t)
	tr := &tracer{}
	opts := export.Options{Org: "acme", Namespace: "team-a", Server: "https://git.example.com",
		Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), Writers: tr.writers()}
	want := []string{
		"organization acme", "scope acme",
		"repository acme/api archived=false", "scope acme/api", "live acme/api", "collect acme/api",
		"repository acme/old archived=true",
		"repository acme/web archived=false", "scope acme/web", "live acme/web", "collect acme/web",
		"aggregate acme [{acme/web [web]}]",
	}
	for range 2 { // the writers are values a program keeps: the second export starts afresh
		tr.log = nil
		var out bytes.Buffer
		if err := export.Export(context.Background(), fc, opts, &out); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tr.log, want) {
			t.Errorf("the walk ran\n  %s\nwant\n  %s", strings.Join(tr.log, "\n  "), strings.Join(want, "\n  "))
		}
		for _, w := range []string{"# forge-operator export of organization acme from https://git.example.com (server version ",
			"---\n# a comment\napiVersion: forge.forgeops.dev/v1beta1\nkind: Organization\nmetadata:\n  name: acme\n  namespace: team-a\nspec:\n  forgeRef:\n    name: gitea\n  name: acme\n"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("the export lacks %q:\n%s", w, out.String())
			}
		}
	}
}

// TestExportRefusesASourceAWriterCannotRead: a writer reading what the
// source does not offer fails the export before it reads anything.
func TestExportRefusesASourceAWriterCannotRead(t *testing.T) {
	type milestones interface {
		ListMilestones(ctx context.Context, owner, repo string) ([]string, error)
	}
	fc := walkForge(t)
	ran := false
	opts := export.Options{Org: "acme", Writers: []export.Writer{
		export.ForOrganization(func(context.Context, *export.Builder, any, *forge.Organization) error { ran = true; return nil }),
		export.ForLiveRepository(func(context.Context, *export.Builder, milestones, string, string) error { return nil }),
	}}
	var out bytes.Buffer
	err := export.Export(context.Background(), fc, opts, &out)
	if err == nil || !strings.Contains(err.Error(), "cannot read as export_test.milestones") {
		t.Errorf("Export = %v, want an error naming the interface the source lacks", err)
	}
	if ran || out.Len() > 0 {
		t.Errorf("the export ran a writer or wrote %q before refusing", out.String())
	}
}

func TestParseForgeRefRefusesWhatNamesNoConnection(t *testing.T) {
	for in, want := range map[string]string{
		"":                  `no name in ""`,
		"ClusterForge/":     `no name in "ClusterForge/"`,
		"Gitea/shared":      `unknown kind "Gitea" in "Gitea/shared": want NAME, Forge/NAME or ClusterForge/NAME`,
		"/shared":           `unknown kind "" in "/shared"`,
		"ClusterForge/a/b":  `"a/b" is not a ClusterForge's name`,
		"Shared_Forge":      `"Shared_Forge" is not a Forge's name`,
		"clusterforge/UP":   `"UP" is not a ClusterForge's name`,
		"ClusterForges/abc": `unknown kind "ClusterForges"`,
	} {
		if _, err := export.ParseForgeRef(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseForgeRef(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

// TestEachByID: a writer's objects come out in the order of their ids,
// whatever the order the forge listed them in (so that exporting twice
// writes one stream), and a listing that failed is an error naming it.
func TestEachByID(t *testing.T) {
	type obj struct {
		id   int64
		name string
	}
	id := func(o obj) int64 { return o.id }
	var got []string
	err := export.EachByID([]obj{{3, "c"}, {1, "a"}, {2, "b"}}, nil, "deploy keys of acme/web", id,
		func(o obj) { got = append(got, o.name) })
	if err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("EachByID added %v (error %v), want [a b c] in the order of their ids", got, err)
	}
	got = nil
	err = export.EachByID(nil, fmt.Errorf("500 internal error"), "deploy keys of acme/web", id,
		func(o obj) { got = append(got, o.name) })
	if want := "list the deploy keys of acme/web: 500 internal error"; err == nil || err.Error() != want || got != nil {
		t.Errorf("a failed listing: error %v, added %v; want %q and nothing added", err, got, want)
	}
}
