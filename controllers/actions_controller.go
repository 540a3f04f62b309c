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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/controllers/internal/child"
	"github.com/forgeops/forge-operator/controllers/internal/compare"
	"github.com/forgeops/forge-operator/controllers/internal/secrets"
	"github.com/forgeops/forge-operator/internal/connection"
	"github.com/forgeops/forge-operator/internal/export"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
	"github.com/forgeops/forge-operator/internal/secretdigest"
)

// RBAC of the ActionsSecret and ActionsVariable controllers; variables may
// read ConfigMaps (uncached, and watched by their metadata only).
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=actionssecrets;actionsvariables,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=actionssecrets/status;actionsvariables/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=actionssecrets/finalizers;actionsvariables/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch

// fieldValueFrom is the field status.appliedSecrets records a secret's value under.
const fieldValueFrom = "valueFrom"

func actionsScope(s *forgev1.ActionsScope) child.Place {
	return child.PlaceOf(s.Repository, s.Organization)
}

// ---- ActionsSecret ----

// actionsSecretKind manages Actions secrets, addressed by name in their
// repository or organization. The forge never gives a value back: the
// value sent is recorded as a keyed digest (status.appliedSecrets, as
// hooks keep theirs), and sent again only when the Secret's value differs
// from it, the secret is missing, or it was adopted. The value is read
// only to be sent or compared: a Secret whose resourceVersion, as the
// manager's cache shows it, is the one the value last sent came from is
// not read (every drift check and retry read it).
func actionsSecretKind(digests *secretdigest.Digester, sent *secrets.Sent) child.Kind[*forgev1.ActionsSecret] {
	return child.Kind[*forgev1.ActionsSecret]{
		// One secret per name and scope; names are upper case on the forge.
		Noun:          "Actions secret",
		Name:          secretName,
		Shown:         secretName,
		KeyTag:        "secret",
		Where:         func(s *forgev1.ActionsSecret) child.Place { return actionsScope(&s.Spec.ActionsScope) },
		List:          &forgev1.ActionsSecretList{},
		SecretsOf:     func(s *forgev1.ActionsSecret) []string { return []string{s.Spec.ValueFrom.SecretKeyRef.Name} },
		UnknownNoteOf: actionsValueUnknown,
		// The Secret's version is read from the manager's cache; its value
		// is left to Observe, which reads it when it must (secrets.WriteOnly).
		External: func(ctx context.Context, s *forgev1.ActionsSecret, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
			e := &actionsSecret{obj: s, fc: pass.Forge, At: at, pending: pass.Pending, sent: sent,
				WriteOnly: secrets.WriteOnly{Obj: s, Field: fieldValueFrom, Ref: &s.Spec.ValueFrom.SecretKeyRef, Reader: pass.Reader, Digests: digests}}
			if digests != nil {
				e.digestKey = digests.Ref().String()
			}
			if !s.DeletionTimestamp.IsZero() {
				return e, nil // a deletion sends no value
			}
			if err := e.Connect(ctx, pass.Metadata); err != nil {
				return nil, err
			}
			return e, nil
		},
	}
}

func secretName(s *forgev1.ActionsSecret) string {
	return forgev1.ActionsNameOf(&s.Spec.ActionsScope, s.Name)
}

type actionsSecret struct {
	obj *forgev1.ActionsSecret
	fc  forge.Interface
	child.At
	pending bool
	// WriteOnly is the Secret's value the forge should hold.
	secrets.WriteOnly
	digestKey string
	found     *forge.ActionsSecret
	sent      *secrets.Sent
}

func (e *actionsSecret) name() string { return secretName(e.obj) }

// writes reports whether a pass may write the secret, sending its value:
// not under managementPolicy Observe, nor while the resource is deleted.
func (e *actionsSecret) writes() bool {
	return e.obj.Spec.ManagementPolicy != forgev1.ManagementPolicyObserve && e.obj.DeletionTimestamp.IsZero()
}

