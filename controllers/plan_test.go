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
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/hooks"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/plan"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

const (
	planSecretOld = "old-hook-secret-value"
	planSecretNew = "new-hook-secret-value"
	planChatOld   = "https://chat.example.com/hooks/old-token-in-url"
	planChatNew   = "https://chat.example.com/hooks/new-token-in-url"
	planHeader    = "Bearer header-secret-value"
)

// testForge starts a fake forge with organizations orgs (made on the fake
// itself, so that no request is recorded) and returns it, a client of it
// without a rate limit, and its URL.
func testForge(t *testing.T, orgs ...string) (*fakeforge.Server, *forge.Client, string) {
	t.Helper()
	ff, srv := fakeforge.NewTestServer(t)
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, org := range orgs {
		if _, err := ff.CreateOrg(org); err != nil {
			t.Fatal(err)
		}
	}
	return ff, fc, srv.URL
}

func planObjects(t *testing.T, manifests string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(manifests, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// TestPlanHooks plans hooks with and without access to their Secrets and
// to the resources' status in the cluster: field values as printed,
// Secret-backed ones as (secret) or unknown and never their values,
// adoption of one hook by one resource only, and no write to the forge.
func TestPlanHooks(t *testing.T) {
	ctx := context.Background()
	ff, srv := fakeforge.NewTestServer(t, fakeforge.WithVersion("1.26.0"))
	fc, err := forge.New(forge.Config{URL: srv.URL, Token: fakeforge.DefaultToken, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ff.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	signed, err := fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
		Config: map[string]string{"url": "https://signed.example.com/hook", "content_type": "json", "secret": planSecretOld}})
	if err != nil {
		t.Fatal(err)
	}
	chat, err := fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: "slack", Active: true, Events: []string{"push"},
		Config: map[string]string{"url": planChatOld, "content_type": "json", "channel": "#old"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
		AuthorizationHeader: planHeader, Config: map[string]string{"url": "https://plain.example.com/hook", "content_type": "json"}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := fc.CreateLabel(ctx, forge.OrgScope("acme"), forge.CreateLabelOption{Name: "dup", Color: "#000000"}); err != nil {
			t.Fatal(err)
		}
	}
	ff.ClearRequests()

	manifests := planObjects(t, `apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: signed, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "https://signed.example.com/hook", secretRef: {name: hook, key: secret}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: chat, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: slack, urlSecretRef: {name: hook, key: url}, config: {channel: "#dev"}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: plain-a, namespace: team}
spec:
  forgeRef: {name: gitea}
  organization: acme
  type: gitea
  url: "https://plain.example.com/hook"
  events: [release]
  authorizationHeaderSecretRef: {name: hook, key: header}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: plain-b, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "https://plain.example.com/hook"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: dup, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, color: "#000000"}`)

	server := forge.NewServer("1.26.0")
	run := func(t *testing.T, reader client.Reader) map[string]plan.Item {
		t.Helper()
		env := PlanEnv{Forge: fc, Server: server, WebURL: srv.URL, Reader: reader, Namespace: "team",
			DigestKey: types.NamespacedName{Namespace: "op", Name: "digest-key"}}
		items := Plan(ctx, env, manifests)
		got := map[string]plan.Item{}
		for _, it := range items {
			got[it.Name] = it
			for _, c := range it.Changes {
				for _, secret := range []string{planSecretOld, planSecretNew, planChatOld, planChatNew, planHeader, fakeforge.DefaultToken} {
					if strings.Contains(c.Forge+c.Spec+it.Reason, secret) {
						t.Errorf("%s: a secret value was printed: %+v", it.Name, c)
					}
				}
			}
		}
		if w := ff.WriteRequests(); len(w) != 0 {
			t.Fatalf("plan wrote to the forge: %v", w)
		}
		return got
	}

	t.Run("without the cluster", func(t *testing.T) {
		got := run(t, nil)
		want := map[string]plan.Item{
			"signed": {Action: plan.Replace, Reason: "secret cannot be changed in place"},
			"chat": {Action: plan.Unknown,
				Reason: "the hook is found by its URL, which comes from a Secret plan cannot read; give --kubeconfig and -n"},
			// The header is shown by this server, so it cannot be compared unread.
			"plain-a": {Action: plan.Update, Changes: []plan.Change{
				{Field: "authorizationHeader", Forge: "(secret)", Spec: "unknown"},
				{Field: "events", Forge: `["push"]`, Spec: `["release"]`},
			}},
			// The hook plain-a adopts is held: plain-b gets its own.
			"plain-b": {Action: plan.Create},
			"dup": {Action: plan.Conflict,
				Reason: `2 labels named "dup" exist in organization acme (ids ` + labelIDs(t, ff) + `); delete all but one on the forge so that one can be adopted`},
		}
		compareItems(t, want, got)
	})

	t.Run("with the Secrets and the resources' status", func(t *testing.T) {
		scheme := runtime.NewScheme()
		_ = corev1.AddToScheme(scheme)
		_ = forgev1.AddToScheme(scheme)
		key := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "op", Name: "digest-key"},
			Data: map[string][]byte{secretdigest.DataKey: []byte(strings.Repeat("k", 32))}}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "hook"},
			Data: map[string][]byte{"secret": []byte(planSecretOld), "url": []byte(planChatNew), "header": []byte(planHeader)}}
		c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(key, secret).Build()
		digest, err := secretdigest.New(c, nil, client.ObjectKeyFromObject(key)).Digest(ctx, "uid-signed/"+hooks.FieldSecret, planSecretOld)
		if err != nil {
			t.Fatal(err)
		}
		// As the operator left them after creating or adopting the hooks.
		live := []client.Object{
			&forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "signed", UID: "uid-signed"},
				Status: forgev1.HookStatus{ManagedStatus: forgev1.ManagedStatus{ID: signed.ID},
					AppliedSecrets: []forgev1.AppliedSecret{{Field: hooks.FieldSecret, Name: "hook", Key: "secret", ResourceVersion: "1", Digest: digest}}}},
			&forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "chat", UID: "uid-chat"},
				Status: forgev1.HookStatus{ManagedStatus: forgev1.ManagedStatus{ID: chat.ID}}},
		}
		for _, o := range live {
			if err := c.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		got := run(t, c)
		compareItems(t, map[string]plan.Item{
			// The secret sent last is the Secret's value.
			"signed": {Action: plan.InSync},
			"chat": {Action: plan.Update, Changes: []plan.Change{
				{Field: "config", Forge: `["channel=#old"]`, Spec: `["channel=#dev"]`},
				{Field: "url", Forge: "(secret)", Spec: "(secret)"},
			}},
			"plain-a": {Action: plan.Update, Changes: []plan.Change{{Field: "events", Forge: `["push"]`, Spec: `["release"]`}}},
		}, got)

		// A new value in the Secret: the hook must be replaced.
		secret.Data["secret"] = []byte(planSecretNew)
		if err := c.Update(ctx, secret); err != nil {
			t.Fatal(err)
		}
		got = run(t, c)
		compareItems(t, map[string]plan.Item{"signed": {Action: plan.Replace, Reason: "secret cannot be changed in place"}}, got)
	})

	t.Run("with the Secrets but not the digest key", func(t *testing.T) {
		scheme := runtime.NewScheme()
		_ = corev1.AddToScheme(scheme)
		_ = forgev1.AddToScheme(scheme)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "hook"},
			Data: map[string][]byte{"secret": []byte(planSecretOld), "url": []byte(planChatNew), "header": []byte(planHeader)}}
		sent := []forgev1.AppliedSecret{{Field: hooks.FieldSecret, Name: "hook", Key: "secret", ResourceVersion: "1", Digest: "hmac-sha256:AAAA"}}
		c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(secret,
			&forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "signed", UID: "uid-signed"},
				Status: forgev1.HookStatus{ManagedStatus: forgev1.ManagedStatus{ID: signed.ID}, AppliedSecrets: sent}},
			// Its status points at the Slack hook: the type cannot change in place.
			&forgev1.OrgHook{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "plain-b", UID: "uid-plain-b"},
				Status: forgev1.HookStatus{ManagedStatus: forgev1.ManagedStatus{ID: chat.ID}}},
		).Build()
		got := run(t, c)
		compareItems(t, map[string]plan.Item{
			// Sent before, but without the key the value cannot be compared; plan creates no key.
			"signed": {Action: plan.InSync, Changes: []plan.Change{{Field: "secret", Forge: "(secret)", Spec: "unknown"}}},
			// The Slack hook's URL carries a token: never shown.
			"plain-b": {Action: plan.Replace, Reason: "type cannot be changed in place",
				Changes: []plan.Change{{Field: "url", Forge: "(secret)", Spec: `"https://plain.example.com/hook"`}}},
			// The URL read from its Secret matches no hook.
			"chat": {Action: plan.Create},
		}, got)
		var keys corev1.SecretList
		if err := c.List(ctx, &keys, client.InNamespace("op")); err != nil || len(keys.Items) != 0 {
			t.Fatalf("plan created a digest key: %v %v", keys.Items, err)
		}
	})
}

