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

package v1beta1

// The accessors that let the shared reconcile loop treat every managed kind
// alike (see Managed) are generated into zz_generated.managed.go by
// hack/kindgen (`make generate`) from each kind's type.

// effective returns p, or def when p is unset (an object read before the schema default applied).
func effective(p, def DeletionPolicy) DeletionPolicy {
	if p == "" {
		return def
	}
	return p
}
