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
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// RBAC of the PushMirror controller.
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=pushmirrors,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=pushmirrors/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=pushmirrors/finalizers,verbs=update

// pushMirrorKind manages one push mirror of a repository, adopted by its
// remote address. The forge has no edit and addresses a mirror by the
// remote name it chose (status.externalName and status.remoteName): a new
// interval, syncOnCommit, username or password creates the new mirror,
// then deletes the old one (the loop's replacement, Event Replaced). The
// forge never shows the credentials: the password is recorded as a keyed
// digest bound to the username in status.appliedSecrets, as hooks record
// theirs, so that a change replaces the mirror once, also across restarts.
func pushMirrorKind(digests *secretdigest.Digester, sent *secrets.Sent) child.Kind[*forgev1.PushMirror] {
	return child.Kind[*forgev1.PushMirror]{
		// One resource per address and repository, compared exactly as
		// the forge keeps it (the forge would take the same address
		// twice). The address carries no credentials (admission): messages
		// show it.
		Noun:   "push mirror to",
		Name:   func(m *forgev1.PushMirror) string { return m.Spec.RemoteAddress },
		Shown:  func(m *forgev1.PushMirror) string { return m.Spec.RemoteAddress },
		KeyTag: "pushmirror",
		Of:     true,
		Where:  func(m *forgev1.PushMirror) child.Place { return child.PlaceOf(&m.Spec.Repository, nil) },
		List:   &forgev1.PushMirrorList{},
		SecretsOf: func(m *forgev1.PushMirror) []string {
			if m.Spec.Auth != nil {
				return []string{m.Spec.Auth.PasswordSecretRef.Name}
			}
			return nil
		},
		// The password, when there is one, is read on every pass (not only
		// when its Secret's version moved, as secrets.WriteOnly may): the
		// username it is bound to is in the spec, and the value is what
		// lastError is cleaned of.
		External: func(ctx context.Context, m *forgev1.PushMirror, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			e := &pushMirror{obj: m, fc: pass.Forge, At: at, web: pass.WebURL, pending: pass.Pending, sent: sent}
			if digests != nil {
				e.digestKey = digests.Ref().String()
			}
			if a := m.Spec.Auth; a != nil && m.DeletionTimestamp.IsZero() {
				e.password = &secrets.WriteOnly{Obj: m, Field: fieldPassword, Ref: &a.PasswordSecretRef, Reader: pass.Reader,
					Digests: digests, Bound: m.MirrorUsername()}
				if err := e.password.Load(ctx); err != nil {
					return nil, err
				}
			}
			return e, nil
		},
	}
}

type pushMirror struct {
	obj *forgev1.PushMirror
	fc  forge.PushMirrorsClient
	child.At
	web     string
	pending bool
	// password is the Secret's value the mirror should push with; nil
	// without spec.auth (and while the resource is deleted).
	password  *secrets.WriteOnly
	digestKey string
	sent      *secrets.Sent
	found     *forge.PushMirror
	// all is the repository's listing Observe read.
	all []forge.PushMirror
}

// target is what secrets.Sent keys a mirror by: its remote name (which
// changes with each replacement) made a number.
func target(name string) int64 { return forge.NameID(name) }

func (e *pushMirror) uid() types.UID { return e.obj.UID }

// forgeErr turns what the forge answered into what the resource says: a
// server with mirrors disabled is Unsupported, naming the setting; a
// missing repository is waited for.
func (e *pushMirror) forgeErr(err error) error {
	if forge.MirrorsDisabled(err) {
		return reconciler.Stall(forgev1.ReasonUnsupported,
			"the forge has mirrors disabled ([mirror] ENABLED = false in its app.ini): %s cannot be managed there; enable mirrors, or set deletionPolicy Orphan to let a resource being deleted go",
			e.What)
	}
	return e.Classify(err)
}

func (e *pushMirror) Observe(ctx context.Context) (reconciler.Observation, error) {
	all, err := e.fc.ListPushMirrors(ctx, e.Owner, e.Repo)
	if err != nil {
		return reconciler.Observation{}, e.forgeErr(err)
	}
	e.all = all
	if name := e.obj.Status.ExternalName; name != "" {
		if i := slices.IndexFunc(all, func(m forge.PushMirror) bool { return m.RemoteName == name }); i >= 0 {
			return e.observed(&all[i], false), nil
		}
		// Gone: look it up by address below, as on first sight.
	}
	address := e.obj.Spec.RemoteAddress
	var match []forge.PushMirror
	for _, m := range all {
		if m.RemoteAddress == address {
			match = append(match, m)
		}
	}
	switch len(match) {
	case 0:
		return reconciler.Observation{}, nil
	case 1:
		return e.observed(&match[0], true), nil
	}
	names := make([]string, len(match))
	for i, m := range match {
		names[i] = m.RemoteName
	}
	return reconciler.Observation{}, reconciler.Stall(forgev1.ReasonConflict,
		"%d push mirrors to %s exist in %s (%s); delete all but one on the forge so that one can be adopted",
		len(match), address, e.Describe(), strings.Join(names, ", "))
}

