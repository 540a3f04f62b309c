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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the BranchProtection and BranchProtectionSet controllers.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=branchprotections;branchprotectionsets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=branchprotections/status;branchprotectionsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=branchprotections/finalizers;branchprotectionsets/finalizers,verbs=update

// branchProtectionKind manages one branch protection rule, addressed by its
// rule name (case-sensitive) in its repository (the forge gives rules no id).
func branchProtectionKind() child.Kind[*forgev1.BranchProtection] {
	return child.Kind[*forgev1.BranchProtection]{
		Noun:   "branch protection rule",
		Name:   func(b *forgev1.BranchProtection) string { return string(b.Spec.RuleName) },
		KeyTag: "rule",
		Where:  func(b *forgev1.BranchProtection) child.Place { return child.PlaceOf(&b.Spec.Repository, nil) },
		Refs:   branchProtectionRefs,
		List:   &forgev1.BranchProtectionList{},
		External: func(_ context.Context, b *forgev1.BranchProtection, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			return &branchProtection{obj: b, fc: pass.Forge, At: at}, nil
		},
	}
}

// branchProtectionRefs are the users and teams (of its repository's
// owner) of every allow-list of a BranchProtection's rule.
func branchProtectionRefs(b *forgev1.BranchProtection) []reconciler.Ref {
	return kinds.RuleRefs(child.PlaceOf(&b.Spec.Repository, nil).Owner, &b.Spec.BranchProtectionRule)
}

type branchProtection struct {
	obj *forgev1.BranchProtection
	fc  forge.Interface
	child.At
	found *forge.BranchProtection // as Observe found it
}

func (e *branchProtection) spec() *forgev1.BranchProtectionRule {
	return &e.obj.Spec.BranchProtectionRule
}

func (e *branchProtection) Observe(ctx context.Context) (reconciler.Observation, error) {
	// The fields the server lacks were gated before (reconciler.Unsupported).
	all, err := e.fc.ListBranchProtections(ctx, e.Owner, e.Repo)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	have := findRule(all, string(e.obj.Spec.RuleName))
	if have == nil {
		return reconciler.Observation{}, nil
	}
	e.found = have
	d := ruleDiff(e.spec(), have)
	return reconciler.Observation{Exists: true, Name: have.RuleName, Changes: d.changes, Diff: reconciler.Fields(d.changes)}, nil
}

func (e *branchProtection) Create(ctx context.Context) (reconciler.Observation, error) {
	spec := e.spec()
	got, err := e.fc.CreateBranchProtection(ctx, e.Owner, e.Repo, newRule(spec))
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	// A field the forge did not take is Rejected; the loop still records
	// the rule made.
	made := reconciler.Observation{Exists: true, Name: string(e.obj.Spec.RuleName)}
	return made, readBack(ctx, e.fc, e.Owner, e.Repo, spec, got, true)
}

func (e *branchProtection) Update(ctx context.Context, _ reconciler.Observation) error {
	return editRule(ctx, e.fc, e.Owner, e.Repo, e.spec(), e.found)
}

func (e *branchProtection) Delete(ctx context.Context, obs reconciler.Observation) error {
	err := e.fc.DeleteBranchProtection(ctx, e.Owner, e.Repo, obs.Name)
	if forge.IsNotFound(err) {
		return nil
	}
	return err
}

// ---- the rule's fields, shared by BranchProtection and BranchProtectionSet ----

// findRule is the rule named name in all (names are case-sensitive), or nil.
func findRule(all []forge.BranchProtection, name string) *forge.BranchProtection {
	i := slices.IndexFunc(all, func(r forge.BranchProtection) bool { return r.RuleName == name })
	if i < 0 {
		return nil
	}
	return &all[i]
}

// The spec's rule (forgev1.BranchProtectionRule), the forge's rule
// (forge.BranchProtection) and the forge's edit (forge.EditBranchProtectionOption)
// name each field alike, so one walk over the spec's fields compares them
// all and builds the edit: a field the spec leaves unset (nil) is not
// managed. TestRuleFieldsMatch keeps the three types in step.

// ruleDelta is what differs between a spec's rule and the forge's.
type ruleDelta struct {
	changes []reconciler.Change
	edit    forge.EditBranchProtectionOption
}

var (
	specRuleType = reflect.TypeFor[forgev1.BranchProtectionRule]()
	editRuleType = reflect.TypeFor[forge.EditBranchProtectionOption]()
)

// ruleDiff compares every field the spec sets with the forge's rule,
// normalised as the forge keeps it: user and team names without case,
// lists as sets, file patterns as their list of globs.
func ruleDiff(spec *forgev1.BranchProtectionRule, have *forge.BranchProtection) ruleDelta {
	var d ruleDelta
	sv, hv, ev := reflect.ValueOf(spec).Elem(), reflect.ValueOf(have).Elem(), reflect.ValueOf(&d.edit).Elem()
	for i := range specRuleType.NumField() {
		f := specRuleType.Field(i)
		if f.Name == "RuleName" || sv.Field(i).IsNil() {
			continue
		}
		want, got := sv.Field(i), hv.FieldByName(f.Name)
		json, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch want.Kind() {
		case reflect.Slice:
			w, g := stringsOf(want), stringsOf(got)
			fold := f.Name != "StatusCheckContexts" // logins and team names ignore case
			if !compare.SameSet(w, g, fold) {
				d.changes = append(d.changes, compare.Change(json, sortedCopy(g), sortedCopy(w)))
				ev.FieldByName(f.Name).Set(reflect.ValueOf(&w))
			}
		default: // a pointer to bool, int64 or string
			w := want.Elem()
			if w.Kind() == reflect.String {
				if filePatterns(w.String()) == filePatterns(got.String()) {
					continue
				}
			} else if w.Equal(got) {
				continue
			}
			d.changes = append(d.changes, compare.Change(json, got.Interface(), w.Interface()))
			p := reflect.New(w.Type())
			p.Elem().Set(w)
			ev.FieldByName(f.Name).Set(p)
		}
	}
	slices.SortFunc(d.changes, compare.ByField)
	completeChains(spec, have, &d.edit)
	return d
}