func (e *actionsSecret) Observe(ctx context.Context) (reconciler.Observation, error) {
	all, err := e.fc.ListActionsSecrets(ctx, e.Scope)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	i := slices.IndexFunc(all, func(s forge.ActionsSecret) bool { return strings.EqualFold(s.Name, e.name()) })
	if i < 0 {
		if e.writes() {
			// Created next, with the value: read before anything is written.
			return reconciler.Observation{}, e.Load(ctx)
		}
		return reconciler.Observation{}, nil
	}
	e.found = &all[i]
	obs := reconciler.Observation{Exists: true, Name: e.found.Name}
	if d := e.obj.Spec.Description; d != nil && *d != e.found.Description {
		obs.Changes = append(obs.Changes, compare.Change("description", e.found.Description, *d))
	}
	have := e.obj.Status.AppliedSecrets
	if !e.obj.Status.Known() {
		if err := e.Load(ctx); err != nil {
			return reconciler.Observation{}, err
		}
		have = nil // someone else's secret: its value is unknown, written once
		if e.pending {
			have = e.Applied // found after a create whose answer was lost
		}
	}
	// What this manager sent last is newer than a status the cache lags on.
	have = e.sent.Have(e.obj.UID, 0, have)
	if err := e.Want(ctx, have, len(obs.Changes) > 0 && e.writes()); err != nil {
		return reconciler.Observation{}, err
	}
	switch {
	case e.Unknown:
		obs.Unknown = append(obs.Unknown, "value")
	case secrets.Differs(have, e.Applied, fieldValueFrom):
		obs.Changes = append(obs.Changes, reconciler.Change{Field: "value", Have: secrets.Shown, Want: secrets.Shown})
	default:
		if e.obj.DeletionTimestamp.IsZero() {
			obs.Notices = secrets.KeyChanged(have, e.Applied, e.digestKey)
			e.obj.Status.AppliedSecrets = e.Applied
			e.sent.Settled(e.obj.UID, 0, e.Applied)
		}
	}
	slices.SortFunc(obs.Changes, compare.ByField)
	obs.Diff = reconciler.Fields(obs.Changes)
	return obs, nil
}

// description is what a write sends: the spec's, else the forge's (a PUT
// without one clears it).
func (e *actionsSecret) description() string {
	if d := e.obj.Spec.Description; d != nil {
		return *d
	}
	if e.found != nil {
		return e.found.Description
	}
	return ""
}

func (e *actionsSecret) put(ctx context.Context) error {
	if err := e.Load(ctx); err != nil { // Observe read it already for every write it decides
		return err
	}
	err := e.fc.PutActionsSecret(ctx, e.Scope, e.name(), e.Value, e.description())
	if err != nil {
		return e.Classify(err)
	}
	e.obj.Status.AppliedSecrets = e.Applied
	e.sent.Sent(e.obj.UID, 0, e.Applied)
	return nil
}

func (e *actionsSecret) Create(ctx context.Context) (reconciler.Observation, error) {
	if err := e.put(ctx); err != nil {
		return reconciler.Observation{}, err
	}
	return reconciler.Observation{Exists: true, Name: e.name()}, nil
}

func (e *actionsSecret) Update(ctx context.Context, _ reconciler.Observation) error {
	return e.put(ctx)
}

func (e *actionsSecret) Delete(ctx context.Context, obs reconciler.Observation) error {
	e.sent.Forget(e.obj.UID, 0)
	return e.fc.DeleteActionsSecret(ctx, e.Scope, obs.Name)
}

// ---- ActionsVariable ----

// actionsVariableKind manages Actions variables: addressed by name, value
// read back from the scope's listing and corrected like any field.
type actionsVariableKind struct {
	// A ConfigMap it reads is a reference only variables have
	// (reconciler.ConfigMapReader), declared beside the kind's child.Kind.
	child.Kind[*forgev1.ActionsVariable]
}

func newActionsVariableKind() actionsVariableKind {
	return actionsVariableKind{child.Kind[*forgev1.ActionsVariable]{
		Noun:          "Actions variable",
		Name:          variableName,
		Shown:         variableName,
		KeyTag:        "variable",
		Where:         func(v *forgev1.ActionsVariable) child.Place { return actionsScope(&v.Spec.ActionsScope) },
		List:          &forgev1.ActionsVariableList{},
		UnknownNoteOf: actionsValueUnknown,
		SecretsOf: func(v *forgev1.ActionsVariable) []string {
			if vf := v.Spec.ValueFrom; vf != nil && vf.SecretKeyRef != nil {
				return []string{vf.SecretKeyRef.Name}
			}
			return nil
		},
		External: connectActionsVariable,
	}}
}

func (actionsVariableKind) ConfigMaps(v *forgev1.ActionsVariable) []string {
	if vf := v.Spec.ValueFrom; vf != nil && vf.ConfigMapKeyRef != nil {
		return []string{vf.ConfigMapKeyRef.Name}
	}
	return nil
}

func variableName(v *forgev1.ActionsVariable) string {
	return forgev1.ActionsNameOf(&v.Spec.ActionsScope, v.Name)
}