// observed decides what differs and fills status. A mirror found by its
// address has no record of the credentials it pushes with: like a hook
// adopted with a secretRef (controllers/internal/hooks), it is replaced once when
// the spec has auth, since the forge cannot tell whether it holds that
// password; one adopted without auth is taken as it is, with no write
// (what export writes). One found after a create whose answer was lost
// holds what that create sent.
func (e *pushMirror) observed(m *forge.PushMirror, adopted bool) reconciler.Observation {
	e.found = m
	st := &e.obj.Status
	st.RemoteName = m.RemoteName
	st.LastUpdate = nil
	if m.LastUpdate != nil && m.LastUpdate.Unix() > 0 {
		st.LastUpdate = &metav1.Time{Time: m.LastUpdate.UTC()}
	}
	var values []string
	var want []forgev1.AppliedSecret
	if e.password != nil {
		values, want = append(values, e.password.Value), e.password.Applied
	}
	st.LastError = forge.MirrorError(m.LastError, values...)

	have := st.AppliedSecrets
	switch {
	case adopted && e.pending:
		have = want
	case adopted:
		have = nil
	}
	// What this manager sent last is newer than a status the cache lags on.
	have = e.sent.Have(e.uid(), target(m.RemoteName), have)
	obs := reconciler.Observation{Exists: true, Name: m.RemoteName, URL: e.url()}
	obs.Changes = e.settingChanges(m)
	switch {
	case e.password != nil && e.password.Unknown:
		obs.Unknown = []string{"password"}
	case secrets.Differs(have, want, fieldPassword):
		obs.Changes = append(obs.Changes, reconciler.Change{Field: "password", Have: secrets.Shown, Want: secrets.Shown})
	case e.obj.DeletionTimestamp.IsZero():
		obs.Notices = secrets.KeyChanged(have, want, e.digestKey)
		st.AppliedSecrets = want
		e.sent.Settled(e.uid(), target(m.RemoteName), want)
	}
	slices.SortFunc(obs.Changes, compare.ByField)
	obs.Diff = reconciler.Fields(obs.Changes)
	obs.Replace, obs.ReplaceBecause = len(obs.Diff) > 0, strings.Join(obs.Diff, ", ")
	return obs
}

func (e *pushMirror) url() string {
	return fmt.Sprintf("%s/%s/%s/settings", e.web, e.Owner, e.Repo)
}

// Create makes the mirror with the spec's credentials. A replacement
// whose create answer was lost (the mark still pending, the old mirror
// found by its name) takes the other mirror of the address that matches
// the spec rather than make a third.
func (e *pushMirror) Create(ctx context.Context) (reconciler.Observation, error) {
	if e.password != nil && e.password.Unknown {
		return reconciler.Observation{}, reconciler.Wait(forgev1.ReasonSecretNotFound, "the password of %s is not known yet", e.obj.Name)
	}
	var want []forgev1.AppliedSecret
	if e.password != nil {
		want = e.password.Applied
	}
	if m := e.lostReplacement(); m != nil {
		e.obj.Status.AppliedSecrets = want
		e.sent.Sent(e.uid(), target(m.RemoteName), want)
		return e.observed(m, true), nil
	}
	opt := forge.CreatePushMirrorOption{RemoteAddress: e.obj.Spec.RemoteAddress,
		Interval: e.obj.MirrorInterval().String(), SyncOnCommit: e.obj.MirrorSyncOnCommit()}
	if e.password != nil {
		opt.RemoteUsername, opt.RemotePassword = e.obj.MirrorUsername(), e.password.Value
	}
	m, err := e.fc.CreatePushMirror(ctx, e.Owner, e.Repo, opt)
	if err != nil {
		return reconciler.Observation{}, e.createErr(err)
	}
	e.obj.Status.AppliedSecrets = want
	e.sent.Sent(e.uid(), target(m.RemoteName), want)
	e.pending = true // what the create sent is what the mirror holds
	return e.observed(m, true), nil
}

// lostReplacement is the mirror a replacement made before its answer was
// lost: of the spec's address and settings, other than the one replaced.
func (e *pushMirror) lostReplacement() *forge.PushMirror {
	if !e.pending || e.found == nil {
		return nil
	}
	for i, m := range e.all {
		if m.RemoteName != e.found.RemoteName && m.RemoteAddress == e.obj.Spec.RemoteAddress && len(e.settingChanges(&m)) == 0 {
			return &e.all[i]
		}
	}
	return nil
}