// completeChains sends whole the switch chains the forge applies only
// together: a PATCH changes enable_push_whitelist only with enable_push
// sent true, and push_whitelist_deploy_keys only under both; likewise
// enable_force_push_allowlist under enable_force_push, and its deploy keys
// under both; and Gitea 1.24 reads the force-push user list only when
// force_push_allowlist_deploy_keys is sent. So when one link differs,
// every link is sent, as the spec wants it or else as the forge has it.
func completeChains(spec *forgev1.BranchProtectionRule, have *forge.BranchProtection, e *forge.EditBranchProtectionOption) {
	pick := func(want *bool, have bool) *bool {
		if want != nil {
			return want
		}
		return &have
	}
	if e.EnablePush != nil || e.EnablePushWhitelist != nil || e.PushWhitelistDeployKeys != nil {
		e.EnablePush = pick(spec.EnablePush, have.EnablePush)
		e.EnablePushWhitelist = pick(spec.EnablePushWhitelist, have.EnablePushWhitelist)
		e.PushWhitelistDeployKeys = pick(spec.PushWhitelistDeployKeys, have.PushWhitelistDeployKeys)
	}
	if e.EnableForcePush != nil || e.EnableForcePushAllowlist != nil || e.ForcePushAllowlistDeployKeys != nil ||
		e.ForcePushAllowlistUsernames != nil {
		e.EnableForcePush = pick(spec.EnableForcePush, have.EnableForcePush)
		e.EnableForcePushAllowlist = pick(spec.EnableForcePushAllowlist, have.EnableForcePushAllowlist)
		e.ForcePushAllowlistDeployKeys = pick(spec.ForcePushAllowlistDeployKeys, have.ForcePushAllowlistDeployKeys)
	}
}

// newRule is the rule the spec describes, for a create: the forge's
// defaults (off, empty) for every field the spec leaves unset.
func newRule(spec *forgev1.BranchProtectionRule) forge.BranchProtection {
	bp := forge.BranchProtection{RuleName: string(spec.RuleName)}
	sv, bv := reflect.ValueOf(spec).Elem(), reflect.ValueOf(&bp).Elem()
	for i := range specRuleType.NumField() {
		f := specRuleType.Field(i)
		if f.Name == "RuleName" || sv.Field(i).IsNil() {
			continue
		}
		if f.Type.Kind() == reflect.Slice {
			bv.FieldByName(f.Name).Set(reflect.ValueOf(stringsOf(sv.Field(i))))
			continue
		}
		bv.FieldByName(f.Name).Set(sv.Field(i).Elem())
	}
	return bp
}

// stringsOf reads a slice of any string type.
func stringsOf(v reflect.Value) []string {
	out := make([]string, v.Len())
	for i := range out {
		out[i] = v.Index(i).String()
	}
	return out
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// filePatterns normalises a ';'-separated glob list: entries trimmed,
// empty ones dropped.
func filePatterns(s string) string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ";")
}

// createRule creates the rule, then reads the answer back and applies,
// once, what the forge left out (some releases ignore fields on create).
func createRule(ctx context.Context, fc forge.Interface, owner, repo string, spec *forgev1.BranchProtectionRule) error {
	got, err := fc.CreateBranchProtection(ctx, owner, repo, newRule(spec))
	if err != nil {
		return err
	}
	return readBack(ctx, fc, owner, repo, spec, got, true)
}

// editRule sends what differs from have, then reads the answer back and
// applies once what the forge did not take.
func editRule(ctx context.Context, fc forge.Interface, owner, repo string, spec *forgev1.BranchProtectionRule, have *forge.BranchProtection) error {
	d := ruleDiff(spec, have)
	if len(d.changes) == 0 {
		return nil
	}
	got, err := fc.EditBranchProtection(ctx, owner, repo, have.RuleName, d.edit)
	if err != nil {
		return err
	}
	return readBack(ctx, fc, owner, repo, spec, got, true)
}

// readBack compares the forge's answer to a write with the spec: what
// differs is written once more (again), and what still differs after that
// is Rejected, with the fields named: the forge keeps something else, and
// writing it again at once would not help.
func readBack(ctx context.Context, fc forge.Interface, owner, repo string, spec *forgev1.BranchProtectionRule, got *forge.BranchProtection, again bool) error {
	d := ruleDiff(spec, got)
	if len(d.changes) == 0 {
		return nil
	}
	if !again {
		hint := ""
		if slices.ContainsFunc(d.changes, func(c reconciler.Change) bool { return strings.Contains(c.Field, "list") }) {
			hint = "; the forge drops from allow-lists the users and teams without write access to the repository " +
				"(approvals: without read access to pull requests)"
		}
		return reconciler.Stall(forgev1.ReasonRejected, "the forge did not apply %s to branch protection rule %q in %s/%s (it keeps %s)%s",
			strings.Join(reconciler.Fields(d.changes), ", "), got.RuleName, owner, repo, haveOf(d.changes), hint)
	}
	got, err := fc.EditBranchProtection(ctx, owner, repo, got.RuleName, d.edit)
	if err != nil {
		return err
	}
	return readBack(ctx, fc, owner, repo, spec, got, false)
}

func haveOf(cs []reconciler.Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Field + ": " + c.Have
	}
	return words.Bound(strings.Join(parts, ", "))
}

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
