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

// Package fairness shares each controller's workers between tenants: a
// pass counts against its Forge (a namespace's use of a ClusterForge), its
// namespace and its forge server, each capped below the pool's size, so
// that one tenant's backlog or one dead server never holds every worker
// (Fair, CompleteFair). A pass turned away is parked and woken in turn when
// a slot of its tenant frees. The shards' handover asks it how many passes
// are still in flight at a server (PassesWhere, InFlightAt).
//
// It knows requests and tenants, not kinds or forge objects: it may import
// the API types and controller-runtime, never the loop
// (internal/reconciler) nor the other rooms beside it. The loop and the
// Forge and ClusterForge controllers build their controllers through it;
// the loop names each pass's Tenant.
package fairness
