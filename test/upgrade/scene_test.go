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

package upgrade

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

const (
	// namespace holds the samples; the ClusterForge sample's siteAdmin
	// entry selects it by name (the User sample needs that).
	namespace = "platform"
	// token is the fake forge's admin token: it exists only in this test
	// binary and its fake.
	token = "upgrade-t0ken-0123456789"
)

// ref names one object of the scene.
type ref struct{ kind, name, namespace string }

func (r ref) String() string { return r.kind + " " + r.name }

// startForge starts the fake forge over real HTTP on loopback, for the
// managers' processes to dial, and returns it, its URL and a client
// acting as the forge's admin (the test's hand on the forge).
func startForge(t *testing.T) (*fakeforge.Server, string, *forge.Client) {
	t.Helper()
	fake := fakeforge.New(fakeforge.WithToken(token))
	srv := fake.Start()
	t.Cleanup(srv.Close)
	fc, err := forge.New(forge.Config{Name: "upgrade-test", URL: srv.URL, Token: token, QPS: -1, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return fake, srv.URL, fc
}

// createBasics creates what config/samples' kustomization says to create
// first: the namespaces, the Secrets and the ConfigMap the samples name.
func createBasics(ctx context.Context, t *testing.T, k8s client.Client) {
	t.Helper()
	secret := func(ns, name, key, value string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{key: value}}
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		secret(namespace, "gitea-token", "token", token),
		// The ClusterForge's token: read from the operator's namespace only.
		secret(operatorNamespace, "platform-gitea-token", "token", token),
		secret(namespace, "acme-webhook", "secret", "upgrade-webhook-signing-secret"),
		secret(namespace, "acme-slack-webhook", "url", "https://hooks.slack.example.com/services/T0000/B0000/upgrade"),
		secret(namespace, "web-deploy-token", "token", "upgrade-deploy-token"),
		secret(namespace, "github-push", "token", "upgrade-github-push-token"), // the PushMirror sample's password
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "acme-ci"},
			Data: map[string]string{"registry": "registry.acme.example"}},
	}
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// applySamples creates the old commit's config/samples, every kind at
// forge.forgeops.dev/v1alpha1 as that commit wrote them, in namespace
// (the ClusterForge in none), the connections pointed at the fake.
func applySamples(ctx context.Context, t *testing.T, k8s client.Client, oldDir, forgeURL string) []ref {
	t.Helper()
	samples, err := testenv.SamplesIn(filepath.Join(oldDir, "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	var refs []ref
	for _, s := range samples {
		u := s.Object
		if u.GetAPIVersion() != oldVersion {
			t.Fatalf("%s: %s %s is at %s, want %s: the old commit's samples are not v1alpha1-only", s.File, u.GetKind(), u.GetName(), u.GetAPIVersion(), oldVersion)
		}
		ns := ""
		if u.GetKind() != "ClusterForge" {
			ns = namespace
		}
		u.SetNamespace(ns)
		if u.GetKind() == "Forge" || u.GetKind() == "ClusterForge" {
			if err := unstructured.SetNestedField(u.Object, forgeURL, "spec", "url"); err != nil {
				t.Fatal(err)
			}
		}
		if err := k8s.Create(ctx, u); err != nil {
			t.Fatalf("create %s %s at %s: %v", u.GetKind(), u.GetName(), oldVersion, err)
		}
		refs = append(refs, ref{u.GetKind(), u.GetName(), ns})
	}
	kinds := kindsOf(refs)
	for _, want := range testenv.Kinds() {
		if !slices.Contains(kinds, want) {
			t.Errorf("the old commit's samples have no %s: the upgrade would not cover every kind", want)
		}
	}
	return refs
}

// setScene does on the forge what its users do in the demo
// (hack/demo), so that every sample can be Ready: repositories the sets
// select beside the Repository sample's, the team the RepositorySet gives
// access, and a runner registered with an organization token.
func setScene(ctx context.Context, g Gomega, fc *forge.Client) {
	// The Repository sample "web" creates acme/web when it is missing: the
	// operator may get there first.
	_, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: "web", Description: "Acme's web site"})
	if !forge.IsConflict(err) {
		g.Expect(err).NotTo(HaveOccurred(), "create repository acme/web")
	}
	for _, name := range []string{"api", "sandbox-play"} {
		_, err := fc.CreateOrgRepo(ctx, "acme", forge.CreateRepoOption{Name: name})
		g.Expect(err).NotTo(HaveOccurred(), "create repository acme/%s", name)
	}
	_, err = fc.CreateTeam(ctx, "acme", forge.CreateTeamOption{Name: "developers", Permission: "write",
		UnitsMap: map[string]string{"repo.code": "write", "repo.pulls": "write", "repo.issues": "write"}})
	g.Expect(err).NotTo(HaveOccurred(), "create team acme/developers")
	// A runner retries its registration, as act_runner does: the
	// RunnerRegistrationToken sample may ask for the organization's token
	// between this read of it and its use.
	g.Eventually(func() error {
		_, err := fc.RegisterRunner(ctx, forge.OrgScope("acme"), "acme-runner-1", "ubuntu-latest", "linux")
		return err
	}, 30*time.Second, poll).Should(Succeed(), "register runner acme-runner-1")
}

