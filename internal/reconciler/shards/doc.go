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

// Package shards is a manager's part in the shards (docs/shards.md): which
// shard serves each forge server, and the handover that moves a server's
// resources from one shard's manager to another's.
//
// The unit a shard serves is the forge server, never one Forge: claims
// (claims.Servers) and fairness (fairness.Tenant) span every Forge and
// ClusterForge of a server, and a manager seeing half of a server's
// resources would see half of the holders of its objects. A server's
// desired shard is the label of its deciding connection (ShardOf); the
// shard that holds it is recorded in a Lease per server (shards.go). The
// loop asks Decide before each pass and leaves alone what its manager does
// not serve; the mover (handover.go) drains, relabels and writes the Lease;
// watch.go wakes the passes a change of holder or of decider concerns.
//
// It may import the API types, claims (the connections of a server) and
// fairness (the passes in flight it drains), never the loop
// (internal/reconciler): the loop imports it.
package shards
