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
	"fmt"
	"reflect"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// ownerReposClient lists an owner's repositories.
type ownerReposClient interface {
	ListOrgRepos(ctx context.Context, org string) ([]forge.Repository, error)
	ListUserRepos(ctx context.Context, user string) ([]forge.Repository, error)
}

// ownerRepos lists the repositories of owner, an organization or else a
// user (one listing each, kept per sync interval by the forge's
// Snapshots); an owner that is neither is a ParentNotFound wait.
func ownerRepos(ctx context.Context, fc ownerReposClient, owner string) ([]forge.Repository, error) {
	all, err := fc.ListOrgRepos(ctx, owner)
	if forge.IsNotFound(err) {
		all, err = fc.ListUserRepos(ctx, owner)
	}
	if err != nil {
		return nil, reconciler.ParentMissing(err, "organization or user "+owner)
	}
	return all, nil
}

// archivedAge is how many sync intervals old the listing checkNotArchived
// reads may be: the three within which a drift check runs under load.
const archivedAge = 3

// findRepo is the repository named name (any case) in all, or nil.
func findRepo(all []forge.Repository, name string) *forge.Repository {
	for i := range all {
		if strings.EqualFold(all[i].Name, name) {
			return &all[i]
		}
	}
	return nil
}

// checkNotArchived refuses a write to an object in repository owner/name
// when it is archived (read from the owner's listing): the forge would
// take most writes there, but an archived repository is read-only by
// intent, so the resource stalls until it is unarchived. A repository the
// listing lacks is left to the write to find. The listing may be as old
// as a drift check may be late (archivedAge intervals): the guard does not
// list the owner again for every write of a long first sync.
func checkNotArchived(ctx context.Context, fc forge.Interface, owner, name string) error {
	all, err := ownerRepos(ctx, forge.Lenient(fc, archivedAge), owner)
	if err != nil {
		return err
	}
	if r := findRepo(all, name); r != nil && r.Archived {
		return reconciler.Stall(forgev1.ReasonRepositoryArchived,
			"repository %s/%s is archived: no write is attempted until it is unarchived", owner, name)
	}
	return nil
}

// repoRefs names the repository s is, for reconciler.RepoScoped; none for
// an organization.
func (s scope) repoRefs() []string {
	if s.IsOrg() {
		return nil
	}
	return []string{s.Owner + "/" + s.Repo}
}

// beforeWrite stops a write into an archived repository (an organization
// has none).
func (s scope) beforeWrite(ctx context.Context, pass *reconciler.Pass) error {
	if s.IsOrg() || s.Owner == "" {
		return nil
	}
	return checkNotArchived(ctx, pass.Forge, s.Owner, s.Repo)
}

// RepoRefs of a Team: the repositories it lists, so that one added before
// its Repository exists is retried when that Repository becomes Ready.
func (teamKind) RepoRefs(t *forgev1.Team) []string {
	out := make([]string, 0, len(t.Spec.Repositories))
	for _, r := range t.Spec.Repositories {
		out = append(out, string(t.Spec.Organization)+"/"+string(r))
	}
	return out
}

// scope is where an object lives: a repository or an organization.
type scope struct{ forge.Scope }

func scopeOf(repo *forgev1.RepositoryName, org *forgev1.OwnerName) scope {
	if repo != nil {
		owner, name, _ := strings.Cut(string(*repo), "/")
		return scope{forge.Scope{Owner: owner, Repo: name}}
	}
	if org != nil {
		return scope{forge.Scope{Owner: string(*org)}}
	}
	return scope{}
}

func (s scope) describe() string {
	if s.Repo != "" {
		return "repository " + s.Owner + "/" + s.Repo
	}
	return "organization " + s.Owner
}

// key is case-insensitive, as the forge's owner and repository names are.
func (s scope) key() string {
	if s.Repo != "" {
		return "repo:" + strings.ToLower(s.Owner+"/"+s.Repo)
	}
	return "org:" + strings.ToLower(s.Owner)
}

