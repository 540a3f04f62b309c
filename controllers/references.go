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

import (
	"reflect"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// What the kinds reference and declare (reconciler.Referrer, Declarer):
// a resource naming a team, user, organization or repository that a
// resource of the same apply declares waits for that resource to be Ready
// before it writes, rather than be refused by the forge meanwhile. The
// repositories a kind lives in are its RepoRefs (reconciler.RepoScoped).

// Declares: a Repository its owner/name.
func (repositoryKind) Declares(r *forgev1.Repository) []reconciler.Ref {
	return []reconciler.Ref{{Kind: reconciler.RefRepository, Name: r.FullName()}}
}

// Declares: a Team its organization/name.
func (teamKind) Declares(t *forgev1.Team) []reconciler.Ref {
	return []reconciler.Ref{teamRef(string(t.Spec.Organization), t.TeamName())}
}

// Declares: a User its login.
func (userKind) Declares(u *forgev1.User) []reconciler.Ref {
	return []reconciler.Ref{{Kind: reconciler.RefUser, Name: string(u.Spec.Username)}}
}

// Declares: an Organization its name.
func (organizationKind) Declares(o *forgev1.Organization) []reconciler.Ref {
	return []reconciler.Ref{{Kind: reconciler.RefOrganization, Name: o.OrgName()}}
}

// References of a Repository: its owner, an organization or a user (its
// template is a RepoRef).
func (repositoryKind) References(r *forgev1.Repository) []reconciler.Ref {
	owner := string(r.Spec.Owner)
	return []reconciler.Ref{{Kind: reconciler.RefOrganization, Name: owner}, {Kind: reconciler.RefUser, Name: owner}}
}

// References of a Team: its organization and its members (its
// repositories are RepoRefs).
func (teamKind) References(t *forgev1.Team) []reconciler.Ref {
	out := []reconciler.Ref{{Kind: reconciler.RefOrganization, Name: string(t.Spec.Organization)}}
	for _, m := range t.Spec.Members {
		out = append(out, reconciler.Ref{Kind: reconciler.RefUser, Name: string(m)})
	}
	return out
}

// tagProtectionRefs are the users and teams (of its repository's owner)
// of a TagProtection's allow-lists.
func tagProtectionRefs(t *forgev1.TagProtection) []reconciler.Ref {
	return listRefs(scopeOf(&t.Spec.Repository, nil).Owner, t.Spec.WhitelistUsernames, t.Spec.WhitelistTeams)
}

// branchProtectionRefs are the users and teams (of its repository's
// owner) of every allow-list of a BranchProtection's rule.
func branchProtectionRefs(b *forgev1.BranchProtection) []reconciler.Ref {
	return ruleRefs(scopeOf(&b.Spec.Repository, nil).Owner, &b.Spec.BranchProtectionRule)
}

// References of a BranchProtectionSet: the users and teams of every
// allow-list of its rules, the teams of each owner it selects from (an
// organization, or the owners of the repositories it names).
func (branchProtectionSetKind) References(s *forgev1.BranchProtectionSet) []reconciler.Ref {
	var owners []string
	if org := s.Spec.Repositories.Organization; org != nil {
		owners = []string{string(*org)}
	}
	for _, n := range s.Spec.Repositories.Names {
		owner, _, _ := strings.Cut(string(n), "/")
		if !slices.Contains(owners, owner) {
			owners = append(owners, owner)
		}
	}
	var out []reconciler.Ref
	for _, owner := range owners {
		for i := range s.Spec.Rules {
			out = append(out, ruleRefs(owner, &s.Spec.Rules[i])...)
		}
	}
	return out
}

// ruleRefs are the users and teams a rule's allow-lists name: every field
// of the rule that lists users ([]UserName) or teams ([]TeamName), so that
// an allow-list added to the rule is referenced without a change here.
func ruleRefs(owner string, rule *forgev1.BranchProtectionRule) []reconciler.Ref {
	var out []reconciler.Ref
	v := reflect.ValueOf(rule).Elem()
	for i := range v.NumField() {
		switch names := v.Field(i).Interface().(type) {
		case []forgev1.UserName:
			out = append(out, listRefs(owner, names, nil)...)
		case []forgev1.TeamName:
			out = append(out, listRefs(owner, nil, names)...)
		}
	}
	return out
}

// listRefs references users and the teams of organization org.
func listRefs(org string, users []forgev1.UserName, teams []forgev1.TeamName) []reconciler.Ref {
	out := make([]reconciler.Ref, 0, len(users)+len(teams))
	for _, u := range users {
		out = append(out, reconciler.Ref{Kind: reconciler.RefUser, Name: string(u)})
	}
	for _, t := range teams {
		out = append(out, teamRef(org, string(t)))
	}
	return out
}

func teamRef(org, team string) reconciler.Ref {
	return reconciler.Ref{Kind: reconciler.RefTeam, Name: org + "/" + team}
}
