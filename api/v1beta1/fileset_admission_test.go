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

package v1beta1_test

import (
	. "github.com/onsi/ginkgo/v2"
)

// FileSet's admission cases, run by the shared tables (registerKind).
var _ = registerKind("FileSet", `
apiVersion: forge.forgeops.dev/v1beta1
kind: FileSet
metadata: {name: acme-codeowners}
spec:
  forgeRef: {name: gitea}
  repositories: {organization: acme}
  files:
  - path: .gitea/CODEOWNERS
    content: "* @acme/platform\n"
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("FileSet: the base object", obj("FileSet")),
			Entry("FileSet: a message with trailers and words of Kept-by", obj("FileSet",
				set("spec.message", "chore: files kept by the platform\n\nSigned-off-by: Platform <platform@example.com>"))),
			Entry("FileSet: every field, by topics, a file from a ConfigMap", obj("FileSet",
				set("spec.repositories.topics", strs("service")), set("spec.branch", "main"), set("spec.mode", "CreateOnly"),
				set("spec.message", "chore: starter files"), set("spec.author", map[string]any{"name": "Platform Bot", "email": "bot@example.com"}),
				set("spec.deletionPolicy", "Delete"),
				set("spec.files", []any{
					map[string]any{"path": ".gitea/workflows/ci.yaml", "configMapRef": map[string]any{"name": "ci", "key": "ci.yaml"}},
					map[string]any{"path": "LICENSE", "content": ""}}))),
		},
		rejected: []TableEntry{
			Entry("FileSet: no file", obj("FileSet", set("spec.files", []any{})), "spec.files"),
			Entry("FileSet: a path with ..", obj("FileSet", set("spec.files", []any{
				map[string]any{"path": "docs/../x", "content": "x"}})), "spec.files[0].path"),
			Entry("FileSet: no repositories selected", obj("FileSet", unset("spec.repositories.organization")), "exactly one of names and organization"),
			Entry("FileSet: unknown mode", obj("FileSet", set("spec.mode", "Append")), "spec.mode"),
			Entry("FileSet: a message with a Kept-by line in another case", obj("FileSet",
				set("spec.message", "chore: files\nkept-by : RepositoryFile platform/owners")), "spec.message"),
		},
	}
})