func connectActionsVariable(ctx context.Context, v *forgev1.ActionsVariable, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
	e := &actionsVariable{obj: v, fc: pass.Forge, At: at}
	if !v.DeletionTimestamp.IsZero() {
		return e, nil
	}
	switch vf := v.Spec.ValueFrom; {
	case v.Spec.Value != nil:
		e.value = *v.Spec.Value
	case vf != nil && vf.SecretKeyRef != nil:
		val, _, err := connection.SecretValue(ctx, pass.Reader, v.Namespace, vf.SecretKeyRef.Name, vf.SecretKeyRef.Key)
		if errors.Is(err, reconciler.ErrUnreadable) {
			e.unknown = true
			return e, nil
		}
		if err != nil {
			return nil, err
		}
		e.value, e.secret = val, true
	case vf != nil && vf.ConfigMapKeyRef != nil:
		val, err := configMapValue(ctx, pass.Reader, v.Namespace, vf.ConfigMapKeyRef)
		if errors.Is(err, reconciler.ErrUnreadable) {
			e.unknown = true
			return e, nil
		}
		if err != nil {
			return nil, err
		}
		e.value = val
	}
	return e, nil
}

// configMapValue reads one key of a ConfigMap; a missing ConfigMap or key
// waits (SecretNotFound names it: it is a referenced object, not a secret).
func configMapValue(ctx context.Context, r client.Reader, ns string, ref *forgev1.ConfigMapKeySelector) (string, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			return "", reconciler.Wait(forgev1.ReasonSecretNotFound, "ConfigMap %s/%s not found", ns, ref.Name)
		}
		return "", err
	}
	v, ok := cm.Data[ref.Key]
	if !ok || v == "" {
		return "", reconciler.Wait(forgev1.ReasonSecretNotFound, "ConfigMap %s/%s has no key %q (or it is empty)", ns, ref.Name, ref.Key)
	}
	return v, nil
}

type actionsVariable struct {
	obj *forgev1.ActionsVariable
	fc  forge.Interface
	child.At
	value string
	// secret: the value comes from a Secret and is never shown; unknown: a
	// plan could not read it.
	secret, unknown bool
	found           *forge.ActionsVariable
}

func (e *actionsVariable) name() string { return variableName(e.obj) }

// redact has the client keep a value from a Secret out of every message.
func (e *actionsVariable) redact(ctx context.Context) context.Context {
	if e.secret {
		return forge.WithSecrets(ctx, e.value)
	}
	return ctx
}

func (e *actionsVariable) Observe(ctx context.Context) (reconciler.Observation, error) {
	all, err := e.fc.ListActionsVariables(e.redact(ctx), e.Scope)
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	i := slices.IndexFunc(all, func(v forge.ActionsVariable) bool { return strings.EqualFold(v.Name, e.name()) })
	if i < 0 {
		return reconciler.Observation{}, nil
	}
	e.found = &all[i]
	obs := reconciler.Observation{Exists: true, Name: e.found.Name}
	if d := e.obj.Spec.Description; d != nil && *d != e.found.Description {
		obs.Changes = append(obs.Changes, compare.Change("description", e.found.Description, *d))
	}
	switch {
	case e.unknown:
		obs.Unknown = append(obs.Unknown, "value")
	case sameVariableValue(e.value, e.found.Data):
	case e.secret:
		obs.Changes = append(obs.Changes, reconciler.Change{Field: "value", Have: secrets.Shown, Want: secrets.Shown})
	default:
		obs.Changes = append(obs.Changes, compare.Change("value", e.found.Data, e.value))
	}
	slices.SortFunc(obs.Changes, compare.ByField)
	obs.Diff = reconciler.Fields(obs.Changes)
	return obs, nil
}

// sameVariableValue compares a variable's value with the forge's as the
// forge stores it: Gitea turns CRLF into LF on every write (1.24, 1.25 and
// Forgejo), and a lone CR too from 1.26 (services/actions/variables.go:
// util.ReserveLineBreakForTextarea, then util.NormalizeStringEOL), and
// trims nothing. Compared as sent, a value with CRLF would differ at every
// pass and be written again with a DriftCorrected Event. Line ends are
// compared alike whatever the version: a CR changed by hand into LF on an
// older forge goes unseen, which changes nothing a workflow reads as lines.
func sameVariableValue(want, have string) bool { return normalizeEOL(want) == normalizeEOL(have) }

