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
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
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
)

// RBAC of the DeployKey controller. Secrets: "create" only, for the
// generated key pair. This kind never updates, patches or deletes a
// Secret (only a RunnerRegistrationToken's rotation updates the Secret it
// made): a pair is written once, into a Secret it creates (owned by the
// DeployKey, so that the garbage collector removes it with the resource).
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=deploykeys,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=deploykeys/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=forge.forgeops.dev,resources=deploykeys/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create

// deployKeyKind manages a repository's deploy keys, adopted by fingerprint.
// The forge cannot edit a key: a new key, title or readOnly replaces it.
// With spec.generate the operator makes the key pair once and keeps it in
// a Secret it creates and owns; the public key is derived from the private
// one on every pass, so a restart changes nothing and a deleted Secret
// brings a new pair (and a replaced key). The private key never leaves
// that Secret: no status, Event, log or error holds it.
func deployKeyKind() child.Kind[*forgev1.DeployKey] {
	return child.Kind[*forgev1.DeployKey]{
		// Titles are unique in a repository, so two resources of one title
		// there would fight over it.
		Noun:      "deploy key",
		Name:      (*forgev1.DeployKey).KeyTitle,
		KeyTag:    "deploykey",
		Of:        true,
		Where:     func(k *forgev1.DeployKey) child.Place { return child.PlaceOf(&k.Spec.Repository, nil) },
		List:      &forgev1.DeployKeyList{},
		SecretsOf: deployKeySecrets,
		External:  connectDeployKey,
	}
}

// deployKeySecrets: the Secret the public key is read from, or the
// generated pair's (its deletion brings a new pair).
func deployKeySecrets(k *forgev1.DeployKey) []string {
	switch {
	case k.Spec.PublicKeyFrom != nil:
		return []string{k.Spec.PublicKeyFrom.SecretKeyRef.Name}
	case k.Spec.Generate != nil:
		return []string{k.Spec.Generate.SecretName}
	}
	return nil
}

// connectDeployKey works out the public key the forge should hold: the
// spec's, the Secret's, or the generated pair's (made now when its Secret
// is missing and the pass may write; written by Create).
func connectDeployKey(ctx context.Context, k *forgev1.DeployKey, pass *reconciler.Pass, at child.At) (reconciler.External, error) {
	e := &deployKey{obj: k, fc: pass.Forge, At: at, writer: pass.Writer, webURL: pass.WebURL}
	if !k.DeletionTimestamp.IsZero() {
		return e, nil // a deletion addresses status.id only
	}
	s := k.Spec
	switch {
	case s.PublicKey != nil:
		return e, e.want(*s.PublicKey, "spec.publicKey")
	case s.PublicKeyFrom != nil:
		ref := s.PublicKeyFrom.SecretKeyRef
		v, _, err := connection.SecretValue(ctx, pass.Reader, k.Namespace, ref.Name, ref.Key)
		switch {
		case errors.Is(err, reconciler.ErrUnreadable):
			e.unknown = true
			return e, nil
		case err != nil:
			return nil, err
		}
		return e, e.want(v, fmt.Sprintf("Secret %s key %s", ref.Name, ref.Key))
	case s.Generate != nil:
		return e, e.generated(ctx, pass)
	}
	return nil, reconciler.Stall(forgev1.ReasonRejected, "set exactly one of spec.publicKey, spec.publicKeyFrom and spec.generate")
}

type deployKey struct {
	obj *forgev1.DeployKey
	fc  forge.DeployKeysClient
	child.At
	writer client.Writer
	webURL string

	// key is the public key the forge should hold, fingerprint its
	// fingerprint; unknown when it cannot be told (plan without the
	// Secret, Observe without a generated pair).
	key, fingerprint string
	unknown          bool
	// fresh: a new pair is to be made (its Secret is missing); secret is
	// the Secret to create with it, nil when it exists already.
	fresh  bool
	secret *corev1.Secret
	found  *forge.DeployKey
	// left is the key of status.id when the wanted key was found as another
	// (leftOver): deleted by Update, or with the replaced key.
	left *forge.DeployKey
}

