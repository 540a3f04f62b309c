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
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/kinds"
	"github.com/forgeops/forge-operator/controllers/internal/rounds"
	"github.com/forgeops/forge-operator/controllers/internal/sets"
	"github.com/forgeops/forge-operator/controllers/internal/words"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/reconciler/claims"
)

// RBAC of the LabelSet controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labelsets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labelsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labelsets/finalizers,verbs=update

// labelSetKind applies one label list to many repositories: a set kind of
// the loop (reconciler.SetKind). Each pass lists the repositories, then
// each repository's labels once, and writes only what differs.
type labelSetKind struct {
	kinds.Base[forgev1.LabelSet, forgev1.LabelSetList]
	*rounds.Store[sets.Repo] // forgets the round of a set that is gone
}

// WriteScopes of a LabelSet: repositories' labels, the issue routes.
func (labelSetKind) WriteScopes(*forgev1.LabelSet, *reconciler.Pass, bool) []string {
	return []string{forge.ScopeWriteIssue}
}

func (labelSetKind) Key(*forgev1.LabelSet) string      { return "" }
func (labelSetKind) Describe(*forgev1.LabelSet) string { return "the labels of the set" }
func (labelSetKind) Connect(context.Context, *forgev1.LabelSet, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a LabelSet is synced as a set")
}

func (k labelSetKind) ConnectSet(_ context.Context, s *forgev1.LabelSet, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	return &labelSet{obj: s, Set: sets.New(s, s.Spec.Repositories, pass, k.Store, "label", "labels")}, nil
}

type labelSet struct {
	sets.Set
	obj *forgev1.LabelSet
}

func (e *labelSet) Sync(ctx context.Context, write bool) (reconciler.SetResult, error) {
	preserve, err := e.preserve()
	if err != nil {
		return reconciler.SetResult{}, err
	}
	claims, err := e.claims(ctx)
	if err != nil {
		return reconciler.SetResult{}, err
	}
	e.Release = e.removal(claims)
	return e.Run(ctx, write, &e.obj.Status.SetStatus, func(ctx context.Context, r sets.Repo) *sets.Outcome {
		return e.syncRepo(ctx, r, claims, preserve, write)
	})
}

// preserve compiles spec.preserve; admission checks it already, so a
// failure here means an object written before that check.
func (e *labelSet) preserve() (*regexp.Regexp, error) {
	if e.obj.GetMode() != forgev1.SetModeAuthoritative || e.obj.Spec.Preserve == "" {
		return nil, nil
	}
	re, err := regexp.Compile(e.obj.Spec.Preserve)
	if err != nil {
		return nil, reconciler.Stall(forgev1.ReasonRejected, "spec.preserve is not a valid RE2 regular expression: %v", err)
	}
	return re, nil
}

// claim is another resource that manages labels in some repositories.
type claim struct {
	who     string
	older   bool // a Label, or an older LabelSet: this set yields to it
	names   map[string]bool
	id      int64 // a Label's status.id: it holds that label under any name
	matches func(r sets.Repo) bool
}

// claims lists the other resources that manage repository labels on the
// same forge server: Labels and other LabelSets of every Forge object that
// points at it (this one, and those of other namespaces or other names:
// two tenants' sets on one server must not fight over its labels).
func (e *labelSet) claims(ctx context.Context) ([]claim, error) {
	servers, err := claims.ServersOf(ctx, e.Cache, e.obj)
	if err != nil {
		return nil, err
	}
	var out []claim
	for _, in := range servers.Lists() {
		var labels forgev1.LabelList
		if err := e.Cache.List(ctx, &labels, in...); err != nil {
			return nil, fmt.Errorf("list Labels: %w", err)
		}
		for i := range labels.Items {
			if c, ok := labelClaim(ctx, servers, e.obj.Namespace, &labels.Items[i]); ok {
				out = append(out, c)
			}
		}
		var others forgev1.LabelSetList
		if err := e.Cache.List(ctx, &others, in...); err != nil {
			return nil, fmt.Errorf("list LabelSets: %w", err)
		}
		for i := range others.Items {
			s := &others.Items[i]
			// Another set holds only where its record says it applied.
			if s.UID == e.obj.UID || !servers.HoldsOver(ctx, s) {
				continue
			}
			names := map[string]bool{}
			for _, l := range s.Spec.Labels {
				names[string(l.Name)] = true
				for _, p := range l.PreviousNames {
					names[string(p)] = true
				}
			}
			out = append(out, claim{who: claims.HolderFor(e.obj.Namespace, "LabelSet", s), older: claims.Older(s, e.obj), names: names,
				matches: setWhere(servers, s, s.Spec.Repositories)})
		}
	}
	return out, nil
}

