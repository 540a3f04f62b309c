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
	"slices"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The generate behaviours are what Repository.spec.init.template relies on
// (POST /repos/{template}/generate), probed on Gitea 1.24.6, 1.25.5 and
// 1.26.4. TestContract runs them.
var _ = registerBehaviours("generate", []behaviour{
	{"repos/generate copies the parts chosen; its answer lists no topics", contractGenerateParts, nil},
	{"repos/generate without git content is empty, on the branch sent", contractGenerateNoContent, nil},
	{"repos/generate refuses a missing or plain source, no part, a taken name, an unknown owner", contractGenerateRefusals, nil},
	{"repos/generate: the fake as Gitea 1.24 and 1.25", contractGenerateOldFake, needFake},
})

// contractGenerateOldFake holds the fake as the older releases to what
// they were probed to answer (no default branch in the answer).
func contractGenerateOldFake(t *testing.T, _ *target) {
	for _, v := range []string{"1.25.5", "1.24.6"} {
		t.Run(v, func(t *testing.T) {
			old := newTarget(t)
			old.fake.SetVersion(v)
			contractGenerateParts(t, old)
			contractGenerateNoContent(t, old)
		})
	}
}

// templateRepo makes a template repository in org with a first commit on
// main, the topics go and service, a label, a webhook and a rule for main.
func (tg *target) templateRepo(org string) string {
	tg.t.Helper()
	t := tg.t
	name := tg.initRepo(org)
	_, err := tg.c.EditRepo(ctx(t), org, name, forge.EditRepoOption{Template: ptr(true)})
	mustNoErr(t, err)
	mustNoErr(t, tg.c.SetRepoTopics(ctx(t), org, name, []string{"go", "service"}))
	sc := forge.RepoScope(org, name)
	_, err = tg.c.CreateLabel(ctx(t), sc, forge.CreateLabelOption{Name: "kind/bug", Color: "ee0701", Description: "a bug", Exclusive: true})
	mustNoErr(t, err)
	hook := hookOpt("https://ci.example.com/hook")
	hook.Config["secret"] = "s3cret"
	_, err = tg.c.CreateHook(ctx(t), sc, hook)
	mustNoErr(t, err)
	_, err = tg.c.CreateBranchProtection(ctx(t), org, name, forge.BranchProtection{RuleName: "main", RequiredApprovals: 2})
	mustNoErr(t, err)
	return name
}

// generated makes repository org/name from template and removes it after the test.
func (tg *target) generated(template string, opt forge.GenerateRepoOption) (*forge.Repository, error) {
	tg.t.Helper()
	r, err := tg.c.GenerateRepo(ctx(tg.t), template, opt)
	if err == nil {
		tg.t.Cleanup(func() { _ = tg.c.DeleteRepo(context.Background(), opt.Owner, opt.Name) })
	}
	return r, err
}

func contractGenerateParts(t *testing.T, tg *target) {
	org := tg.org()
	tmpl := tg.templateRepo(org)
	name := uniqueName("gen")
	r, err := tg.generated(org+"/"+tmpl, forge.GenerateRepoOption{Owner: org, Name: name, Description: "from the template",
		GitContent: true, Topics: true, Labels: true, Webhooks: true, ProtectedBranches: true})
	mustNoErr(t, err)
	// The answer: git content on the template's default branch, not a
	// template itself, the description sent, and no topics (Gitea copies
	// them after making the object it answers). Gitea 1.24 and 1.25 answer
	// no default branch either (they set the template's on a copy read
	// again: services/repository/generate.go); the repository has it.
	answered := "main"
	if before(tg, 1, 26) {
		answered = ""
	}
	if r.ID <= 0 || r.Name != name || r.Empty || r.DefaultBranch != answered || r.Template || r.Description != "from the template" ||
		r.Owner == nil || !strings.EqualFold(r.Owner.Login, org) || len(r.Topics) != 0 || !r.HasIssues || r.DefaultMergeStyle != "merge" {
		t.Fatalf("generated: %+v", r)
	}
	got, err := tg.c.GetRepo(ctx(t), org, name)
	mustNoErr(t, err)
	if !slices.Equal(got.Topics, []string{"go", "service"}) || got.Empty || got.DefaultBranch != "main" {
		t.Fatalf("read back: %+v", got)
	}
	sc := forge.RepoScope(org, name)
	labels, err := tg.c.ListLabels(ctx(t), sc)
	mustNoErr(t, err)
	if len(labels) != 1 || labels[0].Name != "kind/bug" || labels[0].Color != "ee0701" || labels[0].Description != "a bug" || !labels[0].Exclusive {
		t.Fatalf("labels: %+v", labels)
	}
	hooks, err := tg.c.ListHooks(ctx(t), sc)
	mustNoErr(t, err)
	if len(hooks) != 1 || hooks[0].Config["url"] != "https://ci.example.com/hook" || !hooks[0].Active || hooks[0].Type != "gitea" {
		t.Fatalf("hooks: %+v", hooks)
	}
	rules, err := tg.c.ListBranchProtections(ctx(t), org, name)
	mustNoErr(t, err)
	if len(rules) != 1 || rules[0].RuleName != "main" || rules[0].RequiredApprovals != 2 {
		t.Fatalf("branch rules: %+v", rules)
	}
	// Git content alone, onto a branch named in the call: the template's
	// files land there, and nothing else is copied.
	other := uniqueName("gen")
	r, err = tg.generated(org+"/"+tmpl, forge.GenerateRepoOption{Owner: org, Name: other, GitContent: true, DefaultBranch: "trunk", Private: true})
	mustNoErr(t, err)
	if r.Empty || r.DefaultBranch != "trunk" || !r.Private {
		t.Fatalf("git content on trunk: %+v", r)
	}
	labels, err = tg.c.ListLabels(ctx(t), forge.RepoScope(org, other))
	mustNoErr(t, err)
	got, gerr := tg.c.GetRepo(ctx(t), org, other)
	mustNoErr(t, gerr)
	if len(labels) != 0 || len(got.Topics) != 0 {
		t.Fatalf("git content only copied labels %+v, topics %v", labels, got.Topics)
	}
}