// state is what a user reads of one object: its Ready condition, the
// forge's record of it in status, and the reconcile request it handled last.
type state struct {
	ready, reason, message string
	generation, observed   int64
	handled                string
	// record is the object's identity on the forge in its status: its
	// id, else its externalName, a set's repositories, a Receiver's hooks.
	record string
}

func read(ctx context.Context, k8s client.Client, version string, r ref) (state, *unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(version)
	u.SetKind(r.kind)
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.name}, u); err != nil {
		return state{}, nil, err
	}
	s := state{ready: "Unknown", generation: u.GetGeneration()}
	s.observed, _, _ = unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	s.handled, _, _ = unstructured.NestedString(u.Object, "status", "lastHandledReconcileAt")
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			s.ready, _ = m["status"].(string)
			s.reason, _ = m["reason"].(string)
			s.message, _ = m["message"].(string)
		}
	}
	s.record = recordOf(r.kind, u)
	return s, u, nil
}

// recordOf is what the object's status holds of its forge object, empty
// while it holds none: the id most kinds have, the name of an object the
// forge gives no id (a secret, a branch rule), how many repositories a set
// covers, a Receiver's hooks and, for a connection, the account its token
// signs in as.
func recordOf(kind string, u *unstructured.Unstructured) string {
	var parts []string
	if login, ok, _ := unstructured.NestedString(u.Object, "status", "login"); ok && login != "" {
		id, _, _ := unstructured.NestedInt64(u.Object, "status", "userID")
		parts = append(parts, fmt.Sprintf("login=%s userID=%d", login, id))
	}
	if id, ok, _ := unstructured.NestedInt64(u.Object, "status", "id"); ok && id != 0 {
		parts = append(parts, fmt.Sprintf("id=%d", id))
	}
	if n, ok, _ := unstructured.NestedString(u.Object, "status", "externalName"); ok && n != "" {
		parts = append(parts, "externalName="+n)
	}
	if strings.HasSuffix(kind, "Set") {
		if n, ok, _ := unstructured.NestedInt64(u.Object, "status", "repositories"); ok {
			parts = append(parts, fmt.Sprintf("repositories=%d", n))
		}
	}
	if hooks, ok, _ := unstructured.NestedSlice(u.Object, "status", "hooks"); ok && len(hooks) > 0 {
		parts = append(parts, fmt.Sprintf("hooks=%v", hooks))
	}
	return strings.Join(parts, " ")
}

// readyAll reads every object and reports those not yet Ready with a
// record (a set: with its repositories counted), each with its reason.
func readyAll(ctx context.Context, k8s client.Client, version string, refs []ref) (map[ref]state, []string, error) {
	states := map[ref]state{}
	var waiting []string
	for _, r := range refs {
		s, _, err := read(ctx, k8s, version, r)
		if err != nil {
			return nil, nil, err
		}
		states[r] = s
		switch {
		case s.ready != "True":
			waiting = append(waiting, fmt.Sprintf("%s: Ready %s %s: %s", r, s.ready, s.reason, s.message))
		case s.record == "":
			waiting = append(waiting, fmt.Sprintf("%s: Ready with no record of its forge object in status", r))
		}
	}
	return states, waiting, nil
}

