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

package bench

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// BenchmarkTeams applies 20 organizations x 5 teams x 5 members (each team
// with units and one repository), all created by the operator. Printed:
// calls per Team to converge, and reads per Team per sync interval at rest
// (a share of one team listing per organization, one member and one
// repository listing per team).
func BenchmarkTeams(b *testing.B) {
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	const orgs, teams, members = 20, 5, 5
	b.Run("orgs=20/teams=5/members=5/qps=default", func(b *testing.B) {
		for b.Loop() {
			run := newRun(b, cfg, 0, w1Sync, func(fake *fakeforge.Server) {
				for o := range orgs {
					org := fmt.Sprintf("org-%02d", o)
					if _, err := fake.CreateOrg(org); err != nil {
						b.Fatal(err)
					}
					if err := fake.CreateRepo(org, "web"); err != nil {
						b.Fatal(err)
					}
				}
				for m := range teams * members {
					fake.AddUser(fmt.Sprintf("user-%02d", m))
				}
			})
			for o := range orgs {
				for t := range teams {
					obj := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: fmt.Sprintf("org-%02d-team-%d", o, t)},
						Spec: forgev1.TeamSpec{ManagedSpec: run.spec, Organization: forgev1.OwnerName(fmt.Sprintf("org-%02d", o)),
							Name: ptr(forgev1.TeamName(fmt.Sprintf("team-%d", t))), Units: &forgev1.TeamUnits{Code: "write", Issues: "read"},
							Repositories: []forgev1.RepoName{"web"}}}
					for m := range members {
						obj.Spec.Members = append(obj.Spec.Members, forgev1.OwnerName(fmt.Sprintf("user-%02d", t*members+m)))
					}
					run.apply(obj)
				}
			}
			run.converge(orgs * teams)
			run.stop()
		}
	})
}