// labelClaim is what Label l of the set's server claims: the label its
// status recorded (status.id) in its repository, by that id and by its
// name (under the set's own Forge its name alone claims); nothing without
// a record under another connection, nor when it is being deleted, its
// connection is not Ready or not permitted (claims.Servers.HoldsOver).
func labelClaim(ctx context.Context, servers *claims.Servers, reader string, l *forgev1.Label) (claim, bool) {
	if l.Spec.Repository == nil || !servers.HoldsOver(ctx, l) {
		return claim{}, false
	}
	names := map[string]bool{l.LabelName(): true}
	target := string(*l.Spec.Repository)
	return claim{who: claims.HolderFor(reader, "Label", l), older: true, names: names, id: l.Status.ID,
		matches: func(r sets.Repo) bool { return strings.EqualFold(r.String(), target) }}, true
}

// claimedBy names the resource that holds one of names in r: with
// olderOnly, only one this set yields to.
func claimedBy(claims []claim, r sets.Repo, olderOnly bool, names ...string) string {
	for _, c := range claims {
		if (c.older || !olderOnly) && c.matches(r) && slices.ContainsFunc(names, func(n string) bool { return c.names[n] }) {
			return c.who
		}
	}
	return ""
}

// heldBy names the resource that holds forge label l in r, by its name or,
// for a Label resource, by its id (a Label whose name is being changed
// still holds its label under the old name).
func heldBy(claims []claim, r sets.Repo, l forge.Label) string {
	for _, c := range claims {
		if c.matches(r) && (c.names[l.Name] || (c.id != 0 && c.id == l.ID)) {
			return c.who
		}
	}
	return ""
}

func ids(ls []forge.Label) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = strconv.FormatInt(l.ID, 10)
	}
	return strings.Join(s, ", ")
}

