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

package claims

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

func sharedForge() *forgev1.ClusterForge {
	return &forgev1.ClusterForge{
		ObjectMeta: metav1.ObjectMeta{Name: "shared"},
		Spec: forgev1.ClusterForgeSpec{Tenants: []forgev1.ClusterForgeTenant{
			{Namespaces: []string{"team-a"}, Owners: []forgev1.OwnerGlob{"team-a-*", "Acme"}},
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "b"}}, Owners: []forgev1.OwnerGlob{"team-b-?"}},
			{NamespaceRegexes: []forgev1.NamespaceRegex{"^ci-.*$"}, Owners: []forgev1.OwnerGlob{"bot-*"}, SiteAdmin: true},
			{NamespaceRegexes: []forgev1.NamespaceRegex{"(unclosed"}, Owners: []forgev1.OwnerGlob{"*"}},
		}},
	}
}

// TestPermits: a namespace is served when any entry selects it (by name,
// labels or regular expression), and then only for the owners its entries
// grant, without regard to case; site-admin kinds need an entry with
// siteAdmin; an entry that cannot be used selects nothing and says why.
func TestPermits(t *testing.T) {
	cf := sharedForge()
	for _, c := range []struct {
		name      string
		ns        string
		labels    map[string]string
		owners    []string
		siteAdmin bool
		allowed   bool
		why       []string
	}{
		{name: "by name, glob", ns: "team-a", owners: []string{"team-a-web"}, allowed: true},
		{name: "case of owner and glob", ns: "team-a", owners: []string{"TEAM-A-Web", "acme"}, allowed: true},
		{name: "by label, ? is one character", ns: "x", labels: map[string]string{"tenant": "b"}, owners: []string{"team-b-1"}, allowed: true},
		{name: "? is not two", ns: "x", labels: map[string]string{"tenant": "b"}, owners: []string{"team-b-12"},
			why: []string{`does not let namespace x manage "team-b-12"`, "allow team-b-?"}},
		{name: "another tenant's owner", ns: "team-a", owners: []string{"team-a-web", "team-b-1"},
			why: []string{`manage "team-b-1"`, "allow Acme, team-a-*"}},
		{name: "no entry selects", ns: "team-c", owners: []string{"team-a-web"},
			why: []string{`ClusterForge "shared" does not serve namespace team-c`, "tenants[3]: namespaceRegexes[0] is not a valid RE2 regular expression"}},
		{name: "label value differs", ns: "x", labels: map[string]string{"tenant": "a"}, owners: []string{"team-b-1"},
			why: []string{"does not serve namespace x"}},
		{name: "site admin by regex", ns: "ci-main", owners: []string{"bot-deploy"}, siteAdmin: true, allowed: true},
		{name: "site admin needs the flag", ns: "team-a", owners: []string{"team-a-bot"}, siteAdmin: true,
			why: []string{"a tenants entry with siteAdmin: true that selects it"}},
		{name: "site admin within its owners", ns: "ci-main", owners: []string{"root"}, siteAdmin: true,
			why: []string{`manage "root"`}},
		// The instance's own objects (its runner registration token) name no owner.
		{name: "the instance through a siteAdmin entry", ns: "ci-main", siteAdmin: true, allowed: true},
		{name: "the instance needs the flag", ns: "team-a", siteAdmin: true,
			why: []string{"a tenants entry with siteAdmin: true that selects it"}},
		{name: "no owner without siteAdmin", ns: "team-a", why: []string{"the resource names no organization or user"}},
		{name: "regex is anchored by the platform", ns: "xci-main", owners: []string{"bot-x"},
			why: []string{"does not serve namespace xci-main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Permits(cf, c.ns, c.labels, c.owners, c.siteAdmin)
			if p.Allowed != c.allowed {
				t.Fatalf("allowed = %t, want %t (%s)", p.Allowed, c.allowed, p.Why)
			}
			for _, w := range c.why {
				if !strings.Contains(p.Why, w) {
					t.Errorf("why %q lacks %q", p.Why, w)
				}
			}
		})
	}
}

