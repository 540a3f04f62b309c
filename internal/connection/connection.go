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

// Package connection turns a Forge resource and its Secrets into a forge
// client, and keeps one client per Forge so that the per-forge rate limit
// holds across every reconciler that talks to it.
package connection

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

// SecretError says which Secret or key is missing, never what it holds.
type SecretError struct {
	Namespace, Name, Key string
	// KeyMissing is true when the Secret exists but lacks the key (or the value is empty).
	KeyMissing bool
}

func (e *SecretError) Error() string {
	if e.KeyMissing {
		return fmt.Sprintf("key %q not found or empty in Secret %s/%s", e.Key, e.Namespace, e.Name)
	}
	return fmt.Sprintf("secret %s/%s not found", e.Namespace, e.Name)
}

// SecretValue reads one key of a Secret in namespace ns. A missing Secret or
// key is a *SecretError; the Secret's resourceVersion is returned with the
// value so that callers can tell when it changed.
func SecretValue(ctx context.Context, r client.Reader, ns, name, key string) (value, resourceVersion string, err error) {
	var s corev1.Secret
	if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return "", "", &SecretError{Namespace: ns, Name: name, Key: key}
		}
		return "", "", fmt.Errorf("read Secret %s/%s: %w", ns, name, err)
	}
	v, ok := s.Data[key]
	if !ok || len(v) == 0 {
		return "", "", &SecretError{Namespace: ns, Name: name, Key: key, KeyMissing: true}
	}
	return string(v), s.ResourceVersion, nil
}

// SecretVersion reads the resourceVersion of Secret name in ns from its
// metadata, as r holds it: the manager's cache, which its Secret watches
// keep, tells that a Secret has not changed without reading its data. A
// missing Secret is a *SecretError.
func SecretVersion(ctx context.Context, r client.Reader, ns, name string) (string, error) {
	var m metav1.PartialObjectMetadata
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &m); err != nil {
		if apierrors.IsNotFound(err) {
			return "", &SecretError{Namespace: ns, Name: name}
		}
		return "", fmt.Errorf("read the metadata of Secret %s/%s: %w", ns, name, err)
	}
	return m.ResourceVersion, nil
}

// Source is what a client is built from: a Forge, or a ClusterForge with
// the namespace its Secrets are read from (the manager's own).
type Source struct {
	// Key names the connection: a Forge's namespace and name, or a
	// ClusterForge's name with an empty namespace.
	Key        types.NamespacedName
	UID        types.UID
	Generation int64
	Spec       *forgev1.ForgeSpec
	// SecretNamespace is where every Secret of Spec is read: the Forge's
	// own namespace, or the manager's for a ClusterForge, never a tenant's.
	SecretNamespace string
}

// OfForge is the source of Forge f.
func OfForge(f *forgev1.Forge) Source {
	return Source{Key: types.NamespacedName{Namespace: f.Namespace, Name: f.Name}, UID: f.UID, Generation: f.Generation,
		Spec: &f.Spec, SecretNamespace: f.Namespace}
}

// OfClusterForge is the source of ClusterForge cf, whose Secrets are read
// from namespace ns (the manager's).
func OfClusterForge(cf *forgev1.ClusterForge, ns string) Source {
	return Source{Key: types.NamespacedName{Name: cf.Name}, UID: cf.UID, Generation: cf.Generation,
		Spec: &cf.Spec.ForgeSpec, SecretNamespace: ns}
}

// Name is the connection's name in metrics and the forge client's
// messages: "namespace/name" for a Forge, the bare name of a ClusterForge
// (no Forge's name lacks the slash).
func (s Source) Name() string { return NameOf(s.Key) }

// NameOf is the connection name of key (Source.Name).
func NameOf(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.Namespace + "/" + key.Name
}

// SecretNames lists the Secrets a Forge references, for the Secret watch.
func SecretNames(f *forgev1.Forge) []string { return SpecSecretNames(&f.Spec) }

