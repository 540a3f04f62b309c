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

package secrets

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Secrets the operator makes for a resource (a DeployKey's key pair, a
// RunnerRegistrationToken's token) are created owned by it, so that the
// garbage collector removes them with it, and are the only Secrets it
// ever writes into.

// Owned is an empty Secret name in obj's namespace, owned by obj of
// kind (its controller).
func Owned(obj client.Object, kind, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: obj.GetNamespace(), Name: name,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(obj, forgev1.GroupVersion.WithKind(kind))},
		},
		Type: corev1.SecretTypeOpaque,
	}
}

// OwnedBy reports whether s names obj, of kind, as its controller.
func OwnedBy(s *corev1.Secret, kind string, obj client.Object) bool {
	ref := metav1.GetControllerOf(s)
	return ref != nil && ref.UID == obj.GetUID() && ref.Kind == kind
}
