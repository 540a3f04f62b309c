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

// BenchmarkRepositories applies 200 Repositories in 10 organizations: half
// exist and are adopted (their description differs: one PATCH each), half
// are created with a description and topics; every tenth manages its
// collaborators (none). Printed: calls per Repository to converge, and
// reads per Repository per sync interval at rest (one listing per
// organization, one collaborator listing per repository that manages them).
func BenchmarkRepositories(b *testing.B) {
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	const orgs, repos = 10, 200
	b.Run("repos=200/orgs=10/qps=default", func(b *testing.B) {
		for b.Loop() {
			run := newRun(b, cfg, 0, w1Sync, func(fake *fakeforge.Server) {
				for o := range orgs {
					if _, err := fake.CreateOrg(fmt.Sprintf("org-%02d", o)); err != nil {
						b.Fatal(err)
					}
				}
				for r := 0; r < repos; r += 2 {
					if err := fake.CreateRepo(fmt.Sprintf("org-%02d", r%orgs), fmt.Sprintf("repo-%03d", r)); err != nil {
						b.Fatal(err)
					}
				}
			})
			for r := range repos {
				obj := &forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: fmt.Sprintf("repo-%03d", r)},
					Spec: forgev1.RepositorySpec{ManagedSpec: run.spec, Owner: forgev1.OwnerName(fmt.Sprintf("org-%02d", r%orgs)),
						RepositorySettings: forgev1.RepositorySettings{Description: ptr("managed by the benchmark")}}}
				if r%2 == 1 {
					obj.Spec.Topics = []forgev1.Topic{"bench", "go"}
				}
				if r%10 == 0 {
					obj.Spec.Collaborators = []forgev1.Collaborator{}
				}
				run.apply(obj)
			}
			run.converge(repos)
			run.stop()
		}
	})
}