// SpecSecretNames lists the Secrets a connection's spec references.
func SpecSecretNames(spec *forgev1.ForgeSpec) []string {
	var names []string
	if ref := spec.Auth.TokenSecretRef; ref != nil {
		names = append(names, ref.Name)
	}
	if ref := spec.Auth.BasicAuthSecretRef; ref != nil {
		names = append(names, ref.Name)
	}
	if spec.TLS != nil && spec.TLS.CASecretRef != nil {
		names = append(names, spec.TLS.CASecretRef.Name)
	}
	return names
}

// Config builds the client configuration of a Forge, reading its Secrets
// from the Forge's own namespace only.
func Config(ctx context.Context, r client.Reader, f *forgev1.Forge) (forge.Config, error) {
	return ConfigOf(ctx, r, OfForge(f))
}

// ConfigOf builds the client configuration of src, reading its Secrets
// from src.SecretNamespace only.
func ConfigOf(ctx context.Context, r client.Reader, src Source) (forge.Config, error) {
	spec, ns := src.Spec, src.SecretNamespace
	cfg := forge.Config{
		Name:      src.Name(),
		URL:       spec.URL,
		UserAgent: forge.DefaultUserAgent,
	}
	var err error
	switch auth := spec.Auth; {
	case auth.TokenSecretRef != nil:
		key := auth.TokenSecretRef.Key
		if key == "" {
			key = "token"
		}
		if cfg.Token, _, err = SecretValue(ctx, r, ns, auth.TokenSecretRef.Name, key); err != nil {
			return forge.Config{}, err
		}
	case auth.BasicAuthSecretRef != nil:
		name := auth.BasicAuthSecretRef.Name
		if cfg.Username, _, err = SecretValue(ctx, r, ns, name, "username"); err != nil {
			return forge.Config{}, err
		}
		if cfg.Password, _, err = SecretValue(ctx, r, ns, name, "password"); err != nil {
			return forge.Config{}, err
		}
	default:
		return forge.Config{}, fmt.Errorf("forge %s has no credentials: set spec.auth.tokenSecretRef or spec.auth.basicAuthSecretRef", cfg.Name)
	}
	if tls := spec.TLS; tls != nil {
		cfg.InsecureSkipVerify = tls.InsecureSkipVerify
		if ref := tls.CASecretRef; ref != nil {
			key := ref.Key
			if key == "" {
				key = "ca.crt"
			}
			ca, _, err := SecretValue(ctx, r, ns, ref.Name, key)
			if err != nil {
				return forge.Config{}, err
			}
			cfg.CAData = []byte(ca)
		}
	}
	if rl := spec.RateLimit; rl != nil {
		cfg.QPS, cfg.Burst = rl.QPS, int(rl.Burst)
	}
	if spec.Timeout != nil {
		cfg.Timeout = spec.Timeout.Duration
	}
	return cfg, nil
}

// Pool keeps one client per Forge, rebuilt when the Forge's spec or the
// content of its Secrets changes.
type Pool struct {
	// Reader reads Forges' Secrets; an uncached reader, since the manager
	// watches Secrets' metadata only.
	Reader client.Reader
	// Metadata, when set, reads Secrets' metadata from the manager's cache
	// (its Secret watches keep it). The Secrets themselves are then read
	// only when the Forge's generation or one of its Secrets'
	// resourceVersions changed, not on every pass of every resource.
	Metadata client.Reader
	// ClusterSecrets is the namespace every ClusterForge's Secrets are read
	// from: the manager's own.
	ClusterSecrets string
	// Timeout overrides every Forge's request timeout when set (tests).
	Timeout time.Duration
	// DenyCIDRs are addresses no client connects to (--forge-deny-cidrs).
	DenyCIDRs []netip.Prefix
	// UserAgent every client sends (forge.UserAgent of the manager's
	// shard); default forge.DefaultUserAgent.
	UserAgent string

	mu      sync.Mutex
	clients map[types.NamespacedName]pooled
	// kept bounds the listings all Forges' clients keep together
	// (forge.MaxManagerKeptBytes).
	kept *forge.Budget
}

