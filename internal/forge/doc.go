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

// Package forge is the operator's only way to talk to a Gitea or Forgejo
// server (the "forge") over its REST API under /api/v1.
//
// # Shape
//
// Reconcilers depend on narrow interfaces, one per area (ServerClient,
// OrgsClient, HooksClient, LabelsClient, ProjectsClient, RunnersClient,
// ReposClient), so a reconciler states in its type what it touches and a
// test double only has to cover that area; what only tests and the demo
// need (creating repositories, registering runners) is FixturesClient. A single implementation, *Client,
// satisfies all of them (Interface) and owns the one HTTP layer every call
// goes through: authentication, TLS, base-URL handling, a per-forge token
// bucket, a timeout, the User-Agent, Prometheus metrics keyed by route
// template, paging, and the mapping of responses onto typed errors (*Error,
// ErrorKind). Keeping that in one place is what makes the guarantees hold for
// every endpoint: metrics never carry a concrete object name, lists never
// lose or repeat an item, errors never carry a credential.
//
// # Why not code.gitea.io/sdk/gitea
//
// The official SDK was considered and not used underneath:
//
//   - It has no projects API (the operator manages repository projects).
//   - It holds the context.Context on the client (SetContext) rather than
//     taking one per call; reconcilers run concurrently and need per-call
//     cancellation and deadlines, so a shared client would race or need one
//     client per reconcile.
//   - Its PATCH payloads do not encode the forge's quirks the operator must
//     honour (hook edits replace events, branch_filter and
//     authorization_header when omitted; label edits un-archive when
//     is_archived is omitted), and its error values are not classified into
//     the kinds reconcilers branch on (object vs route not found, 422 with
//     the forge's message, Retry-After, ...).
//   - It probes the server version on first use and adds its own HTTP
//     behaviour, which would sit beside (not inside) our rate limiting and
//     metrics.
//
// The endpoints used are few and their JSON is small, so a thin client over
// net/http and encoding/json costs less than adapting the SDK, and it keeps
// the forge behaviours recorded in forge-behaviour.md visible in one package.
//
// # Errors
//
// Every method returns *Error on failure; use KindOf or the Is* helpers.
// A 404 carrying a JSON body means the object does not exist
// (KindNotFound); a 404 with the plain-text body "404 page not found", and a
// 405, mean the server does not offer the endpoint at all
// (KindRouteNotFound): that is how servers without the projects API or the
// runner edit endpoint answer.
package forge
