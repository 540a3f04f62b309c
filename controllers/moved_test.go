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
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// Grants bind the objects written, not the names: the kinds' passes run on
// the fake forge over HTTP against an organization renamed on the forge
// (Gitea answers its old name with 307 on every route) and against
// objects read by id that now belong to another organization or owner.

// renameOrg renames an organization on the fake the way an owner does on
// Gitea (POST /orgs/{org}/rename).
func renameOrg(t *testing.T, url, old, name string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"new_name": name})
	req, err := http.NewRequest(http.MethodPost, url+"/api/v1/orgs/"+old+"/rename", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+fakeforge.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("rename %s to %s: %d", old, name, resp.StatusCode)
	}
}

// wantMovedStall fails unless err makes the resource Stalled with reason
// Moved, as the loop classifies it.
func wantMovedStall(t *testing.T, err error) {
	t.Helper()
	c, ok := reconciler.Classify(err)
	if !ok || c.State != conditions.Stalled || c.Reason != forgev1.ReasonMoved {
		t.Fatalf("got %v (%+v), want Stalled with reason Moved", err, c)
	}
}

func wantNoWrites(t *testing.T, ff *fakeforge.Server) {
	t.Helper()
	if w := ff.WriteRequests(); len(w) > 0 {
		t.Errorf("wrote to the forge: %v", w)
	}
}

// TestRenamedOrganizationIsMoved: an Organization naming an organization
// renamed on the forge reads the old name's redirect, is Moved and
// writes nothing: before, it took the renamed organization for its own
// and wrote its settings to it.
func TestRenamedOrganizationIsMoved(t *testing.T) {
	ff, fc, url := testForge(t, "team-a-tools")
	renameOrg(t, url, "team-a-tools", "shared-tools")
	ff.ClearRequests()
	o := &forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "team-a-tools"}}
	o.Spec.Description = new("ours")
	_, err := (&organization{obj: o, fc: fc}).Observe(context.Background())
	wantMovedStall(t, err)
	wantNoWrites(t, ff)
	if got, _ := ff.Org("shared-tools"); got.Description == "ours" {
		t.Errorf("the renamed organization was written: %+v", got)
	}
}

// TestTenantCannotWriteThroughAnOldName: a tenant whose ClusterForge entry
// grants team-a-* names team-a-tools, since renamed to shared-tools (which
// the tenant was never given). Its Team "Owners" with itself as a member,
// its Team adopted before the rename (status.id), and its Repository with
// itself as an admin collaborator are Moved and write nothing: before,
// the tenant became an owner of shared-tools through the old name.
func TestTenantCannotWriteThroughAnOldName(t *testing.T) {
	cf := &forgev1.ClusterForge{ObjectMeta: metav1.ObjectMeta{Name: "shared"},
		Spec: forgev1.ClusterForgeSpec{Tenants: []forgev1.ClusterForgeTenant{
			{Namespaces: []string{"team-a"}, Owners: []forgev1.OwnerGlob{"team-a-*"}}}}}
	// The grant is by name: the old name passes it.
	if p := claims.Permits(cf, "team-a", nil, []string{"team-a-tools"}, false); !p.Allowed {
		t.Fatalf("the entry does not grant team-a-tools: %s", p.Why)
	}
	if p := claims.Permits(cf, "team-a", nil, []string{"shared-tools"}, false); p.Allowed {
		t.Fatal("the entry grants shared-tools")
	}

	ff, fc, url := testForge(t, "team-a-tools")
	ff.AddUser("tenant")
	if err := ff.CreateRepo("team-a-tools", "app"); err != nil {
		t.Fatal(err)
	}
	owners, _ := ff.Team("team-a-tools", "Owners")
	renameOrg(t, url, "team-a-tools", "shared-tools")
	ff.ClearRequests()
	ctx := context.Background()

	team := func(edit func(*forgev1.Team)) *forgev1.Team {
		tm := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "owners"}}
		tm.Spec.Organization = "team-a-tools"
		tm.Spec.Name = new(forgev1.TeamName("Owners"))
		tm.Spec.Members = []forgev1.OwnerName{"tenant"}
		if edit != nil {
			edit(tm)
		}
		return tm
	}
	_, err := (&teamExt{obj: team(nil), fc: fc}).Observe(ctx)
	wantMovedStall(t, err)
	_, err = (&teamExt{obj: team(func(tm *forgev1.Team) { tm.Status.ID = owners.ID }), fc: fc}).Observe(ctx)
	wantMovedStall(t, err)

	r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app"}}
	r.Spec.Owner = "team-a-tools"
	r.Spec.Collaborators = []forgev1.Collaborator{{User: "tenant", Permission: "admin"}}
	_, err = (&repository{obj: r, fc: fc, pass: &reconciler.Pass{Forge: fc}}).Observe(ctx)
	wantMovedStall(t, err)

	wantNoWrites(t, ff)
	if m := ff.TeamMembers("shared-tools", "Owners"); !slices.Equal(m, []string{ff.Login()}) {
		t.Errorf("shared-tools' owners are %v, want only %s", m, ff.Login())
	}
	if c := ff.Collaborators("shared-tools", "app"); len(c) != 0 {
		t.Errorf("shared-tools/app's collaborators are %v", c)
	}
}

// TestTeamReadByIDInAnotherOrganizationIsMoved: a Team whose status.id is
// a team of another organization than its spec's (its own organization's
// listing lacks it, so it is read by id) is Moved and writes nothing.
func TestTeamReadByIDInAnotherOrganizationIsMoved(t *testing.T) {
	ff, fc, _ := testForge(t, "team-a-tools", "shared-tools")
	ff.AddUser("tenant")
	other, err := fc.CreateTeam(context.Background(), "shared-tools", forge.CreateTeamOption{Name: "admins", Permission: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	ff.ClearRequests()
	tm := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "admins"}}
	tm.Spec.Organization = "team-a-tools"
	tm.Spec.Name = new(forgev1.TeamName("admins"))
	tm.Spec.Members = []forgev1.OwnerName{"tenant"}
	tm.Status.ID = other.ID
	_, err = (&teamExt{obj: tm, fc: fc}).Observe(context.Background())
	wantMovedStall(t, err)
	wantNoWrites(t, ff)
	if m := ff.TeamMembers("shared-tools", "admins"); len(m) != 0 {
		t.Errorf("shared-tools' admins are %v", m)
	}
}

// TestRepositoryReadByIDUnderAnotherOwnerIsMoved: a Repository whose
// status.id is now a repository of another owner (transferred) is Moved
// and writes nothing; before, it looked its name up again and made a new
// repository under the old owner.
func TestRepositoryReadByIDUnderAnotherOwnerIsMoved(t *testing.T) {
	ff, fc, _ := testForge(t, "team-a-tools", "shared-tools")
	if err := ff.CreateRepo("shared-tools", "app"); err != nil {
		t.Fatal(err)
	}
	moved, _ := ff.Repo("shared-tools", "app")
	ff.ClearRequests()
	r := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app"}}
	r.Spec.Owner = "team-a-tools"
	r.Spec.Collaborators = []forgev1.Collaborator{{User: "tenant", Permission: "admin"}}
	r.Status.ID = moved.ID
	_, err := (&repository{obj: r, fc: fc, pass: &reconciler.Pass{Forge: fc}}).Observe(context.Background())
	wantMovedStall(t, err)
	wantNoWrites(t, ff)
}
