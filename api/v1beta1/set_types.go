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

package v1beta1

import "strconv"

// The parts every set kind (LabelSet, BranchProtectionSet) shares: which
// repositories it applies to, its mode, and how it reports them.

// SetMode says what happens to a repository's objects the set does not list.
// +kubebuilder:validation:Enum=Additive;Authoritative
type SetMode string

const (
	// SetModeAdditive leaves unlisted objects alone.
	SetModeAdditive SetMode = "Additive"
	// SetModeAuthoritative deletes unlisted objects that match neither
	// preserve nor another resource, within maxDeletionsPerRepository.
	SetModeAuthoritative SetMode = "Authoritative"
)

// ReasonTooManyDeletions: an Authoritative set would delete more
// objects in a repository than maxDeletionsPerRepository allows, so it
// deletes none there.
const ReasonTooManyDeletions = "TooManyDeletions"

// RepositoryGlob is a shell pattern (Go path.Match: *, ?, [...]) matched
// against repository names.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=100
// +kubebuilder:validation:Pattern=`^[-.\w*?\[\]!^]+$`
type RepositoryGlob string

// RepositorySelector selects the repositories a set kind applies to:
// exactly one of names and organization; include, exclude and topics
// narrow an organization's.
// +kubebuilder:validation:XValidation:rule="has(self.names) != has(self.organization)",message="exactly one of names and organization must be set"
// +kubebuilder:validation:XValidation:rule="has(self.organization) || (!has(self.include) && !has(self.exclude))",message="include and exclude apply only with organization"
// +kubebuilder:validation:XValidation:rule="has(self.organization) || !has(self.topics)",message="topics apply only with organization"
type RepositorySelector struct {
	// names of the repositories ("owner/name"), a set.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=500
	// +optional
	Names []RepositoryName `json:"names,omitempty"`

	// organization whose repositories the set applies to, listed afresh on
	// every sync, archived ones skipped.
	// +optional
	Organization *OwnerName `json:"organization,omitempty"`

	// include keeps the organization's repositories whose name matches one
	// of these globs; every repository when unset.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Include []RepositoryGlob `json:"include,omitempty"`

	// exclude removes, after include, the repositories whose name matches
	// one of these globs.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Exclude []RepositoryGlob `json:"exclude,omitempty"`

	// topics keeps, of the repositories include and exclude leave, those
	// carrying every one of these topics (as the forge keeps them: lower
	// case). The organization's listing carries each repository's topics,
	// so selecting by them costs no read. A topic added on the forge
	// brings its repository in at the set's next pass.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Topics []Topic `json:"topics,omitempty"`
}

// Removals says what a resource does with what it would remove because
// it does not list it (an Authoritative set's unlisted objects, a Team's
// unlisted members and repositories, a Repository's unlisted
// collaborators, a RepositorySet's teams no longer listed).
// +kubebuilder:validation:Enum=Apply;Report
type Removals string

const (
	// RemovalsApply removes them (within the kind's limits).
	RemovalsApply Removals = "Apply"
	// RemovalsReport removes nothing: status.pendingRemovals lists them
	// and a Warning Event RemovalsPending says when they change; additions
	// and edits still happen and Ready stays True.
	RemovalsReport Removals = "Report"
)

// Reports says whether removals are reported rather than made; unset is Apply.
func (r Removals) Reports() bool { return r == RemovalsReport }

// PendingRemoval is one removal a resource with removals Report did not
// make.
type PendingRemoval struct {
	// repository ("owner/name") the object is in; empty for an object of
	// an organization (a Team's member).
	// +optional
	Repository string `json:"repository,omitempty"`
	// kind of object: Label, BranchProtection, Member, Repository,
	// Collaborator, TeamAccess.
	Kind string `json:"kind"`
	// name of the object (a label's name, a branch rule, a login, a
	// repository, a team).
	Name string `json:"name"`
}

// String is the removal as Events and plan tell it: `acme/web Label
// "stale"`, or `Member "bob"` outside a repository.
func (r PendingRemoval) String() string {
	s := r.Kind + " " + strconv.Quote(r.Name)
	if r.Repository != "" {
		s = r.Repository + " " + s
	}
	return s
}

// PendingRemovals are the removals a resource with removals Report
// planned in its last pass and did not make.
type PendingRemovals struct {
	// count of every planned removal (items shows at most 20).
	Count int32 `json:"count"`
	// items, at most 20, sorted by repository, kind and name.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Items []PendingRemoval `json:"items,omitempty"`
}