// normalizeEOL turns CRLF and a lone CR into LF.
func normalizeEOL(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func (e *actionsVariable) description() string {
	if d := e.obj.Spec.Description; d != nil {
		return *d
	}
	if e.found != nil {
		return e.found.Description
	}
	return ""
}

func (e *actionsVariable) Create(ctx context.Context) (reconciler.Observation, error) {
	if err := e.fc.CreateActionsVariable(e.redact(ctx), e.Scope, e.name(), e.value, e.description()); err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	return reconciler.Observation{Exists: true, Name: e.name()}, nil
}

func (e *actionsVariable) Update(ctx context.Context, obs reconciler.Observation) error {
	return e.fc.UpdateActionsVariable(e.redact(ctx), e.Scope, obs.Name, e.value, e.description())
}

func (e *actionsVariable) Delete(ctx context.Context, obs reconciler.Observation) error {
	return e.fc.DeleteActionsVariable(ctx, e.Scope, obs.Name)
}

// actionsVariableExport writes the Actions variables of the organization
// and of each live repository, with their values; actionsSecretExport
// their secrets, as resources whose valueFrom names a Secret to create
// first (the forge never gives a value back): applying such a resource
// sends the Secret's value once, as any adoption of a secret does. A
// server without the Actions API has none to write.
var (
	actionsVariableExport = export.ForScope(exportActionsVariables)
	actionsSecretExport   = export.ForScope(exportActionsSecrets)
)

// actionsReader is what the Actions exports read.
type actionsReader interface {
	ListActionsSecrets(ctx context.Context, scope forge.Scope) ([]forge.ActionsSecret, error)
	ListActionsVariables(ctx context.Context, scope forge.Scope) ([]forge.ActionsVariable, error)
}

func exportActionsVariables(ctx context.Context, b *export.Builder, src actionsReader, sc forge.Scope) error {
	vars, err := src.ListActionsVariables(ctx, sc)
	if err != nil && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the Actions variables of %s: %w", sc, err)
	}
	scope, base := exportActionsScope(sc)
	for _, v := range vars {
		vs := scope
		vs.Name, vs.Description = export.Ptr(forgev1.ActionsName(v.Name)), export.Ptr(v.Description)
		b.Add(&forgev1.ActionsVariable{TypeMeta: export.TypeMeta("ActionsVariable"),
			ObjectMeta: b.Meta("ActionsVariable", base+"-"+v.Name, 0),
			Spec: forgev1.ActionsVariableSpec{ManagedSpec: b.Managed(), ActionsScope: vs,
				DeletionPolicy: forgev1.DeletionPolicyOrphan, Value: export.Ptr(v.Data)}})
	}
	return nil
}

func exportActionsSecrets(ctx context.Context, b *export.Builder, src actionsReader, sc forge.Scope) error {
	secrets, err := src.ListActionsSecrets(ctx, sc)
	if err != nil && !forge.IsRouteNotFound(err) {
		return fmt.Errorf("list the Actions secrets of %s: %w", sc, err)
	}
	scope, base := exportActionsScope(sc)
	for _, s := range secrets {
		ss := scope
		ss.Name, ss.Description = export.Ptr(forgev1.ActionsName(s.Name)), export.Ptr(s.Description)
		meta := b.Meta("ActionsSecret", base+"-"+s.Name, 0)
		secret := meta.Name
		b.Add(&forgev1.ActionsSecret{TypeMeta: export.TypeMeta("ActionsSecret"), ObjectMeta: meta,
			Spec: forgev1.ActionsSecretSpec{ManagedSpec: b.Managed(), ActionsScope: ss, DeletionPolicy: forgev1.DeletionPolicyOrphan,
				ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: secret, Key: "value"}}}},
			fmt.Sprintf("Actions secret %s of %s. The forge never gives a secret's value back: create Secret %s", s.Name, sc, secret),
			"with key value holding it before applying (the value is then sent once, on adoption):",
			fmt.Sprintf("  kubectl create secret generic %s --from-literal=value=<the secret's value>", secret))
	}
	return nil
}

// exportActionsScope is the spec's scope for sc and the base of its
// values' names.
func exportActionsScope(sc forge.Scope) (forgev1.ActionsScope, string) {
	if sc.Repo != "" {
		return forgev1.ActionsScope{Repository: export.Ptr(forgev1.RepositoryName(sc.String()))}, sc.Owner + "-" + sc.Repo
	}
	return forgev1.ActionsScope{Organization: export.Ptr(forgev1.OwnerName(sc.Owner))}, sc.Owner
}

// actionsValueUnknown is the plan note of an Actions secret or variable:
// its value is the object, and without the Secret nothing can be said of it.
func actionsValueUnknown(d reconciler.Action, unknown []string) string {
	if d == reconciler.InSync && slices.Contains(unknown, "value") {
		return "the value comes from a Secret plan cannot read (or cannot compare without the secret digest key); give --kubeconfig and -n"
	}
	return ""
}
