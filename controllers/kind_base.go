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

package controllers

import "sigs.k8s.io/controller-runtime/pkg/client"

// kindBase is what every kind (reconciler.Kind) has alike, for its API
// type T and list type L: New, NewList, and no Secrets. A kind embeds it
// and declares Secrets itself when its resources reference Secrets.
type kindBase[T any, L any] struct{}

// New returns an empty object of the kind.
func (kindBase[T, L]) New() *T { return new(T) }

// NewList returns an empty list of the kind.
func (kindBase[T, L]) NewList() client.ObjectList { return any(new(L)).(client.ObjectList) }

// Secrets: the kind's resources reference no Secret.
func (kindBase[T, L]) Secrets(*T) []string { return nil }
