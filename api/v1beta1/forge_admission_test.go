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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// Forge's admission and defaults cases, run by the shared tables
// (registerKind).
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
		defaults: []kindDefault{
			{
				name: "Forge: timeout 30s, token key token, CA key ca.crt, rateLimit 10/20 when rateLimit is given",
				check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
					var f forgev1.Forge
					storedAs(ctx, obj("Forge", set("spec.rateLimit", map[string]any{}), set("spec.tls.caSecretRef.name", "gitea-ca")), &f)
					Expect(f.Spec.Timeout).NotTo(BeNil())
					Expect(f.Spec.Timeout.Duration).To(Equal(30 * time.Second))
					Expect(f.Spec.Auth.TokenSecretRef.Key).To(Equal("token"))
					Expect(f.Spec.TLS.CASecretRef.Key).To(Equal("ca.crt"))
					Expect(f.Spec.RateLimit).To(Equal(&forgev1.RateLimit{QPS: 10, Burst: 20}))
				},
			},
			{
				name: "Forge: no rateLimit when none is given, explicit values kept",
				check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
					var f forgev1.Forge
					storedAs(ctx, obj("Forge",
						set("spec.timeout", "5s"),
						set("spec.auth.tokenSecretRef.key", "access-token"),
						set("spec.tls.caSecretRef", map[string]any{"name": "gitea-ca", "key": "bundle.pem"})), &f)
					Expect(f.Spec.RateLimit).To(BeNil())
					Expect(f.Spec.Timeout.Duration).To(Equal(5 * time.Second))
					Expect(f.Spec.Auth.TokenSecretRef.Key).To(Equal("access-token"))
					Expect(f.Spec.TLS.CASecretRef.Key).To(Equal("bundle.pem"))
				},
			},
			{
				name: "Forge: a rateLimit with only qps gets burst 20",
				check: func(ctx SpecContext, storedAs func(SpecContext, *unstructured.Unstructured, client.Object)) {
					var f forgev1.Forge
					storedAs(ctx, obj("Forge", set("spec.rateLimit.qps", 2.5)), &f)
					Expect(f.Spec.RateLimit).To(Equal(&forgev1.RateLimit{QPS: 2.5, Burst: 20}))
				},
			},
		},
	}
})
