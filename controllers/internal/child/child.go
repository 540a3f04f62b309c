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

// Package child declares a repository's child: a kind whose objects live in
// a repository (some also in an organization), such as a TagProtection, a
// Label or a RepoHook. A kind file of package controllers fills in a Kind,
// the declaration of what differs (its noun, natural name, where it lives,
// its API gate, its External), and the value is the reconciler.Kind the
// loop runs: its key, messages, the wait for its Repository, the stall in
// an archived repository, its token scopes and references come from here,
// and to its External where it lives (At) and how it finds and adopts its
// forge object (Lookup). It also holds the repository reads the kinds share
// (an owner's repositories, the archived guard). It serves the kinds of
// package controllers and imports none of the shared pieces beside it, only
// the API types, the forge client and the loop's vocabulary.
package child

import (
	"context"
	"fmt"
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// Kind declares a kind whose objects live in a repository (some also in an
// organization): the kind's file fills in what differs, and the value is
// the reconciler.Kind the loop runs. Everything a repository's child has
// alike comes from here: its key (scope and natural name), its messages,
// waiting for its Repository (reconciler.RepoScoped), no write into an
// archived repository (reconciler.WriteGuard), its token scopes
// (reconciler.Scoped), and, for its External, where it lives with the
// classification of the forge's errors (At). The kind's own code is
// External and what it returns: the forge object's fields, how they
// compare, how they are written.
type Kind[T forgev1.Managed] struct {
	// Noun names the kind's objects in messages ("tag protection"): a
	// message says `tag protection "v*" in repository acme/web`.
	Noun string
	// Name is obj's natural name in its scope, which its key holds and
	// messages show quoted; Shown, when set, is how messages show it
	// instead (an address, an upper-cased Actions name).
	Name, Shown func(T) string
	// KeyTag tells the kind's names from other kinds' in a key: the key is
	// "repo:acme/web|tagprotection:v*". Two resources of one key conflict.
	// Without Name the kind has no key (its objects have no natural name).
	KeyTag string
	// KeyOf, when set, is the part of obj's key after its scope instead
	// ("runner-id:5" or "runner:ci-1": a kind picked by id or by name).
	KeyOf func(T) string
	// NotResident: obj is picked in a repository but waits for its own
	// object rather than for the Repository, and writes to that object,
	// not into the repository: no Repository wait (RepoRefs is empty) and
	// no archived stall (a RunnerSetting: act_runner registers the runner
	// once the repository exists, and an archived repository's runners
	// are still the forge's to enable or disable).
	NotResident bool
	// KeptElsewhere: obj's object is kept outside the forge (a
	// RunnerRegistrationToken's token, in its Secret), so its pass reads
	// nothing in the repository before it writes, and the loop waits for a
	// Repository resource declaring it before the write, not only after a
	// write found it missing (LivesInRepository is false). It still waits
	// for its Repository and stalls in an archived one.
	KeptElsewhere bool
	// Of: messages say "of repository ..." rather than "in repository ...".
	Of bool
	// DescribeOf, when set, is how messages name obj and where it lives,
	// instead of the noun, name and place (a token names its Secret after
	// its place, and the instance when it has none).
	DescribeOf func(T) string
	// Where is the repository (or organization) obj lives in.
	Where func(T) Place
	// List is an empty list of the kind (NewList makes another).
	List client.ObjectList
	// SecretsOf are the Secrets obj references (nil: none).
	SecretsOf func(T) []string
	// WriteScopesOf are the token scopes obj's writes need; nil: the write
	// scope of where it lives (forge.WriteScopeOf).
	WriteScopesOf func(T) []string
	// Gate is the API the kind needs, which some releases lack (zero: none):
	// on such a server the resource stalls Unsupported before it reads,
	// and a route the forge does not know (a plain-text 404, where the
	// version did not tell) is classified so too (At.Classify).
	Gate forge.Gate
	// External prepares one pass over obj, given where it lives: it reads
	// what obj references and returns the kind's External.
	External func(ctx context.Context, obj T, pass *reconciler.Pass, at At) (reconciler.External, error)

	// Refs are what obj references besides the repository it lives in
	// (the teams and users of allow-lists; nil: nothing): while a resource
	// of the same server that declares one is on its way, obj waits for it
	// rather than write and be refused (reconciler.Referrer).
	Refs func(T) []reconciler.Ref
	// UnknownNoteOf says why plan cannot tell what the operator would do
	// with obj while the fields unknown come from a Secret it cannot read
	// (nil: plan says nothing more).
	UnknownNoteOf func(d reconciler.Action, unknown []string) string
}

// At is where obj lives for one pass.
func (d Kind[T]) At(obj T, server forge.Server) At {
	return At{Place: d.Where(obj), What: d.what(obj), Server: server, Gate: d.Gate}
}

// what names obj in messages without its scope.
func (d Kind[T]) what(obj T) string {
	shown := ""
	switch {
	case d.Shown != nil:
		shown = d.Shown(obj)
	case d.Name != nil:
		shown = fmt.Sprintf("%q", d.Name(obj))
	}
	switch {
	case d.Noun == "":
		return shown
	case shown == "":
		return d.Noun
	}
	return d.Noun + " " + shown
}

// New returns an empty object of the kind.
func (Kind[T]) New() T {
	return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
}

// NewList returns an empty list of the kind.
func (d Kind[T]) NewList() client.ObjectList {
	return reflect.New(reflect.TypeOf(d.List).Elem()).Interface().(client.ObjectList)
}

// Key: the scope (owner and repository names without case, as the forge
// compares them) and the kind's natural name; "" for a kind without one.
func (d Kind[T]) Key(obj T) string {
	if d.KeyOf != nil {
		return d.Where(obj).Key() + "|" + d.KeyOf(obj)
	}
	if d.Name == nil {
		return ""
	}
	return d.Where(obj).Key() + "|" + d.KeyTag + ":" + d.Name(obj)
}

// Describe names obj and where it lives.
func (d Kind[T]) Describe(obj T) string {
	if d.DescribeOf != nil {
		return d.DescribeOf(obj)
	}
	in := " in "
	if d.Of {
		in = " of "
	}
	return d.what(obj) + in + d.Where(obj).Describe()
}

// Secrets are those the kind declares.
func (d Kind[T]) Secrets(obj T) []string {
	if d.SecretsOf == nil {
		return nil
	}
	return d.SecretsOf(obj)
}

// Connect stalls Unsupported on a server without the kind's API, but for
// a deletion, which goes on to the kind (nothing can have been made there,
// unless the forge was downgraded: the kind decides), and hands the rest
// to the kind.
func (d Kind[T]) Connect(ctx context.Context, obj T, pass *reconciler.Pass) (reconciler.External, error) {
	at := d.At(obj, pass.Server)
	if d.Gate != (forge.Gate{}) && pass.Server.Lacks(d.Gate) && obj.GetDeletionTimestamp().IsZero() {
		return nil, at.Unsupported()
	}
	return d.External(ctx, obj, pass, at)
}

// RepoRefs: an object of a repository waits for its Repository resource
// (requeued when it becomes Ready); one of an organization for none.
func (d Kind[T]) RepoRefs(obj T) []string {
	if d.NotResident {
		return nil
	}
	return d.Where(obj).RepoRefs()
}

// LivesInRepository: a repository's child reads the forge in its
// repository before it writes (reconciler.RepoResident), unless it is
// kept elsewhere.
func (d Kind[T]) LivesInRepository() bool { return !d.KeptElsewhere }

// References are those the kind declares (reconciler.Referrer).
func (d Kind[T]) References(obj T) []reconciler.Ref {
	if d.Refs == nil {
		return nil
	}
	return d.Refs(obj)
}

// UnknownNote is the kind's, for plan (its unknownNoter).
func (d Kind[T]) UnknownNote(a reconciler.Action, unknown []string) string {
	if d.UnknownNoteOf == nil {
		return ""
	}
	return d.UnknownNoteOf(a, unknown)
}

// BeforeWrite: nothing is written into an archived repository (the
// resource stalls, RepositoryArchived, until it is unarchived).
func (d Kind[T]) BeforeWrite(ctx context.Context, obj T, pass *reconciler.Pass) error {
	if d.NotResident {
		return nil
	}
	return d.Where(obj).BeforeWrite(ctx, pass)
}

// WriteScopes are the kind's, or else those of where obj lives.
func (d Kind[T]) WriteScopes(obj T, _ *reconciler.Pass, _ bool) []string {
	if d.WriteScopesOf != nil {
		return d.WriteScopesOf(obj)
	}
	return []string{forge.WriteScopeOf(d.Where(obj).Scope)}
}