type pooled struct {
	fingerprint [sha256.Size]byte
	// stamp names the Forge and Secret versions the client was built from;
	// "" when they could not be read from the cache.
	stamp  string
	client forge.Interface
}

// Client returns the client of Forge f.
func (p *Pool) Client(ctx context.Context, f *forgev1.Forge) (forge.Interface, error) {
	return p.ClientOf(ctx, OfForge(f))
}

// ClientOf returns the client of src.
func (p *Pool) ClientOf(ctx context.Context, src Source) (forge.Interface, error) {
	key := src.Key
	stamp := p.stamp(ctx, src)
	if stamp != "" {
		p.mu.Lock()
		c, ok := p.clients[key]
		p.mu.Unlock()
		if ok && c.stamp == stamp {
			return c.client, nil
		}
	}
	cfg, err := ConfigOf(ctx, p.Reader, src)
	if err != nil {
		return nil, err
	}
	if p.Timeout > 0 {
		cfg.Timeout = p.Timeout
	}
	cfg.DenyCIDRs = p.DenyCIDRs
	if p.UserAgent != "" {
		cfg.UserAgent = p.UserAgent
	}
	// The fingerprint holds credentials only as a hash, in memory.
	var fp [sha256.Size]byte
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%x\x00%t\x00%g\x00%d\x00%s",
		cfg.URL, cfg.Token, cfg.Username, cfg.Password, cfg.CAData, cfg.InsecureSkipVerify, cfg.QPS, cfg.Burst, cfg.Timeout)
	h.Sum(fp[:0])

	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[key]; ok && c.fingerprint == fp {
		c.stamp = stamp
		p.clients[key] = c
		return c.client, nil
	}
	c, err := forge.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("configure client of forge %s: %w", cfg.Name, err)
	}
	if p.clients == nil {
		p.clients = map[types.NamespacedName]pooled{}
	}
	// Reads are served from listings shared per scope (forge.Snapshots);
	// a rebuilt client starts with none, and the one it replaces gives its
	// listings' bytes back to the manager's budget.
	if p.kept == nil {
		p.kept = forge.NewBudget(forge.MaxManagerKeptBytes)
	}
	closeSnapshots(p.clients[key].client)
	sc := forge.NewSnapshots(c).Within(p.kept)
	p.clients[key] = pooled{fingerprint: fp, stamp: stamp, client: sc}
	return sc, nil
}

// stamp is the source's UID and generation with the resourceVersions of its
// Secrets, read from the cache; "" when there is no cache or a Secret is
// not in it (then the Secrets are read, and a missing one is reported).
func (p *Pool) stamp(ctx context.Context, src Source) string {
	if p.Metadata == nil {
		return ""
	}
	stamp := fmt.Sprintf("%s/%d", src.UID, src.Generation)
	for _, name := range SpecSecretNames(src.Spec) {
		rv, err := SecretVersion(ctx, p.Metadata, src.SecretNamespace, name)
		if err != nil {
			return ""
		}
		stamp += "/" + name + "@" + rv
	}
	return stamp
}

// ServesClusterForges reports whether the manager serves ClusterForges: it
// knows the namespace their Secrets are read from (none: the namespaced
// install, which cannot watch cluster-scoped objects).
func (p *Pool) ServesClusterForges() bool { return p.ClusterSecrets != "" }

// Forget drops the client of a deleted Forge or ClusterForge, with its rate limiter and
// metric series.
func (p *Pool) Forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	closeSnapshots(p.clients[key].client)
	delete(p.clients, key)
	forge.Forget(NameOf(key))
}

// closeSnapshots gives a dropped client's kept listings back.
func closeSnapshots(c forge.Interface) {
	if sc, ok := c.(*forge.Snapshots); ok {
		sc.Close()
	}
}
