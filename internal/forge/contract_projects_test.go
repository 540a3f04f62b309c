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
	"testing"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// The project behaviours are what the Project kind relies on: the API where
// the server has it, route-not-found where it has none. TestContract runs
// them.
var _ = registerBehaviours("project", []behaviour{
	{"projects/lifecycle", contractProjects, needProjects},
	{"projects/validation", contractProjectValidation, needProjects},
	{"projects/missing API is route-not-found", contractProjectsMissing, needNoProjects},
})

// needProjects: the lifecycle checks need a server with the projects API
// (the fake; no released Gitea has it yet).
func needProjects(tg *target) string {
	if !tg.hasProjects() {
		return "the server has no projects API"
	}
	return ""
}

// needNoProjects: a live server with the projects API has no missing route
// to check; the fake is switched to answer as Gitea 1.26 does.
func needNoProjects(tg *target) string {
	if tg.live && tg.hasProjects() {
		return "the server has the projects API"
	}
	return ""
}

// projectsRepo gives a repository on a server with the projects API.
func projectsRepo(t *testing.T, tg *target) (string, string) {
	org := tg.org()
	repo := tg.repo(org)
	if _, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), ""); err != nil {
		t.Fatal(err)
	}
	return org, repo
}

func contractProjects(t *testing.T, tg *target) {
	org, repo := projectsRepo(t, tg)
	p, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "Roadmap", Description: "d"})
	mustNoErr(t, err)
	if p.CardType != "text_only" || p.TemplateType != "none" || p.State != "open" || p.Title != "Roadmap" {
		t.Fatalf("created project defaults: %+v", p)
	}
	q, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "Triage", CardType: "images_and_text", TemplateType: "bug_triage"})
	mustNoErr(t, err)
	list, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "")
	mustNoErr(t, err)
	if len(list) != 2 || list[0].ID != q.ID {
		t.Fatalf("open projects, newest first: %+v", list)
	}
	closed, err := tg.c.EditProject(ctx(t), forge.RepoScope(org, repo), p.ID, forge.EditProjectOption{State: ptr("closed"), Description: ptr("done")})
	mustNoErr(t, err)
	if closed.State != "closed" || closed.Description != "done" || closed.Title != "Roadmap" {
		t.Fatalf("after close: %+v", closed)
	}
	open, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "")
	mustNoErr(t, err)
	all, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "all")
	mustNoErr(t, err)
	onlyClosed, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "closed")
	mustNoErr(t, err)
	if len(open) != 1 || len(all) != 2 || len(onlyClosed) != 1 || onlyClosed[0].ID != p.ID {
		t.Fatalf("open %d all %d closed %d", len(open), len(all), len(onlyClosed))
	}
	got, err := tg.c.GetProject(ctx(t), forge.RepoScope(org, repo), q.ID)
	mustNoErr(t, err)
	if got.CardType != "images_and_text" || got.TemplateType != "bug_triage" {
		t.Fatalf("get: %+v", got)
	}
	mustNoErr(t, tg.c.DeleteProject(ctx(t), forge.RepoScope(org, repo), q.ID))
	_, err = tg.c.GetProject(ctx(t), forge.RepoScope(org, repo), q.ID)
	wantKind(t, err, forge.KindNotFound)
	wantKind(t, tg.c.DeleteProject(ctx(t), forge.RepoScope(org, repo), q.ID), forge.KindNotFound)
}

func contractProjectValidation(t *testing.T, tg *target) {
	org, repo := projectsRepo(t, tg)
	_, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x", CardType: "huge"})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x", TemplateType: "scrum"})
	wantKind(t, err, forge.KindValidation)
	p, err := tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x"})
	mustNoErr(t, err)
	_, err = tg.c.EditProject(ctx(t), forge.RepoScope(org, repo), p.ID, forge.EditProjectOption{State: ptr("archived")})
	wantKind(t, err, forge.KindValidation)
	_, err = tg.c.ListProjects(ctx(t), forge.RepoScope(org, "no-such-repo"), "")
	wantKind(t, err, forge.KindNotFound)
}

func contractProjectsMissing(t *testing.T, tg *target) {
	if !tg.live {
		tg = tg.sibling(t, fakeforge.WithoutProjects())
	}
	org := tg.org()
	repo := tg.repo(org)
	_, err := tg.c.ListProjects(ctx(t), forge.RepoScope(org, repo), "")
	wantKind(t, err, forge.KindRouteNotFound)
	_, err = tg.c.CreateProject(ctx(t), forge.RepoScope(org, repo), forge.CreateProjectOption{Title: "x"})
	wantKind(t, err, forge.KindRouteNotFound)
	// ... while the repository itself is there.
	_, err = tg.c.GetRepo(ctx(t), org, repo)
	mustNoErr(t, err)
}
