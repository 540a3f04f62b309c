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

package connection

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
)

const (
	theToken    = "t0ken-do-not-show"
	thePassword = "p4ss-do-not-show"
	caPEM       = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
)

func secret(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func reader(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

func forgeWith(mut func(*forgev1.ForgeSpec)) *forgev1.Forge {
	f := &forgev1.Forge{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "gitea"},
		Spec:       forgev1.ForgeSpec{URL: "https://git.example.com"},
	}
	mut(&f.Spec)
	return f
}

func TestConfig(t *testing.T) {
	secrets := []client.Object{
		secret("team", "gitea-token", map[string]string{"token": theToken}),
		secret("team", "custom-token", map[string]string{"apikey": theToken}),
		secret("team", "gitea-basic", map[string]string{"username": "bot", "password": thePassword}),
		secret("team", "half-basic", map[string]string{"username": "bot"}),
		secret("team", "gitea-ca", map[string]string{"ca.crt": caPEM, "bundle.pem": caPEM}),
		secret("team", "empty-token", map[string]string{"token": ""}),
		// The same names in another namespace are never read.
		secret("other", "elsewhere", map[string]string{"token": theToken}),
	}
	token := func(name, key string) func(*forgev1.ForgeSpec) {
		return func(s *forgev1.ForgeSpec) {
			s.Auth.TokenSecretRef = &forgev1.TokenSecretReference{Name: name, Key: key}
		}
	}
	base := forge.Config{Name: "team/gitea", URL: "https://git.example.com", UserAgent: "forge-operator"}
	with := func(mut func(*forge.Config)) forge.Config {
		c := base
		mut(&c)
		return c
	}
	tests := []struct {
		name    string
		forge   *forgev1.Forge
		want    forge.Config
		wantErr *SecretError
	}{
		{name: "token, default key", forge: forgeWith(token("gitea-token", "")),
			want: with(func(c *forge.Config) { c.Token = theToken })},
		{name: "token, own key", forge: forgeWith(token("custom-token", "apikey")),
			want: with(func(c *forge.Config) { c.Token = theToken })},
		{name: "basic auth", forge: forgeWith(func(s *forgev1.ForgeSpec) {
			s.Auth.BasicAuthSecretRef = &forgev1.SecretReference{Name: "gitea-basic"}
		}), want: with(func(c *forge.Config) { c.Username, c.Password = "bot", thePassword })},
		{name: "CA, default key, and the rest of the spec", forge: forgeWith(func(s *forgev1.ForgeSpec) {
			token("gitea-token", "")(s)
			s.TLS = &forgev1.ForgeTLS{CASecretRef: &forgev1.CASecretReference{Name: "gitea-ca"}}
			s.RateLimit = &forgev1.RateLimit{QPS: 2.5, Burst: 4}
			s.Timeout = &metav1.Duration{Duration: 7 * time.Second}
		}), want: with(func(c *forge.Config) {
			c.Token, c.CAData, c.QPS, c.Burst, c.Timeout = theToken, []byte(caPEM), 2.5, 4, 7*time.Second
		})},
		{name: "CA, own key, insecure", forge: forgeWith(func(s *forgev1.ForgeSpec) {
			token("gitea-token", "")(s)
			s.TLS = &forgev1.ForgeTLS{CASecretRef: &forgev1.CASecretReference{Name: "gitea-ca", Key: "bundle.pem"}, InsecureSkipVerify: true}
		}), want: with(func(c *forge.Config) { c.Token, c.CAData, c.InsecureSkipVerify = theToken, []byte(caPEM), true })},
		{name: "missing Secret", forge: forgeWith(token("nope", "")),
			wantErr: &SecretError{Namespace: "team", Name: "nope", Key: "token"}},
		{name: "Secret of another namespace", forge: forgeWith(token("elsewhere", "")),
			wantErr: &SecretError{Namespace: "team", Name: "elsewhere", Key: "token"}},
		{name: "missing key", forge: forgeWith(token("custom-token", "")),
			wantErr: &SecretError{Namespace: "team", Name: "custom-token", Key: "token", KeyMissing: true}},
		{name: "empty value", forge: forgeWith(token("empty-token", "")),
			wantErr: &SecretError{Namespace: "team", Name: "empty-token", Key: "token", KeyMissing: true}},
		{name: "basic auth without password", forge: forgeWith(func(s *forgev1.ForgeSpec) {
			s.Auth.BasicAuthSecretRef = &forgev1.SecretReference{Name: "half-basic"}
		}), wantErr: &SecretError{Namespace: "team", Name: "half-basic", Key: "password", KeyMissing: true}},
		{name: "missing CA key", forge: forgeWith(func(s *forgev1.ForgeSpec) {
			token("gitea-token", "")(s)
			s.TLS = &forgev1.ForgeTLS{CASecretRef: &forgev1.CASecretReference{Name: "gitea-token"}}
		}), wantErr: &SecretError{Namespace: "team", Name: "gitea-token", Key: "ca.crt", KeyMissing: true}},
	}
	r := reader(t, secrets...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Config(context.Background(), r, tt.forge)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Config: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("config (-want +got):\n%s", diff)
				}
				return
			}
			var se *SecretError
			if !errors.As(err, &se) {
				t.Fatalf("Config error = %v, want a *SecretError", err)
			}
			if diff := cmp.Diff(tt.wantErr, se); diff != "" {
				t.Errorf("SecretError (-want +got):\n%s", diff)
			}
			msg := err.Error()
			for _, part := range []string{tt.wantErr.Namespace + "/" + tt.wantErr.Name} {
				if !strings.Contains(msg, part) {
					t.Errorf("message %q does not name %q", msg, part)
				}
			}
			if tt.wantErr.KeyMissing && !strings.Contains(msg, `"`+tt.wantErr.Key+`"`) {
				t.Errorf("message %q does not name the key %q", msg, tt.wantErr.Key)
			}
			for _, v := range []string{theToken, thePassword, "bot", "BEGIN CERTIFICATE"} {
				if strings.Contains(msg, v) {
					t.Errorf("message %q shows Secret content", msg)
				}
			}
		})
	}
}