// want sets the public key from an authorized_keys line read from where.
func (e *deployKey) want(line, where string) error {
	fp, err := forge.FingerprintOf(strings.TrimSpace(line))
	if err != nil {
		return reconciler.Stall(forgev1.ReasonRejected, "%s is not an SSH public key (one authorized_keys line such as \"ssh-ed25519 AAAA... comment\")", where)
	}
	e.key, e.fingerprint = strings.TrimSpace(line), fp
	return nil
}

// generated reads the pair from its Secret, which must be this resource's
// own; a missing Secret gets a new pair, made here and written by Create.
func (e *deployKey) generated(ctx context.Context, pass *reconciler.Pass) error {
	g := e.obj.Spec.Generate
	var sec corev1.Secret
	err := pass.Reader.Get(ctx, types.NamespacedName{Namespace: e.obj.Namespace, Name: g.SecretName}, &sec)
	switch {
	case errors.Is(err, reconciler.ErrUnreadable):
		e.unknown = true
		return nil
	case apierrors.IsNotFound(err):
		e.fresh = true
		if pass.Writer == nil || e.obj.Spec.ManagementPolicy == forgev1.ManagementPolicyObserve {
			// Plan and Observe make no pair: a new one is all that is known.
			return nil
		}
		sec, err := newKeyPair(e.obj)
		if err != nil {
			return err
		}
		e.secret = sec
		return e.want(string(sec.Data[forgev1.DeployKeyPublic]), "the generated key")
	case err != nil:
		return fmt.Errorf("read Secret %s/%s: %w", e.obj.Namespace, g.SecretName, err)
	}
	if !secrets.OwnedBy(&sec, "DeployKey", e.obj) {
		return reconciler.Stall(forgev1.ReasonConflict,
			"Secret %s was not created by this DeployKey: the operator never writes into a Secret it did not create; delete it, or name another in spec.generate.secretName, or give its public key with spec.publicKeyFrom", g.SecretName)
	}
	priv := sec.Data[forgev1.DeployKeyPrivate]
	signer, err := ssh.ParsePrivateKey(priv)
	if err != nil {
		// The parser's error is not shown: it is about the private key.
		return reconciler.Stall(forgev1.ReasonRejected,
			"Secret %s key %s holds no private key the operator can read; delete the Secret to have a new pair made", g.SecretName, forgev1.DeployKeyPrivate)
	}
	e.key = authorizedLine(signer.PublicKey(), e.obj)
	e.fingerprint = ssh.FingerprintSHA256(signer.PublicKey())
	return nil
}

// authorizedLine is pub as one authorized_keys line, its comment naming the resource.
func authorizedLine(pub ssh.PublicKey, obj *forgev1.DeployKey) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))) + " " + obj.Namespace + "/" + obj.Name
}

// newKeyPair makes a key pair of the spec's type and the Secret that
// keeps it, owned by obj.
func newKeyPair(obj *forgev1.DeployKey) (*corev1.Secret, error) {
	var priv crypto.PrivateKey
	var pub crypto.PublicKey
	switch obj.Spec.Generate.Type {
	case forgev1.DeployKeyRSA4096:
		k, err := rsa.GenerateKey(rand.Reader, 4096)
		if err != nil {
			return nil, fmt.Errorf("generate an RSA key: %w", err)
		}
		priv, pub = k, &k.PublicKey
	default:
		p, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate an ed25519 key: %w", err)
		}
		priv, pub = k, p
	}
	comment := obj.Namespace + "/" + obj.Name
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, errors.New("marshal the generated private key")
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, errors.New("marshal the generated public key")
	}
	sec := secrets.Owned(obj, "DeployKey", obj.Spec.Generate.SecretName)
	sec.Data = map[string][]byte{
		forgev1.DeployKeyPrivate: pem.EncodeToMemory(block),
		forgev1.DeployKeyPublic:  []byte(authorizedLine(sshPub, obj) + "\n"),
	}
	return sec, nil
}

