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

// The admission suite runs the generated CRDs in a real kube-apiserver
// (envtest) and checks what a user sees on kubectl apply: the samples are
// accepted, invalid objects are refused with a message naming the field,
// immutable fields stay put and defaults are filled in.
package v1beta1_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/forgeops/forge-operator/internal/testenv"
)

var (
	env       *envtest.Environment
	k8sClient client.Client
	// dryRunNamespace holds the dry-run creates of the validation tables.
	dryRunNamespace string
)

func TestAdmission(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "forge.forgeops.dev/v1beta1 admission")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	e, cfg, err := testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	env = e
	// Strict field validation: a misspelt or misplaced field in a sample
	// or a test object is an error, not silently pruned by the server.
	k8sClient, err = client.New(cfg, client.Options{
		Scheme:          scheme.Scheme,
		FieldValidation: metav1.FieldValidationStrict,
	})
	Expect(err).NotTo(HaveOccurred())
	dryRunNamespace = newNamespace(ctx, "dry-run")
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// newNamespace creates a namespace with a generated name for one group of
// tests, so that their objects never collide.
func newNamespace(ctx context.Context, prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}