func TestConfigWithoutCredentials(t *testing.T) {
	_, err := Config(context.Background(), reader(t), forgeWith(func(*forgev1.ForgeSpec) {}))
	if err == nil || !strings.Contains(err.Error(), "no credentials") {
		t.Errorf("Config without auth: %v", err)
	}
}

func TestConfigStringHidesCredentials(t *testing.T) {
	cfg, err := Config(context.Background(), reader(t, secret("team", "gitea-basic", map[string]string{"username": "bot", "password": thePassword})),
		forgeWith(func(s *forgev1.ForgeSpec) { s.Auth.BasicAuthSecretRef = &forgev1.SecretReference{Name: "gitea-basic"} }))
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.String(); strings.Contains(s, thePassword) {
		t.Errorf("Config.String() = %q shows the password", s)
	}
}

func TestSecretNames(t *testing.T) {
	f := forgeWith(func(s *forgev1.ForgeSpec) {
		s.Auth.TokenSecretRef = &forgev1.TokenSecretReference{Name: "tok"}
		s.TLS = &forgev1.ForgeTLS{CASecretRef: &forgev1.CASecretReference{Name: "ca"}}
	})
	if diff := cmp.Diff([]string{"tok", "ca"}, SecretNames(f)); diff != "" {
		t.Errorf("SecretNames (-want +got):\n%s", diff)
	}
	f = forgeWith(func(s *forgev1.ForgeSpec) { s.Auth.BasicAuthSecretRef = &forgev1.SecretReference{Name: "basic"} })
	if diff := cmp.Diff([]string{"basic"}, SecretNames(f)); diff != "" {
		t.Errorf("SecretNames (-want +got):\n%s", diff)
	}
}

