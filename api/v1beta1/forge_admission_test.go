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

// Forge's admission cases, run by the shared tables (registerKind).
var _ = registerKind("Forge", `
apiVersion: forge.forgeops.dev/v1beta1
kind: Forge
metadata: {name: gitea}
spec:
  url: https://git.example.com
  auth:
    tokenSecretRef: {name: gitea-token}
`, func() kindCases {
	return kindCases{
		accepted: []TableEntry{
			Entry("Forge: the base object", obj("Forge")),
			Entry("Forge: basic auth instead of a token", obj("Forge",
				unset("spec.auth.tokenSecretRef"), set("spec.auth.basicAuthSecretRef.name", "gitea-basic"))),
			Entry("Forge: url already ending in /api/v1, with a port", obj("Forge", set("spec.url", "https://git.example.com:8443/api/v1"))),
			Entry("Forge: fractional qps", obj("Forge", set("spec.rateLimit.qps", 0.5))),
			Entry("Forge: composite timeout", obj("Forge", set("spec.timeout", "1m30s"))),
			Entry("Forge: timeout of exactly 5m", obj("Forge", set("spec.timeout", "5m"))),
			Entry("Forge: rate limits at their bounds", obj("Forge",
				set("spec.rateLimit", map[string]any{"qps": 0.1, "burst": int64(1000)}))),
			Entry("Forge: the highest qps", obj("Forge", set("spec.rateLimit.qps", int64(1000)))),
		},
		rejected: []TableEntry{
			Entry("Forge: auth names no Secret", obj("Forge", unset("spec.auth.tokenSecretRef")), "spec.auth"),
			Entry("Forge: auth names both a token and a basic-auth Secret", obj("Forge",
				set("spec.auth.basicAuthSecretRef.name", "gitea-basic")), "spec.auth"),
			Entry("Forge: ssh url", obj("Forge", set("spec.url", "ssh://git@git.example.com")), "spec.url"),
			Entry("Forge: url without a scheme", obj("Forge", set("spec.url", "git.example.com")), "spec.url"),
			Entry("Forge: url with a query", obj("Forge", set("spec.url", "https://git.example.com/?token=x")), "spec.url"),
			Entry("Forge: url missing", obj("Forge", unset("spec.url")), "spec.url"),
			Entry("Forge: empty token Secret name", obj("Forge", set("spec.auth.tokenSecretRef.name", "")), "spec.auth.tokenSecretRef.name"),
			Entry("Forge: CA Secret without a name", obj("Forge", set("spec.tls.caSecretRef.key", "ca.pem")), "spec.tls.caSecretRef.name"),
			Entry("Forge: timeout without a unit", obj("Forge", set("spec.timeout", "30")), "spec.timeout"),
			Entry("Forge: zero timeout", obj("Forge", set("spec.timeout", "0s")), "spec.timeout"),
			Entry("Forge: qps 0", obj("Forge", set("spec.rateLimit.qps", 0.0)), "spec.rateLimit.qps"),
			Entry("Forge: negative qps", obj("Forge", set("spec.rateLimit.qps", -2.5)), "spec.rateLimit.qps"),
			Entry("Forge: burst 0", obj("Forge", set("spec.rateLimit.burst", int64(0))), "spec.rateLimit.burst"),
			Entry("Forge: burst over 1000", obj("Forge", set("spec.rateLimit.burst", int64(1001))), "spec.rateLimit.burst"),
			Entry("Forge: qps under 0.1", obj("Forge", set("spec.rateLimit.qps", 0.05)), "spec.rateLimit.qps"),
			Entry("Forge: qps over 1000", obj("Forge", set("spec.rateLimit.qps", 1000.5)), "spec.rateLimit.qps"),
			Entry("Forge: timeout over 5m", obj("Forge", set("spec.timeout", "5m1s")), "spec.timeout"),
			Entry("Forge: timeout of 1000h", obj("Forge", set("spec.timeout", "1000h")), "spec.timeout"),
			Entry("Forge: url with user and password", obj("Forge", set("spec.url", "https://bob:hunter2@git.example.com")), "spec.url"),
			Entry("Forge: url with a user only", obj("Forge", set("spec.url", "https://bob@git.example.com")), "spec.url"),
			Entry("Forge: url with @ in the path", obj("Forge", set("spec.url", "https://git.example.com/x@y")), "spec.url"),
		},
	}
})
