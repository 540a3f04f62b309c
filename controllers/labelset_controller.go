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
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/conditions"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// RBAC of the LabelSet controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labelsets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labelsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=labelsets/finalizers,verbs=update

// maxFailures bounds status.failures (the CRD says so too).
const maxFailures = 20

// labelSetKind applies one label list to many repositories: a set kind of
// the loop (reconciler.SetKind). Each pass lists the repositories, then
// each repository's labels once, and writes only what differs.
type labelSetKind struct{}

func (labelSetKind) New() *forgev1.LabelSet             { return &forgev1.LabelSet{} }
func (labelSetKind) NewList() client.ObjectList         { return &forgev1.LabelSetList{} }
func (labelSetKind) Secrets(*forgev1.LabelSet) []string { return nil }
func (labelSetKind) Key(*forgev1.LabelSet) string       { return "" }
func (labelSetKind) Describe(*forgev1.LabelSet) string  { return "the labels of the set" }
func (labelSetKind) Connect(context.Context, *forgev1.LabelSet, *reconciler.Pass) (reconciler.External, error) {
	return nil, errors.New("a LabelSet is synced as a set")
}

func (labelSetKind) ConnectSet(_ context.Context, s *forgev1.LabelSet, pass *reconciler.Pass) (reconciler.SetExternal, error) {
	return &labelSet{obj: s, fc: pass.Forge, cache: pass.Cache}, nil
}

type labelSet struct {
	obj   *forgev1.LabelSet
	fc    forge.Interface
	cache client.Reader
}

// repo is one matched repository.
type repo struct{ owner, name string }

func (r repo) String() string { return r.owner + "/" + r.name }

// repoOutcome is what one repository's pass found and did.
type repoOutcome struct {
	created, updated, renamed, merged, deleted int
	problems                                   []problem
	diffs                                      []string
	// yielded: a read gave way to other work (forge.ErrYield), which is
	// no failure: the whole pass gives way.
	yielded bool
}

type problem struct {
	reason, message string
	stall           bool
}

func (o *repoOutcome) wrote() bool {
	return o.created+o.updated+o.renamed+o.merged+o.deleted > 0
}

func (o *repoOutcome) fail(reason string, stall bool, format string, args ...any) {
	o.problems = append(o.problems, problem{reason: reason, message: fmt.Sprintf(format, args...), stall: stall})
}

// failErr records a forge failure, classified as every kind does; a read
// that gave way is none.
func (o *repoOutcome) failErr(err error) {
	if errors.Is(err, forge.ErrYield) {
		o.yielded = true
		return
	}
	c, ok := reconciler.Classify(err)
	if !ok {
		c = reconciler.Class{State: conditions.Waiting, Reason: forgev1.ReasonForgeError, Message: err.Error()}
	}
	o.fail(c.Reason, c.State == conditions.Stalled, "%s", c.Message)
}

func (e *labelSet) Sync(ctx context.Context, write bool) (reconciler.SetResult, error) {
	res := reconciler.SetResult{Noun: "repository", Nouns: "repositories"}
	preserve, err := e.preserve()
	if err != nil {
		return res, err
	}
	repos, failures, err := e.repositories(ctx)
	if err != nil {
		return res, err
	}
	claims, err := e.claims(ctx)
	if err != nil {
		return res, err
	}
	// Named repositories that were not found count as matched, and failing.
	res.Members = len(repos) + len(failures)
	var total repoOutcome
	changed := 0
	for _, r := range repos {
		o := e.syncRepo(ctx, r, claims, preserve, write)
		if o.yielded {
			// A routine check gave way to creates and updates waiting for
			// the forge's budget: the loop retries it later, with no
			// failure recorded and no Warning.
			return res, forge.ErrYield
		}
		total.created += o.created
		total.updated += o.updated
		total.renamed += o.renamed
		total.merged += o.merged
		total.deleted += o.deleted
		if o.wrote() {
			changed++
		}
		if !write && len(o.problems) == 0 && len(o.diffs) > 0 {
			o.fail(forgev1.ReasonDriftDetected, false, "%s", strings.Join(o.diffs, ", "))
		}
		if len(o.problems) > 0 {
			failures = append(failures, memberFailure(r.String(), o.problems))
		}
	}
	slices.SortFunc(failures, func(a, b reconciler.MemberFailure) int { return strings.Compare(a.Member, b.Member) })
	res.InSync = res.Members - len(failures)
	res.Failures = failures
	if changed > 0 {
		res.Changes = summary(changed, total)
	}

	st := &e.obj.Status
	shown := failures[:min(len(failures), maxFailures)]
	next := make([]forgev1.LabelSetFailure, len(shown))
	for i, f := range shown {
		next[i] = forgev1.LabelSetFailure{Repository: f.Member, Reason: f.Reason, Message: f.Message}
	}
	res.FailuresChanged = !slices.Equal(st.Failures, next)
	st.Failures = next
	st.Repositories, st.InSync = int32(res.Members), int32(res.InSync)
	return res, nil
}

