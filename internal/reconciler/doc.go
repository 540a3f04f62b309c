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
// (and its natural key, if it has one); the loop does the rest, once: Forge
// resolution, finalizers, deletion and management policies, suspend,
// adoption, the create-pending mark, conflicts between resources, drift
// checks spread over the interval (schedule.go), conditions, Events, metrics, and the
// mapping of errors to retries.
//
// The shape follows crossplane-runtime's managed reconciler (Observe never
// writes, Create is safe to repeat, Delete of a missing object succeeds) and
// Flux's habit of writing status once per pass from one summary.
package reconciler