// settingChanges are the differences of m's interval and syncOnCommit
// from the spec's.
func (e *pushMirror) settingChanges(m *forge.PushMirror) []reconciler.Change {
	var out []reconciler.Change
	if d, err := time.ParseDuration(m.Interval); err != nil || d != e.obj.MirrorInterval() {
		out = append(out, compare.Change("interval", m.Interval, e.obj.MirrorInterval().String()))
	}
	if s := e.obj.MirrorSyncOnCommit(); s != m.SyncOnCommit {
		out = append(out, compare.Change("syncOnCommit", m.SyncOnCommit, s))
	}
	return out
}

// createErr says what the forge refused in words a user can act on: its
// own messages for these are "%!s(<nil>)" and a 401 that is not about
// the token.
func (e *pushMirror) createErr(err error) error {
	var fe *forge.Error
	switch {
	case forge.MirrorsDisabled(err):
		return e.forgeErr(err)
	case errors.As(err, &fe) && fe.StatusCode == http.StatusBadRequest && fe.Message == "%!s(<nil>)":
		return reconciler.Stall(forgev1.ReasonRejected,
			"the forge refuses interval %s: it is below the server's [mirror] MIN_INTERVAL (10m unless its app.ini says otherwise); use \"0s\" to push on commits only",
			e.obj.MirrorInterval())
	case errors.As(err, &fe) && fe.StatusCode == http.StatusUnauthorized && fe.Message == "Permission denied":
		return reconciler.Stall(forgev1.ReasonRejected,
			"the forge refuses to push to %s: its migration rules do not allow that host (loopback, private and unresolvable hosts are refused unless its app.ini [migrations] ALLOW_LOCALNETWORKS or ALLOWED_DOMAINS say otherwise, as are BLOCKED_DOMAINS)",
			e.obj.Spec.RemoteAddress)
	}
	return e.forgeErr(err)
}

// Update: a mirror cannot be edited; every difference is a replacement.
func (e *pushMirror) Update(context.Context, reconciler.Observation) error { return nil }

func (e *pushMirror) Delete(ctx context.Context, obs reconciler.Observation) error {
	name := obs.Name
	if name == "" {
		name = e.obj.Status.ExternalName
	}
	if name == "" {
		return nil
	}
	if err := e.fc.DeletePushMirror(ctx, e.Owner, e.Repo, name); err != nil {
		return e.forgeErr(err)
	}
	e.sent.Forget(e.uid(), target(name))
	return nil
}

// pushMirrorExport writes a PushMirror per push mirror of each live
// repository, with its address, interval and syncOnCommit as the forge
// shows them, so that applying it adopts each mirror by address without a
// write. The forge never shows a mirror's credentials: each is written
// without spec.auth (adding it later replaces the mirror once, its
// password being unknown). A server with mirrors disabled has none to
// write; an address the kind cannot take (a local path) is left out.
var pushMirrorExport = export.ForLiveRepository(exportPushMirrors)

// pushMirrorReader is what the push mirror export reads.
type pushMirrorReader interface {
	ListPushMirrors(ctx context.Context, owner, repo string) ([]forge.PushMirror, error)
}

func exportPushMirrors(ctx context.Context, b *export.Builder, src pushMirrorReader, owner, repo string) error {
	all, err := src.ListPushMirrors(ctx, owner, repo)
	if forge.MirrorsDisabled(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list the push mirrors of %s/%s: %w", owner, repo, err)
	}
	count := export.CountBy(all, func(m forge.PushMirror) string { return m.RemoteAddress })
	for _, m := range all {
		if !mirrorAddress.MatchString(m.RemoteAddress) {
			continue
		}
		interval, err := time.ParseDuration(m.Interval)
		if err != nil {
			return fmt.Errorf("push mirror %s of %s/%s: interval %q: %w", m.RemoteName, owner, repo, m.Interval, err)
		}
		comment := []string{"The forge never shows a mirror's credentials: add spec.auth to manage them (the mirror is then replaced once)."}
		if n := count[m.RemoteAddress]; n > 1 {
			comment = append(comment, fmt.Sprintf("The forge holds %d push mirrors to %s in %s/%s: this one "+
				"stalls (Conflict) until all but one are deleted on the forge.", n, m.RemoteAddress, owner, repo))
		}
		b.Add(&forgev1.PushMirror{
			TypeMeta:   export.TypeMeta("PushMirror"),
			ObjectMeta: b.Meta("PushMirror", fmt.Sprintf("%s-%s-mirror-%s", owner, repo, strings.TrimPrefix(m.RemoteName, "remote_mirror_")), 0),
			Spec: forgev1.PushMirrorSpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				RemoteAddress:  m.RemoteAddress,
				Interval:       &metav1.Duration{Duration: interval},
				SyncOnCommit:   export.Ptr(m.SyncOnCommit),
			},
		}, comment...)
	}
	return nil
}

// mirrorAddress is what PushMirror's admission takes as remoteAddress.
var mirrorAddress = regexp.MustCompile(`^(https?|git)://[^/?#\s@]+(/|$)`)
