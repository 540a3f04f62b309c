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
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
)

// branchProtectionExport writes the live repositories' branch protection
// rules as labels are written: repositories whose rule lists are equal
// share one BranchProtectionSet naming them all (Additive, so adopting it
// never deletes a rule); a list only one repository holds becomes one
// BranchProtection per rule.
var branchProtectionExport = export.Aggregate(
	func(ctx context.Context, src branchProtectionReader, sc forge.Scope) ([]forge.BranchProtection, error) {
		rules, err := src.ListBranchProtections(ctx, sc.Owner, sc.Repo)
		if err != nil {
			return nil, fmt.Errorf("list the branch protection rules of %s: %w", sc, err)
		}
		return rules, nil
	},
	exportBranchProtections)

// branchProtectionReader is what the branch protection export reads.
type branchProtectionReader interface {
	ListBranchProtections(ctx context.Context, owner, repo string) ([]forge.BranchProtection, error)
}

func exportBranchProtections(b *export.Builder, org string, repos []export.RepoObjects[forge.BranchProtection]) {
	type group struct {
		repos []string
		rules []forgev1.BranchProtectionRule
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range repos {
		rules := make([]forgev1.BranchProtectionRule, len(r.Objects))
		for i, bp := range r.Objects {
			rules[i] = exportRule(bp, b.Server())
		}
		slices.SortFunc(rules, func(x, y forgev1.BranchProtectionRule) int {
			return strings.Compare(string(x.RuleName), string(y.RuleName))
		})
		key, _ := json.Marshal(rules)
		g, ok := groups[string(key)]
		if !ok {
			g = &group{rules: rules}
			groups[string(key)] = g
			order = append(order, string(key))
		}
		g.repos = append(g.repos, r.Repo)
	}
	for _, key := range order {
		g := groups[key]
		if len(g.repos) == 1 {
			for _, rule := range g.rules {
				b.Add(&forgev1.BranchProtection{
					TypeMeta:   export.TypeMeta("BranchProtection"),
					ObjectMeta: b.Meta("BranchProtection", strings.ReplaceAll(g.repos[0], "/", "-")+"-"+string(rule.RuleName), 0),
					Spec: forgev1.BranchProtectionSpec{
						ManagedSpec:          b.Managed(),
						DeletionPolicy:       forgev1.DeletionPolicyOrphan,
						Repository:           forgev1.RepositoryName(g.repos[0]),
						BranchProtectionRule: rule,
					},
				})
			}
			continue
		}
		names := make([]forgev1.RepositoryName, len(g.repos))
		for i, r := range g.repos {
			names[i] = forgev1.RepositoryName(r)
		}
		b.Add(&forgev1.BranchProtectionSet{
			TypeMeta:   export.TypeMeta("BranchProtectionSet"),
			ObjectMeta: b.Meta("BranchProtectionSet", fmt.Sprintf("%s-branch-rules-%d-repositories", org, len(g.repos)), int64(b.Len())),
			Spec: forgev1.BranchProtectionSetSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repositories:   forgev1.RepositorySelector{Names: names},
				Rules:          g.rules,
			},
		}, fmt.Sprintf("%d repositories hold exactly these branch protection rules.", len(g.repos)))
	}
}

// ruleSwitches names, by field name prefix, the switch an allow-list (or
// its deploy-keys flag) needs; admission refuses one set without it.
var ruleSwitches = map[string]string{
	"PushWhitelist":      "EnablePushWhitelist",
	"ForcePushAllowlist": "EnableForcePushAllowlist",
	"MergeWhitelist":     "EnableMergeWhitelist",
	"ApprovalsWhitelist": "EnableApprovalsWhitelist",
	"BypassAllowlist":    "EnableBypassAllowlist",
	"StatusCheck":        "EnableStatusCheck",
}

// chainSwitches names the switch another switch needs (admission refuses
// it true without); a PATCH can leave the forge otherwise.
var chainSwitches = map[string]string{
	"EnablePushWhitelist":      "EnablePush",
	"EnableForcePush":          "EnablePush",
	"EnableForcePushAllowlist": "EnableForcePush",
}

// exportRule is the forge's rule as a spec that manages every field at the
// value the forge holds: switches and numbers always, file patterns when
// set, lists when not empty and under their switch (the forge keeps a list
// whatever its switch says; one that does nothing is left unmanaged).
// Field names are alike in both types (TestRuleFieldsMatch).
// A field the server lacks is left out: it reads back as its zero, and a
// spec setting it would be Unsupported there.
func exportRule(bp forge.BranchProtection, server forge.Server) forgev1.BranchProtectionRule {
	out := forgev1.BranchProtectionRule{RuleName: forgev1.BranchRuleName(bp.RuleName)}
	ov, hv := reflect.ValueOf(&out).Elem(), reflect.ValueOf(bp)
	t := ov.Type()
	on := func(name string) bool {
		if sw, ok := chainSwitches[name]; ok {
			return hv.FieldByName(sw).Bool()
		}
		for prefix, sw := range ruleSwitches {
			if strings.HasPrefix(name, prefix) {
				return hv.FieldByName(sw).Bool()
			}
		}
		return true
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "RuleName" || export.Lacks(server, "BranchProtectionRule", f) {
			continue
		}
		have := hv.FieldByName(f.Name)
		switch have.Kind() {
		case reflect.Slice:
			if have.Len() == 0 || !on(f.Name) {
				continue
			}
			list := reflect.MakeSlice(f.Type, have.Len(), have.Len())
			for j := range have.Len() {
				list.Index(j).SetString(have.Index(j).String())
			}
			ov.Field(i).Set(list)
		case reflect.String:
			if have.String() != "" {
				p := reflect.New(f.Type.Elem())
				p.Elem().SetString(have.String())
				ov.Field(i).Set(p)
			}
		default: // bool, int64
			if have.Kind() == reflect.Bool && have.Bool() && !on(f.Name) {
				continue
			}
			p := reflect.New(f.Type.Elem())
			p.Elem().Set(have)
			ov.Field(i).Set(p)
		}
	}
	return out
}