// syncRepo brings one repository's labels to the spec (or, without write,
// only says what differs), from one listing of its labels.
func (e *labelSet) syncRepo(ctx context.Context, r sets.Repo, claims []claim, preserve *regexp.Regexp, write bool) *sets.Outcome {
	o := &sets.Outcome{}
	scope := forge.RepoScope(r.Owner, r.Name)
	all, err := e.Forge.ListLabels(ctx, scope)
	if err == nil && write && forge.PagedListing(len(all)) && e.creates(all) {
		// A label moving across a page boundary while the listing was
		// walked is missing from it: the absence a create would rest on is
		// confirmed on a fresh listing, walked until two walks agree.
		all, err = forge.Fresh(e.Forge).ListLabels(forge.ConfirmingAbsence(ctx), scope)
	}
	if err != nil {
		o.FailErr(reconciler.ParentMissing(err, "repository "+r.String()))
		return o
	}
	byName := map[string][]forge.Label{}
	for _, l := range all {
		byName[l.Name] = append(byName[l.Name], l)
	}
	listed := map[string]bool{}
	for _, spec := range e.obj.Spec.Labels {
		listed[string(spec.Name)] = true
		for _, p := range spec.PreviousNames {
			listed[string(p)] = true
		}
	}

	for _, spec := range e.obj.Spec.Labels {
		name := string(spec.Name)
		names := []string{name}
		for _, p := range spec.PreviousNames {
			names = append(names, string(p))
		}
		if who := claimedBy(claims, r, true, names...); who != "" {
			o.Fail(forgev1.ReasonConflict, true, "label %q is managed by %s", name, who)
			continue
		}
		dup := ""
		for _, n := range names {
			if ls := byName[n]; len(ls) > 1 {
				dup = fmt.Sprintf("%d labels named %q (ids %s); delete all but one", len(ls), n, ids(ls))
				break
			}
		}
		if dup != "" {
			o.Fail(forgev1.ReasonConflict, true, "%s", dup)
			continue
		}
		var olds []forge.Label
		for _, p := range spec.PreviousNames {
			if ls := byName[string(p)]; len(ls) == 1 {
				olds = append(olds, ls[0])
			}
		}
		if err := e.applyLabel(ctx, o, scope, all, spec, byName[name], olds, write); err != nil {
			o.FailErr(err)
			return o
		}
	}

	if e.obj.GetMode() == forgev1.SetModeAuthoritative {
		scope := forge.RepoScope(r.Owner, r.Name)
		sets.DeleteUnlisted(ctx, e.Forge, o, all, sets.Unlisted[forge.Label]{
			Report: e.obj.Spec.Removals.Reports(), Kind: "Label",
			Keep: func(l forge.Label) bool {
				return listed[l.Name] || (preserve != nil && preserve.MatchString(l.Name)) || heldBy(claims, r, l) != ""
			},
			Relist: func(ctx context.Context, fresh forge.Interface) ([]forge.Label, error) {
				return fresh.ListLabels(ctx, scope)
			},
			Name: func(l forge.Label) string { return l.Name },
			Del:  func(ctx context.Context, l forge.Label) error { return e.Forge.DeleteLabel(ctx, scope, l.ID) },
			Max:  e.obj.GetMaxDeletionsPerRepository(), Nouns: "labels",
		}, write)
	}
	return o
}

// creates reports whether the set would create a label in a repository
// whose labels are all: one it lists under none of its names.
func (e *labelSet) creates(all []forge.Label) bool {
	have := map[string]bool{}
	for _, l := range all {
		have[l.Name] = true
	}
	for _, spec := range e.obj.Spec.Labels {
		found := have[string(spec.Name)]
		for _, p := range spec.PreviousNames {
			found = found || have[string(p)]
		}
		if !found {
			return true
		}
	}
	return false
}

// applyLabel brings one listed label to the spec: update it where it
// exists by name, else rename a label found under a previous name, else
// create it; labels left under previous names are merged into it.
func (e *labelSet) applyLabel(ctx context.Context, o *sets.Outcome, scope forge.Scope, all []forge.Label, spec forgev1.LabelSetLabel,
	current []forge.Label, olds []forge.Label, write bool) error {
	name := string(spec.Name)
	var target forge.Label
	switch {
	case len(current) == 1:
		target = current[0]
		if c := labelSetChanges(spec, target); len(c.changes) > 0 {
			o.Diffs = append(o.Diffs, fmt.Sprintf("update %q (%s)", name, strings.Join(reconciler.Fields(c.changes), ", ")))
			if write {
				if _, err := e.Forge.EditLabel(ctx, scope, target.ID, c.opt); err != nil {
					return err
				}
				o.Updated++
			}
		}
	case len(olds) > 0:
		target, olds = olds[0], olds[1:]
		c := labelSetChanges(spec, target)
		o.Diffs = append(o.Diffs, fmt.Sprintf("rename %q to %q", target.Name, name))
		if write {
			if _, err := e.Forge.EditLabel(ctx, scope, target.ID, c.opt); err != nil {
				return err
			}
			o.Renamed++
		}
	default:
		o.Diffs = append(o.Diffs, fmt.Sprintf("create %q", name))
		if !write {
			return nil
		}
		opt := forge.CreateLabelOption{Name: name, Color: forge.NormalizeColor(spec.Color)}
		compare.SetIf(&opt.Description, spec.Description)
		compare.SetIf(&opt.Exclusive, spec.Exclusive)
		compare.SetIf(&opt.IsArchived, spec.Archived)
		if _, err := e.Forge.CreateLabel(ctx, scope, opt); err != nil {
			return err
		}
		o.Created++
		return nil
	}
	into := mergeTarget{id: target.ID, name: name, exclusive: target.Exclusive}
	if spec.Exclusive != nil {
		into.exclusive = *spec.Exclusive
	}
	for _, old := range olds {
		m := mergeOf(all, old, into)
		if !write {
			// Say which issues an exclusive merge would leave alone, and why.
			diff, err := e.planMerge(ctx, scope, m)
			if err != nil {
				return err
			}
			o.Diffs = append(o.Diffs, diff)
			o.Removes++ // the old label goes
			continue
		}
		o.Diffs = append(o.Diffs, fmt.Sprintf("merge %q into %q", old.Name, name))
		done, err := e.merge(ctx, o, scope, m)
		if err != nil {
			return err
		}
		if done {
			o.Merged++
		}
	}
	return nil
}