// TestPlanHookCredentialURL: a URL with a query or user info (a CI hook's
// ?token=) is shown as (secret) on both sides, never as text.
func TestPlanHookCredentialURL(t *testing.T) {
	ctx := context.Background()
	_, fc, url := testForge(t, "acme")
	const oldURL, newURL = "https://ci.example.com/build?token=OLD-CI-TOKEN", "https://ci:NEW-PASSWORD@ci.example.com/build"
	h, err := fc.CreateHook(ctx, forge.OrgScope("acme"), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
		Config: map[string]string{"url": oldURL, "content_type": "json"}})
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = forgev1.AddToScheme(scheme)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(&forgev1.OrgHook{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ci", UID: "uid-ci"},
		Status:     forgev1.HookStatus{ManagedStatus: forgev1.ManagedStatus{ID: h.ID}}}).Build()
	manifests := planObjects(t, `apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: ci, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, type: gitea, url: "`+newURL+`"}`)
	env := PlanEnv{Forge: fc, Server: forge.NewServer("1.26.0"), WebURL: url, Reader: c, Namespace: "team",
		DigestKey: types.NamespacedName{Namespace: "op", Name: "digest-key"}}
	got := itemsByName(Plan(ctx, env, manifests))
	compareItems(t, map[string]plan.Item{"ci": {Action: plan.Update,
		Changes: []plan.Change{{Field: "url", Forge: "(secret)", Spec: "(secret)"}}}}, got)
}

