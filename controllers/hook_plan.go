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

// hookUnknownNote: a hook is found by its URL; from a Secret plan cannot
// read, whether the hook exists is unknown.
func hookUnknownNote(d reconciler.Action, unknown []string) string {
	if d == reconciler.Create && slices.Contains(unknown, "url") {
		return "the hook is found by its URL, which comes from a Secret plan cannot read; give --kubeconfig and -n"
	}
	return ""
}