// Observe finds the key with the wanted fingerprint in the repository's
// listing (adoption, whatever its title), else the key of status.id, whose
// key then differs: replaced. Looking by fingerprint first also finds the
// new key of a replacement whose response was lost.
func (e *deployKey) Observe(ctx context.Context) (reconciler.Observation, error) {
	o, r := e.Owner, e.Repo
	if e.fingerprint != "" {
		all, err := e.fc.ListDeployKeys(ctx, o, r)
		if err != nil {
			return reconciler.Observation{}, e.Classify(err)
		}
		if i := slices.IndexFunc(all, func(k forge.DeployKey) bool { return k.Fingerprint == e.fingerprint }); i >= 0 {
			obs := e.observed(&all[i])
			e.leftOver(all, &obs)
			return obs, nil
		}
	}
	id := e.obj.Status.ID
	if id == 0 {
		return reconciler.Observation{}, nil
	}
	k, err := e.fc.GetDeployKey(ctx, o, r, id)
	switch {
	case forge.IsNotFound(err):
		return reconciler.Observation{}, nil
	case err != nil:
		return reconciler.Observation{}, e.Classify(err)
	}
	return e.observed(k), nil
}

// leftOver: the wanted key is in the repository, but not as the key this
// resource made or adopted (status.id), which is still there: a new
// spec.publicKey named a key someone had added already. The old key
// would stay on the forge, still opening the repository; it is deleted
// (Update, or after a replacement).
func (e *deployKey) leftOver(all []forge.DeployKey, obs *reconciler.Observation) {
	id := e.obj.Status.ID
	if id == 0 || id == e.found.ID {
		return
	}
	if j := slices.IndexFunc(all, func(k forge.DeployKey) bool { return k.ID == id }); j >= 0 {
		e.left = &all[j]
		obs.Changes = append(obs.Changes, compare.Change("key", e.left.Fingerprint, e.fingerprint))
		slices.SortFunc(obs.Changes, compare.ByField)
		obs.Diff = reconciler.Fields(obs.Changes)
	}
}

func (e *deployKey) observed(k *forge.DeployKey) reconciler.Observation {
	e.found = k
	e.obj.Status.Fingerprint = k.Fingerprint
	obs := reconciler.Observation{Exists: true, ID: k.ID, URL: e.url()}
	var because []string
	switch {
	case e.unknown:
		obs.Unknown = append(obs.Unknown, "key")
	case e.fresh && e.fingerprint == "":
		because = append(because, "key")
		obs.Changes = append(obs.Changes, reconciler.Change{Field: "key", Have: k.Fingerprint, Want: "a new generated key"})
	case k.Fingerprint != e.fingerprint:
		because = append(because, "key")
		obs.Changes = append(obs.Changes, compare.Change("key", k.Fingerprint, e.fingerprint))
	}
	if t := e.obj.Spec.Title; t != nil && *t != k.Title {
		because = append(because, "title")
		obs.Changes = append(obs.Changes, compare.Change("title", k.Title, *t))
	}
	if ro := e.obj.KeyReadOnly(); ro != k.ReadOnly {
		because = append(because, "readOnly")
		obs.Changes = append(obs.Changes, compare.Change("readOnly", k.ReadOnly, ro))
	}
	slices.SortFunc(obs.Changes, compare.ByField)
	obs.Diff = reconciler.Fields(obs.Changes)
	obs.Replace, obs.ReplaceBecause = len(because) > 0, strings.Join(because, ", ")
	return obs
}

func (e *deployKey) url() string {
	return fmt.Sprintf("%s/%s/%s/settings/keys", e.webURL, e.Owner, e.Repo)
}