func labelIDs(t *testing.T, ff *fakeforge.Server) string {
	t.Helper()
	var ids []string
	for _, l := range ff.Labels(forge.OrgScope("acme")) {
		ids = append(ids, strconv.FormatInt(l.ID, 10))
	}
	return strings.Join(ids, ", ")
}

// planOnFake plans manifests in namespace team against fc, as the fake's
// default release: the items, and the same by name.
func planOnFake(ctx context.Context, fc *forge.Client, url string, manifests []*unstructured.Unstructured) ([]plan.Item, map[string]plan.Item) {
	items := Plan(ctx, PlanEnv{Forge: fc, Server: forge.NewServer(fakeforge.DefaultVersion), WebURL: url, Namespace: "team"}, manifests)
	return items, itemsByName(items)
}

// itemsByName are plan items by their resource's name.
func itemsByName(items []plan.Item) map[string]plan.Item {
	got := make(map[string]plan.Item, len(items))
	for _, it := range items {
		got[it.Name] = it
	}
	return got
}

// compareItems compares the items want names with those got holds,
// leaving out the kind and name the map says already.
func compareItems(t *testing.T, want, got map[string]plan.Item) {
	t.Helper()
	for name, w := range want {
		g := got[name]
		g.Kind, g.Namespace, g.Name = "", "", ""
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestPlanReleaseGates: plan shows the later releases' fields as changes
// where the server has them, and as the loop's Unsupported where it does
// not (a set whole), reading and writing nothing for those.
func TestPlanReleaseGates(t *testing.T) {
	ctx := context.Background()
	manifests := planObjects(t, `apiVersion: forge.forgeops.dev/v1beta1
kind: Team
metadata: {name: platform, namespace: team}
spec: {forgeRef: {name: gitea}, organization: acme, visibility: limited, units: {code: read}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Repository
metadata: {name: web, namespace: team}
spec: {forgeRef: {name: gitea}, owner: acme, hasCode: false, defaultUpdateStyle: rebase}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: BranchProtectionSet
metadata: {name: protect, namespace: team}
spec:
  forgeRef: {name: gitea}
  repositories: {organization: acme}
  rules: [{ruleName: main, enableBypassAllowlist: true}]`)
	for _, version := range []string{"1.26.4", "1.27.3"} {
		t.Run(version, func(t *testing.T) {
			ff, fc, url := testForge(t, "acme")
			ff.SetVersion(version)
			if _, err := fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "platform", UnitsMap: map[string]string{"repo.code": "read"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web"}); err != nil {
				t.Fatal(err)
			}
			ff.ClearRequests()
			got := itemsByName(Plan(ctx, PlanEnv{Forge: fc, Server: forge.NewServer(version), WebURL: url, Namespace: "team"}, manifests))
			if w := ff.WriteRequests(); len(w) != 0 {
				t.Fatalf("plan wrote to the forge: %v", w)
			}
			want := map[string]plan.Item{
				"platform": {Action: plan.Update, Changes: []plan.Change{{Field: "visibility", Forge: `"private"`, Spec: `"limited"`}}},
				"web": {Action: plan.Update, Changes: []plan.Change{{Field: "defaultUpdateStyle", Forge: `"merge"`, Spec: `"rebase"`},
					{Field: "hasCode", Forge: "true", Spec: "false"}}},
			}
			if version == "1.26.4" {
				want = map[string]plan.Item{
					"platform": {Action: plan.Error, Reason: "visibility (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4; nothing was written"},
					"web":      {Action: plan.Error, Reason: "defaultUpdateStyle (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4; nothing was written"},
					"protect": {Action: plan.Error, Reason: `rule "main": enableBypassAllowlist (Gitea 1.27 and later; not Forgejo) not supported by gitea 1.26.4; ` +
						"nothing was written to any repository"},
				}
			}
			compareItems(t, want, got)
		})
	}
}
