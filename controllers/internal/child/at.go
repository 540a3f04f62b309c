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

package child

import (
	"context"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// At is where one repository child lives, for its External: the scope,
// the object's name in messages, and how the forge's errors read.
type At struct {
	Place
	// What names the object without its scope: `tag protection "v*"`.
	What   string
	Server forge.Server
	Gate   forge.Gate
}

// Classify makes a failed read or write of the object an error the loop
// acts on: a route the server does not know (where the kind has a gate)
// is Unsupported, anything the forge reports missing is its repository
// (ParentNotFound, waiting), and the rest stays as it is.
func (a At) Classify(err error) error {
	if a.Gate != (forge.Gate{}) && forge.IsRouteNotFound(err) {
		return a.Unsupported()
	}
	return reconciler.ParentMissing(err, a.Describe())
}

// Unsupported is the stall of a server without the kind's API.
func (a At) Unsupported() error {
	return reconciler.Stall(forgev1.ReasonUnsupported, "%s: %s cannot be managed there",
		a.Server.Unsupported([]forge.Gate{a.Gate}), a.What)
}

// Lookup is how a repository child's External finds the forge object its
// resource holds (Find): the one of its recorded id while the forge has
// it, else the one of its natural name in the listing of where it lives,
// which is how it adopts. Several of that name stall Conflict with their
// ids, rather than guess.
type Lookup[F any] struct {
	Get  func(ctx context.Context, id int64) (*F, error)
	List func(ctx context.Context) ([]F, error)
	// Named says an object has the resource's natural name; IDOf is its id.
	Named func(F) bool
	IDOf  func(F) int64
	// Several names the objects of that name for the Conflict (`labels
	// named "bug"`); Advice says what to do about them.
	Several, Advice string
	// Classify makes the forge's errors the loop's; nil: At's.
	Classify func(error) error
}

// Find returns the object, nil when there is none to adopt.
func (l Lookup[F]) Find(ctx context.Context, at At, id int64) (*F, error) {
	classify := l.Classify
	if classify == nil {
		classify = at.Classify
	}
	if id != 0 {
		f, err := l.Get(ctx, id)
		switch {
		case err == nil:
			return f, nil
		case !forge.IsNotFound(err):
			return nil, classify(err)
		}
		// Gone (or its repository is): look it up by name, as on first sight.
	}
	all, err := l.List(ctx)
	if err != nil {
		return nil, classify(err)
	}
	return reconciler.One(all, l.Named, l.IDOf, l.Several+" exist in "+at.Describe(), l.Advice)
}