// memberFailure folds a repository's problems into one failure: the reason
// of the first that a retry may cure, else of the first; stalled only when
// each needs a user's change.
func memberFailure(member string, ps []problem) reconciler.MemberFailure {
	f := reconciler.MemberFailure{Member: member, Reason: ps[0].reason, Stall: true}
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.message
		if !p.stall && f.Stall {
			f.Stall, f.Reason = false, p.reason
		}
	}
	f.Message = bound(strings.Join(msgs, "; "))
	return f
}

func bound(s string) string {
	if len(s) <= forge.MaxMessage {
		return s
	}
	return strings.ToValidUTF8(s[:forge.MaxMessage-3], "") + "..."
}

// summary is the Event of a pass that wrote:
// "3 repositories: created 12, updated 4, renamed 1, deleted 2 labels".
func summary(repos int, t repoOutcome) string {
	var parts []string
	for _, c := range []struct {
		verb string
		n    int
	}{{"created", t.created}, {"updated", t.updated}, {"renamed", t.renamed}, {"merged", t.merged}, {"deleted", t.deleted}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.verb, c.n))
		}
	}
	noun, labels := "repositories", "labels"
	if repos == 1 {
		noun = "repository"
	}
	if t.created+t.updated+t.renamed+t.merged+t.deleted == 1 {
		labels = "label"
	}
	return fmt.Sprintf("%d %s: %s %s", repos, noun, strings.Join(parts, ", "), labels)
}

// preserve compiles spec.preserve; admission checks it already, so a
// failure here means an object written before that check.
func (e *labelSet) preserve() (*regexp.Regexp, error) {
	if e.obj.GetMode() != forgev1.LabelSetModeAuthoritative || e.obj.Spec.Preserve == "" {
		return nil, nil
	}
	re, err := regexp.Compile(e.obj.Spec.Preserve)
	if err != nil {
		return nil, reconciler.Stall(forgev1.ReasonRejected, "spec.preserve is not a valid RE2 regular expression: %v", err)
	}
	return re, nil
}

