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
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/internal/forge"
)

// The actions behaviours are what ActionsSecret and ActionsVariable rely on,
// probed on Gitea 1.26.4 before the fake learnt them. TestContract runs them.
var _ = registerBehaviours("actions", []behaviour{
	{"actions/secrets: PUT creates or replaces, names upper-cased, values never listed", contractActionsSecrets, nil},
	{"actions/variables: POST creates (409 when taken), PUT updates (404 when missing), values listed", contractActionsVariables, nil},
	{"actions/names the forge refuses", contractActionsNames, nil},
	{"actions/variables: CRLF stored as LF (a lone CR too from Gitea 1.26), nothing trimmed", contractActionsVariableEOL, nil},
	{"actions/variables: the fake as Gitea 1.24, 1.25 and Forgejo keeps a lone CR", contractActionsVariableEOLOldFake, needFake},
})

func actionsScopes(t *testing.T, tg *target) []forge.Scope {
	org := tg.org()
	return []forge.Scope{forge.OrgScope(org), forge.RepoScope(org, tg.repo(org))}
}

func contractActionsSecrets(t *testing.T, tg *target) {
	for _, sc := range actionsScopes(t, tg) {
		mustNoErr(t, tg.c.PutActionsSecret(ctx(t), sc, "deploy_token", "first-value", "d"))
		mustNoErr(t, tg.c.PutActionsSecret(ctx(t), sc, "DEPLOY_TOKEN", "second-value", "d2"))
		all, err := tg.c.ListActionsSecrets(ctx(t), sc)
		mustNoErr(t, err)
		if len(all) != 1 || all[0].Name != "DEPLOY_TOKEN" {
			t.Fatalf("%s: secrets %+v", sc, all)
		}
		wantKind(t, tg.c.PutActionsSecret(ctx(t), sc, "EMPTY", "", ""), forge.KindValidation)
		mustNoErr(t, tg.c.DeleteActionsSecret(ctx(t), sc, "deploy_token"))
		wantKind(t, tg.c.DeleteActionsSecret(ctx(t), sc, "DEPLOY_TOKEN"), forge.KindNotFound)
	}
}

func contractActionsVariables(t *testing.T, tg *target) {
	for _, sc := range actionsScopes(t, tg) {
		mustNoErr(t, tg.c.CreateActionsVariable(ctx(t), sc, "my_var", "  v1 \n", "vd"))
		wantKind(t, tg.c.CreateActionsVariable(ctx(t), sc, "MY_VAR", "v2", ""), forge.KindConflict)
		wantKind(t, tg.c.UpdateActionsVariable(ctx(t), sc, "NOSUCH", "v", ""), forge.KindNotFound)
		all, err := tg.c.ListActionsVariables(ctx(t), sc)
		mustNoErr(t, err)
		if len(all) != 1 || all[0].Name != "MY_VAR" || all[0].Data != "  v1 \n" || all[0].Description != "vd" {
			t.Fatalf("%s: variables %+v", sc, all)
		}
		mustNoErr(t, tg.c.UpdateActionsVariable(ctx(t), sc, "my_var", "v3", "vd"))
		all, err = tg.c.ListActionsVariables(ctx(t), sc)
		mustNoErr(t, err)
		if len(all) != 1 || all[0].Data != "v3" {
			t.Fatalf("%s: after update %+v", sc, all)
		}
		wantKind(t, tg.c.UpdateActionsVariable(ctx(t), sc, "my_var", "", ""), forge.KindValidation)
		mustNoErr(t, tg.c.DeleteActionsVariable(ctx(t), sc, "MY_VAR"))
		wantKind(t, tg.c.DeleteActionsVariable(ctx(t), sc, "MY_VAR"), forge.KindNotFound)
	}
}

func contractActionsNames(t *testing.T, tg *target) {
	sc := actionsScopes(t, tg)[1]
	// Gitea 1.24 says "invalid secret name" for secrets and takes CI as a
	// secret's name; 1.25 and later refuse it with one message for both.
	_, semver := tg.version()
	old := strings.HasPrefix(semver, "1.24.")
	for _, name := range []string{"GITEA_X", "github_token", "CI", "ci", "1ABC", "A-B"} {
		err := tg.c.PutActionsSecret(ctx(t), sc, name, "x", "")
		switch {
		case old && strings.EqualFold(name, "CI"):
			mustNoErr(t, err)
		case forge.KindOf(err) != forge.KindValidation || !strings.Contains(err.Error(), "invalid") || !strings.Contains(err.Error(), "name"):
			t.Errorf("secret %q: %v", name, err)
		}
		err = tg.c.CreateActionsVariable(ctx(t), sc, name, "x", "")
		if forge.KindOf(err) != forge.KindValidation {
			t.Errorf("variable %q: %v", name, err)
		}
	}
	mustNoErr(t, tg.c.PutActionsSecret(ctx(t), sc, "_OK_1", "x", ""))
}

// contractActionsVariableEOL: the forge stores a variable's value with CRLF
// turned into LF, on create and on update (Gitea's
// services/actions/variables.go). Gitea 1.24 and 1.25
// (util.ReserveLineBreakForTextarea) and Forgejo leave a lone CR; Gitea
// 1.26 (util.NormalizeStringEOL) turns it into LF as well. Spaces and
// other line ends are kept.
func contractActionsVariableEOL(t *testing.T, tg *target) {
	flavor, semver := tg.version()
	loneCR := "a\nb"
	if flavor == forge.FlavorForgejo || strings.HasPrefix(semver, "1.24.") || strings.HasPrefix(semver, "1.25.") {
		loneCR = "a\rb"
	}
	sc := actionsScopes(t, tg)[1]
	read := func(name string) string {
		t.Helper()
		all, err := tg.c.ListActionsVariables(ctx(t), sc)
		mustNoErr(t, err)
		for _, v := range all {
			if v.Name == name {
				return v.Data
			}
		}
		t.Fatalf("%s: no variable %s in %+v", sc, name, all)
		return ""
	}
	mustNoErr(t, tg.c.CreateActionsVariable(ctx(t), sc, "EOL", " line1\r\nline2\r\n\r\n", ""))
	if got := read("EOL"); got != " line1\nline2\n\n" {
		t.Errorf("created with CRLF: reads back %q", got)
	}
	mustNoErr(t, tg.c.UpdateActionsVariable(ctx(t), sc, "EOL", "x\r\ny \n", ""))
	if got := read("EOL"); got != "x\ny \n" {
		t.Errorf("updated with CRLF: reads back %q", got)
	}
	mustNoErr(t, tg.c.UpdateActionsVariable(ctx(t), sc, "EOL", "a\rb", ""))
	if got := read("EOL"); got != loneCR {
		t.Errorf("%s %s, updated with a lone CR: reads back %q, want %q", flavor, semver, got, loneCR)
	}
	mustNoErr(t, tg.c.DeleteActionsVariable(ctx(t), sc, "EOL"))
}

// contractActionsVariableEOLOldFake runs the line-end check with the fake
// answering as the versions that keep a lone CR.
func contractActionsVariableEOLOldFake(t *testing.T, _ *target) {
	for _, v := range []string{"1.25.5", "1.24.6", "15.0.3+gitea-1.22.0"} {
		t.Run(v, func(t *testing.T) {
			old := newTarget(t)
			old.fake.SetVersion(v)
			contractActionsVariableEOL(t, old)
		})
	}
}
