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
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
)

// TestPlanRepositoryFromTemplate: a repository to be made from a template
// is planned as a create naming the template; one that exists is compared
// as any other (the template is not looked at); nothing is written.
func TestPlanRepositoryFromTemplate(t *testing.T) {
	ctx := context.Background()
	ff, fc, url := testForge(t, "acme")
	for _, name := range []string{"go-service", "web"} {
		if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: name, Template: name == "go-service"}); err != nil {
			t.Fatal(err)
		}
	}
	ff.ClearRequests()
	doc := func(name, rest string) string {
		return "apiVersion: forge.forgeops.dev/v1beta1\nkind: Repository\nmetadata: {name: " + name + ", namespace: team}\n" +
			"spec:\n  forgeRef: {name: gitea}\n  owner: acme\n  init: {template: {repository: acme/go-service, labels: true}}\n" + rest
	}
	manifests := planObjects(t, strings.Join([]string{
		doc("api", "  description: the API\n"),
		doc("web", "  description: the website\n"),
	}, "---\n"))
	items, got := planOnFake(ctx, fc, url, manifests)
	compareItems(t, map[string]plan.Item{
		"api": {Action: plan.Create, Reason: "from template acme/go-service"},
		"web": {Action: plan.Update, Changes: []plan.Change{{Field: "description", Forge: `""`, Spec: `"the website"`}}},
	}, got)
	var text bytes.Buffer
	if err := plan.New(items).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Repository team/api: create (from template acme/go-service)\n") {
		t.Fatalf("plan text:\n%s", text.String())
	}
	if w := ff.WriteRequests(); len(w) != 0 {
		t.Fatalf("plan wrote to the forge: %v", w)
	}
	for _, r := range ff.Requests() {
		if strings.Contains(r.Path, "/go-service") {
			t.Fatalf("plan read the template: %s %s", r.Method, r.Path)
		}
	}
}
