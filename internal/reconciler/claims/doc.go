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

// Package claims answers who holds which forge object and who may act on
// it, for every managed kind at once (DESIGN "Reconciliation semantics",
// Conflicts, and "ClusterForge").
//
// A resource holds the forge object of its natural key and of its
// status.id; holds are compared across every namespace the manager watches
// and every Forge and ClusterForge that points at the same server
// (forge.ServerKey, Servers), so that two tenants' resources for one object
// never both write to it. The loop's indexes are cluster-wide, by the
// natural key and by the id alone; the server is decided when asking, from
// the connections in the cache, so that a Forge whose URL changes moves its
// resources' holds with it at once (servers.go).
//
// Tenancy (tenancy.go) decides which namespaces may manage which owners
// through a ClusterForge; a resource its ClusterForge does not permit holds
// nothing. What tenants learn of each other's holds is in disclose.go.
//
// It reads the manager's cache and decides; it writes nothing. It may
// import the API types and the low packages (internal/conditions,
// internal/forge), never the loop (internal/reconciler) nor the other rooms
// beside it: the loop, fairness and shards import it.
package claims