// Create writes a generated pair's Secret first, so that a key on the
// forge always has its private half kept. The forge refuses a key or a
// title already in the repository: a replacement that keeps either deletes
// the old key first (the loop deletes it after otherwise).
func (e *deployKey) Create(ctx context.Context) (reconciler.Observation, error) {
	if e.unknown || e.key == "" {
		return reconciler.Observation{}, reconciler.Wait(forgev1.ReasonSecretNotFound, "the public key of %s is not known yet", e.obj.Name)
	}
	if e.secret != nil {
		if err := e.writer.Create(ctx, e.secret); err != nil {
			// Another pass may have written it: the next reads it.
			return reconciler.Observation{}, fmt.Errorf("create Secret %s/%s for the generated key: %w", e.secret.Namespace, e.secret.Name, apiReason(err))
		}
		e.secret = nil
	}
	o, r := e.Owner, e.Repo
	title := e.obj.KeyTitle()
	if old := e.found; old != nil && (old.Fingerprint == e.fingerprint || old.Title == title) {
		if err := e.fc.DeleteDeployKey(ctx, o, r, old.ID); err != nil {
			return reconciler.Observation{}, err
		}
	}
	k, err := e.fc.CreateDeployKey(ctx, o, r, forge.CreateDeployKeyOption{Title: title, Key: e.key, ReadOnly: e.obj.KeyReadOnly()})
	if err != nil {
		return reconciler.Observation{}, e.Classify(err)
	}
	e.obj.Status.Fingerprint = k.Fingerprint
	return reconciler.Observation{Exists: true, ID: k.ID, URL: e.url()}, nil
}

// Update: a key cannot be edited (every difference in it is a
// replacement); what is left to do is deleting the key this resource held
// before it found its new key in place (leftOver).
func (e *deployKey) Update(ctx context.Context, _ reconciler.Observation) error {
	if e.left == nil {
		return nil
	}
	return e.fc.DeleteDeployKey(ctx, e.Owner, e.Repo, e.left.ID)
}

func (e *deployKey) Delete(ctx context.Context, obs reconciler.Observation) error {
	if err := e.fc.DeleteDeployKey(ctx, e.Owner, e.Repo, obs.ID); err != nil {
		return err
	}
	return e.Update(ctx, obs)
}

// apiReason keeps a Kubernetes API error's reason and drops its details,
// which could quote the object sent (the private key).
func apiReason(err error) error {
	if s, ok := err.(apierrors.APIStatus); ok {
		return fmt.Errorf("%s (%d)", s.Status().Reason, s.Status().Code)
	}
	return errors.New("request failed")
}

// deployKeyExport writes a DeployKey per deploy key of each live
// repository, with its public key as the forge holds it (never generate:
// the private half is not the forge's to give) and its title and
// readOnly, so that applying it adopts each key by fingerprint without a
// write.
var deployKeyExport = export.ForLiveRepository(exportDeployKeys)

// deployKeyReader is what the deploy key export reads.
type deployKeyReader interface {
	ListDeployKeys(ctx context.Context, owner, repo string) ([]forge.DeployKey, error)
}

func exportDeployKeys(ctx context.Context, b *export.Builder, src deployKeyReader, owner, repo string) error {
	keys, err := src.ListDeployKeys(ctx, owner, repo)
	return export.EachByID(keys, err, "deploy keys of "+owner+"/"+repo, func(k forge.DeployKey) int64 { return k.ID }, func(k forge.DeployKey) {
		b.Add(&forgev1.DeployKey{
			TypeMeta:   export.TypeMeta("DeployKey"),
			ObjectMeta: b.Meta("DeployKey", fmt.Sprintf("%s-%s-deploykey-%d", owner, repo, k.ID), k.ID),
			Spec: forgev1.DeployKeySpec{
				ManagedSpec:    b.Managed(),
				DeletionPolicy: forgev1.DeletionPolicyOrphan,
				Repository:     forgev1.RepositoryName(owner + "/" + repo),
				Title:          export.Ptr(k.Title),
				ReadOnly:       export.Ptr(k.ReadOnly),
				PublicKey:      export.Ptr(k.Key),
			},
		})
	})
}