// mergeRounds bounds how often one merge lists the old label's issues and
// relabels what it found before it gives up for this pass.
const mergeRounds = 3

// mergeTarget is the label a merge moves issues to, as it is after this
// pass's update (exclusive as the spec says).
type mergeTarget struct {
	id        int64
	name      string
	exclusive bool
}

// labelMerge is one old label to merge into a target in one repository.
type labelMerge struct {
	old    forge.Label
	into   mergeTarget
	filter string // the issue listing's label filter
}

// mergeOf prepares a merge. The forge resolves the filter by name, and on a
// database that compares names without case (MySQL, MSSQL) "bug" resolves
// "Bug" too and the two are ANDed, hiding issues that carry only one: when
// the repository has such a twin, the filter is one that resolves nothing
// (every issue comes back) and issues are chosen by id alone.
func mergeOf(all []forge.Label, old forge.Label, into mergeTarget) labelMerge {
	m := labelMerge{old: old, into: into, filter: old.Name}
	for _, l := range all {
		if l.ID != old.ID && strings.EqualFold(l.Name, old.Name) {
			m.filter = ","
		}
	}
	return m
}

// sort splits issues that still need the target label: those the merge
// relabels, and those it leaves alone because adding an exclusive label
// would strip other labels of its scope that people set (numbers and the
// labels that would go).
func (m labelMerge) sort(issues []forge.Issue) (todo []forge.Issue, kept []string) {
	scope := exclusiveScope(m.into.name, m.into.exclusive)
	for _, is := range issues {
		if !is.HasLabel(m.old.ID) || is.HasLabel(m.into.id) {
			continue
		}
		var strips []string
		for _, l := range is.Labels {
			if scope != "" && l.ID != m.old.ID && exclusiveScope(l.Name, l.Exclusive) == scope {
				strips = append(strips, strconv.Quote(l.Name))
			}
		}
		if len(strips) > 0 {
			kept = append(kept, fmt.Sprintf("#%d (would lose %s)", is.Number, strings.Join(strips, ", ")))
			continue
		}
		todo = append(todo, is)
	}
	return todo, kept
}

// exclusiveScope is the forge's rule: an exclusive label's name up to its
// last '/', unless that '/' is first or last; "" for other labels.
func exclusiveScope(name string, exclusive bool) string {
	i := strings.LastIndex(name, "/")
	if !exclusive || i <= 0 || i == len(name)-1 {
		return ""
	}
	return name[:i]
}

// merge adds the target label to every issue and pull request carrying
// old, then deletes old, deciding by ids only. It deletes only after a
// listing taken after its last relabelling finds no issue left with old
// alone: an issue labelled old while the merge runs (a template, a bot, a
// person) is relabelled in the next round, never left without a label.
// Issues an exclusive target would strip are left as they are, and old
// then stays (reason Conflict, the issue numbers named). Done reports
// whether old was deleted.
func (e *labelSet) merge(ctx context.Context, o *sets.Outcome, scope forge.Scope, m labelMerge) (done bool, err error) {
	for range mergeRounds {
		issues, err := e.Forge.ListIssuesWithLabel(ctx, scope.Owner, scope.Repo, m.filter)
		if err != nil {
			return false, err
		}
		todo, kept := m.sort(issues)
		if len(todo) == 0 && len(kept) > 0 {
			o.Fail(forgev1.ReasonConflict, true,
				"label %q is not merged into exclusive %q: adding it would strip labels of its scope from %s; those keep %q until relabelled by hand",
				m.old.Name, m.into.name, words.BoundList(kept), m.old.Name)
			return false, nil
		}
		if len(todo) == 0 {
			return true, e.Forge.DeleteLabel(ctx, scope, m.old.ID)
		}
		for _, is := range todo {
			if _, err := e.Forge.AddIssueLabels(ctx, scope.Owner, scope.Repo, is.Number, []int64{m.into.id}); err != nil {
				return false, err
			}
		}
	}
	o.Fail(forgev1.ReasonMergeIncomplete, false,
		"issues kept getting label %q while it was merged into %q (%d rounds); it is kept and the merge is retried",
		m.old.Name, m.into.name, mergeRounds)
	return false, nil
}

