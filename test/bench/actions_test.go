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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// BenchmarkActions applies 200 secrets and 200 variables over 50
// repositories (4 of each per repository), all created by the operator,
// the secrets' values from one Secret. Printed: calls per object to
// converge, and reads per object per sync interval at rest (one secret and
// one variable listing per repository).
func BenchmarkActions(b *testing.B) {
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	const repos, perRepo = 50, 4
	b.Run("secrets=200/variables=200/repos=50/qps=default", func(b *testing.B) {
		for b.Loop() {
			run := newRun(b, cfg, 0, w1Sync, func(fake *fakeforge.Server) {
				if _, err := fake.CreateOrg("acme"); err != nil {
					b.Fatal(err)
				}
				for r := range repos {
					if err := fake.CreateRepo("acme", fmt.Sprintf("repo-%02d", r)); err != nil {
						b.Fatal(err)
					}
				}
			})
			values := map[string]string{}
			for i := range perRepo {
				values[fmt.Sprintf("v%d", i)] = fmt.Sprintf("secret-value-%d", i)
			}
			run.apply(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: "ci"}, StringData: values})
			for r := range repos {
				scope := forgev1.ActionsScope{Repository: ptr(forgev1.RepositoryName(fmt.Sprintf("acme/repo-%02d", r)))}
				for i := range perRepo {
					name := fmt.Sprintf("repo-%02d-value-%d", r, i)
					s := scope
					s.Name = ptr(forgev1.ActionsName(fmt.Sprintf("VALUE_%d", i)))
					run.apply(&forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: name},
						Spec: forgev1.ActionsSecretSpec{ManagedSpec: run.spec, ActionsScope: s,
							ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "ci", Key: fmt.Sprintf("v%d", i)}}}})
					run.apply(&forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: run.ns, Name: name},
						Spec: forgev1.ActionsVariableSpec{ManagedSpec: run.spec, ActionsScope: s, Value: ptr(fmt.Sprintf("value %d", i))}})
				}
			}
			run.converge(2 * repos * perRepo)
			run.stop()
		}
	})
}
