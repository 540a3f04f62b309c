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

// BenchmarkBranchProtectionSet applies one BranchProtectionSet of two
// rules to the 100 repositories of an organization (selected by the
// organization, every repository created by its users). Printed: calls to
// converge and reads at rest, in all and per repository (one rule listing
// per repository and one repository listing per interval).
func BenchmarkBranchProtectionSet(b *testing.B) {
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	const repos = 100
	b.Run("set=1/rules=2/repos=100/qps=default", func(b *testing.B) {
		for b.Loop() {
			run := newRun(b, cfg, 0, w1Sync, func(fake *fakeforge.Server) {
				if _, err := fake.CreateOrg("acme"); err != nil {
					b.Fatal(err)
				}
				for r := range repos {
					if err := fake.CreateRepo("acme", fmt.Sprintf("repo-%03d", r)); err != nil {
						b.Fatal(err)
					}
				}
			})
			run.members = repos
			run.apply(&forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: "protect"},
				Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: run.spec,
					Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
					Rules: []forgev1.BranchProtectionRule{
						{RuleName: "main", RequiredApprovals: ptr(int64(1)), BlockOnRejectedReviews: ptr(true)},
						{RuleName: "release/*", EnablePush: ptr(false), RequireSignedCommits: ptr(true)},
					}}})
			run.converge(1)
			run.stop()
		}
	})
}
