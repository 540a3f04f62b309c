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

	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// writeOnlyValue is one Secret-backed value a kind sends to the forge and
// never reads back (an Actions secret's value, a user's password): the
// value sent is recorded in status.appliedSecrets as a keyed digest under
// field, and the Secret is read only to be sent or compared. A Secret
// whose resourceVersion, as the manager's cache shows it, is the one the
// recorded value came from is not read at all.
type writeOnlyValue struct {
	obj     client.Object
	field   string
	ref     *forgev1.SecretKeySelector
	reader  client.Reader // reads the value, uncached
	digests *secretdigest.Digester
	// bound is a spec value sent with the Secret's (a push mirror's
	// username), which the forge never shows either: the digest covers
	// both, so that a change of either tells. "" binds nothing, and the
	// digest is the value's alone.
	bound string

	// version is the Secret's resourceVersion in the manager's cache, ""
	// when unknown. loaded: value was read (or a plan could not read it:
	// unknown); applied is the record of the value the forge should hold.
	version string
	loaded  bool
	value   string
	applied []forgev1.AppliedSecret
	unknown bool
}

// connect reads the Secret's version from the manager's cache (metadata),
// leaving its value to load, which is asked when it must be. Without the
// cache (plan), or with a Secret the cache does not hold, the value is
// read at once: that read also tells a missing Secret.
func (v *writeOnlyValue) connect(ctx context.Context, metadata client.Reader) error {
	if metadata != nil {
		rv, err := connection.SecretVersion(ctx, metadata, v.obj.GetNamespace(), v.ref.Name)
		if err == nil {
			v.version = rv
			return nil
		}
	}
	return v.load(ctx)
}

// load reads the Secret's value and makes its record, once per pass; a
// resource being deleted sends no value.
func (v *writeOnlyValue) load(ctx context.Context) error {
	if v.loaded || !v.obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	val, rv, err := connection.SecretValue(ctx, v.reader, v.obj.GetNamespace(), v.ref.Name, v.ref.Key)
	switch {
	case errors.Is(err, reconciler.ErrUnreadable):
		v.unknown = true // plan without access to the cluster
	case err != nil:
		return err
	default:
		digested := val
		if v.bound != "" {
			digested = v.bound + "\x00" + val
		}
		a, err := appliedRecord(ctx, v.digests, v.obj, v.field, v.ref, digested, rv)
		switch {
		case errors.Is(err, reconciler.ErrUnreadable):
			v.unknown = true
		case err != nil:
			return err
		default:
			v.value, v.applied = val, []forgev1.AppliedSecret{a}
		}
	}
	v.loaded = true
	return nil
}

// want makes v.applied, the record of the value the forge should hold.
// When the Secret is, by its version in the manager's cache, the one the
// value recorded in have was sent from (and that record's digest is under
// the current key), the value is the one sent: have's record stands and
// nothing is read. Otherwise, and always for a write (which sends the
// value), the Secret is read. A cache that lags a write of the Secret
// only delays the read: the write's event brings another pass.
func (v *writeOnlyValue) want(ctx context.Context, have []forgev1.AppliedSecret, write bool) error {
	if !write && !v.loaded && v.version != "" {
		h, ok := appliedFor(have, v.field)
		if ok && h.Name == v.ref.Name && h.Key == v.ref.Key && h.ResourceVersion == v.version && v.digests.Current(ctx, h.Digest) {
			v.applied = []forgev1.AppliedSecret{h}
			return nil
		}
	}
	return v.load(ctx)
}
