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

// RepositoryFile's admission and immutability cases, run by the shared
// tables (registerKind).
var _ = registerKind("RepositoryFile", `
apiVersion: forge.forgeops.dev/v1beta1
kind: RepositoryFile
metadata: {name: web-codeowners}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  files:
  - path: .gitea/CODEOWNERS
    content: "* @acme/platform\n"
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("RepositoryFile: the base object", obj("RepositoryFile")),
			Entry("RepositoryFile: every field, a file from a ConfigMap", obj("RepositoryFile",
				set("spec.branch", "release/1.x"), set("spec.mode", "CreateOnly"), set("spec.message", "chore: starter files"),
				set("spec.author", map[string]any{"name": "Platform Bot", "email": "bot@example.com"}),
				set("spec.deletionPolicy", "Delete"),
				set("spec.files", []any{
					map[string]any{"path": ".gitea/workflows/ci.yaml", "configMapRef": map[string]any{"name": "ci", "key": "ci.yaml"}},
					map[string]any{"path": "LICENSE", "content": ""}}))),
		},
		rejected: []TableEntry{
			Entry("RepositoryFile: no file", obj("RepositoryFile", set("spec.files", []any{})), "spec.files"),
			Entry("RepositoryFile: a path with ..", obj("RepositoryFile", set("spec.files", []any{
				map[string]any{"path": "docs/../x", "content": "x"}})), "spec.files[0].path"),
			Entry("RepositoryFile: an absolute path", obj("RepositoryFile", set("spec.files", []any{
				map[string]any{"path": "/x", "content": "x"}})), "spec.files[0].path"),
			Entry("RepositoryFile: a .git component", obj("RepositoryFile", set("spec.files", []any{
				map[string]any{"path": ".GIT/hooks/x", "content": "x"}})), "spec.files[0].path"),
			Entry("RepositoryFile: both content and configMapRef", obj("RepositoryFile", set("spec.files", []any{
				map[string]any{"path": "x", "content": "x", "configMapRef": map[string]any{"name": "c", "key": "k"}}})), "spec.files[0]"),
			Entry("RepositoryFile: neither content nor configMapRef", obj("RepositoryFile", set("spec.files", []any{
				map[string]any{"path": "x"}})), "spec.files[0]"),
			Entry("RepositoryFile: one path twice", obj("RepositoryFile", set("spec.files", []any{
				map[string]any{"path": "x", "content": "a"}, map[string]any{"path": "x", "content": "b"}})), "spec.files[1]"),
			Entry("RepositoryFile: unknown mode", obj("RepositoryFile", set("spec.mode", "Append")), "spec.mode"),
			Entry("RepositoryFile: author without email", obj("RepositoryFile", set("spec.author", map[string]any{"name": "Bot"})), "spec.author.email"),
			Entry("RepositoryFile: a message with a Kept-by trailer of its own", obj("RepositoryFile",
				set("spec.message", "chore: files\n\nKept-by: FileSet platform/codeowners")), "spec.message"),
		},
		immutable: []TableEntry{
			Entry("RepositoryFile: spec.repository changed", obj("RepositoryFile"),
				[]edit{set("spec.repository", "acme/api")}, "spec.repository is immutable"),
		},
	}
})
