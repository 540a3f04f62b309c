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

package export

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/forgeops/forge-operator/internal/forge"
)

// Writer is one kind's export: where in the walk it works and what it
// writes there. A kind declares its writer beside itself (with
// ForOrganization, ForScope, ForRepository, ForLiveRepository or
// Aggregate), reading the forge through an interface of its own that
// lists only the reads it makes; Export checks before reading anything
// that its Source offers them.
type Writer struct {
	where where
	// reader is the interface the writer reads the forge through; reads
	// tells whether a Source offers it.
	reader reflect.Type
	reads  func(Source) bool
	// write writes at one place of the walk (all but aggregates).
	write func(ctx context.Context, b *Builder, src Source, at place) error
	// collection starts an aggregate's collection, one per export.
	collection func() collection
}

// where is the part of the walk a writer works in.
type where int

const (
	// inOrganization: once, with the organization.
	inOrganization where = iota
	// inScope: with the organization's scope, then each live repository's.
	inScope
	// inRepository: with each repository, archived ones too.
	inRepository
	// inLiveRepository: with each repository that is not archived.
	inLiveRepository
	// inAggregate: collects from each live repository, writes after the walk.
	inAggregate
)

// place is where the walk is: the organization, and the scope or the
// repository a writer works on.
type place struct {
	org   *forge.Organization
	scope forge.Scope
	repo  forge.Repository
}

// collection is one export's run of an aggregate: collect reads a live
// repository's objects, write writes them all once every repository is
// read (reading the forge again if it must).
type collection struct {
	collect func(ctx context.Context, src Source, at place) error
	write   func(ctx context.Context, b *Builder, src Source, org string) error
}

// RepoObjects are the objects one live repository holds of an aggregate's kind.
type RepoObjects[T any] struct {
	// Repo is the repository's full name, owner/name.
	Repo    string
	Objects []T
}

// offers tells whether src can be read as S.
func offers[S any](src Source) bool {
	_, ok := any(src).(S)
	return ok
}

// ForOrganization writes once per export, with the organization.
func ForOrganization[S any](write func(ctx context.Context, b *Builder, src S, org *forge.Organization) error) Writer {
	return Writer{where: inOrganization, reader: reflect.TypeFor[S](), reads: offers[S], write: func(ctx context.Context, b *Builder, src Source, at place) error {
		return write(ctx, b, any(src).(S), at.org)
	}}
}

// ForScope writes for the organization's scope, then for each live
// repository's (the kinds that live in either, as Actions values do).
func ForScope[S any](write func(ctx context.Context, b *Builder, src S, sc forge.Scope) error) Writer {
	return Writer{where: inScope, reader: reflect.TypeFor[S](), reads: offers[S], write: func(ctx context.Context, b *Builder, src Source, at place) error {
		return write(ctx, b, any(src).(S), at.scope)
	}}
}

// ForRepository writes for each repository of the organization, archived
// ones too, given the organization's name and the repository as listed.
func ForRepository[S any](write func(ctx context.Context, b *Builder, src S, owner string, r forge.Repository) error) Writer {
	return Writer{where: inRepository, reader: reflect.TypeFor[S](), reads: offers[S], write: func(ctx context.Context, b *Builder, src Source, at place) error {
		return write(ctx, b, any(src).(S), at.org.Name, at.repo)
	}}
}

// ForLiveRepository writes for each repository that is not archived
// (archived means frozen: nothing in it is exported but the Repository).
func ForLiveRepository[S any](write func(ctx context.Context, b *Builder, src S, owner, repo string) error) Writer {
	return Writer{where: inLiveRepository, reader: reflect.TypeFor[S](), reads: offers[S], write: func(ctx context.Context, b *Builder, src Source, at place) error {
		return write(ctx, b, any(src).(S), at.scope.Owner, at.scope.Repo)
	}}
}

// Aggregate collects each live repository's objects of a kind and writes
// them once every repository is read, so that what several repositories
// hold alike becomes one resource naming them all (a LabelSet, a
// BranchProtectionSet). write gets, in the repositories' order, those
// that hold any.
func Aggregate[S, T any](collect func(ctx context.Context, src S, sc forge.Scope) ([]T, error),
	write func(b *Builder, org string, repos []RepoObjects[T])) Writer {
	return Writer{where: inAggregate, reader: reflect.TypeFor[S](), reads: offers[S], collection: func() collection {
		var repos []RepoObjects[T]
		return collection{
			collect: func(ctx context.Context, src Source, at place) error {
				objs, err := collect(ctx, any(src).(S), at.scope)
				if err != nil {
					return err
				}
				if len(objs) > 0 {
					repos = append(repos, RepoObjects[T]{Repo: at.scope.String(), Objects: objs})
				}
				return nil
			},
			write: func(_ context.Context, b *Builder, _ Source, org string) error { write(b, org, repos); return nil },
		}
	}}
}

// AggregateListed collects each live repository as the organization's
// listing gives it (no read of its own) and writes once every repository
// is read: what every repository holds alike (a RepositorySet of the
// settings they share).
func AggregateListed(write func(b *Builder, org string, repos []forge.Repository)) Writer {
	return Writer{where: inAggregate, reader: reflect.TypeFor[Source](), reads: offers[Source], collection: func() collection {
		var repos []forge.Repository
		return collection{
			collect: func(_ context.Context, _ Source, at place) error {
				repos = append(repos, at.repo)
				return nil
			},
			write: func(_ context.Context, b *Builder, _ Source, org string) error { write(b, org, repos); return nil },
		}
	}}
}

// AggregateRepositories collects from each live repository, given as the
// organization's listing has it, what collect reads there, and writes
// once every repository is read, reading the forge again if it must: what
// every repository holds alike, read once from one of them (the files of
// a FileSet, compared by their blob ids, their contents read once).
func AggregateRepositories[S, T any](collect func(ctx context.Context, src S, r forge.Repository) (T, error),
	write func(ctx context.Context, b *Builder, src S, org string, collected []T) error) Writer {
	return Writer{where: inAggregate, reader: reflect.TypeFor[S](), reads: offers[S], collection: func() collection {
		var collected []T
		return collection{
			collect: func(ctx context.Context, src Source, at place) error {
				v, err := collect(ctx, any(src).(S), at.repo)
				if err != nil {
					return err
				}
				collected = append(collected, v)
				return nil
			},
			write: func(ctx context.Context, b *Builder, src Source, org string) error {
				return write(ctx, b, any(src).(S), org, collected)
			},
		}
	}}
}

// CountBy counts objs by key: a writer that writes several objects the
// forge holds under one name says in a comment that they conflict, since
// the operator adopts by name and stalls on duplicates.
func CountBy[T any](objs []T, key func(T) string) map[string]int {
	n := make(map[string]int, len(objs))
	for _, o := range objs {
		n[key(o)]++
	}
	return n
}

// EachByID calls add with each object of a list a writer read from the
// forge (objs, or err: what failed to list them), in the order of their
// ids: the order the forge made them in, so that exporting twice writes
// the same stream. what names the list in the error ("deploy keys of
// acme/web"). A writer whose forge may lack the list altogether (an older
// release, a feature turned off) says so before: that is no error, and
// the writer writes nothing.
func EachByID[T any](objs []T, err error, what string, id func(T) int64, add func(T)) error {
	if err != nil {
		return fmt.Errorf("list the %s: %w", what, err)
	}
	slices.SortFunc(objs, func(x, y T) int { return cmp.Compare(id(x), id(y)) })
	for _, o := range objs {
		add(o)
	}
	return nil
}