// planMerge says what a merge would do without writing: the issues an
// exclusive target would leave alone are listed (one issue listing, only
// for an exclusive target).
func (e *labelSet) planMerge(ctx context.Context, scope forge.Scope, m labelMerge) (string, error) {
	diff := fmt.Sprintf("merge %q into %q", m.old.Name, m.into.name)
	if exclusiveScope(m.into.name, m.into.exclusive) == "" {
		return diff, nil
	}
	issues, err := e.Forge.ListIssuesWithLabel(ctx, scope.Owner, scope.Repo, m.filter)
	if err != nil {
		return "", err
	}
	if _, kept := m.sort(issues); len(kept) > 0 {
		diff += fmt.Sprintf(" except %s, kept with %q (an exclusive label strips the others of its scope)", words.BoundList(kept), m.old.Name)
	}
	return diff, nil
}

// labelSetChanges compares a listed label with a forge label, as Label does.
func labelSetChanges(s forgev1.LabelSetLabel, l forge.Label) labelChanges {
	return (&label{obj: &forgev1.Label{Spec: forgev1.LabelSpec{Name: string(s.Name), Color: s.Color,
		Description: s.Description, Exclusive: s.Exclusive, Archived: s.Archived}}}).changes(&l)
}

// listedIn are the labels of all (a repository's listing) that the spec
// lists by their current names, one of each name, that no other resource
// holds: what deleting the set removes there.
func (e *labelSet) listedIn(all []forge.Label, claims []claim, r sets.Repo) []forge.Label {
	var out []forge.Label
	for _, spec := range e.obj.Spec.Labels {
		var found []forge.Label
		for _, l := range all {
			if l.Name == string(spec.Name) {
				found = append(found, l)
			}
		}
		if len(found) == 1 && heldBy(claims, r, found[0]) == "" {
			out = append(out, found[0])
		}
	}
	return out
}

// Remove deletes, in every matched repository, the labels the spec lists
// by their current names, leaving labels another resource manages (the
// set machinery's remove: listings taken now, maxDeletionsPerRepository
// per repository). It deletes every label of a listed name, not only those
// it wrote: the set adopts by name, so a label of a listed name is the
// set's in every matched repository (docs/kinds.md says so).
func (e *labelSet) Remove(ctx context.Context) (string, error) {
	claims, err := e.claims(ctx)
	if err != nil {
		return "", err
	}
	rm := e.removal(claims)
	return sets.RemoveListed(ctx, &e.Set, rm.Max, rm.Doomed, rm.Del)
}

// removal is what deleting the set removes from one repository, and what
// releasing a repository removes there (deletionPolicy Delete).
func (e *labelSet) removal(claims []claim) sets.Removal[forge.Label] {
	return sets.Removal[forge.Label]{Max: e.obj.GetMaxDeletionsPerRepository(), Noun: "label", Nouns: "labels",
		Doomed: func(ctx context.Context, fresh forge.Interface, r sets.Repo) ([]forge.Label, error) {
			all, err := fresh.ListLabels(ctx, forge.RepoScope(r.Owner, r.Name))
			return e.listedIn(all, claims, r), err
		},
		Del: func(ctx context.Context, r sets.Repo, l forge.Label) error {
			return e.Forge.DeleteLabel(ctx, forge.RepoScope(r.Owner, r.Name), l.ID)
		}}
}