// TestPermitsAdmins: siteAdmin alone never makes, adopts or keeps a site
// administrator; that needs grantAdmin on an entry that selects the
// namespace, is siteAdmin and whose owners match the login. Another
// entry's grantAdmin, for other namespaces or other owners, does not lend
// it.
func TestPermitsAdmins(t *testing.T) {
	cf := &forgev1.ClusterForge{
		ObjectMeta: metav1.ObjectMeta{Name: "shared"},
		Spec: forgev1.ClusterForgeSpec{Tenants: []forgev1.ClusterForgeTenant{
			{Namespaces: []string{"team-a"}, Owners: []forgev1.OwnerGlob{"*-bot"}, SiteAdmin: true},
			{Namespaces: []string{"team-a"}, Owners: []forgev1.OwnerGlob{"admin-*"}, SiteAdmin: true, GrantAdmin: true},
			{Namespaces: []string{"platform"}, Owners: []forgev1.OwnerGlob{"*"}, SiteAdmin: true, GrantAdmin: true},
		}},
	}
	for _, c := range []struct {
		name    string
		ns      string
		owners  []string
		allowed bool
	}{
		{"siteAdmin without grantAdmin", "team-a", []string{"ci-bot"}, false},
		{"grantAdmin on the entry that matches, any case", "team-a", []string{"Admin-Ops"}, true},
		{"another namespace's grantAdmin", "team-b", []string{"admin-ops"}, false},
		{"an entry with grantAdmin for everything, elsewhere", "team-a", []string{"root"}, false},
		{"the platform's entry", "platform", []string{"root"}, true},
		{"no owner", "platform", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := PermitsAdmins(cf, c.ns, nil, c.owners)
			if p.Allowed != c.allowed {
				t.Fatalf("allowed = %t, want %t (%s)", p.Allowed, c.allowed, p.Why)
			}
			if !c.allowed && !strings.Contains(p.Why, "siteAdmin: true and grantAdmin: true") {
				t.Errorf("why %q does not say what it needs", p.Why)
			}
		})
	}
}

// TestNoTenantsServesNobody: a ClusterForge without tenants entries
// serves no namespace.
func TestNoTenantsServesNobody(t *testing.T) {
	cf := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}
	if p := Permits(cf, "default", nil, []string{"acme"}, false); p.Allowed || !strings.Contains(p.Why, "does not serve namespace default") {
		t.Fatalf("got %+v", p)
	}
}

// TestTenantErrors names the entries a ClusterForge's status warns about.
func TestTenantErrors(t *testing.T) {
	got := TenantErrors(sharedForge())
	if len(got) != 1 || !strings.HasPrefix(got[0], "tenants[3]: namespaceRegexes[0]") {
		t.Fatalf("got %q", got)
	}
}

// TestPermitsAuthor: a ClusterForge that pins its commits' author refuses
// a resource whose spec names one, and says so naming itself; one that
// pins none, or a resource that names none, is let through.
func TestPermitsAuthor(t *testing.T) {
	pinned := sharedForge()
	pinned.Spec.CommitAuthor = &forgev1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.com"}
	chosen := &forgev1.CommitAuthor{Name: "Release Manager", Email: "release@example.com"}
	for _, c := range []struct {
		name    string
		cf      *forgev1.ClusterForge
		author  *forgev1.CommitAuthor
		allowed bool
	}{
		{"pinned, the spec names none", pinned, nil, true},
		{"nothing pinned, the spec names one", sharedForge(), chosen, true},
		{"pinned, the spec names one", pinned, chosen, false},
	} {
		p := PermitsAuthor(c.cf, c.author)
		if p.Allowed != c.allowed {
			t.Errorf("%s: allowed %v, want %v (%s)", c.name, p.Allowed, c.allowed, p.Why)
		}
		if !c.allowed && (!strings.Contains(p.Why, `ClusterForge "shared" pins the author`) || !strings.Contains(p.Why, "spec.author")) {
			t.Errorf("%s: why %q names neither the ClusterForge nor spec.author", c.name, p.Why)
		}
	}
}

// TestGrantsEverywhere: a Receiver's delivery wakes every namespace only
// through a ClusterForge whose entry for its namespace grants the
// organization; a Forge of a namespace's own, an organization not granted,
// or a ClusterForge that is gone keeps it to its namespace.
func TestGrantsEverywhere(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := forgev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(sharedForge(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Labels: map[string]string{"tenant": "b"}}}).Build()
	cluster := func(name string) forgev1.ForgeReference {
		return forgev1.ForgeReference{Kind: forgev1.ClusterForgeKind, Name: name}
	}
	for _, tc := range []struct {
		name, ns, owner string
		ref             forgev1.ForgeReference
		want            bool
	}{
		{"granted by name, any case", "team-a", "acme", cluster("shared"), true},
		{"granted by labels", "team-b", "team-b-1", cluster("shared"), true},
		{"an organization the entry does not grant", "team-a", "platform", cluster("shared"), false},
		{"a namespace no entry selects", "team-c", "acme", cluster("shared"), false},
		{"a Forge of the namespace's own", "team-a", "acme", forgev1.ForgeReference{Name: "shared"}, false},
		{"a ClusterForge that is gone", "team-a", "acme", cluster("gone"), false},
	} {
		got, err := GrantsEverywhere(context.Background(), c, tc.ns, tc.ref, tc.owner)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