// repoChild declares a kind whose objects live in a repository (some
// also in an organization): the kind's file fills in what differs, and the
// value is the reconciler.Kind the loop runs. Everything a repository's
// child has alike comes from here: its key (scope and natural name), its
// messages, waiting for its Repository (reconciler.RepoScoped), no write
// into an archived repository (reconciler.WriteGuard), its token scopes
// (reconciler.Scoped), and, for its External, where it lives with the
// classification of the forge's errors (childAt). The kind's own code is
// connect and the External it returns: the forge object's fields, how they
// compare, how they are written.
type repoChild[T forgev1.Managed] struct {
	// noun names the kind's objects in messages ("tag protection"): a
	// message says `tag protection "v*" in repository acme/web`.
	noun string
	// name is obj's natural name in its scope, which its key holds and
	// messages show quoted; shown, when set, is how messages show it
	// instead (an address, an upper-cased Actions name).
	name, shown func(T) string
	// keyTag tells the kind's names from other kinds' in a key: the key is
	// "repo:acme/web|tagprotection:v*". Two resources of one key conflict.
	// Without name the kind has no key (its objects have no natural name).
	keyTag string
	// key, when set, is the part of obj's key after its scope instead
	// ("runner-id:5" or "runner:ci-1": a kind picked by id or by name).
	key func(T) string
	// notResident: obj is picked in a repository but waits for its own
	// object rather than for the Repository, and writes to that object,
	// not into the repository: no Repository wait (RepoRefs is empty) and
	// no archived stall (a RunnerSetting: act_runner registers the runner
	// once the repository exists, and an archived repository's runners
	// are still the forge's to enable or disable).
	notResident bool
	// of: messages say "of repository ..." rather than "in repository ...".
	of bool
	// where is the repository (or organization) obj lives in.
	where func(T) scope
	// list is an empty list of the kind (NewList makes another).
	list client.ObjectList
	// secrets are the Secrets obj references (nil: none).
	secrets func(T) []string
	// writeScopes are the token scopes obj's writes need; nil: the write
	// scope of where it lives (forge.WriteScopeOf).
	writeScopes func(T) []string
	// gate is the API the kind needs, which some releases lack (zero: none):
	// on such a server the resource stalls Unsupported before it reads,
	// and a route the forge does not know (a plain-text 404, where the
	// version did not tell) is classified so too (childAt.classify).
	gate forge.Gate
	// connect prepares one pass over obj, given where it lives: it reads
	// what obj references and returns the kind's External.
	connect func(ctx context.Context, obj T, pass *reconciler.Pass, at childAt) (reconciler.External, error)

	// refs are what obj references besides the repository it lives in
	// (the teams and users of allow-lists; nil: nothing): while a resource
	// of the same server that declares one is on its way, obj waits for it
	// rather than write and be refused (reconciler.Referrer).
	refs func(T) []reconciler.Ref
	// unknownNote says why plan cannot tell what the operator would do
	// with obj while the fields unknown come from a Secret it cannot read
	// (nil: plan says nothing more).
	unknownNote func(d reconciler.Action, unknown []string) string
}

// childAt is where one repository child lives, for its External: the
// scope, the object's name in messages, and how the forge's errors read.
type childAt struct {
	scope
	// what names the object without its scope: `tag protection "v*"`.
	what   string
	server forge.Server
	gate   forge.Gate
}

// classify makes a failed read or write of the object an error the loop
// acts on: a route the server does not know (where the kind has a gate)
// is Unsupported, anything the forge reports missing is its repository
// (ParentNotFound, waiting), and the rest stays as it is.
func (a childAt) classify(err error) error {
	if a.gate != (forge.Gate{}) && forge.IsRouteNotFound(err) {
		return a.unsupported()
	}
	return reconciler.ParentMissing(err, a.describe())
}

// unsupported is the stall of a server without the kind's API.
func (a childAt) unsupported() error {
	return reconciler.Stall(forgev1.ReasonUnsupported, "%s: %s cannot be managed there",
		a.server.Unsupported([]forge.Gate{a.gate}), a.what)
}

// at is where obj lives for one pass.
func (d repoChild[T]) at(obj T, server forge.Server) childAt {
	return childAt{scope: d.where(obj), what: d.what(obj), server: server, gate: d.gate}
}

// what names obj in messages without its scope.
func (d repoChild[T]) what(obj T) string {
	shown := ""
	switch {
	case d.shown != nil:
		shown = d.shown(obj)
	case d.name != nil:
		shown = fmt.Sprintf("%q", d.name(obj))
	}
	switch {
	case d.noun == "":
		return shown
	case shown == "":
		return d.noun
	}
	return d.noun + " " + shown
}

// New returns an empty object of the kind.
func (repoChild[T]) New() T {
	return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
}

// NewList returns an empty list of the kind.
func (d repoChild[T]) NewList() client.ObjectList {
	return reflect.New(reflect.TypeOf(d.list).Elem()).Interface().(client.ObjectList)
}

