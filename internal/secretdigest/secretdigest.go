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

// Package secretdigest computes keyed digests (HMAC-SHA256) of secret values
// the operator sent to a forge, so that status can record what was sent
// without holding the value or an unkeyed hash of it (which a reader of
// status could test guesses against). The forge never returns a hook's
// secret: comparing digests is how a Secret write that leaves the value as
// it was is told from a real change, also after a restart of the manager or
// a change of leader, because the key lives in a Secret of the operator's
// own namespace, created on first use.
package secretdigest

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// DefaultName is the key Secret's name when --secret-digest-key gives none.
	DefaultName = "forge-operator-secret-digest-key"
	// DataKey is the key of the Secret's data that holds the HMAC key.
	DataKey = "key"
	// keySize is the HMAC key length in bytes.
	keySize = 32
	// prefix names the algorithm in every digest, so that another one can follow.
	prefix = "hmac-sha256:"
)

// Digester computes keyed digests with the key kept in one Secret. It reads
// (or creates) that Secret on first use and keeps the key in memory after.
type Digester struct {
	reader client.Reader
	writer client.Writer
	ref    types.NamespacedName

	mu  sync.Mutex
	key []byte
}

// New returns a Digester whose key lives in Secret ref. reader should be
// uncached (the manager's API reader): the operator does not cache Secret data.
func New(reader client.Reader, writer client.Writer, ref types.NamespacedName) *Digester {
	return &Digester{reader: reader, writer: writer, ref: ref}
}

// Ref names the key Secret.
func (d *Digester) Ref() types.NamespacedName { return d.ref }

// Digest returns the keyed digest of value, bound to scope (e.g. the
// resource's UID and spec field): equal values under different scopes give
// different digests, so status does not reveal that two hooks share a secret.
func (d *Digester) Digest(ctx context.Context, scope, value string) (string, error) {
	key, err := d.loadKey(ctx)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	// Length-prefix the scope: "a"+"bc" and "ab"+"c" must not collide.
	fmt.Fprintf(mac, "%d:%s", len(scope), scope)
	mac.Write([]byte(value))
	return prefix + keyID(key) + ":" + base64.RawStdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// keyID names a key in every digest made with it: a keyed digest of a
// fixed text, so it tells keys apart and says nothing of any value.
func keyID(key []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("forge-operator secret digest key id"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))[:8]
}

// Compare tells whether a recorded digest and one made now (both from
// Digest) are of the same value. Known is false when recorded was made
// under another key than now (the key Secret was deleted and re-created,
// or --secret-digest-key names another): such digests cannot be compared,
// and the caller decides by other means. A digest recorded before digests
// named their key counts as made under the current key, as it was then.
func Compare(recorded, now string) (equal, known bool) {
	rid, rmac := split(recorded)
	nid, nmac := split(now)
	if rid != "" && rid != nid {
		return false, false
	}
	return hmac.Equal([]byte(rmac), []byte(nmac)), true
}

// Current reports whether digest names the key d holds now, which it loads
// on first use: a value whose digest was made under another key, or before
// digests named theirs, must be read and digested again to be compared.
// False when d is nil or its key cannot be had (Digest then says why).
func (d *Digester) Current(ctx context.Context, digest string) bool {
	if d == nil || !strings.HasPrefix(digest, prefix) {
		return false
	}
	key, err := d.loadKey(ctx)
	if err != nil {
		return false
	}
	id, _ := split(digest)
	return id != "" && id == keyID(key)
}

// split reads a digest as its key id ("" before key ids) and its MAC.
func split(digest string) (id, mac string) {
	rest := strings.TrimPrefix(digest, prefix)
	if id, mac, ok := strings.Cut(rest, ":"); ok {
		return id, mac
	}
	return "", rest
}

func (d *Digester) loadKey(ctx context.Context) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.key != nil {
		return d.key, nil
	}
	key, err := d.readKey(ctx)
	if apierrors.IsNotFound(err) {
		key, err = d.createKey(ctx)
	}
	if err != nil {
		return nil, err
	}
	d.key = key
	return key, nil
}

func (d *Digester) readKey(ctx context.Context) ([]byte, error) {
	var s corev1.Secret
	if err := d.reader.Get(ctx, d.ref, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, err
		}
		return nil, fmt.Errorf("read the secret digest key Secret %s: %w", d.ref, err)
	}
	key := s.Data[DataKey]
	if len(key) < keySize {
		return nil, fmt.Errorf("the secret digest key Secret %s holds no key %q of at least %d bytes: restore it from a backup, or put %d random bytes there (a new key is recognised as new: each hook then compares its Secrets by resourceVersion once and records digests under the new key)", d.ref, DataKey, keySize, keySize)
	}
	return key, nil
}

// createKey creates the Secret with a random key. When another replica
// created it first, its key wins: both must digest alike.
func (d *Digester) createKey(ctx context.Context) ([]byte, error) {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make a secret digest key: %w", err)
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: d.ref.Namespace,
			Name:      d.ref.Name,
			Labels:    map[string]string{"app.kubernetes.io/name": "forge-operator", "app.kubernetes.io/component": "secret-digest-key"},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{DataKey: key},
	}
	err := d.writer.Create(ctx, s)
	switch {
	case err == nil:
		return key, nil
	case apierrors.IsAlreadyExists(err):
		return d.readKey(ctx)
	default:
		return nil, fmt.Errorf("create the secret digest key Secret %s: %w", d.ref, err)
	}
}

// ServiceAccountNamespaceFile holds the Pod's namespace in a cluster.
const ServiceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// ParseRef reads the --secret-digest-key flag: "namespace/name", or "name"
// in the operator's own namespace, which is POD_NAMESPACE when set (the
// Deployment sets it) and otherwise the Pod's service account namespace, as
// for leader election. Outside a cluster a bare name is an error.
func ParseRef(flag string) (types.NamespacedName, error) {
	if flag == "" {
		flag = DefaultName
	}
	if ns, name, ok := strings.Cut(flag, "/"); ok {
		if ns == "" || name == "" || strings.Contains(name, "/") {
			return types.NamespacedName{}, fmt.Errorf("--secret-digest-key %q: want namespace/name or name", flag)
		}
		return types.NamespacedName{Namespace: ns, Name: name}, nil
	}
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		if b, err := os.ReadFile(ServiceAccountNamespaceFile); err == nil {
			ns = strings.TrimSpace(string(b))
		}
	}
	if ns == "" {
		return types.NamespacedName{}, fmt.Errorf("--secret-digest-key %q has no namespace and the operator's own is unknown outside a cluster (no POD_NAMESPACE): give namespace/name", flag)
	}
	return types.NamespacedName{Namespace: ns, Name: flag}, nil
}