// repositories resolves the set's repositories afresh: one repository
// listing per owner. Archived ones are skipped; named repositories that do
// not exist are failures.
func (e *labelSet) repositories(ctx context.Context) ([]repo, []reconciler.MemberFailure, error) {
	sel := e.obj.Spec.Repositories
	if sel.Organization != nil {
		org := string(*sel.Organization)
		all, err := e.fc.ListOrgRepos(ctx, org)
		if err != nil {
			return nil, nil, reconciler.ParentMissing(err, "organization "+org)
		}
		var out []repo
		for _, r := range all {
			if !r.Archived && selected(r.Name, sel.Include, sel.Exclude) {
				out = append(out, repo{owner: org, name: r.Name})
			}
		}
		slices.SortFunc(out, func(a, b repo) int { return strings.Compare(a.String(), b.String()) })
		return out, nil, nil
	}

	byOwner := map[string][]repo{}
	var owners []string
	for _, n := range sel.Names {
		owner, name, _ := strings.Cut(string(n), "/")
		k := strings.ToLower(owner)
		if _, ok := byOwner[k]; !ok {
			owners = append(owners, k)
		}
		byOwner[k] = append(byOwner[k], repo{owner: owner, name: name})
	}
	slices.Sort(owners)
	var out []repo
	var failures []reconciler.MemberFailure
	for _, k := range owners {
		wanted := byOwner[k]
		listed, err := e.ownerRepos(ctx, wanted)
		if errors.Is(err, forge.ErrYield) {
			return nil, nil, err // the whole pass gives way
		}
		if err != nil {
			for _, w := range wanted {
				var o repoOutcome
				o.failErr(err)
				failures = append(failures, memberFailure(w.String(), o.problems))
			}
			continue
		}
		for _, w := range wanted {
			i := slices.IndexFunc(listed, func(r forge.Repository) bool { return strings.EqualFold(r.Name, w.name) })
			switch {
			case i < 0:
				failures = append(failures, reconciler.MemberFailure{Member: w.String(), Reason: forgev1.ReasonParentNotFound,
					Message: fmt.Sprintf("repository %s not found on the forge; waiting for it to exist", w)})
			case !listed[i].Archived:
				out = append(out, w)
			}
		}
	}
	slices.SortFunc(out, func(a, b repo) int { return strings.Compare(a.String(), b.String()) })
	return out, failures, nil
}

// ownerRepos reads the named repositories of one owner: from its
// organization's listing, or, for a user's repositories (no organization
// listing), one read each; a repository that does not exist is left out.
func (e *labelSet) ownerRepos(ctx context.Context, wanted []repo) ([]forge.Repository, error) {
	listed, err := e.fc.ListOrgRepos(ctx, wanted[0].owner)
	if !forge.IsNotFound(err) {
		return listed, err
	}
	listed = nil
	for _, w := range wanted {
		r, err := e.fc.GetRepo(ctx, w.owner, w.name)
		if forge.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		listed = append(listed, *r)
	}
	return listed, nil
}

