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

// PushMirror's admission and immutability cases, run by the shared tables
// (registerKind).
var _ = registerKind("PushMirror", `
apiVersion: forge.forgeops.dev/v1beta1
kind: PushMirror
metadata: {name: acme-web-github}
spec:
  forgeRef: {name: gitea}
  repository: acme/web
  remoteAddress: https://github.com/acme/web.git
  auth: {username: git, passwordSecretRef: {name: github-push, key: token}}
  interval: 8h0m0s
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("PushMirror: with credentials", obj("PushMirror")),
			Entry("PushMirror: git URL, no auth, periodic sync off", obj("PushMirror", unset("spec.auth"),
				set("spec.remoteAddress", "git://mirror.example.com/acme/web.git"), set("spec.interval", "0s"))),
		},
		rejected: []TableEntry{
			// PushMirror: credentials in spec.auth, never in the address
			Entry("PushMirror: user and password in the address", obj("PushMirror",
				set("spec.remoteAddress", "https://git:s3cret@github.com/acme/web.git")), "must not carry user info"),
			Entry("PushMirror: a user in the address", obj("PushMirror",
				set("spec.remoteAddress", "https://git@github.com/acme/web.git")), "must not carry user info"),
			Entry("PushMirror: an SSH address", obj("PushMirror", set("spec.remoteAddress", "git@github.com:acme/web.git")),
				"must be an http://, https:// or git:// URL"),
			Entry("PushMirror: auth without a password", obj("PushMirror", set("spec.auth", map[string]any{"username": "git"})),
				"spec.auth.passwordSecretRef"),
			Entry("PushMirror: an interval that is no duration", obj("PushMirror", set("spec.interval", "daily")), "spec.interval"),
		},
		immutable: []TableEntry{
			Entry("PushMirror: spec.remoteAddress changed", obj("PushMirror"),
				[]edit{set("spec.remoteAddress", "https://github.com/acme/api.git")}, "spec.remoteAddress is immutable"),
		},
	}
})