// labelSetExport writes the live repositories' labels as LabelSets, one
// per label list: repositories whose lists are equal share one, naming
// them all. The sets are Additive (the default), so adopting them never
// deletes a label.
var labelSetExport = export.Aggregate(
	func(ctx context.Context, src labelReader, sc forge.Scope) ([]forge.Label, error) {
		labels, err := src.ListLabels(ctx, sc)
		if err != nil {
			return nil, fmt.Errorf("list the labels of %s: %w", sc, err)
		}
		return labels, nil
	},
	exportLabelSets)

func exportLabelSets(b *export.Builder, org string, repos []export.RepoObjects[forge.Label]) {
	type group struct {
		repos  []string
		labels []forgev1.LabelSetLabel
		skip   []string
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range repos {
		labels, skip := setLabels(r.Objects)
		count := nameCounts(r.Objects)
		key, _ := json.Marshal(labels)
		g, ok := groups[string(key)]
		if !ok {
			g = &group{labels: labels}
			groups[string(key)] = g
			order = append(order, string(key))
		}
		g.repos = append(g.repos, r.Repo)
		for _, n := range skip {
			g.skip = append(g.skip, fmt.Sprintf("%s has %d labels named %q: left out, a LabelSet cannot adopt one of several.", r.Repo, count[n], n))
		}
	}
	for _, key := range order {
		g := groups[key]
		if len(g.labels) == 0 {
			continue
		}
		base := strings.ReplaceAll(g.repos[0], "/", "-") + "-labels"
		var comment []string
		if len(g.repos) > 1 {
			base = fmt.Sprintf("%s-labels-%d-repositories", org, len(g.repos))
			comment = append(comment, fmt.Sprintf("%d repositories hold exactly these labels.", len(g.repos)))
		}
		names := make([]forgev1.RepositoryName, len(g.repos))
		for i, r := range g.repos {
			names[i] = forgev1.RepositoryName(r)
		}
		b.Add(&forgev1.LabelSet{
			TypeMeta:   export.TypeMeta("LabelSet"),
			ObjectMeta: b.Meta("LabelSet", base, int64(b.Len())),
			Spec: forgev1.LabelSetSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repositories:   forgev1.RepositorySelector{Names: names},
				Labels:         g.labels,
			},
		}, append(comment, g.skip...)...)
	}
}

// setLabels turns a repository's labels into a LabelSet's, sorted by name;
// names held by several labels are left out and returned.
func setLabels(labels []forge.Label) ([]forgev1.LabelSetLabel, []string) {
	var out []forgev1.LabelSetLabel
	var skip []string
	count := nameCounts(labels)
	for _, l := range slices.SortedFunc(slices.Values(labels), byNameThenID) {
		if count[l.Name] > 1 {
			if !slices.Contains(skip, l.Name) {
				skip = append(skip, l.Name)
			}
			continue
		}
		out = append(out, forgev1.LabelSetLabel{
			Name:        forgev1.LabelName(l.Name),
			Color:       "#" + l.Color,
			Description: export.NonEmpty(l.Description),
			Exclusive:   export.TrueOnly(l.Exclusive),
			Archived:    export.TrueOnly(l.IsArchived),
		})
	}
	return out, skip
}

// ClaimKinds: a LabelSet yields to the Labels and the other LabelSets
// that hold a label it would manage (plan reads them among the planned
// objects).
func (labelSetKind) ClaimKinds() []client.Object {
	return []client.Object{&forgev1.Label{}, &forgev1.LabelSet{}}
}

func (labelSetKind) RepoRefs(s *forgev1.LabelSet) []string { return sets.RepoRefs(s.Spec.Repositories) }

// SelectsRepository: a Repository resource that becomes Ready re-runs the
// sets that pick it (sets.Selects says which).
func (labelSetKind) SelectsRepository(s *forgev1.LabelSet, owner, name string) bool {
	return sets.Selects(s.Spec.Repositories, owner, name)
}
