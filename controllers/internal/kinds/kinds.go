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

// Package kinds holds what kinds of every scope share, whether they live
// in a repository or not: Base (New, NewList and no Secrets, for a kind
// that writes its own methods) and the references a kind's spec makes to
// users and teams (reconciler.Ref), built one way for every kind that
// names them. It serves the kinds of package controllers and imports none
// of the shared pieces beside it, only the API types and the loop's
// vocabulary.
package kinds

import (
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Base is what every kind (reconciler.Kind) has alike, for its API type T
// and list type L: New, NewList, and no Secrets. A kind embeds it and
// declares Secrets itself when its resources reference Secrets.
type Base[T any, L any] struct{}

// New returns an empty object of the kind.
func (Base[T, L]) New() *T { return new(T) }

// NewList returns an empty list of the kind.
func (Base[T, L]) NewList() client.ObjectList { return any(new(L)).(client.ObjectList) }

// Secrets: the kind's resources reference no Secret.
func (Base[T, L]) Secrets(*T) []string { return nil }

// RuleRefs are the users and teams a rule's allow-lists name: every field
// of the rule that lists users ([]UserName) or teams ([]TeamName), so that
// an allow-list added to the rule is referenced without a change here.
func RuleRefs(owner string, rule *forgev1.BranchProtectionRule) []reconciler.Ref {
	var out []reconciler.Ref
	v := reflect.ValueOf(rule).Elem()
	for i := range v.NumField() {
		switch names := v.Field(i).Interface().(type) {
		case []forgev1.UserName:
			out = append(out, ListRefs(owner, names, nil)...)
		case []forgev1.TeamName:
			out = append(out, ListRefs(owner, nil, names)...)
		}
	}
	return out
}

// ListRefs references users and the teams of organization org.
func ListRefs(org string, users []forgev1.UserName, teams []forgev1.TeamName) []reconciler.Ref {
	out := make([]reconciler.Ref, 0, len(users)+len(teams))
	for _, u := range users {
		out = append(out, reconciler.Ref{Kind: reconciler.RefUser, Name: string(u)})
	}
	for _, t := range teams {
		out = append(out, TeamRef(org, string(t)))
	}
	return out
}

// TeamRef references team of organization org.
func TeamRef(org, team string) reconciler.Ref {
	return reconciler.Ref{Kind: reconciler.RefTeam, Name: org + "/" + team}
}
