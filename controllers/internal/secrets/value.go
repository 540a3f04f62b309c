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

// Package secrets handles the Secret values the kinds send to the forge and
// never read back (an Actions secret's value, a hook's secret, a user's
// password), and the Secrets the operator makes for a resource: the record
// status.appliedSecrets keeps of a value sent (a keyed digest), how two
// records compare, the manager's memory of what it sent last, and the
// owner references of the Secrets it makes. It serves the kinds of package
// controllers; it imports the API types, the loop's vocabulary, the
// connection's Secret reads and secretdigest, never package controllers.
package secrets

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// Shown stands for a Secret-backed value in a change plan shows: never
// printed.
const Shown = "(secret)"

// WriteOnly is one Secret-backed value a kind sends to the forge and
// never reads back (an Actions secret's value, a user's password): the
// value sent is recorded in status.appliedSecrets as a keyed digest under
// field, and the Secret is read only to be sent or compared. A Secret
// whose resourceVersion, as the manager's cache shows it, is the one the
// recorded value came from is not read at all.
type WriteOnly struct {
	// Obj is the resource the value is sent for, Field the record's field
	// in its status, Ref the Secret holding the value.
	Obj     client.Object
	Field   string
	Ref     *forgev1.SecretKeySelector
	Reader  client.Reader // reads the value, uncached
	Digests *secretdigest.Digester
	// Bound is a spec value sent with the Secret's (a push mirror's
	// username), which the forge never shows either: the digest covers
	// both, so that a change of either tells. "" binds nothing, and the
	// digest is the value's alone.
	Bound string

	// version is the Secret's resourceVersion in the manager's cache, ""
	// when unknown. Loaded: Value was read (or a plan could not read it:
	// Unknown); Applied is the record of the value the forge should hold.
	version string
	Loaded  bool
	Value   string
	Applied []forgev1.AppliedSecret
	Unknown bool
}

// Connect reads the Secret's version from the manager's cache (metadata),
// leaving its value to load, which is asked when it must be. Without the
// cache (plan), or with a Secret the cache does not hold, the value is
// read at once: that read also tells a missing Secret.
func (v *WriteOnly) Connect(ctx context.Context, metadata client.Reader) error {
	if metadata != nil {
		rv, err := connection.SecretVersion(ctx, metadata, v.Obj.GetNamespace(), v.Ref.Name)
		if err == nil {
			v.version = rv
			return nil
		}
	}
	return v.Load(ctx)
}

// Load reads the Secret's value and makes its record, once per pass; a
// resource being deleted sends no value.
func (v *WriteOnly) Load(ctx context.Context) error {
	if v.Loaded || !v.Obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	val, rv, err := connection.SecretValue(ctx, v.Reader, v.Obj.GetNamespace(), v.Ref.Name, v.Ref.Key)
	switch {
	case errors.Is(err, reconciler.ErrUnreadable):
		v.Unknown = true // plan without access to the cluster
	case err != nil:
		return err
	default:
		digested := val
		if v.Bound != "" {
			digested = v.Bound + "\x00" + val
		}
		a, err := Record(ctx, v.Digests, v.Obj, v.Field, v.Ref, digested, rv)
		switch {
		case errors.Is(err, reconciler.ErrUnreadable):
			v.Unknown = true
		case err != nil:
			return err
		default:
			v.Value, v.Applied = val, []forgev1.AppliedSecret{a}
		}
	}
	v.Loaded = true
	return nil
}

// want makes v.Applied, the record of the value the forge should hold.
// When the Secret is, by its version in the manager's cache, the one the
// value recorded in have was sent from (and that record's digest is under
// the current key), the value is the one sent: have's record stands and
// nothing is read. Otherwise, and always for a write (which sends the
// value), the Secret is read. A cache that lags a write of the Secret
// only delays the read: the write's event brings another pass.
func (v *WriteOnly) Want(ctx context.Context, have []forgev1.AppliedSecret, write bool) error {
	if !write && !v.Loaded && v.version != "" {
		h, ok := For(have, v.Field)
		if ok && h.Name == v.Ref.Name && h.Key == v.Ref.Key && h.ResourceVersion == v.version && v.Digests.Current(ctx, h.Digest) {
			v.Applied = []forgev1.AppliedSecret{h}
			return nil
		}
	}
	return v.Load(ctx)
}