// selected applies include (every name when empty), then exclude.
func selected(name string, include, exclude []forgev1.RepositoryGlob) bool {
	match := func(globs []forgev1.RepositoryGlob) bool {
		return slices.ContainsFunc(globs, func(g forgev1.RepositoryGlob) bool {
			ok, _ := path.Match(string(g), name)
			return ok
		})
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
}

// claim is another resource that manages labels in some repositories.
type claim struct {
	who     string
	older   bool // a Label, or an older LabelSet: this set yields to it
	names   map[string]bool
	id      int64 // a Label's status.id: it holds that label under any name
	matches func(r repo) bool
}

// claims lists the other resources that manage repository labels on the
// same forge server: Labels and other LabelSets of every Forge object that
// points at it (this one, and those of other namespaces or other names:
// two tenants' sets on one server must not fight over its labels).
func (e *labelSet) claims(ctx context.Context) ([]claim, error) {
	forges, err := e.sameServer(ctx)
	if err != nil {
		return nil, err
	}
	var out []claim
	for _, f := range forges {
		in := []client.ListOption{client.InNamespace(f.Namespace), client.MatchingFields{reconciler.IndexForgeRef: f.Name}}
		var labels forgev1.LabelList
		if err := e.cache.List(ctx, &labels, in...); err != nil {
			return nil, fmt.Errorf("list Labels: %w", err)
		}
		for _, l := range labels.Items {
			if l.Spec.Repository == nil || !l.DeletionTimestamp.IsZero() {
				continue
			}
			target := string(*l.Spec.Repository)
			out = append(out, claim{who: "Label " + l.Namespace + "/" + l.Name, older: true,
				names: map[string]bool{l.LabelName(): true}, id: l.Status.ID,
				matches: func(r repo) bool { return strings.EqualFold(r.String(), target) }})
		}
		var sets forgev1.LabelSetList
		if err := e.cache.List(ctx, &sets, in...); err != nil {
			return nil, fmt.Errorf("list LabelSets: %w", err)
		}
		for i := range sets.Items {
			s := &sets.Items[i]
			if s.UID == e.obj.UID || !s.DeletionTimestamp.IsZero() {
				continue
			}
			names := map[string]bool{}
			for _, l := range s.Spec.Labels {
				names[string(l.Name)] = true
				for _, p := range l.PreviousNames {
					names[string(p)] = true
				}
			}
			out = append(out, claim{who: "LabelSet " + s.Namespace + "/" + s.Name, older: olderThan(s, e.obj), names: names,
				matches: setMatches(s.Spec.Repositories)})
		}
	}
	return out, nil
}

// sameServer lists the Forge objects (as namespace and name) that point at
// the server this set's Forge points at (forge.ServerKey), its own first.
// Without its Forge in the cache, only its own reference counts.
func (e *labelSet) sameServer(ctx context.Context) ([]types.NamespacedName, error) {
	own := types.NamespacedName{Namespace: e.obj.Namespace, Name: e.obj.Spec.ForgeRef.Name}
	var forges forgev1.ForgeList
	if err := e.cache.List(ctx, &forges); err != nil {
		return nil, fmt.Errorf("list Forges: %w", err)
	}
	key := ""
	for _, f := range forges.Items {
		if f.Namespace == own.Namespace && f.Name == own.Name {
			key = forge.ServerKey(f.Spec.URL)
		}
	}
	out := []types.NamespacedName{own}
	for _, f := range forges.Items {
		n := types.NamespacedName{Namespace: f.Namespace, Name: f.Name}
		if key != "" && n != own && forge.ServerKey(f.Spec.URL) == key {
			out = append(out, n)
		}
	}
	return out, nil
}

// setMatches says whether a selector picks a repository, by name only.
func setMatches(sel forgev1.LabelSetRepositories) func(r repo) bool {
	if sel.Organization != nil {
		org := string(*sel.Organization)
		return func(r repo) bool {
			return strings.EqualFold(r.owner, org) && selected(r.name, sel.Include, sel.Exclude)
		}
	}
	return func(r repo) bool {
		return slices.ContainsFunc(sel.Names, func(n forgev1.RepositoryName) bool { return strings.EqualFold(string(n), r.String()) })
	}
}

// olderThan orders resources as the loop does: creation time, then name.
func olderThan(a, b client.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}

// claimedBy names the resource that holds one of names in r: with
// olderOnly, only one this set yields to.
func claimedBy(claims []claim, r repo, olderOnly bool, names ...string) string {
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
func heldBy(claims []claim, r repo, l forge.Label) string {
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
func (e *labelSet) syncRepo(ctx context.Context, r repo, claims []claim, preserve *regexp.Regexp, write bool) *repoOutcome {
	o := &repoOutcome{}
	scope := forge.RepoScope(r.owner, r.name)
	all, err := e.fc.ListLabels(ctx, scope)
	if err != nil {
		o.failErr(reconciler.ParentMissing(err, "repository "+r.String()))
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
			o.fail(forgev1.ReasonConflict, true, "label %q is managed by %s", name, who)
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
			o.fail(forgev1.ReasonConflict, true, "%s", dup)
			continue
		}
		var olds []forge.Label
		for _, p := range spec.PreviousNames {
			if ls := byName[string(p)]; len(ls) == 1 {
				olds = append(olds, ls[0])
			}
		}
		if err := e.applyLabel(ctx, o, scope, all, spec, byName[name], olds, write); err != nil {
			o.failErr(err)
			return o
		}
	}

	if e.obj.GetMode() == forgev1.LabelSetModeAuthoritative {
		e.deleteUnlisted(ctx, o, r, all, func(l forge.Label) bool {
			return listed[l.Name] || (preserve != nil && preserve.MatchString(l.Name)) || heldBy(claims, r, l) != ""
		}, write)
	}
	return o
}

// deleteUnlisted deletes, in Authoritative mode, the labels of r that keep
// does not keep, within maxDeletionsPerRepository. all is the pass's
// listing; deletions decide on a listing taken now, after this pass's own
// writes, never on a kept one: a label renamed since (into a preserve
// pattern, say) is seen under its current name, and every id deleted is
// one whose name was just read. Without write it only reports.
func (e *labelSet) deleteUnlisted(ctx context.Context, o *repoOutcome, r repo, all []forge.Label, keep func(forge.Label) bool, write bool) {
	scope := forge.RepoScope(r.owner, r.name)
	unlisted := func(all []forge.Label) []forge.Label {
		return slices.DeleteFunc(slices.Clone(all), keep)
	}
	doomed := unlisted(all)
	if len(doomed) > 0 && write {
		fresh, err := e.fc.ListLabels(forge.WithMaxAge(ctx, 0), scope)
		if err != nil {
			o.failErr(err)
			return
		}
		doomed = unlisted(fresh)
	}
	if max := e.obj.GetMaxDeletionsPerRepository(); len(doomed) > max {
		o.fail(forgev1.ReasonTooManyDeletions, true, "would delete %d unlisted labels (%s), more than maxDeletionsPerRepository %d; deleted none",
			len(doomed), labelNames(doomed), max)
		return
	}
	for _, l := range doomed {
		o.diffs = append(o.diffs, fmt.Sprintf("delete %q", l.Name))
		if !write {
			continue
		}
		if err := e.fc.DeleteLabel(ctx, scope, l.ID); err != nil {
			o.failErr(err)
			return
		}
		o.deleted++
	}
}

func labelNames(ls []forge.Label) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = strconv.Quote(l.Name)
	}
	return boundList(names)
}