// inventory is what the forge holds in the scene's organizations and
// their repositories, and its users, read through its API as a person
// would: one line per object, by listing, with its id and name. Two
// inventories equal mean no object was made, lost or made twice.
func inventory(ctx context.Context, t *testing.T, fc *forge.Client) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	add := func(listing string, err error, items ...string) {
		if err != nil {
			t.Fatalf("list %s on the fake forge: %v", listing, err)
		}
		slices.Sort(items)
		out[listing] = items
	}
	users, err := fc.ListUsers(ctx)
	add("users", err, names(users, func(u forge.User) string { return fmt.Sprintf("%d %s", u.ID, u.Login) })...)
	orgs, err := fc.ListMyOrgs(ctx)
	add("organizations", err, names(orgs, func(o forge.Organization) string { return fmt.Sprintf("%d %s", o.ID, o.Name) })...)
	for _, o := range orgs {
		scope := forge.OrgScope(o.Name)
		hooks, err := fc.ListHooks(ctx, scope)
		add(o.Name+" hooks", err, names(hooks, func(h forge.Hook) string { return fmt.Sprintf("%d %s", h.ID, h.Config["url"]) })...)
		labels, err := fc.ListLabels(ctx, scope)
		add(o.Name+" labels", err, names(labels, func(l forge.Label) string { return fmt.Sprintf("%d %s", l.ID, l.Name) })...)
		teams, err := fc.ListTeams(ctx, o.Name)
		add(o.Name+" teams", err, names(teams, func(tm forge.Team) string { return fmt.Sprintf("%d %s", tm.ID, tm.Name) })...)
		runners, err := fc.ListRunners(ctx, scope)
		add(o.Name+" runners", err, names(runners, func(r forge.Runner) string { return fmt.Sprintf("%d %s", r.ID, r.Name) })...)
		secrets, err := fc.ListActionsSecrets(ctx, scope)
		add(o.Name+" actions secrets", err, names(secrets, func(s forge.ActionsSecret) string { return s.Name })...)
		vars, err := fc.ListActionsVariables(ctx, scope)
		add(o.Name+" actions variables", err, names(vars, func(v forge.ActionsVariable) string { return v.Name })...)
		repos, err := fc.ListOrgRepos(ctx, o.Name)
		add(o.Name+" repositories", err, names(repos, func(r forge.Repository) string { return fmt.Sprintf("%d %s", r.ID, r.Name) })...)
		for _, r := range repos {
			inventoryOfRepo(ctx, fc, o.Name, r.Name, add)
		}
	}
	return out
}

func inventoryOfRepo(ctx context.Context, fc *forge.Client, owner, name string, add func(string, error, ...string)) {
	scope, at := forge.RepoScope(owner, name), owner+"/"+name+" "
	hooks, err := fc.ListHooks(ctx, scope)
	add(at+"hooks", err, names(hooks, func(h forge.Hook) string { return fmt.Sprintf("%d %s", h.ID, h.Config["url"]) })...)
	labels, err := fc.ListLabels(ctx, scope)
	add(at+"labels", err, names(labels, func(l forge.Label) string { return fmt.Sprintf("%d %s", l.ID, l.Name) })...)
	projects, err := fc.ListProjects(ctx, scope, "all")
	add(at+"projects", err, names(projects, func(p forge.Project) string { return fmt.Sprintf("%d %s", p.ID, p.Title) })...)
	keys, err := fc.ListDeployKeys(ctx, owner, name)
	add(at+"deploy keys", err, names(keys, func(k forge.DeployKey) string { return fmt.Sprintf("%d %s", k.ID, k.Title) })...)
	rules, err := fc.ListBranchProtections(ctx, owner, name)
	add(at+"branch protections", err, names(rules, func(b forge.BranchProtection) string { return b.RuleName })...)
	tags, err := fc.ListTagProtections(ctx, owner, name)
	add(at+"tag protections", err, names(tags, func(p forge.TagProtection) string { return fmt.Sprintf("%d %s", p.ID, p.NamePattern) })...)
	milestones, err := fc.ListMilestones(ctx, owner, name)
	add(at+"milestones", err, names(milestones, func(m forge.Milestone) string { return fmt.Sprintf("%d %s", m.ID, m.Title) })...)
	mirrors, err := fc.ListPushMirrors(ctx, owner, name)
	add(at+"push mirrors", err, names(mirrors, func(m forge.PushMirror) string { return m.RemoteName })...)
	secrets, err := fc.ListActionsSecrets(ctx, scope)
	add(at+"actions secrets", err, names(secrets, func(s forge.ActionsSecret) string { return s.Name })...)
	vars, err := fc.ListActionsVariables(ctx, scope)
	add(at+"actions variables", err, names(vars, func(v forge.ActionsVariable) string { return v.Name })...)
}

func names[T any](items []T, name func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, name(it))
	}
	return out
}