// Key: the scope (owner and repository names without case, as the forge
// compares them) and the kind's natural name; "" for a kind without one.
func (d repoChild[T]) Key(obj T) string {
	if d.key != nil {
		return d.where(obj).key() + "|" + d.key(obj)
	}
	if d.name == nil {
		return ""
	}
	return d.where(obj).key() + "|" + d.keyTag + ":" + d.name(obj)
}

// Describe names obj and where it lives.
func (d repoChild[T]) Describe(obj T) string {
	in := " in "
	if d.of {
		in = " of "
	}
	return d.what(obj) + in + d.where(obj).describe()
}

// Secrets are those the kind declares.
func (d repoChild[T]) Secrets(obj T) []string {
	if d.secrets == nil {
		return nil
	}
	return d.secrets(obj)
}

// Connect stalls Unsupported on a server without the kind's API, but for
// a deletion, which goes on to the kind (nothing can have been made there,
// unless the forge was downgraded: the kind decides), and hands the rest
// to the kind.
func (d repoChild[T]) Connect(ctx context.Context, obj T, pass *reconciler.Pass) (reconciler.External, error) {
	at := d.at(obj, pass.Server)
	if d.gate != (forge.Gate{}) && pass.Server.Lacks(d.gate) && obj.GetDeletionTimestamp().IsZero() {
		return nil, at.unsupported()
	}
	return d.connect(ctx, obj, pass, at)
}

// RepoRefs: an object of a repository waits for its Repository resource
// (requeued when it becomes Ready); one of an organization for none.
func (d repoChild[T]) RepoRefs(obj T) []string {
	if d.notResident {
		return nil
	}
	return d.where(obj).repoRefs()
}

// LivesInRepository: a repository's child reads the forge in its
// repository before it writes (reconciler.RepoResident).
func (repoChild[T]) LivesInRepository() {}

// References are those the kind declares (reconciler.Referrer).
func (d repoChild[T]) References(obj T) []reconciler.Ref {
	if d.refs == nil {
		return nil
	}
	return d.refs(obj)
}

// UnknownNote is the kind's, for plan (unknownNoter).
func (d repoChild[T]) UnknownNote(a reconciler.Action, unknown []string) string {
	if d.unknownNote == nil {
		return ""
	}
	return d.unknownNote(a, unknown)
}

// BeforeWrite: nothing is written into an archived repository (the
// resource stalls, RepositoryArchived, until it is unarchived).
func (d repoChild[T]) BeforeWrite(ctx context.Context, obj T, pass *reconciler.Pass) error {
	if d.notResident {
		return nil
	}
	return d.where(obj).beforeWrite(ctx, pass)
}

// WriteScopes are the kind's, or else those of where obj lives.
func (d repoChild[T]) WriteScopes(obj T, _ *reconciler.Pass, _ bool) []string {
	if d.writeScopes != nil {
		return d.writeScopes(obj)
	}
	return []string{forge.WriteScopeOf(d.where(obj).Scope)}
}

// childLookup is how a repository child's External finds the forge object
// its resource holds (find): the one of its recorded id while the forge
// has it, else the one of its natural name in the listing of where it
// lives, which is how it adopts. Several of that name stall Conflict with
// their ids, rather than guess.
type childLookup[F any] struct {
	get  func(ctx context.Context, id int64) (*F, error)
	list func(ctx context.Context) ([]F, error)
	// named says an object has the resource's natural name; idOf is its id.
	named func(F) bool
	idOf  func(F) int64
	// several names the objects of that name for the Conflict (`labels
	// named "bug"`); advice says what to do about them.
	several, advice string
	// classify makes the forge's errors the loop's; nil: childAt's.
	classify func(error) error
}

// find returns the object, nil when there is none to adopt.
func (l childLookup[F]) find(ctx context.Context, at childAt, id int64) (*F, error) {
	classify := l.classify
	if classify == nil {
		classify = at.classify
	}
	if id != 0 {
		f, err := l.get(ctx, id)
		switch {
		case err == nil:
			return f, nil
		case !forge.IsNotFound(err):
			return nil, classify(err)
		}
		// Gone (or its repository is): look it up by name, as on first sight.
	}
	all, err := l.list(ctx)
	if err != nil {
		return nil, classify(err)
	}
	return reconciler.One(all, l.named, l.idOf, l.several+" exist in "+at.describe(), l.advice)
}
