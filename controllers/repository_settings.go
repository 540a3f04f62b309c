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
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// A repository's settings: how each setting of the spec compares with the
// forge's, what plan lists, and the edit that brings them to the spec.

func (e *repository) topics() []string {
	out := make([]string, len(e.obj.Spec.Topics))
	for i, t := range e.obj.Spec.Topics {
		out[i] = string(t)
	}
	return normalTopics(out)
}

// normalTopics is the set as the forge keeps it: lower case, sorted, once each.
func normalTopics(ts []string) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, strings.ToLower(strings.TrimSpace(t)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// settings is the edit of the settings that differ, and how many. A pull
// request setting goes with has_pull_requests: true, which Gitea 1.25
// needs in the same PATCH to apply it at all (1.24 and 1.26 apply it
// while pull requests are on; verified on each).
func (e *repository) settings(r *forge.Repository) (forge.EditRepoOption, int) {
	return editOf(e.fields(r))
}

// editOf is the edit of the fields that differ, and how many.
func editOf(fields []repoField) (forge.EditRepoOption, int) {
	var opt forge.EditRepoOption
	n := 0
	for _, f := range fields {
		if f.differs() {
			f.set(&opt)
			n++
			if f.pullRequests && opt.HasPullRequests == nil {
				opt.HasPullRequests = new(true)
			}
		}
	}
	return opt, n
}

// changes lists every difference for the loop and plan.
func (e *repository) changes(r *forge.Repository) []reconciler.Change {
	var out []reconciler.Change
	for _, f := range e.fields(r) {
		switch {
		case !f.differs():
		case f.name == "name":
			// plan shows "rename: website -> web".
			out = append(out, reconciler.Change{Field: "rename", Have: r.Name, Want: e.obj.RepoName()})
		default:
			out = append(out, compare.Change(f.name, f.have, f.want))
		}
	}
	s := e.obj.Spec
	if s.Archived != nil && *s.Archived != r.Archived {
		out = append(out, compare.Change("archived", r.Archived, *s.Archived))
	}
	if e.managesTopics() {
		if have, want := normalTopics(r.Topics), e.topics(); !slices.Equal(have, want) {
			out = append(out, compare.Change("topics", have, want))
		}
	}
	if s.Collaborators != nil {
		add, chg, remove := e.collaboratorChanges()
		var diff []string
		for _, c := range add {
			diff = append(diff, "+"+string(c.User)+"("+c.Permission+")")
		}
		for _, c := range chg {
			diff = append(diff, "~"+string(c.User)+"("+c.Permission+")")
		}
		for _, u := range remove {
			if s.Removals.Reports() {
				break // no change: status.pendingRemovals lists them
			}
			diff = append(diff, "-"+u)
		}
		if len(diff) > 0 {
			// plan shows "collaborators: +alice(write) ~carol(admin) -bob".
			out = append(out, reconciler.Change{Field: "collaborators", Want: strings.Join(diff, " ")})
		}
	}
	slices.SortFunc(out, compare.ByField)
	return out
}

// repoField is one managed setting: its spec name, the values, and how to
// put the spec's value into an edit.
type repoField struct {
	name       string
	have, want any
	set        func(*forge.EditRepoOption)
	diff       bool
	// pullRequests marks a setting of the pull request unit.
	pullRequests bool
}

func (f repoField) differs() bool { return f.diff }

func boolField(name string, want *bool, have bool, dst func(*forge.EditRepoOption) **bool) repoField {
	f := repoField{name: name, have: have}
	if want != nil {
		f.want, f.diff = *want, *want != have
		f.set = func(o *forge.EditRepoOption) { *dst(o) = want }
	}
	return f
}

func stringField(name string, want *string, have string, dst func(*forge.EditRepoOption) **string) repoField {
	f := repoField{name: name, have: have}
	if want != nil {
		f.want, f.diff = *want, *want != have
		f.set = func(o *forge.EditRepoOption) { *dst(o) = want }
	}
	return f
}

// fields are the settings compared (each only when set in the spec), the
// name among them: a repository found under another name is renamed. The
// pull request settings are compared only while pull requests are on (or
// the spec turns them on): the forge keeps none otherwise, and writing one
// would turn the unit back on.
func (e *repository) fields(r *forge.Repository) []repoField {
	name := e.obj.RepoName()
	own := e.obj.Spec.RepositorySettings
	if len(e.enforced) > 0 {
		drop := map[string]bool{}
		for f := range e.enforced {
			drop[f] = true
		}
		own = withoutFields(own, drop) // an enforcing set's, not this resource's
	}
	return append([]repoField{stringField("name", &name, r.Name, func(o *forge.EditRepoOption) **string { return &o.Name })},
		settingFields(&own, r)...)
}

// managesTopics says the spec lists the repository's topics and no
// enforcing set holds them.
func (e *repository) managesTopics() bool {
	_, enforced := e.enforced["topics"]
	return e.obj.Spec.Topics != nil && !enforced
}

// settingFields are the settings s sets compared with r's (a Repository's
// and a RepositorySet's), the pull request settings only while pull
// requests are on (or s turns them on).
func settingFields(s *forgev1.RepositorySettings, r *forge.Repository) []repoField {
	type o = forge.EditRepoOption
	out := []repoField{
		stringField("description", s.Description, r.Description, func(o *o) **string { return &o.Description }),
		stringField("website", s.Website, r.Website, func(o *o) **string { return &o.Website }),
		boolField("private", s.Private, r.Private, func(o *o) **bool { return &o.Private }),
		boolField("template", s.Template, r.Template, func(o *o) **bool { return &o.Template }),
		stringField("defaultBranch", s.DefaultBranch, r.DefaultBranch, func(o *o) **string { return &o.DefaultBranch }),
		boolField("hasIssues", s.HasIssues, r.HasIssues, func(o *o) **bool { return &o.HasIssues }),
		boolField("hasWiki", s.HasWiki, r.HasWiki, func(o *o) **bool { return &o.HasWiki }),
		boolField("hasPullRequests", s.HasPullRequests, r.HasPullRequests, func(o *o) **bool { return &o.HasPullRequests }),
		boolField("hasProjects", s.HasProjects, r.HasProjects, func(o *o) **bool { return &o.HasProjects }),
		boolField("hasReleases", s.HasReleases, r.HasReleases, func(o *o) **bool { return &o.HasReleases }),
		boolField("hasPackages", s.HasPackages, r.HasPackages, func(o *o) **bool { return &o.HasPackages }),
		boolField("hasActions", s.HasActions, r.HasActions, func(o *o) **bool { return &o.HasActions }),
		boolField("hasCode", s.HasCode, r.HasCode, func(o *o) **bool { return &o.HasCode }),
	}
	if !ptrOr(s.HasPullRequests, r.HasPullRequests) {
		return out
	}
	pulls := []repoField{
		boolField("allowMergeCommits", s.AllowMergeCommits, r.AllowMergeCommits, func(o *o) **bool { return &o.AllowMergeCommits }),
		boolField("allowRebase", s.AllowRebase, r.AllowRebase, func(o *o) **bool { return &o.AllowRebase }),
		boolField("allowRebaseExplicit", s.AllowRebaseExplicit, r.AllowRebaseExplicit, func(o *o) **bool { return &o.AllowRebaseExplicit }),
		boolField("allowSquashMerge", s.AllowSquashMerge, r.AllowSquashMerge, func(o *o) **bool { return &o.AllowSquashMerge }),
		boolField("allowFastForwardOnlyMerge", s.AllowFastForwardOnlyMerge, r.AllowFastForwardOnlyMerge, func(o *o) **bool { return &o.AllowFastForwardOnlyMerge }),
		boolField("allowManualMerge", s.AllowManualMerge, r.AllowManualMerge, func(o *o) **bool { return &o.AllowManualMerge }),
		boolField("autodetectManualMerge", s.AutodetectManualMerge, r.AutodetectManualMerge, func(o *o) **bool { return &o.AutodetectManualMerge }),
		boolField("allowRebaseUpdate", s.AllowRebaseUpdate, r.AllowRebaseUpdate, func(o *o) **bool { return &o.AllowRebaseUpdate }),
		// Gitea 1.27 checks the update settings together (one style on,
		// the default among those on): they go in the same PATCH.
		boolField("allowMergeUpdate", s.AllowMergeUpdate, r.AllowMergeUpdate, func(o *o) **bool { return &o.AllowMergeUpdate }),
		stringField("defaultUpdateStyle", s.DefaultUpdateStyle, r.DefaultUpdateStyle, func(o *o) **string { return &o.DefaultUpdateStyle }),
		stringField("defaultMergeStyle", s.DefaultMergeStyle, r.DefaultMergeStyle, func(o *o) **string { return &o.DefaultMergeStyle }),
		boolField("defaultDeleteBranchAfterMerge", s.DefaultDeleteBranchAfterMerge, r.DefaultDeleteBranchAfterMerge, func(o *o) **bool { return &o.DefaultDeleteBranchAfterMerge }),
		boolField("defaultAllowMaintainerEdit", s.DefaultAllowMaintainerEdit, r.DefaultAllowMaintainerEdit, func(o *o) **bool { return &o.DefaultAllowMaintainerEdit }),
		boolField("ignoreWhitespaceConflicts", s.IgnoreWhitespaceConflicts, r.IgnoreWhitespaceConflicts, func(o *o) **bool { return &o.IgnoreWhitespaceConflicts }),
	}
	for i := range pulls {
		pulls[i].pullRequests = true
	}
	return append(out, pulls...)
}

// ptrOr is *p, or def when p is nil.
func ptrOr[V any](p *V, def V) V {
	if p == nil {
		return def
	}
	return *p
}