func contractGenerateNoContent(t *testing.T, tg *target) {
	org := tg.org()
	tmpl := tg.templateRepo(org)
	name := uniqueName("gen")
	r, err := tg.generated(org+"/"+tmpl, forge.GenerateRepoOption{Owner: org, Name: name, Labels: true, DefaultBranch: "trunk"})
	mustNoErr(t, err)
	got, err := tg.c.GetRepo(ctx(t), org, name)
	mustNoErr(t, err)
	if !r.Empty || r.DefaultBranch != "trunk" || !got.Empty || got.DefaultBranch != "trunk" {
		t.Fatalf("labels only, on trunk: answer %+v, read back %+v", r, got)
	}
	bare := uniqueName("gen")
	r, err = tg.generated(org+"/"+tmpl, forge.GenerateRepoOption{Owner: org, Name: bare, Labels: true})
	mustNoErr(t, err)
	got, err = tg.c.GetRepo(ctx(t), org, bare)
	mustNoErr(t, err)
	// No default branch sent: none at all, where a plain create says main.
	if !r.Empty || r.DefaultBranch != "" || got.DefaultBranch != "" {
		t.Fatalf("labels only, no branch: answer %+v, read back %+v", r, got)
	}
}

func contractGenerateRefusals(t *testing.T, tg *target) {
	org := tg.org()
	tmpl := tg.templateRepo(org)
	parts := forge.GenerateRepoOption{Owner: org, Name: uniqueName("gen"), GitContent: true}
	// A template the forge does not have.
	_, err := tg.generated(org+"/no-such-template", parts)
	wantKind(t, err, forge.KindNotFound)
	// A repository not marked as a template.
	plain := tg.repo(org)
	_, err = tg.generated(org+"/"+plain, parts)
	wantKind(t, err, forge.KindValidation)
	if !strings.Contains(err.Error(), "not a template repo") {
		t.Fatalf("not a template: %v", err)
	}
	// No part chosen.
	none := parts
	none.GitContent = false
	_, err = tg.generated(org+"/"+tmpl, none)
	wantKind(t, err, forge.KindValidation)
	if !strings.Contains(err.Error(), "must select at least one template item") {
		t.Fatalf("no part: %v", err)
	}
	// A taken name, in another case.
	taken := parts
	taken.Name = strings.ToUpper(plain)
	_, err = tg.generated(org+"/"+tmpl, taken)
	wantKind(t, err, forge.KindConflict)
	// An owner that does not exist.
	lost := parts
	lost.Owner = uniqueName("nobody")
	_, err = tg.generated(org+"/"+tmpl, lost)
	wantKind(t, err, forge.KindNotFound)
	// Someone who may read the template but not create in the
	// organization: 403; into their own account it works.
	name, password := tg.createUser("gen")
	outsider := tg.client(forge.Config{Username: name, Password: password})
	_, err = outsider.GenerateRepo(ctx(t), org+"/"+tmpl, parts)
	wantKind(t, err, forge.KindForbidden)
	// Nothing was made by any of them.
	all, err := tg.c.ListOrgRepos(ctx(t), org)
	mustNoErr(t, err)
	if len(all) != 2 {
		t.Fatalf("repositories after the refusals: %+v", all)
	}
	own := parts
	// Their own account under another case is "another user" to the
	// forge, which compares the login as written: 403 for a non-admin.
	own.Owner = strings.ToUpper(name)
	_, err = outsider.GenerateRepo(ctx(t), org+"/"+tmpl, own)
	wantKind(t, err, forge.KindForbidden)
	own.Owner = name
	r, err := outsider.GenerateRepo(ctx(t), org+"/"+tmpl, own)
	mustNoErr(t, err)
	if r.Owner == nil || r.Owner.Login != name || r.Empty {
		t.Fatalf("generated into the user's own account: %+v", r)
	}
}