// applyLabel brings one listed label to the spec: update it where it
// exists by name, else rename a label found under a previous name, else
// create it; labels left under previous names are merged into it.
func (e *labelSet) applyLabel(ctx context.Context, o *repoOutcome, scope forge.Scope, all []forge.Label, spec forgev1.LabelSetLabel,
	current []forge.Label, olds []forge.Label, write bool) error {
	name := string(spec.Name)
	var target forge.Label
	switch {
	case len(current) == 1:
		target = current[0]
		if c := labelSetChanges(spec, target); len(c.changes) > 0 {
			o.diffs = append(o.diffs, fmt.Sprintf("update %q (%s)", name, strings.Join(reconciler.Fields(c.changes), ", ")))
			if write {
				if _, err := e.fc.EditLabel(ctx, scope, target.ID, c.opt); err != nil {
					return err
				}
				o.updated++
			}
		}
	case len(olds) > 0:
		target, olds = olds[0], olds[1:]
		c := labelSetChanges(spec, target)
		o.diffs = append(o.diffs, fmt.Sprintf("rename %q to %q", target.Name, name))
		if write {
			if _, err := e.fc.EditLabel(ctx, scope, target.ID, c.opt); err != nil {
				return err
			}
			o.renamed++
		}
	default:
		o.diffs = append(o.diffs, fmt.Sprintf("create %q", name))
		if !write {
			return nil
		}
		opt := forge.CreateLabelOption{Name: name, Color: forge.NormalizeColor(spec.Color)}
		setIf(&opt.Description, spec.Description)
		setIf(&opt.Exclusive, spec.Exclusive)
		setIf(&opt.IsArchived, spec.Archived)
		if _, err := e.fc.CreateLabel(ctx, scope, opt); err != nil {
			return err
		}
		o.created++
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
			o.diffs = append(o.diffs, diff)
			continue
		}
		o.diffs = append(o.diffs, fmt.Sprintf("merge %q into %q", old.Name, name))
		done, err := e.merge(ctx, o, scope, m)
		if err != nil {
			return err
		}
		if done {
			o.merged++
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
func (e *labelSet) merge(ctx context.Context, o *repoOutcome, scope forge.Scope, m labelMerge) (done bool, err error) {
	for range mergeRounds {
		issues, err := e.fc.ListIssuesWithLabel(ctx, scope.Owner, scope.Repo, m.filter)
		if err != nil {
			return false, err
		}
		todo, kept := m.sort(issues)
		if len(todo) == 0 && len(kept) > 0 {
			o.fail(forgev1.ReasonConflict, true,
				"label %q is not merged into exclusive %q: adding it would strip labels of its scope from %s; those keep %q until relabelled by hand",
				m.old.Name, m.into.name, boundList(kept), m.old.Name)
			return false, nil
		}
		if len(todo) == 0 {
			return true, e.fc.DeleteLabel(ctx, scope, m.old.ID)
		}
		for _, is := range todo {
			if _, err := e.fc.AddIssueLabels(ctx, scope.Owner, scope.Repo, is.Number, []int64{m.into.id}); err != nil {
				return false, err
			}
		}
	}
	o.fail(forgev1.ReasonMergeIncomplete, false,
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
	issues, err := e.fc.ListIssuesWithLabel(ctx, scope.Owner, scope.Repo, m.filter)
	if err != nil {
		return "", err
	}
	if _, kept := m.sort(issues); len(kept) > 0 {
		diff += fmt.Sprintf(" except %s, kept with %q (an exclusive label strips the others of its scope)", boundList(kept), m.old.Name)
	}
	return diff, nil
}

// boundList joins at most ten entries, saying how many more there are.
func boundList(items []string) string {
	const shown = 10
	if len(items) <= shown {
		return strings.Join(items, ", ")
	}
	return strings.Join(append(items[:shown:shown], fmt.Sprintf("and %d more", len(items)-shown)), ", ")
}

// labelSetChanges compares a listed label with a forge label, as Label does.
func labelSetChanges(s forgev1.LabelSetLabel, l forge.Label) labelChanges {
	return (&label{obj: &forgev1.Label{Spec: forgev1.LabelSpec{Name: string(s.Name), Color: s.Color,
		Description: s.Description, Exclusive: s.Exclusive, Archived: s.Archived}}}).changes(&l)
}

// listedIn are the labels of all (a repository's listing) that the spec
// lists by their current names, one of each name, that no other resource
// holds: what deleting the set removes there.
func (e *labelSet) listedIn(all []forge.Label, claims []claim, r repo) []forge.Label {
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
// by their current names, leaving labels another resource manages, from a
// listing taken now; a repository that would lose more than
// maxDeletionsPerRepository loses none and keeps the finalizer (Stalled)
// until the limit is raised or the policy is Orphan. It deletes every label
// of a listed name, not only those it wrote: the set adopts by name, so a
// label of a listed name is the set's in every matched repository (the
// README says so).
func (e *labelSet) Remove(ctx context.Context) (string, error) {
	ctx = forge.WithMaxAge(ctx, 0)
	repos, _, err := e.repositories(ctx)
	if forge.IsNotFound(err) {
		// The organization is gone, and its labels with it: holding the
		// finalizer would block the set's deletion for ever.
		return "the organization is gone; no labels to delete", nil
	}
	if err != nil {
		return "", err
	}
	claims, err := e.claims(ctx)
	if err != nil {
		return "", err
	}
	deleted, touched := 0, 0
	var errs []error
	var over []string
	for _, r := range repos {
		scope := forge.RepoScope(r.owner, r.name)
		all, err := e.fc.ListLabels(ctx, scope)
		if err != nil {
			if !forge.IsNotFound(err) {
				errs = append(errs, err)
			}
			continue
		}
		doomed := e.listedIn(all, claims, r)
		if max := e.obj.GetMaxDeletionsPerRepository(); len(doomed) > max {
			over = append(over, fmt.Sprintf("%s (%d)", r, len(doomed)))
			continue
		}
		n := 0
		for _, l := range doomed {
			if err := e.fc.DeleteLabel(ctx, scope, l.ID); err != nil {
				errs = append(errs, err)
				continue
			}
			n++
		}
		if n > 0 {
			deleted += n
			touched++
		}
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	if len(over) > 0 {
		return "", reconciler.Stall(forgev1.ReasonTooManyDeletions,
			"deleting the set would delete more than maxDeletionsPerRepository %d labels in %s; deleted none there (%d labels deleted elsewhere): raise the limit, or set deletionPolicy Orphan to leave them",
			e.obj.GetMaxDeletionsPerRepository(), boundList(over), deleted)
	}
	return fmt.Sprintf("deleted %d labels of the set in %d of %d repositories", deleted, touched, len(repos)), nil
}
