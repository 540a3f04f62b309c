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

// Package reconciler is the reconcile loop every managed kind shares. A kind
// supplies only how to observe, create, update and delete its forge object
// (and its natural key, if it has one; kind.go, set.go for a kind that
// applies one list to many repositories); the loop does the rest, once:
// reaching the Forge or ClusterForge (connect.go), finalizers, deletion and
// management policies (finalize.go), suspend, adoption, the create-pending
// mark (pending.go), the one decision about a forge object and its
// execution (act.go), drift checks spread over the interval (schedule.go),
// conditions and status (status.go), Events, metrics, and the mapping of
// errors to retries (errors.go). setup.go builds each kind's controller,
// its indexes and its watches.
//
// The shape follows crossplane-runtime's managed reconciler (Observe never
// writes, Create is safe to repeat, Delete of a missing object succeeds) and
// Flux's habit of writing status once per pass from one summary.
//
// Beside the loop, each shared concern is a package of its own, read
// without the loop:
//   - claims: who holds which forge object and who may act on it (the
//     connections of a server, tenancy, what tenants learn of each other);
//     the loop's conflict checks (conflicts.go) ask it.
//   - fairness: the workers of each controller shared between tenants; the
//     loop names each pass's tenant and builds its controller through it.
//   - shards: which shard serves a forge server and the handover; the loop
//     asks it before each pass (shard.go).
//
// Imports go down only: the loop may import claims, fairness and shards,
// shards may import claims and fairness, and none of them imports the loop
// (test/layering keeps it so). What the loop and a room both need lives
// in the room (claims.IndexForgeRef, claims.ForgeKey), or the loop passes
// it in (fairness.TenantOf).
package reconciler