// TestPool: one client per Forge, kept while nothing changes and rebuilt
// when the Secret's content does (a rotated token), without a restart.
func TestPool(t *testing.T) {
	ctx := context.Background()
	s := secret("team", "gitea-token", map[string]string{"token": theToken})
	r := reader(t, s)
	p := &Pool{Reader: r}
	f := forgeWith(func(s *forgev1.ForgeSpec) { s.Auth.TokenSecretRef = &forgev1.TokenSecretReference{Name: "gitea-token"} })

	c1, err := p.Client(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := p.Client(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if c1 != c2 {
		t.Error("a second call with nothing changed built a new client")
	}

	s.Data["token"] = []byte("rotated")
	if err := r.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	c3, err := p.Client(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if c3 == c1 {
		t.Error("the client was kept after the token changed")
	}

	f2 := f.DeepCopy()
	f2.Name = "other"
	c4, err := p.Client(ctx, f2)
	if err != nil {
		t.Fatal(err)
	}
	if c4 == c3 {
		t.Error("two Forges share one client")
	}
	p.Forget(client.ObjectKeyFromObject(f))
	if c5, _ := p.Client(ctx, f); c5 == c3 {
		t.Error("Forget kept the client")
	}
}

// TestPoolDeniesAddresses: the pool's clients refuse the addresses of
// --forge-deny-cidrs before any request leaves, here the loopback one a
// test server listens on.
func TestPoolDeniesAddresses(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"version":"1.26.0"}`))
	}))
	t.Cleanup(ts.Close)
	deny, err := forge.ParseCIDRs("127.0.0.0/8,::1/128")
	if err != nil {
		t.Fatal(err)
	}
	r := reader(t, secret("team", "gitea-token", map[string]string{"token": theToken}))
	f := forgeWith(func(s *forgev1.ForgeSpec) {
		s.URL = ts.URL
		s.Auth.TokenSecretRef = &forgev1.TokenSecretReference{Name: "gitea-token"}
	})
	for _, p := range []*Pool{{Reader: r, DenyCIDRs: deny}, {Reader: r}} {
		c, err := p.Client(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Version(context.Background())
		switch {
		case p.DenyCIDRs == nil && err != nil:
			t.Fatalf("without a deny list: %v", err)
		case p.DenyCIDRs != nil && (err == nil || !strings.Contains(err.Error(), "address 127.0.0.1 is denied")):
			t.Fatalf("with 127.0.0.0/8 denied: %v", err)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("%d requests reached the server, want 1 (from the pool without a deny list)", hits.Load())
	}
}

// TestPoolUserAgentNamesTheShard: a shard's manager (--shard) says so in
// every request's User-Agent, so that a forge's access log (and a fake in
// the shards' tests) tells the managers apart; the default manager's is
// unchanged.
func TestPoolUserAgentNamesTheShard(t *testing.T) {
	var mu sync.Mutex
	var agents []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.Header.Get("User-Agent"))
		mu.Unlock()
		_, _ = w.Write([]byte(`{"version":"1.26.0"}`))
	}))
	t.Cleanup(ts.Close)
	r := reader(t, secret("team", "gitea-token", map[string]string{"token": theToken}))
	f := forgeWith(func(s *forgev1.ForgeSpec) {
		s.URL = ts.URL
		s.Auth.TokenSecretRef = &forgev1.TokenSecretReference{Name: "gitea-token"}
	})
	for _, p := range []*Pool{{Reader: r, UserAgent: forge.UserAgent("eu-1")}, {Reader: r, UserAgent: forge.UserAgent("")}, {Reader: r}} {
		c, err := p.Client(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Version(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"forge-operator (shard eu-1)", "forge-operator", "forge-operator"}; !slices.Equal(agents, want) {
		t.Fatalf("User-Agents %q, want %q", agents, want)
	}
}

// countingReader counts the Secret reads that reach it.
type countingReader struct {
	client.Reader
	reads atomic.Int32
}

func (c *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.reads.Add(1)
	return c.Reader.Get(ctx, key, obj, opts...)
}

// TestPoolReadsSecretsOnlyWhenTheyChange: with the cache's Secret metadata,
// passes of a Forge's resources reuse its client without reading its
// Secrets again, until the Forge's spec or a Secret's version changes.
func TestPoolReadsSecretsOnlyWhenTheyChange(t *testing.T) {
	ctx := context.Background()
	s := secret("team", "gitea-token", map[string]string{"token": theToken})
	store := reader(t, s)
	uncached := &countingReader{Reader: store}
	p := &Pool{Reader: uncached, Metadata: store}
	f := forgeWith(func(s *forgev1.ForgeSpec) { s.Auth.TokenSecretRef = &forgev1.TokenSecretReference{Name: "gitea-token"} })
	f.UID, f.Generation = "uid-1", 1

	first, err := p.Client(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		c, err := p.Client(ctx, f)
		if err != nil || c != first {
			t.Fatalf("pass with nothing changed: %v, same client %v", err, c == first)
		}
	}
	if n := uncached.reads.Load(); n != 1 {
		t.Fatalf("%d uncached Secret reads for 11 passes, want 1", n)
	}

	s.Data["token"] = []byte("rotated")
	if err := store.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	rotated, err := p.Client(ctx, f)
	if err != nil || rotated == first || uncached.reads.Load() != 2 {
		t.Fatalf("after the token changed: %v, new client %v, %d reads; want a new client after one more read", err, rotated != first, uncached.reads.Load())
	}

	f.Generation = 2
	f.Spec.Timeout = &metav1.Duration{Duration: time.Minute}
	if c, err := p.Client(ctx, f); err != nil || c == rotated || uncached.reads.Load() != 3 {
		t.Fatalf("after a spec change: %v, new client %v, %d reads", err, c != rotated, uncached.reads.Load())
	}

	if err := store.Delete(ctx, s); err != nil {
		t.Fatal(err)
	}
	var se *SecretError
	if _, err := p.Client(ctx, f); !errors.As(err, &se) {
		t.Fatalf("a deleted Secret: %v, want a SecretError", err)
	}
}
