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
	"slices"

	"github.com/forgeops/forge-operator/internal/reconciler"
)

// actionsValueUnknown is the plan note of an Actions secret or variable:
// its value is the object, and without the Secret nothing can be said of it.
func actionsValueUnknown(d reconciler.Action, unknown []string) string {
	if d == reconciler.InSync && slices.Contains(unknown, "value") {
		return "the value comes from a Secret plan cannot read (or cannot compare without the secret digest key); give --kubeconfig and -n"
	}
	return ""
}