// SetFailure is a repository where the set could not be applied.
type SetFailure struct {
	// repository ("owner/name").
	Repository string `json:"repository"`
	// reason, CamelCase: Conflict, TooManyDeletions, Rejected, ForgeError, ...
	Reason string `json:"reason"`
	// message says what a person needs to know, bounded and without secrets.
	// +optional
	Message string `json:"message,omitempty"`
}

// SetYield is what a set leaves to another resource in one repository:
// that resource holds those fields or paths there (DESIGN "Precedence and
// enforcement"), so the repository is governed by it for them.
type SetYield struct {
	// repository ("owner/name").
	Repository string `json:"repository"`
	// items are the fields (settings, "topics", "team <name>") or paths
	// the set leaves, sorted.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	Items []string `json:"items"`
	// heldBy names the resource holding them when it is in the set's own
	// namespace ("Repository platform/web"); one of another namespace is
	// said to exist, never named ("a Repository in another namespace").
	HeldBy string `json:"heldBy"`
}

// SetYields are the repositories where a set leaves fields or paths to
// other resources.
type SetYields struct {
	// count of those repositories (items shows at most 20); none of them
	// is counted in inSync.
	Count int32 `json:"count"`
	// items, at most 20, sorted by repository and holder.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Items []SetYield `json:"items,omitempty"`
}

// SetStatus is what every set kind reports of its repositories.
type SetStatus struct {
	// repositories is how many repositories the set matched in the last
	// pass, archived ones excluded.
	// +optional
	Repositories int32 `json:"repositories"`

	// inSync is how many of them match the spec with no failure, and
	// with nothing left to another resource (those are yielded).
	// +optional
	InSync int32 `json:"inSync"`

	// yielded are the repositories where the set leaves some of what it
	// sets to another resource that holds it there (a Repository's own
	// settings, a RepositoryFile's paths, a Team's repositories): they are
	// governed by that resource for those, and are not in inSync.
	// +optional
	Yielded *SetYields `json:"yielded,omitempty"`

	// failing is how many repositories the set could not be applied to
	// (failures shows at most 20 of them).
	// +optional
	Failing int32 `json:"failing,omitempty"`

	// failures lists repositories where the set could not be applied, at
	// most 20, sorted by repository.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Failures []SetFailure `json:"failures,omitempty"`

	// pendingRemovals are the removals the set would make and did not,
	// with removals Report.
	// +optional
	PendingRemovals *PendingRemovals `json:"pendingRemovals,omitempty"`

	// matched is the operator's record of the repositories the set applies
	// to: a repository in it that the set no longer matches (excluded, a
	// topic removed, transferred, archived, a name dropped) is released as
	// if the set were deleted there, as its deletionPolicy says. Unset
	// until the set's first pass that writes: that pass only records.
	// +optional
	Matched *MatchedRepositories `json:"matched,omitempty"`
}

// CheckedRepositories is a file kind's record of the repositories whose
// branch its last complete check found as the files want, each with the
// repository's updated_at then (DESIGN "Reading only what moved"): a pass
// lists a repository's tree again only when its updated_at differs from
// the one recorded, when the files differ from those recorded (files),
// when the repository has no record, or at its complete check, every
// fullCheckEvery intervals of the Forge (due). The status subresource is
// the operator's alone: a record is never taken from a spec or an
// annotation. One short string, about sixteen bytes a repository; a set
// over more repositories than it can hold records the first of them by
// id, and lists the others' trees every interval.
type CheckedRepositories struct {
	// files is a digest of what the checks compared the branches with
	// (the files' paths and contents, the branch, the mode, the paths
	// others hold, the interval): any change and the record is void.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Files string `json:"files,omitempty"`

	// count of the repositories recorded.
	Count int32 `json:"count"`

	// entries, by repository id ascending, separated by commas: the id
	// as its difference from the one before (the first as itself), the
	// repository's updated_at (unix seconds) and the sync interval (unix
	// time divided by the interval) from which its next complete check is
	// due, each in base 36, separated by dots.
	// +kubebuilder:validation:MaxLength=262144
	// +optional
	Entries string `json:"entries,omitempty"`
}

// MatchedRepositories records repositories by their forge ids, which a
// rename or a transfer keeps: one short string, about three bytes a
// repository, so that a set over thousands of repositories keeps a small
// status (a list of numbers is one line of YAML each). A set over more
// repositories than ids can hold keeps no record and releases nothing.
type MatchedRepositories struct {
	// count of the repositories recorded.
	Count int32 `json:"count"`

	// ids of the repositories recorded, ascending, each written as its
	// difference from the one before (the first as itself) in base 36,
	// separated by commas.
	// +kubebuilder:validation:MaxLength=262144
	// +optional
	IDs string `json:"ids,omitempty"`
}
